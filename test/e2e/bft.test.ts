/**
 * A network of one QBFT (and one IBFT 2.0) validator, as `operator generate-blockchain-config`
 * writes it: the node seals a block every block period without --miner-enabled, with a commit seal
 * by the validator, includes transactions, answers the QBFT/IBFT RPC groups, and continues its
 * chain after a restart. A node without the validator key says why it produces nothing. QBFT's
 * empty-block period and a genesis transition change the pace of empty blocks. A `blockreward` is
 * paid to `miningbeneficiary` in every block, through a `kill -9` and in another node's import.
 */
import { afterAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { RLP } from '@ethereumjs/rlp'
import { type Hex, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { BASALT_BIN, BFT_MIX_HASH, bftSealSigners, generateBftNetwork, type StartedNode, startNode } from './harness.ts'

// Besu's first dev account, funded by the genesis below.
const FUNDED_KEY = '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63' as Hex

// Each test waits for blocks a second apart; a loaded machine stretches that.
setDefaultTimeout(60_000)

const dir = mkdtempSync(join(tmpdir(), 'basalt-bft-'))
const started: StartedNode[] = []
afterAll(async () => {
  await Promise.all(started.map((n) => n.cleanup()))
  rmSync(dir, { recursive: true, force: true })
})

interface Network {
  genesisFile: string
  keyFile: string
  validator: string
}

function generate(kind: 'qbft' | 'ibft2', name: string = kind, config: Record<string, unknown> = {}): Network {
  const out = join(dir, name)
  const genesis = {
    config: {
      chainId: 1337,
      berlinBlock: 0,
      londonBlock: 0,
      [kind]: { blockperiodseconds: 1, requesttimeoutseconds: 4 },
      ...config,
    },
    gasLimit: '0x1fffffffffffff',
    difficulty: '0x1',
    mixHash: BFT_MIX_HASH,
    alloc: { fe3b557e8fb62b89f4916b721be55ceb828dbd73: { balance: '0xad78ebc5ac6200000' } },
  }
  const { genesisFile, keyDirs } = generateBftNetwork(out, genesis, 1)
  const validator = keyDirs[0].split('/').at(-1)!
  return { genesisFile, keyFile: join(keyDirs[0], 'key.priv'), validator }
}

async function start(net: Network, opts: { dataPath?: string; withKey?: boolean; apis?: string } = {}) {
  const args = ['--genesis-file', net.genesisFile, '--rpc-http-api', opts.apis ?? 'ETH,NET,QBFT,IBFT']
  if (opts.withKey !== false) args.push('--node-private-key-file', net.keyFile)
  const node = await startNode({ args, dataPath: opts.dataPath })
  started.push(node)
  return node
}

async function waitForBlock(node: StartedNode, n: number, timeoutMs = 20_000, pollMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Number(await node.rpc<Hex>('eth_blockNumber')) < n) {
    if (Date.now() > deadline) throw new Error(`block ${n} did not come:\n${node.output()}`)
    await Bun.sleep(pollMs)
  }
}

interface RpcBlock {
  hash: Hex
  parentHash: Hex
  miner: string
  difficulty: Hex
  mixHash: Hex
  nonce: Hex
  extraData: Hex
  timestamp: Hex
  transactions: string[]
}

/** A 5 wei transfer from the funded account, its first transaction. */
function signedTransfer(): Promise<Hex> {
  return privateKeyToAccount(FUNDED_KEY).signTransaction({
    type: 'eip1559',
    chainId: 1337,
    to: '0x000000000000000000000000000000000000d00d',
    value: 5n,
    gas: 21000n,
    nonce: 0,
    maxFeePerGas: parseGwei('20'),
    maxPriorityFeePerGas: parseGwei('1'),
  })
}

describe.each(['qbft', 'ibft2'] as const)('a network of one %s validator', (kind) => {
  const net = generate(kind)
  const prefix = kind === 'qbft' ? 'qbft' : 'ibft'
  // The first two tests share one node (they read its chain and votes; neither needs a fresh one).
  let shared: Promise<StartedNode> | undefined
  const sharedNode = () => {
    shared ??= start(net, { apis: 'ETH,NET,DEBUG,QBFT,IBFT' })
    return shared
  }

  it('seals a block every block period, sealed by the validator, and includes transactions', async () => {
    const node = await sharedNode()
    await waitForBlock(node, 2)
    const tx = await signedTransfer()
    const hash = await node.rpc<Hex>('eth_sendRawTransaction', [tx])
    let receipt: { blockNumber: Hex; blockHash: Hex } | null = null
    for (let i = 0; i < 100 && !receipt; i++) {
      receipt = await node.rpc('eth_getTransactionReceipt', [hash])
      if (!receipt) await Bun.sleep(100)
    }
    expect(receipt).not.toBeNull()
    const block = await node.rpc<RpcBlock>('eth_getBlockByNumber', [receipt!.blockNumber, false])
    expect(block.hash).toBe(receipt!.blockHash)
    expect(block.transactions).toEqual([hash])
    expect(block.miner).toBe(net.validator)
    expect(block.difficulty).toBe('0x1')
    expect(block.mixHash).toBe(BFT_MIX_HASH)
    expect(block.nonce).toBe('0x0000000000000000')
    expect(await bftSealSigners(kind, node, block)).toEqual([net.validator])
    const parentNumber = `0x${(Number(receipt!.blockNumber) - 1).toString(16)}`
    const parent = await node.rpc<RpcBlock>('eth_getBlockByNumber', [parentNumber, false])
    expect(block.parentHash).toBe(parent.hash)
    expect(Number(block.timestamp) - Number(parent.timestamp)).toBeGreaterThanOrEqual(1)
    expect(node.output()).toContain('seals blocks (quorum 1)')
  })

  it(`answers the ${prefix.toUpperCase()} group`, async () => {
    const node = await sharedNode()
    await waitForBlock(node, 3)
    expect(await node.rpc(`${prefix}_getValidatorsByBlockNumber`, ['latest'])).toEqual([net.validator])
    // The next block's validators (QBFT) or the head's (IBFT 2.0): the same one validator here.
    expect(await node.rpc(`${prefix}_getValidatorsByBlockNumber`, ['pending'])).toEqual([net.validator])
    const head = await node.rpc<RpcBlock>('eth_getBlockByNumber', ['latest', false])
    expect(await node.rpc(`${prefix}_getValidatorsByBlockHash`, [head.hash])).toEqual([net.validator])
    expect(await node.rpc(`${prefix}_getValidatorsByBlockHash`, [`0x${'00'.repeat(32)}`])).toBeNull()
    const candidate = '0x000000000000000000000000000000000000beef'
    expect(await node.rpc(`${prefix}_proposeValidatorVote`, [candidate, true])).toBe(true)
    expect(await node.rpc(`${prefix}_getPendingVotes`)).toEqual({ [candidate]: true })
    expect(await node.rpc(`${prefix}_discardValidatorVote`, [candidate])).toBe(true)
    expect(await node.rpc(`${prefix}_getPendingVotes`)).toEqual({})
    const metrics = await node.rpc<{ address: string; proposedBlockCount: Hex }[]>(`${prefix}_getSignerMetrics`, [
      '0x1',
    ])
    // Blocks 1 and 2 at least: the range ends before the head.
    expect(metrics).toHaveLength(1)
    expect(metrics[0].address).toBe(net.validator)
    expect(Number(metrics[0].proposedBlockCount)).toBeGreaterThanOrEqual(2)
    await expect(node.rpc(`${prefix}_getSignerMetrics`, ['0x5', '0x1'])).rejects.toMatchObject({ code: -32602 })
    await expect(node.rpc(`${prefix}_proposeValidatorVote`, ['0x12', true])).rejects.toMatchObject({ code: -32602 })
    const other = prefix === 'qbft' ? 'ibft' : 'qbft'
    await expect(node.rpc(`${other}_getPendingVotes`)).rejects.toMatchObject({ code: -32601 })
    if (kind === 'qbft') expect(await node.rpc('qbft_getRequestTimeoutSeconds')).toBe(4)
  })

  it('continues its chain after a restart', async () => {
    const dataPath = join(dir, `${kind}-restart`)
    const first = await start(net, { dataPath })
    await waitForBlock(first, 2)
    await first.stop('SIGKILL')
    const second = await start(net, { dataPath })
    const head = Number(await second.rpc<Hex>('eth_blockNumber'))
    expect(head).toBeGreaterThanOrEqual(2)
    const before = await second.rpc<RpcBlock>('eth_getBlockByNumber', [`0x${head.toString(16)}`, false])
    await waitForBlock(second, head + 2)
    const next = await second.rpc<RpcBlock>('eth_getBlockByNumber', [`0x${(head + 1).toString(16)}`, false])
    expect(next.parentHash).toBe(before.hash)
    await second.stop()
    // The exported chain imports elsewhere with its seals checked; a forged seal is refused.
    const file = join(dir, `${kind}-chain.rlp`)
    const blocks = (args: string[]) => Bun.spawnSync([BASALT_BIN, 'blocks', ...args, '--genesis-file', net.genesisFile])
    expect(blocks(['export', '--data-path', dataPath, '--to', file]).exitCode).toBe(0)
    const imported = blocks(['import', '--data-path', join(dir, `${kind}-imported`), '--from', file])
    expect(imported.exitCode).toBe(0)
    // The node may seal more blocks between reaching head + 2 and its stop: at least, not exactly.
    const importedHead = Number(/head (\d+) /.exec(imported.stdout.toString())?.[1])
    expect(importedHead).toBeGreaterThanOrEqual(head + 2)
    const block1 = RLP.decode(readFileSync(file), true).data as unknown as Uint8Array[][]
    const extra = RLP.decode(block1[0][12]) as unknown as Uint8Array[][]
    extra[4][0][10] ^= 1
    block1[0][12] = RLP.encode(extra as never)
    writeFileSync(file, RLP.encode(block1 as never))
    const forged = blocks(['import', '--data-path', join(dir, `${kind}-forged`), '--from', file])
    expect(forged.exitCode).toBe(1)
    expect(forged.stderr.toString()).toMatch(/bad block 1 .*commit seal/)
  })

  it('produces nothing without the validator key, and says why', async () => {
    const node = await start(net, { withKey: false })
    await Bun.sleep(2500)
    expect(await node.rpc('eth_blockNumber')).toBe('0x0')
    expect(node.output()).toContain(`is not one of the 1 validators (${net.validator})`)
  })
})

describe('QBFT empty-block period and transitions', () => {
  it('waits emptyblockperiodseconds for an empty block, not for one with a transaction, and follows a transition', async () => {
    const net = generate('qbft', 'qbft-empty', {
      qbft: { blockperiodseconds: 1, emptyblockperiodseconds: 3, requesttimeoutseconds: 10 },
      transitions: { qbft: [{ block: 5, blockperiodseconds: 2, emptyblockperiodseconds: 0 }] },
    })
    const node = await start(net)
    await waitForBlock(node, 2, 30_000)
    const tx = await signedTransfer()
    const txHash = await node.rpc<Hex>('eth_sendRawTransaction', [tx])
    await waitForBlock(node, 7, 40_000)
    const blocks: RpcBlock[] = []
    for (let n = 0; n <= 7; n++)
      blocks.push(await node.rpc<RpcBlock>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]))
    const gap = (n: number) => Number(blocks[n].timestamp) - Number(blocks[n - 1].timestamp)
    const withTx = blocks.findIndex((b) => b.transactions.includes(txHash))
    expect(withTx).toBeGreaterThanOrEqual(3)
    // Empty blocks before the transition come the empty-block period after their parent ...
    // (a second more only when the timer fires late on a loaded machine)
    for (let n = 2; n < 5; n++) if (n !== withTx) expect([3, 4]).toContain(gap(n))
    // ... one with a transaction after the block period, not the empty-block period.
    if (withTx < 5) expect(gap(withTx)).toBeLessThan(3)
    // From block 5 on the transition's 2 s block period holds and empty blocks no longer wait.
    for (let n = 6; n <= 7; n++) expect(gap(n)).toBe(2)
    expect(await node.rpc('qbft_getRequestTimeoutSeconds')).toBe(10)
  }, 90_000)
})

