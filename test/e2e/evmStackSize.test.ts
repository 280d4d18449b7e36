/**
 * Besu's genesis `config.evmStackSize`: on a dev chain whose frames hold 1100 stack items, a
 * contract creation that pushes 1050 items succeeds and one that pushes 1101 fails, in mined blocks
 * and in eth_call / eth_estimateGas; the chain continues after a restart, and another data path
 * that imports its exported blocks re-executes both to the same state.
 */
import { afterAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Hex, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { BASALT_BIN, type StartedNode, startNode, until } from './harness.ts'

const FUNDED = privateKeyToAccount('0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63')

setDefaultTimeout(90_000)

const dir = mkdtempSync(join(tmpdir(), 'basalt-stack-'))
const started: StartedNode[] = []
afterAll(async () => {
  await Promise.all(started.map((n) => n.cleanup()))
  rmSync(dir, { recursive: true, force: true })
})

/** Init code that pushes `count` items (PUSH1 1 each) and stops: it deploys nothing. */
const pusher = (count: number): Hex => `0x${'6001'.repeat(count)}00`

describe('a genesis with evmStackSize 1100', () => {
  const genesisFile = join(dir, 'genesis.json')
  writeFileSync(
    genesisFile,
    JSON.stringify({
      config: { chainId: 1337, londonBlock: 0, terminalTotalDifficulty: 0, shanghaiTime: 0, evmStackSize: 1100 },
      gasLimit: '0x1c9c380',
      difficulty: '0x0',
      alloc: { fe3b557e8fb62b89f4916b721be55ceb828dbd73: { balance: '0xad78ebc5ac6200000' } },
    }),
  )
  const dataPath = join(dir, 'data')
  const args = ['--genesis-file', genesisFile, '--miner-enabled']

  async function start(): Promise<StartedNode> {
    const node = await startNode({ args, dataPath })
    started.push(node)
    return node
  }

  async function create(node: StartedNode, nonce: number, count: number): Promise<Hex> {
    const raw = await FUNDED.signTransaction({
      chainId: 1337,
      nonce,
      gas: 600_000n,
      gasPrice: parseGwei('2'),
      data: pusher(count),
    })
    const hash = await node.rpc<Hex>('eth_sendRawTransaction', [raw])
    const receipt = await until(
      `receipt of ${hash}`,
      () => node.rpc<{ status: Hex } | null>('eth_getTransactionReceipt', [hash]),
      (r) => r !== null,
    )
    return receipt!.status
  }

  it('runs frames above 1024 items up to 1100, and fails past them, through a restart and an import', async () => {
    const node = await start()
    const call = (count: number) => ({ from: FUNDED.address, data: pusher(count) })
    expect(await node.rpc('eth_call', [call(1050), 'latest'])).toBe('0x')
    expect(BigInt(await node.rpc<Hex>('eth_estimateGas', [call(1100)]))).toBeGreaterThan(53_000n)
    await expect(node.rpc('eth_call', [call(1101), 'latest'])).rejects.toThrow()
    expect(await create(node, 0, 1050)).toBe('0x1')
    expect(await create(node, 1, 1101)).toBe('0x0')
    await node.stop()
    const again = await start()
    expect(await create(again, 2, 1100)).toBe('0x1')
    const head = Number(await again.rpc<Hex>('eth_blockNumber'))
    await again.stop()
    const file = join(dir, 'blocks.rlp')
    const blocks = (a: string[]) => Bun.spawnSync([BASALT_BIN, 'blocks', ...a, '--genesis-file', genesisFile])
    expect(blocks(['export', '--data-path', dataPath, '--to', file]).exitCode).toBe(0)
    const imported = blocks(['import', '--data-path', join(dir, 'imported'), '--from', file])
    expect(imported.stderr.toString()).toBe('')
    expect(Number(/head (\d+)/.exec(imported.stdout.toString())?.[1])).toBe(head)
  })
})
