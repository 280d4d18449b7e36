/**
 * The less common methods of the ETH/NET/WEB3 surface, answered by the binary: fee history with
 * gas-weighted percentiles, the gas price oracle, uncles, pending transaction filters and the
 * constant answers a client reads at start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { type Hex, keccak256, parseGwei, toHex } from 'viem'
import { type StartedNode, signTransfer, startNode } from './harness.ts'

let node: StartedNode
/** The block holding a 21,000 gas transfer tipping 1 gwei and a 53,000 gas creation tipping 5 gwei. */
let pairBlock: string

async function receipt(hash: string) {
  for (let i = 0; i < 200; i++) {
    const r = await node.rpc<{ blockNumber: string; blockHash: string; gasUsed: string } | null>(
      'eth_getTransactionReceipt',
      [hash],
    )
    if (r) return r
    await Bun.sleep(10)
  }
  throw new Error(`transaction ${hash} was not mined`)
}

beforeAll(async () => {
  node = await startNode()
  const key = node.config.accounts[6].privateKey as Hex
  const fees = { maxFeePerGas: parseGwei('20') }
  // Nonce 1 waits queued until nonce 0 arrives; then the sealer takes both into one block.
  const creation = await signTransfer(key, {
    ...fees,
    nonce: 1,
    to: null,
    value: 0n,
    gas: 60_000n,
    maxPriorityFeePerGas: parseGwei('5'),
  })
  const transfer = await signTransfer(key, { ...fees, nonce: 0, maxPriorityFeePerGas: parseGwei('1') })
  const second = await node.rpc<string>('eth_sendRawTransaction', [creation])
  const first = await node.rpc<string>('eth_sendRawTransaction', [transfer])
  const [a, b] = [await receipt(first), await receipt(second)]
  expect(a.blockNumber).toBe(b.blockNumber)
  expect([a.gasUsed, b.gasUsed]).toEqual([toHex(21_000), toHex(53_000)])
  pairBlock = a.blockNumber
})
afterAll(async () => {
  await node?.cleanup()
})

interface FeeHistory {
  oldestBlock: string
  baseFeePerGas: string[]
  gasUsedRatio: number[]
  reward: string[][]
  baseFeePerBlobGas: string[]
  blobGasUsedRatio: number[]
}

describe('eth_feeHistory', () => {
  it('weights the reward percentiles by gas used, not by transaction count', async () => {
    const h = await node.rpc<FeeHistory>('eth_feeHistory', ['0x1', pairBlock, [0, 25, 40, 50, 100]])
    expect(h.oldestBlock).toBe(pairBlock)
    // 21,000 of 74,000 gas (28%) tipped 1 gwei, the rest 5 gwei.
    const [one, five] = [toHex(parseGwei('1')), toHex(parseGwei('5'))]
    expect(h.reward).toEqual([[one, one, five, five, five]])
    expect(h.baseFeePerGas).toHaveLength(2)
    expect(h.gasUsedRatio[0]).toBeCloseTo(74_000 / 60_000_000, 9)
  })

  it('serves 1 to 1024 blocks, capped at the chain, and refuses 0 and 1025', async () => {
    const h = await node.rpc<FeeHistory>('eth_feeHistory', ['0x400', 'latest', []])
    const head = Number(await node.rpc<string>('eth_blockNumber'))
    expect(h.oldestBlock).toBe('0x0')
    expect(h.gasUsedRatio).toHaveLength(head + 1)
    expect(h.baseFeePerGas).toHaveLength(head + 2)
    for (const count of ['0x0', '0x401']) {
      const { json } = await node.rpcRaw({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_feeHistory',
        params: [count, 'latest', []],
      })
      expect(json.error.code).toBe(-32602)
    }
  })
})

describe('gas price oracle', () => {
  it('suggests the next base fee plus the median tip of recent blocks', async () => {
    const head = await node.rpc<{ baseFeePerGas: string; gasUsed: string; gasLimit: string }>('eth_getBlockByNumber', [
      'latest',
      false,
    ])
    const tip = BigInt(await node.rpc<string>('eth_maxPriorityFeePerGas'))
    expect([parseGwei('1'), parseGwei('5')]).toContain(tip)
    const price = BigInt(await node.rpc<string>('eth_gasPrice'))
    // The head was nearly empty, so the next base fee is below the head's and at most 12.5% lower.
    const baseFee = BigInt(head.baseFeePerGas)
    expect(price - tip).toBeLessThanOrEqual(baseFee)
    expect(price - tip).toBeGreaterThanOrEqual((baseFee * 7n) / 8n)
  })

  it('answers the blob base fee of the next block (the minimum, 1 wei, with no blobs)', async () => {
    expect(await node.rpc('eth_blobBaseFee')).toBe('0x1')
  })
})

