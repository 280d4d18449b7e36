/**
 * The node-level DEBUG, TRACE and ADMIN methods on the compiled binary: moving the head back with
 * automine still on, metrics from real traffic, trace files under the data path, trace_callMany
 * and the log bloom cache status.
 */

import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Hex, hexToBytes, keccak256, toHex } from 'viem'
import { type StartedNode, signTransfer, startNode } from './harness.ts'

let node: StartedNode
const TO = '0x000000000000000000000000000000000000c0de'
const BEACON_ROOTS = '0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02'

beforeAll(async () => {
  node = await startNode({ args: ['--rpc-http-api', 'ETH,NET,WEB3,DEBUG,TRACE,TXPOOL,ADMIN'] })
})
afterAll(async () => {
  await node?.cleanup()
})

const key = () => node.config.accounts[0].privateKey as Hex
const blockNumber = async () => Number(await node.rpc<string>('eth_blockNumber'))

interface MinedReceipt {
  blockNumber: string
  blockHash: string
  transactionHash: string
}

async function mined(raw: Hex, on: StartedNode = node): Promise<MinedReceipt> {
  const hash = await on.rpc<string>('eth_sendRawTransaction', [raw])
  for (let i = 0; i < 200; i++) {
    const r = await on.rpc<MinedReceipt | null>('eth_getTransactionReceipt', [hash])
    if (r) return r
    await Bun.sleep(10)
  }
  throw new Error('not mined')
}

describe('debug_setHead on a mining node', () => {
  it('rewinds head and state; the next transaction is sealed on the new head', async () => {
    for (let nonce = 0; nonce < 3; nonce++) await mined(await signTransfer(key(), { nonce }))
    expect(await blockNumber()).toBe(3)
    expect(await node.rpc('debug_setHead', ['0x1'])).toBe('Success')
    expect(await blockNumber()).toBe(1)
    expect(await node.rpc('eth_getBalance', [TO, 'latest'])).toBe('0x1')
    expect(await node.rpc('eth_getTransactionCount', [node.config.accounts[0].address, 'latest'])).toBe('0x1')
    const receipt = await mined(await signTransfer(key(), { nonce: 1, value: 5n }))
    expect(receipt.blockNumber).toBe('0x2')
    expect(await node.rpc('eth_getBalance', [TO, 'latest'])).toBe('0x6')
  })
})

describe('the dev chain state history below the BONSAI window', () => {
  it('serves balances and traces of blocks below the window; proofs there answer -32000', async () => {
    const n = await startNode({ args: ['--bonsai-historical-block-limit=2', '--rpc-http-api=ETH,DEBUG'] })
    try {
      const from = n.config.accounts[0].privateKey as Hex
      const first = await mined(await signTransfer(from, { nonce: 0 }), n)
      for (let nonce = 1; nonce < 8; nonce++) await mined(await signTransfer(from, { nonce }), n)
      expect(await n.rpc('eth_getBalance', [TO, '0x1'])).toBe('0x1')
      expect(await n.rpc('eth_getTransactionCount', [n.config.accounts[0].address, '0x2'])).toBe('0x2')
      const trace = await n.rpc<{ gas: number; failed: boolean }>('debug_traceTransaction', [first.transactionHash])
      expect(trace.gas).toBe(21_000)
      expect(trace.failed).toBe(false)
      const proof = await n.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'eth_getProof', params: [TO, [], '0x1'] })
      expect(proof.json.error).toEqual({ code: -32000, message: 'World state unavailable' })
    } finally {
      await n.cleanup()
    }
  })
})

describe('debug_resyncWorldstate on BONSAI past the history window', () => {
  it('writes the pruned genesis state again, replays the chain and rebuilds the damaged flat state', async () => {
    const args = ['--data-storage-format=BONSAI', '--bonsai-historical-block-limit=4', '--rpc-http-api=ETH,DEBUG']
    const first = await startNode({ args })
    let second: StartedNode | undefined
    try {
      const from = first.config.accounts[0].privateKey as Hex
      for (let nonce = 0; nonce < 12; nonce++) await mined(await signTransfer(from, { nonce }), first)
      // The genesis state has left the window (and its trie nodes are pruned).
      const gone = await first.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [TO, '0x0'] })
      expect(gone.json.error).toEqual({ code: -32000, message: 'World state unavailable' })
      await first.stop()
      // Damage the flat head state while the node is down: the recipient's row and every slot.
      const db = new Database(join(first.dataPath, 'basalt.sqlite'))
      db.run('DELETE FROM flat_accounts WHERE key = ?', [hexToBytes(keccak256(TO))])
      db.run('DELETE FROM flat_storage')
      db.close(true)
      second = await startNode({ args, dataPath: first.dataPath })
      const head = await second.rpc<{ timestamp: Hex }>('eth_getBlockByNumber', ['latest', false])
      // EIP-4788: the beacon roots contract keeps each block's timestamp at slot timestamp % 8191.
      const slot = toHex(BigInt(head.timestamp) % 8191n)
      const storedTimestamp = () => second!.rpc<Hex>('eth_getStorageAt', [BEACON_ROOTS, slot, 'latest'])
      expect(await second.rpc('eth_getBalance', [TO, 'latest'])).toBe('0x0')
      expect(BigInt(await storedTimestamp())).toBe(0n)

      expect(await second.rpc('debug_resyncWorldstate')).toBe(true)
      expect(await second.rpc('eth_getBalance', [TO, 'latest'])).toBe('0xc')
      // Besu's code registers the method as debug_resyncWorldState: the same rebuild.
      expect(await second.rpc('debug_resyncWorldState')).toBe(true)
      expect(BigInt(await storedTimestamp())).toBe(BigInt(head.timestamp))
      // A state inside the window still answers, the genesis's still does not, and the chain goes on.
      expect(await second.rpc('eth_getBalance', [TO, '0x8'])).toBe('0x8')
      const still = await second.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params: [TO, '0x0'] })
      expect(still.json.error).toEqual({ code: -32000, message: 'World state unavailable' })
      await mined(await signTransfer(from, { nonce: 12 }), second)
      expect(await second.rpc('eth_getBalance', [TO, 'latest'])).toBe('0xd')
    } finally {
      await second?.cleanup()
      await first.cleanup()
    }
  })
})

