/**
 * Besu's free-gas networks: a QBFT genesis with `zeroBaseFee: true` (every block's base fee 0, and
 * with `--min-gas-price 0` transactions that pay nothing are mined) and a post-merge dev genesis
 * with `fixedBaseFee: true` (every block's base fee is `--min-gas-price`). Each answers blocks,
 * receipts and the fee methods with Besu's values, continues after a restart, and its exported
 * blocks import into another data path. A QBFT network that reaches London after its genesis gives
 * the fork block the zero base fee and, as EIP-1559 wants, twice its parent's gas limit.
 */
import { afterAll, describe, expect, it, setDefaultTimeout } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Hex, TransactionSerializable } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { BASALT_BIN, BFT_MIX_HASH, generateBftNetwork, type StartedNode, startNode, until } from './harness.ts'

// Besu's first dev account, funded by the genesis files below.
const FUNDED_KEY = '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63' as Hex
const FUNDED = privateKeyToAccount(FUNDED_KEY)
const TO = '0x000000000000000000000000000000000000c0de'
const ALLOC = { fe3b557e8fb62b89f4916b721be55ceb828dbd73: { balance: '0xad78ebc5ac6200000' } }

// QBFT blocks come a second apart; a loaded machine stretches that.
setDefaultTimeout(90_000)

const dir = mkdtempSync(join(tmpdir(), 'basalt-freegas-'))
const started: StartedNode[] = []
afterAll(async () => {
  await Promise.all(started.map((n) => n.cleanup()))
  rmSync(dir, { recursive: true, force: true })
})

async function start(args: string[], dataPath: string): Promise<StartedNode> {
  const node = await startNode({ args, dataPath })
  started.push(node)
  return node
}

function sign(tx: Partial<TransactionSerializable>): Promise<Hex> {
  return FUNDED.signTransaction({ chainId: 1337, to: TO, value: 1n, gas: 21_000n, ...tx } as TransactionSerializable)
}

interface Receipt {
  status: Hex
  gasUsed: Hex
  effectiveGasPrice: Hex
  blockNumber: Hex
}

function receiptOf(node: StartedNode, hash: Hex): Promise<Receipt> {
  return until(
    `receipt of ${hash}`,
    () => node.rpc<Receipt | null>('eth_getTransactionReceipt', [hash]),
    (r) => r !== null,
    30_000,
  ) as Promise<Receipt>
}

const blockNumber = async (node: StartedNode) => Number(await node.rpc<Hex>('eth_blockNumber'))
const baseFeeAt = async (node: StartedNode, n: number) =>
  (await node.rpc<{ baseFeePerGas: Hex }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])).baseFeePerGas

/** Exports the chain of `dataPath` and imports it into a fresh data path; answers the import's head. */
function exportAndImport(genesisFile: string, dataPath: string, name: string): number {
  const file = join(dir, `${name}.rlp`)
  const blocks = (args: string[]) => Bun.spawnSync([BASALT_BIN, 'blocks', ...args, '--genesis-file', genesisFile])
  const exported = blocks(['export', '--data-path', dataPath, '--to', file])
  expect(exported.exitCode).toBe(0)
  const imported = blocks(['import', '--data-path', join(dir, `${name}-imported`), '--from', file])
  expect(imported.stderr.toString()).toBe('')
  expect(imported.exitCode).toBe(0)
  return Number(/head (\d+)/.exec(imported.stdout.toString())?.[1])
}

/** A one-validator QBFT network with zeroBaseFee whose London comes at `londonBlock`. */
function zeroBaseFeeQbft(name: string, londonBlock: number, gasLimit: Hex) {
  const genesis = {
    config: {
      chainId: 1337,
      berlinBlock: 0,
      londonBlock,
      zeroBaseFee: true,
      qbft: { blockperiodseconds: 1, requesttimeoutseconds: 4 },
    },
    gasLimit,
    difficulty: '0x1',
    mixHash: BFT_MIX_HASH,
    alloc: ALLOC,
  }
  const { genesisFile, keyDirs } = generateBftNetwork(join(dir, name), genesis, 1)
  return { genesisFile, keyFile: join(keyDirs[0], 'key.priv') }
}