describe('uncles on a post-merge chain', () => {
  it('counts none and finds none, and answers null for an unknown block', async () => {
    const block = await node.rpc<{ hash: string }>('eth_getBlockByNumber', [pairBlock, false])
    expect(await node.rpc('eth_getUncleCountByBlockNumber', [pairBlock])).toBe('0x0')
    expect(await node.rpc('eth_getUncleCountByBlockHash', [block.hash])).toBe('0x0')
    expect(await node.rpc('eth_getUncleByBlockNumberAndIndex', [pairBlock, '0x0'])).toBeNull()
    expect(await node.rpc('eth_getUncleByBlockHashAndIndex', [block.hash, '0x0'])).toBeNull()
    expect(await node.rpc('eth_getUncleCountByBlockHash', [`0x${'ab'.repeat(32)}`])).toBeNull()
  })
})

describe('transactions by block and index', () => {
  it('finds both transactions of the block by number, by hash and in its receipts', async () => {
    const block = await node.rpc<{ hash: string; transactions: string[] }>('eth_getBlockByNumber', [pairBlock, false])
    expect(await node.rpc('eth_getBlockTransactionCountByNumber', [pairBlock])).toBe('0x2')
    expect(await node.rpc('eth_getBlockTransactionCountByHash', [block.hash])).toBe('0x2')
    const byNumber = await node.rpc<{ hash: string }>('eth_getTransactionByBlockNumberAndIndex', [pairBlock, '0x1'])
    const byHash = await node.rpc<{ hash: string }>('eth_getTransactionByBlockHashAndIndex', [block.hash, '0x1'])
    expect([byNumber.hash, byHash.hash]).toEqual([block.transactions[1], block.transactions[1]])
    expect(await node.rpc('eth_getTransactionByBlockNumberAndIndex', [pairBlock, '0x2'])).toBeNull()
    const receipts = await node.rpc<{ transactionHash: string }[]>('eth_getBlockReceipts', [block.hash])
    expect(receipts.map((r) => r.transactionHash)).toEqual(block.transactions)
    // One receipt is formatted on its own; it must be the block's entry (cumulative gas, log index).
    for (const [i, hash] of block.transactions.entries()) {
      expect(await node.rpc('eth_getTransactionReceipt', [hash])).toEqual(receipts[i])
    }
  })
})

describe('pending transaction filter', () => {
  it('returns the hashes of transactions accepted since the last poll', async () => {
    const id = await node.rpc<string>('eth_newPendingTransactionFilter')
    const raw = await signTransfer(node.config.accounts[7].privateKey as Hex, {})
    const hash = await node.rpc<string>('eth_sendRawTransaction', [raw])
    expect(await node.rpc('eth_getFilterChanges', [id])).toEqual([hash])
    expect(await node.rpc('eth_getFilterChanges', [id])).toEqual([])
    expect(await node.rpc('eth_uninstallFilter', [id])).toBe(true)
  })
})

describe('constant answers', () => {
  it('hashes with web3_sha3 and reports versions, modules and an idle, mining node without peers', async () => {
    expect(await node.rpc('web3_sha3', ['0x68656c6c6f'])).toBe(keccak256('0x68656c6c6f'))
    expect(await node.rpc('eth_protocolVersion')).toBe('0x44')
    // The dev network's default groups include the test controls Hardhat and Foundry drive.
    expect(await node.rpc('rpc_modules')).toEqual({
      eth: '1.0',
      net: '1.0',
      web3: '1.0',
      evm: '1.0',
      hardhat: '1.0',
      anvil: '1.0',
      ots: '1.0',
      rpc: '1.0',
    })
    expect(await node.rpc('eth_syncing')).toBe(false)
    expect(await node.rpc('eth_mining')).toBe(true)
    expect(await node.rpc('eth_accounts')).toEqual([])
    expect(await node.rpc('net_listening')).toBe(false)
    expect(await node.rpc('net_peerCount')).toBe('0x0')
    expect(await node.rpc<string>('web3_clientVersion')).toMatch(/^anvil\/[^/]+\/basalt\/v/)
  })
})