describe('a QBFT block reward', () => {
  it('pays blockreward to miningbeneficiary in every block, after a kill -9 and in an import elsewhere', async () => {
    const beneficiary = '0x000000000000000000000000000000000000b0b0'
    const reward = 5n * 10n ** 17n
    const net = generate('qbft', 'qbft-reward', {
      qbft: {
        blockperiodseconds: 1,
        requesttimeoutseconds: 4,
        blockreward: `0x${reward.toString(16)}`,
        miningbeneficiary: beneficiary,
      },
    })
    const dataPath = join(dir, 'qbft-reward-data')
    let second = await start(net, { dataPath })
    await waitForBlock(second, 3, 20_000, 20)
    // The blocks whose state was not flushed are replayed at start, reward included. A block's state
    // is flushed a second after it, about when the next block comes: a kill -9 just after a block
    // finds it unflushed, unless a loaded machine delayed the kill; then the next block is killed on.
    for (let attempt = 1; attempt <= 5; attempt++) {
      await second.stop('SIGKILL')
      second = await start(net, { dataPath })
      if (second.output().includes('rebuilt unflushed state') || attempt === 5) break
      await waitForBlock(second, Number(await second.rpc<Hex>('eth_blockNumber')) + 1, 20_000, 20)
    }
    const head = Number(await second.rpc<Hex>('eth_blockNumber'))
    expect(second.output()).toContain('rebuilt unflushed state')
    await waitForBlock(second, head + 1)
    const balance = async (n: number) =>
      BigInt(await second.rpc<Hex>('eth_getBalance', [beneficiary, `0x${n.toString(16)}`]))
    for (let n = 0; n <= head + 1; n++) expect(await balance(n)).toBe(BigInt(n) * reward)
    await second.stop()
    // Another node executes the exported blocks and finds every state root, with the reward.
    const file = join(dir, 'qbft-reward.rlp')
    const blocks = (args: string[]) => Bun.spawnSync([BASALT_BIN, 'blocks', ...args, '--genesis-file', net.genesisFile])
    expect(blocks(['export', '--data-path', dataPath, '--to', file]).exitCode).toBe(0)
    const imported = blocks(['import', '--data-path', join(dir, 'qbft-reward-imported'), '--from', file])
    expect(imported.exitCode).toBe(0)
    // The node may have sealed a block more before it stopped.
    const importedHead = Number(/head (\d+)/.exec(imported.stdout.toString())?.[1])
    expect(importedHead).toBeGreaterThanOrEqual(head + 1)
  }, 150_000)
})
