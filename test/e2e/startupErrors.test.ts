/**
 * Mistakes at start get a message naming them before anything listens: one port for two listeners,
 * an unwritable --config-out; and a node that will make no blocks says why.
 */
import { afterAll, describe, expect, it } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BASALT_BIN, startNode } from './harness.ts'

const dir = mkdtempSync(join(tmpdir(), 'basalt-start-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

async function runToExit(args: string[]) {
  const proc = Bun.spawn([BASALT_BIN, 'run', '--data-path', ':memory:', ...args], { stdout: 'pipe', stderr: 'pipe' })
  const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000)
  const code = await proc.exited
  clearTimeout(timer)
  return { code, stderr: (await new Response(proc.stderr as ReadableStream).text()).trim() }
}

describe('basalt run refuses at once', () => {
  it('one port for the HTTP and WebSocket listeners, naming both options', async () => {
    expect(await runToExit(['--rpc-http-port', '18546', '--rpc-ws-port', '18546'])).toEqual({
      code: 2,
      stderr:
        'basalt: --rpc-http-port and --rpc-ws-port are both 18546: each listener needs its own port (the HTTP port accepts WebSocket upgrades too: --rpc-ws-enabled=false needs no second port)',
    })
  })

  it('a --config-out in a missing directory, before the node starts', async () => {
    const file = join(dir, 'missing', 'out.json')
    expect(await runToExit(['--rpc-http-port', '0', '--rpc-ws-port', '0', '--config-out', file])).toEqual({
      code: 2,
      stderr: `basalt: Cannot write --config-out ${file}: directory ${join(dir, 'missing')} does not exist`,
    })
  })
})

describe('basalt run logs', () => {
  it('the WebSocket listener with a ws:// address', async () => {
    const node = await startNode()
    try {
      expect(node.output()).toMatch(/listening url=ws:\/\/127\.0\.0\.1:\d+/)
      expect(node.output()).toMatch(/listening url=http:\/\/127\.0\.0\.1:\d+/)
    } finally {
      await node.cleanup()
    }
  })

  it('why no block comes on a BFT genesis without a way to seal', async () => {
    const genesis = join(dir, 'qbft.json')
    const config = { chainId: 4242, londonBlock: 0, qbft: { blockperiodseconds: 1, epochlength: 30000 } }
    writeFileSync(genesis, JSON.stringify({ config, gasLimit: '0x1c9c380', difficulty: '0x1', alloc: {} }))
    const node = await startNode({ args: ['--genesis-file', genesis] })
    try {
      expect(node.output()).toContain(
        'no block will be produced reason="the genesis asks for qbft sealing, which Basalt does not do yet; start with --miner-enabled',
      )
    } finally {
      await node.cleanup()
    }
  })
})
