/**
 * Besu's IBFT 2.0 to QBFT migration: a genesis with both `ibft2` and `qbft`, `qbft.startBlock` 3. A
 * network of one validator seals IBFT 2.0 blocks (IBFT 2.0 extraData and commit seals) below block 3
 * and QBFT ones from it, carries on after a restart, answers both the IBFT and the QBFT groups (as
 * Besu registers both on such a chain), and its exported chain imports into a fresh data path.
 */
import { afterAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RLP } from '@ethereumjs/rlp'
import type { Hex } from 'viem'
import { BASALT_BIN, BFT_MIX_HASH, bftSealSigners, generateBftNetwork, type StartedNode, startNode } from './harness.ts'

setDefaultTimeout(90_000)

const START_BLOCK = 3
const dir = mkdtempSync(join(tmpdir(), 'basalt-bft-migration-'))
const started: StartedNode[] = []
afterAll(async () => {
  await Promise.all(started.map((n) => n.cleanup()))
  rmSync(dir, { recursive: true, force: true })
})

const genesis = {
  config: {
    chainId: 1337,
    berlinBlock: 0,
    londonBlock: 0,
    ibft2: { blockperiodseconds: 1, requesttimeoutseconds: 4 },
    qbft: { blockperiodseconds: 1, requesttimeoutseconds: 5, startBlock: START_BLOCK },
  },
  gasLimit: '0x1fffffffffffff',
  difficulty: '0x1',
  mixHash: BFT_MIX_HASH,
  alloc: {},
}
const { genesisFile, keyDirs } = generateBftNetwork(join(dir, 'net'), genesis, 1)
const keyFile = join(keyDirs[0], 'key.priv')
const validator = keyDirs[0].split('/').at(-1)!

async function start(dataPath: string) {
  const args = [
    '--genesis-file',
    genesisFile,
    '--rpc-http-api',
    'ETH,DEBUG,QBFT,IBFT',
    '--node-private-key-file',
    keyFile,
  ]
  const node = await startNode({ args, dataPath })
  started.push(node)
  return node
}

async function waitForBlock(node: StartedNode, n: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Number(await node.rpc<Hex>('eth_blockNumber')) < n) {
    if (Date.now() > deadline) throw new Error(`block ${n} did not come:\n${node.output()}`)
    await Bun.sleep(100)
  }
}

interface RpcBlock {
  hash: Hex
  parentHash: Hex
  miner: string
  extraData: Hex
}

type Extra = [Uint8Array, Uint8Array[], Uint8Array | Uint8Array[], Uint8Array, Uint8Array[]]

/**
 * The protocol whose layout an extraData has: IBFT 2.0 writes no vote as an empty string and the
 * round as 4 bytes; QBFT no vote as an empty list and the round as a scalar.
 */
function layoutOf(extraData: Hex): 'ibft2' | 'qbft' | 'neither' {
  const [, , vote, round] = RLP.decode(extraData) as unknown as Extra
  if (vote instanceof Uint8Array && vote.length === 0 && round.length === 4) return 'ibft2'
  if (Array.isArray(vote) && vote.length === 0 && round.length <= 4 && round[0] !== 0) return 'qbft'
  return 'neither'
}

const blockAt = (node: StartedNode, n: number) =>
  node.rpc<RpcBlock>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])

describe('a chain migrating from IBFT 2.0 to QBFT at block 3', () => {
  const dataPath = join(dir, 'data')

  it('seals IBFT 2.0 blocks below the start block and QBFT blocks from it, and answers both groups', async () => {
    const node = await start(dataPath)
    await waitForBlock(node, START_BLOCK + 2)
    expect(layoutOf((await blockAt(node, 0)).extraData)).toBe('ibft2')
    for (let n = 1; n <= START_BLOCK + 2; n++) {
      const block = await blockAt(node, n)
      const kind = n < START_BLOCK ? 'ibft2' : 'qbft'
      expect([n, layoutOf(block.extraData)]).toEqual([n, kind])
      expect(await bftSealSigners(kind, node, block)).toEqual([validator])
      expect(block.miner).toBe(validator)
      expect(block.parentHash).toBe((await blockAt(node, n - 1)).hash)
    }
    expect(node.output()).toContain('consensus switches protocol')
    for (const prefix of ['ibft', 'qbft']) {
      for (const n of ['0x1', '0x4', 'latest'])
        expect(await node.rpc(`${prefix}_getValidatorsByBlockNumber`, [n])).toEqual([validator])
      const block2 = await blockAt(node, 2)
      expect(await node.rpc(`${prefix}_getValidatorsByBlockHash`, [block2.hash])).toEqual([validator])
      const metrics = await node.rpc(`${prefix}_getSignerMetrics`, ['0x1', '0x5'])
      expect(metrics).toEqual([{ address: validator, proposedBlockCount: '0x4', lastProposedBlockNumber: '0x4' }])
    }
    expect(await node.rpc('qbft_getRequestTimeoutSeconds')).toBe(5)
    await node.stop()
  })

  it('carries on after a restart, and its exported chain imports into a fresh data path', async () => {
    const node = await start(dataPath)
    const head = Number(await node.rpc<Hex>('eth_blockNumber'))
    expect(head).toBeGreaterThanOrEqual(START_BLOCK + 2)
    await waitForBlock(node, head + 2)
    const next = await blockAt(node, head + 1)
    expect(next.parentHash).toBe((await blockAt(node, head)).hash)
    expect(layoutOf(next.extraData)).toBe('qbft')
    await node.stop()
    const file = join(dir, 'chain.rlp')
    const blocks = (args: string[]) => Bun.spawnSync([BASALT_BIN, 'blocks', ...args, '--genesis-file', genesisFile])
    expect(blocks(['export', '--data-path', dataPath, '--to', file]).exitCode).toBe(0)
    const imported = blocks(['import', '--data-path', join(dir, 'imported'), '--from', file])
    expect(imported.stderr.toString()).toBe('')
    expect(imported.exitCode).toBe(0)
    expect(Number(/head (\d+) /.exec(imported.stdout.toString())?.[1])).toBeGreaterThanOrEqual(head + 2)
    // A JSON block file is refused as on any BFT chain, naming the genesis engine as Besu does.
    const json = join(dir, 'blocks.json')
    writeFileSync(json, JSON.stringify({ blocks: [{ transactions: [] }] }))
    const refused = blocks(['import', '--format=JSON', '--data-path', join(dir, 'json'), '--from', json])
    expect(refused.exitCode).toBe(1)
    expect(refused.stderr.toString()).toBe('basalt: Unable to create block using current consensus engine: ibft2\n')
  })
})
