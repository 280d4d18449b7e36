import { call, rpcContext } from '../../../test/rpc/rpcHarness.ts'
import { STORE_RUNTIME, type TracingChain, tracingChain } from '../../../test/tracing/tracingChain.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import type { RpcContext } from '../context.ts'
import { traceBlock, traceBlockByHash, traceBlockByNumber, traceCall, traceTransaction } from './debugMethods.ts'
import { getRawBlock } from './rawMethods.ts'

/** JUMPDEST, PUSH1 0, JUMP: loops until the transaction's gas runs out. */
const LOOP_RUNTIME = '5b600056'
/** About 1,250,000 opcodes: far past 100 ms under any tracer, yet bounded. */
const LOOP_GAS = 5_000_000n
const TIMEOUT = '100ms'

/** One entry of a debug_traceBlock* answer. */
interface Entry {
  txHash: string
  result?: { error?: string }
  error?: string
}

let t: TracingChain
let ctx: RpcContext
let hashes: string[]
let blockHash: string
let blockNumber: string
let looper: string

beforeAll(async () => {
  t = await tracingChain()
  ctx = rpcContext(t)
  const store = await t.deploy(STORE_RUNTIME)
  looper = await t.deploy(LOOP_RUNTIME)
  // One block: a store, the loop, then a store again from the same sender (its nonce and balance
  // are only right if the loop's transaction was applied before it).
  const sent = await t.sendBlock([{ to: store }, { to: looper, gasLimit: LOOP_GAS }, { to: store, value: 1n }])
  hashes = sent.map(bytesToHex)
  const head = t.chain.head
  expect(head.transactions.map((tx): string => bytesToHex(tx.hash()))).toEqual(hashes)
  blockHash = bytesToHex(head.hash())
  blockNumber = `0x${head.header.number.toString(16)}`
})
afterAll(() => {
  ctx.filters.stop()
  t.close()
})

describe('a block trace with a transaction past its timeout', () => {
  for (const tracer of [undefined, 'prestateTracer', 'callTracer']) {
    it(`answers {txHash, error} for it and traces the others on its state (${tracer ?? 'struct logger'})`, async () => {
      const config = { tracer, timeout: TIMEOUT }
      const entries = await call<Entry[]>(ctx, traceBlockByHash, [blockHash, config])
      expect(entries.map((e) => e.txHash)).toEqual(hashes)
      expect(entries[1]).toEqual({ txHash: hashes[1], error: 'execution timeout' })
      // The entries before and after are what each transaction's own trace answers.
      for (const i of [0, 2]) {
        const alone = await call(ctx, traceTransaction, [hashes[i], { tracer }])
        expect(entries[i]).toEqual({ txHash: hashes[i], result: alone })
      }
    })
  }

  it('answers the same by number and for the block given as RLP', async () => {
    const config = { tracer: 'prestateTracer', timeout: TIMEOUT }
    const byHash = await call<Entry[]>(ctx, traceBlockByHash, [blockHash, config])
    expect(await call(ctx, traceBlockByNumber, [blockNumber, config])).toEqual(byHash)
    const rlp = await call<string>(ctx, getRawBlock, [blockNumber])
    expect(await call(ctx, traceBlock, [rlp, config])).toEqual(byHash)
  })

  it('traces the loop in full when the timeout allows it', async () => {
    const entries = await call<Entry[]>(ctx, traceBlockByHash, [blockHash, { tracer: 'callTracer', timeout: '1m' }])
    expect(entries.every((e) => e.error === undefined)).toBe(true)
    expect(entries[1].result?.error).toBe('out of gas')
  })

  it('still fails debug_traceTransaction and debug_traceCall with -32000 "execution timeout"', async () => {
    const byTx = await call(ctx, traceTransaction, [hashes[1], { timeout: TIMEOUT }]).catch((e) => e)
    expect({ code: byTx.code, message: byTx.message }).toEqual({ code: -32000, message: 'execution timeout' })
    const byCall = await call(ctx, traceCall, [
      { to: looper, gas: `0x${LOOP_GAS.toString(16)}` },
      'latest',
      { tracer: 'callTracer', timeout: TIMEOUT },
    ]).catch((e) => e)
    expect({ code: byCall.code, message: byCall.message }).toEqual({ code: -32000, message: 'execution timeout' })
  })

  it('keeps failing the whole block trace on other tracer errors', async () => {
    const err = await call(ctx, traceBlockByHash, [blockHash, { tracer: 'nopeTracer', timeout: TIMEOUT }]).catch(
      (e) => e,
    )
    expect(err.code).toBe(-32602)
  })
})