describe('debug_resyncWorldstate after a dev-tools edit that left the window', () => {
  it('answers -32000 with the reason and keeps serving the head state', async () => {
    const n = await startNode({
      args: ['--data-storage-format=BONSAI', '--bonsai-historical-block-limit=2', '--rpc-http-api=ETH,DEBUG,HARDHAT'],
    })
    try {
      expect(await n.rpc('hardhat_setBalance', [TO, '0x5'])).toBe(true)
      await n.rpc('hardhat_mine', ['0x6'])
      expect(await n.rpc('eth_blockNumber')).toBe('0x6')
      const res = await n.rpcRaw({ jsonrpc: '2.0', id: 1, method: 'debug_resyncWorldstate', params: [] })
      expect(res.json.error).toEqual({
        code: -32000,
        message:
          'World state resync failed: the state the dev tools left after block 0 has left the history window and cannot be re-created',
      })
      expect(await n.rpc('eth_getBalance', [TO, 'latest'])).toBe('0x5')
    } finally {
      await n.cleanup()
    }
  })
})

describe('debug_metrics', () => {
  it('counts RPC calls per method and reads pool and database figures', async () => {
    const m = await node.rpc<any>('debug_metrics')
    expect(m.rpc.requests.eth_sendRawTransaction).toBe(4)
    expect(m.blockchain.blocks_sealed).toBeGreaterThanOrEqual(4)
    expect(m.blockchain.block_seal_ms.count).toBeGreaterThanOrEqual(4)
    expect(m.transaction_pool.transactions).toBe(0)
    expect(m.storage.database_used_bytes).toBeGreaterThan(0)
    expect(m.process.resident_memory_bytes).toBeGreaterThan(1_000_000)
    // The JavaScript heap's size and the typed arrays' stores outside it (both in use after blocks).
    expect(m.process.heap_total_bytes).toBeGreaterThan(1_000_000)
    expect(m.process.external_memory_bytes).toBeGreaterThan(0)
    expect(m.process.uptime_seconds).toBeGreaterThanOrEqual(0)
  })
})

describe('debug_standardTraceBlockToFile', () => {
  it('writes the trace files under traces/ of the data path', async () => {
    const block = await node.rpc<{ hash: string }>('eth_getBlockByNumber', ['0x2', false])
    const files = await node.rpc<string[]>('debug_standardTraceBlockToFile', [block.hash])
    expect(files).toHaveLength(1)
    expect(files[0].startsWith(join(node.dataPath, 'traces'))).toBe(true)
    expect(existsSync(files[0])).toBe(true)
    // A plain transfer runs no code: only the summary line.
    expect(JSON.parse(readFileSync(files[0], 'utf8').trim())).toEqual({ output: '', gasUsed: '0x5208', pass: true })
  })
})

describe('trace_callMany', () => {
  it('lets each call see the value the earlier one moved', async () => {
    const from = node.config.accounts[1].address
    const out = await node.rpc<any[]>('trace_callMany', [
      [
        [{ from, to: TO, value: '0x10' }, ['stateDiff']],
        [{ from, to: TO, value: '0x10' }, ['stateDiff']],
      ],
      'latest',
    ])
    expect(out[0].stateDiff[TO].balance).toEqual({ '*': { from: '0x6', to: '0x16' } })
    expect(out[1].stateDiff[TO].balance).toEqual({ '*': { from: '0x16', to: '0x26' } })
  })
})

describe('admin_generateLogBloomCache', () => {
  it('refuses a request without bounds, as Besu, and accepts one with a start', async () => {
    const refused = await node.rpc<any>('admin_generateLogBloomCache', [])
    expect(refused).toMatchObject({ requestAccepted: false })
    const status = await node.rpc<any>('admin_generateLogBloomCache', ['0x0'])
    expect(status).toMatchObject({ startBlock: '0x0', endBlock: 'latest', requestAccepted: true })
    expect(typeof status.indexing).toBe('boolean')
  })
})

describe('trace timeout', () => {
  it('stops a traced call past its timeout with -32000 execution timeout, and refuses a bad duration', async () => {
    // Init code JUMPDEST, PUSH1 0, JUMP: loops until its gas is gone.
    const loop = { from: node.config.accounts[0].address, data: '0x5b600056', gas: '0x1e8480' }
    await expect(node.rpc('debug_traceCall', [loop, 'latest', { timeout: '1ms' }])).rejects.toMatchObject({
      code: -32000,
      message: 'debug_traceCall: execution timeout',
    })
    const traced = await node.rpc<any>('debug_traceCall', [loop, 'latest', { tracer: 'callTracer', timeout: '30s' }])
    expect(traced).toMatchObject({ type: 'CREATE', error: 'out of gas' })
    await expect(node.rpc('debug_traceCall', [loop, 'latest', { timeout: '5 seconds' }])).rejects.toMatchObject({
      code: -32602,
    })
  })
})