describe('a QBFT network with zeroBaseFee', () => {
  const { genesisFile, keyFile } = zeroBaseFeeQbft('qbft', 0, '0x1fffffffffffff')
  const args = (minGasPrice: string) => [
    '--genesis-file',
    genesisFile,
    '--node-private-key-file',
    keyFile,
    '--min-gas-price',
    minGasPrice,
  ]
  const dataPath = join(dir, 'qbft-data')

  it('mines transactions that pay nothing in blocks of base fee 0, and answers the fee methods with 0', async () => {
    const node = await start(args('0'), dataPath)
    expect(node.output()).toContain('Forcing price bump for transaction replacement to 0')
    const balanceBefore = BigInt(await node.rpc<Hex>('eth_getBalance', [FUNDED.address, 'latest']))
    const legacy = await node.rpc<Hex>('eth_sendRawTransaction', [await sign({ nonce: 0, gasPrice: 0n })])
    const dynamic = await node.rpc<Hex>('eth_sendRawTransaction', [
      await sign({ type: 'eip1559', nonce: 1, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n }),
    ])
    for (const hash of [legacy, dynamic]) {
      const r = await receiptOf(node, hash)
      expect([r.status, r.gasUsed, r.effectiveGasPrice]).toEqual(['0x1', '0x5208', '0x0'])
      expect(await baseFeeAt(node, Number(r.blockNumber))).toBe('0x0')
    }
    // Only the two transferred wei left the account: no fee was paid.
    expect(BigInt(await node.rpc<Hex>('eth_getBalance', [FUNDED.address, 'latest']))).toBe(balanceBefore - 2n)
    // The genesis keeps the default 1 gwei; every block after it has 0.
    expect(await baseFeeAt(node, 0)).toBe('0x3b9aca00')
    const head = await blockNumber(node)
    for (let n = 1; n <= head; n++) expect(await baseFeeAt(node, n)).toBe('0x0')
    expect(await node.rpc('eth_gasPrice')).toBe('0x0')
    expect(await node.rpc('eth_maxPriorityFeePerGas')).toBe('0x0')
    const history = await node.rpc<{ baseFeePerGas: Hex[] }>('eth_feeHistory', ['0x2', 'latest', [50]])
    expect(history.baseFeePerGas).toEqual(['0x0', '0x0', '0x0'])
    const call = { from: FUNDED.address, to: TO, value: '0x1', gasPrice: '0x0' }
    expect(await node.rpc('eth_estimateGas', [call])).toBe('0x5208')
    expect(await node.rpc('eth_call', [call, 'latest'])).toBe('0x')
    // The price bump is 0: a replacement at the same price takes the place of a queued transaction.
    await node.rpc('eth_sendRawTransaction', [await sign({ nonce: 50, gasPrice: 0n, value: 1n })])
    await node.rpc('eth_sendRawTransaction', [await sign({ nonce: 50, gasPrice: 0n, value: 2n })])
    await node.stop()
  })

  it('continues with base fee 0 after a restart, and its blocks import elsewhere', async () => {
    const node = await start(args('0'), dataPath)
    const head = await blockNumber(node)
    await until(
      'a block after the restart',
      () => blockNumber(node),
      (n) => n > head + 1,
      30_000,
    )
    expect(await baseFeeAt(node, head + 1)).toBe('0x0')
    const hash = await node.rpc<Hex>('eth_sendRawTransaction', [await sign({ nonce: 2, gasPrice: 0n })])
    expect((await receiptOf(node, hash)).effectiveGasPrice).toBe('0x0')
    const last = await blockNumber(node)
    await node.stop()
    expect(exportAndImport(genesisFile, dataPath, 'qbft')).toBeGreaterThanOrEqual(last)
  })

  it("refuses a transaction below Besu's default minimum gas price, as Besu does without --min-gas-price 0", async () => {
    const node = await start(args('1000'), join(dir, 'qbft-min-price'))
    const refused = await node.rpcRaw({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_sendRawTransaction',
      params: [await sign({ nonce: 0, gasPrice: 0n })],
    })
    expect(refused.json.error).toEqual({ code: -32009, message: 'Gas price below configured minimum gas price' })
    await node.stop()
  })
})

