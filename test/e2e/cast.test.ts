/** Foundry's `cast` (from the npm package) against the dev chain, as a user would type it. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { existsSync } from 'node:fs'
import { type StartedNode, startNode } from './harness.ts'

const CAST = new URL('../../node_modules/@foundry-rs/cast-linux-amd64/bin/cast', import.meta.url).pathname
const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
let node: StartedNode

beforeAll(async () => {
  node = await startNode()
})
afterAll(async () => {
  await node?.cleanup()
})

async function cast(...args: string[]): Promise<string> {
  const proc = Bun.spawn([CAST, ...args, '--rpc-url', node.url], {
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, HOME: node.dir },
  })
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout as ReadableStream).text(),
    new Response(proc.stderr as ReadableStream).text(),
    proc.exited,
  ])
  if (code !== 0) throw new Error(`cast ${args.join(' ')} failed: ${err}`)
  return out.trim()
}

describe.skipIf(!existsSync(CAST))('cast', () => {
  it('reads chain id, block number and a dev balance', async () => {
    expect(await cast('chain-id')).toBe('1337')
    expect(Number(await cast('block-number'))).toBeGreaterThanOrEqual(0)
    expect(await cast('balance', '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', '--ether')).toBe(
      '10000.000000000000000000',
    )
  })

  it('sends ether and reads the receipt', async () => {
    const to = '0x000000000000000000000000000000000000cafe'
    const out = await cast('send', '--private-key', KEY, '--gas-limit', '21000', to, '--value', '1ether', '--json')
    const receipt = JSON.parse(out)
    expect(receipt.status).toBe('0x1')
    expect(await cast('balance', to)).toBe('1000000000000000000')
  })
})
