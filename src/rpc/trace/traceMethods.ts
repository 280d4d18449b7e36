import { type CallRequest, callRequestOf } from '../../evm/callTransaction.ts'
import { replayBlock } from '../../evm/tracers/blockReplayer.ts'
import { traceCallRequest, traceCallRequests } from '../../evm/tracers/callRequestTracer.ts'
import { createReplayTracer, type TraceType } from '../../evm/tracers/replayTracer.ts'
import { codec, decoders, p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { besuError } from '../../jsonrpc/errors.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import type { RpcContext } from '../context.ts'
import { mapTracingErrors, requireTransaction, traceTransactionAt } from '../debug/traceRunner.ts'
import { mapCallErrors } from '../eth/callErrors.ts'
import { callParams } from '../eth/callRequest.ts'
import { requireBlock } from '../eth/resolveBlock.ts'
import { decodeRawTransaction } from '../eth/txMethods.ts'
import { askAboutRemoteTransaction } from '../forkHistory.ts'
import { blockTraces, flatTracer, rewardTraces } from './blockTraces.ts'
import { traceFilter } from './traceFilter.ts'

const TRACE_TYPES = new Set(['trace', 'stateDiff', 'vmTrace'])
const traceTypes = codec('trace types', (v): TraceType[] => {
  if (!Array.isArray(v)) return decoders.fail('expected an array of trace types')
  for (const t of v) if (!TRACE_TYPES.has(t)) decoders.fail(`unknown trace type ${decoders.describe(t)}`)
  return v as TraceType[]
})

/** Flat traces of one transaction. */
export const traceTransaction = defineMethod({
  name: 'trace_transaction',
  besu: { kinds: ['transactionHash'] },
  params: [p.hash],
  handler: async (ctx: RpcContext, [hash]) => {
    const found = await ctx.chain.findTransaction(hash)
    if (!found) return (await askAboutRemoteTransaction(ctx, hash, 'trace_transaction')) ?? null
    return traceTransactionAt(ctx, found.block, found.index, flatTracer(found.block))
  },
})

/** Flat traces of every transaction of a block. */
export const traceBlock = defineMethod({
  name: 'trace_block',
  besu: { kinds: ['block'] },
  params: [p.blockNumberOrTag],
  handler: async (ctx: RpcContext, [ref]) => {
    const block = await ctx.chain.resolve(ref)
    // Besu: the transactions' traces, then the block's reward traces.
    return block ? [...(await blockTraces(ctx, block)), ...rewardTraces(ctx, block)] : null
  },
})

/** One trace of a transaction, by its trace address, as Besu: `[]` is the top trace, `[0]` its first call. */
export const traceGet = defineMethod({
  name: 'trace_get',
  besu: { kinds: ['transactionHash', 'traceNumbers'] },
  params: [p.hash, p.array(p.index, 'indices')],
  handler: async (ctx: RpcContext, [hash, indices]) => {
    const found = await ctx.chain.findTransaction(hash)
    if (!found) return null
    const traces = await traceTransactionAt(ctx, found.block, found.index, flatTracer(found.block))
    return traces.find((t) => JSON.stringify(t.traceAddress) === JSON.stringify(indices.map(Number))) ?? null
  },
})

/** Replays a transaction and returns the trace types asked for. */
export const replayTransaction = defineMethod({
  name: 'trace_replayTransaction',
  besu: { kinds: ['transactionHash', 'traceType'] },
  params: [p.hash, traceTypes],
  handler: async (ctx: RpcContext, [hash, types]) => {
    const { block, index } = await requireTransaction(ctx, hash)
    return traceTransactionAt(ctx, block, index, createReplayTracer(types))
  },
})

/** Replays every transaction of a block and returns the trace types asked for. */
export const replayBlockTransactions = defineMethod({
  name: 'trace_replayBlockTransactions',
  besu: { kinds: ['block', 'traceType'] },
  params: [p.blockNumberOrTag, traceTypes],
  handler: async (ctx: RpcContext, [ref, types]) => {
    const block = await ctx.chain.resolve(ref)
    if (!block) throw besuError('blockNotFound')
    if (block.header.number === 0n) return []
    const out = await mapTracingErrors(() => replayBlock(ctx.chain, block, () => createReplayTracer(types)))
    // Besu's key order: transactionHash sits between trace and vmTrace.
    return block.transactions.map((tx, i) => {
      const { vmTrace, ...rest } = out.get(i) ?? { vmTrace: null }
      return { ...rest, transactionHash: bytesToHex(tx.hash()), vmTrace }
    })
  },
})

/** Runs a call on a block's state and returns the trace types asked for. */
export const traceCall = defineMethod({
  name: 'trace_call',
  besu: { kinds: ['call', 'traceType', 'block'], order: [2, 0, 1] },
  params: [callParams.call, traceTypes, p.block.optional('latest')],
  handler: async (ctx: RpcContext, [req, types, ref]) => {
    const block = await requireBlock(ctx, ref)
    const opts = { gasCap: ctx.settings.rpcGasCap, isBalanceChecked: req.strict }
    return mapCallErrors(ctx.chain.common, () =>
      traceCallRequest(ctx.chain, block, req, opts, createReplayTracer(types, 'call')),
    )
  },
})

/** One `[call, traceTypes]` pair of trace_callMany. */
const callWithTypes = codec('call', (v): { req: CallRequest; types: TraceType[] } => {
  if (!Array.isArray(v) || v.length !== 2) return decoders.fail('expected a [transaction, trace types] pair')
  return { req: callParams.call.decode(v[0]), types: traceTypes.decode(v[1]) }
})

/** Runs calls one after the other on a block's state (each sees the earlier ones' changes). */
export const traceCallMany = defineMethod({
  name: 'trace_callMany',
  besu: { kinds: ['traceCallMany', 'block'], order: [1, 0] },
  params: [p.array(callWithTypes, 'calls'), p.block.optional('latest')],
  handler: async (ctx: RpcContext, [calls, ref]) => {
    const block = await requireBlock(ctx, ref)
    const opts = { gasCap: ctx.settings.rpcGasCap, isBalanceChecked: calls[0]?.req.strict }
    const traced = calls.map(({ req, types }) => ({ req, tracer: createReplayTracer(types, 'call') }))
    return mapCallErrors(ctx.chain.common, () => traceCallRequests(ctx.chain, block, traced, opts))
  },
})

/** Runs a signed transaction as a call on the head's state, without sending it. */
export const traceRawTransaction = defineMethod({
  name: 'trace_rawTransaction',
  besu: { kinds: ['transaction', 'traceType'], count: 2 },
  params: [p.named('transaction', p.data), traceTypes],
  handler: async (ctx: RpcContext, [raw, types]) => {
    const req = callRequestOf(await decodeRawTransaction(ctx, raw))
    const opts = { gasCap: ctx.settings.rpcGasCap, isBalanceChecked: true }
    return mapCallErrors(ctx.chain.common, () =>
      traceCallRequest(ctx.chain, ctx.chain.head, req, opts, createReplayTracer(types, 'call')),
    )
  },
})

export const traceMethods = [
  traceTransaction,
  traceBlock,
  traceGet,
  replayTransaction,
  replayBlockTransactions,
  traceCall,
  traceCallMany,
  traceRawTransaction,
  traceFilter,
]
