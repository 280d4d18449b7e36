/**
 * Besu's MINER group on the dev chain, through the compiled binary: each setting read and changed
 * while the node runs, and each change seen in the next block or answer; sealing stopped and started;
 * Besu's errors for bad values. Also `--min-priority-fee` at start, and a node whose blocks come from
 * a consensus client (nothing of its own to start, no coinbase of its own).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test'
import type { Hex } from 'viem'
import { startEngineNode } from './engineHarness.ts'
import { type StartedNode, signTransfer, startNode, until } from './harness.ts'

let node: StartedNode
const COINBASE = '0x00000000000000000000000000000000000c0ffe'
type Block = { miner: string; extraData: string; gasLimit: Hex; number: Hex; transactions: string[] }

beforeAll(async () => {
  node = await startNode({ args: ['--rpc-http-api', 'ETH,MINER,EVM', '--min-priority-fee', '7'] })
})
afterAll(async () => {
  await node?.cleanup()
})

const key = (i: number) => node.config.accounts[i].privateKey as Hex
const latest = () => node.rpc<Block>('eth_getBlockByNumber', ['latest', false])
const invalid = async (method: string, params: unknown[]) =>
  (await node.rpcRaw({ jsonrpc: '2.0', id: 1, method, params })).json.error

describe('the MINER group', () => {
  it('reads and sets the minimum gas price and priority fee, which the fee answers then follow', async () => {
    expect(await node.rpc('miner_getMinGasPrice')).toBe('0x3e8')
    expect(await node.rpc('miner_getMinPriorityFee')).toBe('0x7')
    expect(await node.rpc('miner_setMinPriorityFee', ['0x77359400'])).toBe(true)
    expect(await node.rpc('miner_getMinPriorityFee')).toBe('0x77359400')
    expect(BigInt(await node.rpc<Hex>('eth_maxPriorityFeePerGas'))).toBeGreaterThanOrEqual(2_000_000_000n)
    expect(await node.rpc('miner_setMinPriorityFee', ['0x0'])).toBe(true)
    expect(await node.rpc('miner_setMinGasPrice', ['0x174876e800'])).toBe(true)
    expect(await node.rpc('miner_getMinGasPrice')).toBe('0x174876e800')
    expect(BigInt(await node.rpc<Hex>('eth_gasPrice'))).toBeGreaterThanOrEqual(100_000_000_000n)
    // The pool now refuses a max fee below 100 gwei, in Besu's words.
    expect(await invalid('eth_sendRawTransaction', [await signTransfer(key(5), {})])).toEqual({
      code: -32009,
      message: 'Gas price below configured minimum gas price',
    })
    expect(await node.rpc('miner_setMinGasPrice', ['0x3e8'])).toBe(true)
  })

  it('sets the extraData, target gas limit and coinbase of the next blocks', async () => {
    expect(await node.rpc('miner_getExtraData')).toBe('0x')
    expect(await node.rpc('miner_setExtraData', ['0x626173616c74'])).toBe(true)
    expect(await node.rpc('miner_getExtraData')).toBe('0x626173616c74')
    expect(await node.rpc('miner_setCoinbase', [COINBASE])).toBe(true)
    expect(await node.rpc('eth_coinbase')).toBe(COINBASE)
    const before = BigInt((await latest()).gasLimit)
    expect(await node.rpc('miner_changeTargetGasLimit', [30_000_000])).toBeNull()
    await node.rpc('evm_mine')
    const block = await latest()
    expect([block.extraData, block.miner]).toEqual(['0x626173616c74', COINBASE])
    // Toward the target by at most parent/1024 - 1 per block (Besu's rule).
    expect(BigInt(block.gasLimit)).toBe(before - before / 1024n + 1n)
    expect(await node.rpc('miner_setEtherbase', ['0x0000000000000000000000000000000000000000'])).toBe(true)
  })

  it('stops and starts sealing', async () => {
    expect(await node.rpc('miner_stop')).toBe(true)
    expect(await node.rpc('eth_mining')).toBe(false)
    const hash = await node.rpc<Hex>('eth_sendRawTransaction', [await signTransfer(key(6), {})])
    await Bun.sleep(300)
    expect(await node.rpc('eth_getTransactionReceipt', [hash])).toBeNull()
    expect(await node.rpc('miner_start')).toBe(true)
    expect(await node.rpc('eth_mining')).toBe(true)
    const receipt = await until(
      'the receipt after miner_start',
      () => node.rpc<{ status: Hex } | null>('eth_getTransactionReceipt', [hash]),
      (r) => r !== null,
      10_000,
    )
    expect(receipt?.status).toBe('0x1')
  })

  it("refuses bad values with Besu's errors and keeps serving", async () => {
    const params = (message: string) => ({ code: -32602, message })
    expect(await invalid('miner_setMinGasPrice', ['zz'])).toEqual(params('Invalid min gas price params'))
    expect(await invalid('miner_setMinPriorityFee', [])).toEqual(params('Invalid min priority fee params'))
    expect(await invalid('miner_setExtraData', [`0x${'ab'.repeat(33)}`])).toEqual(params('Invalid extra data params'))
    expect(await invalid('miner_setExtraData', ['basalt'])).toEqual(params('Invalid extra data params'))
    expect(await invalid('miner_changeTargetGasLimit', [1])).toEqual(params('Invalid target gas limit params'))
    expect(await invalid('miner_setCoinbase', ['0x1234'])).toEqual(params('Invalid address params'))
    expect(await node.rpc('miner_getExtraData')).toBe('0x626173616c74')
  })
})

describe('the MINER group where a consensus client builds the chain', () => {
  it('has no sealing to start and no coinbase to set, and keeps the settings its payloads use', async () => {
    const en = await startEngineNode({ args: ['--rpc-http-api', 'ETH,MINER', '--miner-extra-data', '0x626173616c74'] })
    try {
      const call = async (method: string, params: unknown[] = []) =>
        (await en.node.rpcRaw({ jsonrpc: '2.0', id: 1, method, params })).json
      expect((await call('miner_start')).result).toBe(false)
      expect((await call('miner_stop')).result).toBe(true)
      expect((await call('miner_setCoinbase', [COINBASE])).error).toEqual({ code: -32600, message: 'Invalid Request' })
      expect((await call('miner_getExtraData')).result).toBe('0x626173616c74')
      expect((await call('miner_setExtraData', ['0x'])).result).toBe(true)
      expect((await call('miner_getExtraData')).result).toBe('0x')
    } finally {
      await en.node.cleanup()
    }
  })
})
