import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { call, rpcContext } from '../../../test/rpc/rpcHarness.ts'
import { type TracingChain, tracingChain } from '../../../test/tracing/tracingChain.ts'
import { devAccounts } from '../../chain/devAccounts.ts'
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import type { RpcContext } from '../context.ts'
import { getLogs } from '../eth/logMethods.ts'
import { traceFilter } from './traceFilter.ts'
import { replayBlockTransactions, traceCallMany, traceGet, traceRawTransaction } from './traceMethods.ts'

/** Counter: slot 0 += 1, returns the new value. PUSH1 0 SLOAD PUSH1 1 ADD DUP1 PUSH1 0 SSTORE, MSTORE, RETURN 32. */
const COUNTER_RUNTIME = '6000546001018060005560005260206000f3'
const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`

let t: TracingChain
let ctx: RpcContext
let counter: string

beforeAll(async () => {
  t = await tracingChain()
  ctx = rpcContext(t)
  counter = await t.deploy(COUNTER_RUNTIME)
})
afterAll(() => {
  ctx.filters.stop()
  t.close()
})

describe('trace_callMany', () => {
  it('runs each call on the state the earlier ones left', async () => {
    const from = t.sender
    const out = await call(ctx, traceCallMany, [
      [
        [{ from, to: counter }, ['trace']],
        [{ from, to: counter }, ['trace', 'stateDiff']],
      ],
      'latest',
    ])
    expect(out).toHaveLength(2)
    expect(out[0].output).toBe(word(1))
    expect(out[0].stateDiff).toBeNull()
    expect(out[0].trace).toHaveLength(1)
    expect(out[0].trace[0].action).toMatchObject({ callType: 'call', from, to: counter })
    expect(out[1].output).toBe(word(2))
    expect(out[1].stateDiff[counter].storage[word(0)]).toEqual({ '*': { from: word(1), to: word(2) } })
    // Nothing reached the chain.
    const again = await call(ctx, traceCallMany, [[[{ from, to: counter }, []]]])
    expect(again[0].output).toBe(word(1))
  })

  it('refuses a malformed pair and an unknown trace type', async () => {
    await expect(call(ctx, traceCallMany, [[[{ to: counter }]]])).rejects.toMatchObject({ code: -32602 })
    await expect(call(ctx, traceCallMany, [[[{ to: counter }, ['bogus']]]])).rejects.toMatchObject({ code: -32602 })
  })
})

describe('trace_rawTransaction', () => {
  it('runs a signed transaction as a call on the head without sending it', async () => {
    const account = devAccounts()[1]
    const tx = createFeeMarket1559Tx(
      {
        chainId: t.chain.common.chainId(),
        nonce: 0n,
        to: counter as `0x${string}`,
        gasLimit: 100_000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 1n,
      },
      { common: t.chain.commonForNextBlock() },
    ).sign(hexToBytes(account.privateKey))
    const out = await call(ctx, traceRawTransaction, [bytesToHex(tx.serialize()), ['trace', 'stateDiff']])
    // Parity's action gas is what the call frame got: 100,000 less the 21,000 intrinsic gas.
    expect(out.output).toBe(word(1))
    expect(out.trace[0].action).toMatchObject({ from: account.address.toLowerCase(), to: counter, gas: '0x13498' })
    expect(out.stateDiff[account.address.toLowerCase()].nonce).toEqual({ '*': { from: '0x0', to: '0x1' } })
    expect(t.pool.size).toBe(0)
  })

  it('refuses bytes that are no transaction', async () => {
    await expect(call(ctx, traceRawTransaction, ['0x1234', ['trace']])).rejects.toMatchObject({ code: -32602 })
  })
})

describe('trace_replayBlockTransactions', () => {
  it("answers each transaction's result in Besu's key order, transactionHash before vmTrace", async () => {
    const hash = await t.send({ to: counter })
    const out = await call(ctx, replayBlockTransactions, ['latest', ['trace', 'vmTrace']])
    expect(out).toHaveLength(1)
    expect(Object.keys(out[0])).toEqual(['output', 'stateDiff', 'trace', 'transactionHash', 'vmTrace'])
    expect(out[0].transactionHash).toBe(bytesToHex(hash))
  })
})

describe('trace_get', () => {
  /** CALL(GAS, counter, value 0, no input, no output), POP, STOP: a top trace with one subtrace. */
  const callerOf = (target: string) => `6000600060006000600073${target.slice(2)}5af15000`

  it("finds a trace by its trace address, as Besu: [] is the transaction's top trace, [0] its first call", async () => {
    const caller = await t.deploy(callerOf(counter))
    const hash = bytesToHex(await t.send({ to: caller }))
    const top = await call(ctx, traceGet, [hash, []])
    expect(top.traceAddress).toEqual([])
    expect(top.action).toMatchObject({ callType: 'call', to: caller })
    expect(top.subtraces).toBe(1)
    const inner = await call(ctx, traceGet, [hash, ['0x0']])
    expect(inner.traceAddress).toEqual([0])
    expect(inner.action).toMatchObject({ callType: 'call', from: caller, to: counter })
    expect(await call(ctx, traceGet, [hash, ['0x1']])).toBeNull()
    expect(await call(ctx, traceGet, [hash, ['0x0', '0x0']])).toBeNull()
  })
})

describe('trace_filter', () => {
  it('takes block numbers as given, as Besu: past the head nothing more, a range ending before it starts empty', async () => {
    await t.send({ to: counter })
    const head = await call(ctx, traceFilter, [{ fromBlock: '0x1', toBlock: 'latest' }])
    expect(head.length).toBeGreaterThan(0)
    const past = await call(ctx, traceFilter, [{ fromBlock: '0x1', toBlock: '0x3e8' }])
    expect(past).toEqual(head)
    expect(await call(ctx, traceFilter, [{ fromBlock: '0x3', toBlock: '0x2' }])).toEqual([])
  })

  it("refuses a span above --rpc-max-trace-filter-range (Besu's 1000 by default; 0: none), as eth_getLogs above --rpc-max-logs-range", async () => {
    const refused = { code: -32005, message: 'Requested range exceeds maximum RPC range limit' }
    const error = (m: typeof traceFilter, params: unknown[]) =>
      m.call(ctx, params).then(
        () => undefined,
        (e: { code: number; message: string }) => ({ code: e.code, message: e.message }),
      )
    expect(await error(traceFilter, [{ fromBlock: '0x0', toBlock: '0x3e8' }])).toBeUndefined()
    expect(await error(traceFilter, [{ fromBlock: '0x0', toBlock: '0x3e9' }])).toEqual(refused)
    const settings = ctx.settings
    try {
      ctx.settings = { ...settings, maxTraceFilterRange: 0n, maxLogsRange: 1n }
      expect(await error(traceFilter, [{ fromBlock: '0x0', toBlock: '0x3e9' }])).toBeUndefined()
      expect(await error(getLogs, [{ fromBlock: '0x1', toBlock: '0x2' }])).toBeUndefined()
      expect(await error(getLogs, [{ fromBlock: '0x0', toBlock: '0x2' }])).toEqual(refused)
    } finally {
      ctx.settings = settings
    }
    expect(await error(getLogs, [{ fromBlock: '0x0', toBlock: 'latest' }])).toBeUndefined()
  })
})