describe('a QBFT network that moves to London with zeroBaseFee at block 3', () => {
  it('seals the fork block with base fee 0 and twice the gas limit, and its blocks import elsewhere', async () => {
    const { genesisFile, keyFile } = zeroBaseFeeQbft('qbft-later', 3, '0x1c9c380')
    const dataPath = join(dir, 'qbft-later-data')
    const node = await start(['--genesis-file', genesisFile, '--node-private-key-file', keyFile], dataPath)
    await until(
      'block 4',
      () => blockNumber(node),
      (n) => n >= 4,
      30_000,
    )
    const block = (n: number) =>
      node.rpc<{ baseFeePerGas?: Hex; gasLimit: Hex }>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false])
    const [second, fork, after] = [await block(2), await block(3), await block(4)]
    expect(second.baseFeePerGas).toBeUndefined()
    expect([fork.baseFeePerGas, after.baseFeePerGas]).toEqual(['0x0', '0x0'])
    expect(BigInt(fork.gasLimit)).toBe(2n * BigInt(second.gasLimit))
    const last = await blockNumber(node)
    await node.stop()
    expect(exportAndImport(genesisFile, dataPath, 'qbft-later')).toBeGreaterThanOrEqual(last)
  })
})

describe('a post-merge dev chain with fixedBaseFee', () => {
  const genesisFile = join(dir, 'fixed.json')
  writeFileSync(
    genesisFile,
    JSON.stringify({
      config: {
        chainId: 1337,
        berlinBlock: 0,
        londonBlock: 0,
        terminalTotalDifficulty: 0,
        shanghaiTime: 0,
        fixedBaseFee: true,
      },
      gasLimit: '0x1c9c380',
      difficulty: '0x0',
      alloc: ALLOC,
    }),
  )
  const dataPath = join(dir, 'fixed-data')
  const args = ['--genesis-file', genesisFile, '--miner-enabled', '--min-gas-price', '7']

  it('gives every block the minimum gas price as its base fee, through a restart and an import', async () => {
    const node = await start(args, dataPath)
    const hash = await node.rpc<Hex>('eth_sendRawTransaction', [await sign({ nonce: 0, gasPrice: 7n })])
    const r = await receiptOf(node, hash)
    expect([r.status, r.effectiveGasPrice]).toEqual(['0x1', '0x7'])
    expect(await baseFeeAt(node, Number(r.blockNumber))).toBe('0x7')
    expect(await node.rpc('eth_gasPrice')).toBe('0x7')
    const history = await node.rpc<{ baseFeePerGas: Hex[] }>('eth_feeHistory', ['0x1', 'latest', []])
    expect(history.baseFeePerGas).toEqual(['0x7', '0x7'])
    // A full price that falls below the fixed base fee cannot be mined.
    const low = await node.rpcRaw({
      jsonrpc: '2.0',
      id: 1,
      method: 'eth_sendRawTransaction',
      params: [await sign({ nonce: 1, gasPrice: 6n })],
    })
    expect(low.json.error.code).toBe(-32009)
    await node.stop()
    const again = await start(args, dataPath)
    const next = await again.rpc<Hex>('eth_sendRawTransaction', [await sign({ nonce: 1, gasPrice: 7n })])
    const r2 = await receiptOf(again, next)
    expect(await baseFeeAt(again, Number(r2.blockNumber))).toBe('0x7')
    const last = await blockNumber(again)
    await again.stop()
    expect(exportAndImport(genesisFile, dataPath, 'fixed')).toBe(last)
    // Besu's JSON block format: built here with the fixed base fee of --min-gas-price.
    const json = join(dir, 'fixed-blocks.json')
    writeFileSync(
      json,
      JSON.stringify({
        blocks: [
          { transactions: [{ gasLimit: '0x5208', gasPrice: '0x9', to: TO, value: '0x1', secretKey: FUNDED_KEY }] },
        ],
      }),
    )
    const imported = Bun.spawnSync([
      BASALT_BIN,
      'blocks',
      'import',
      '--format',
      'JSON',
      '--genesis-file',
      genesisFile,
      '--data-path',
      join(dir, 'fixed-json'),
      '--min-gas-price',
      '9',
      '--from',
      json,
    ])
    expect(imported.stderr.toString()).toBe('')
    expect(imported.exitCode).toBe(0)
    const replica = await start(args.slice(0, 2), join(dir, 'fixed-json'))
    expect(await baseFeeAt(replica, 1)).toBe('0x9')
    await replica.stop()
  })
})
