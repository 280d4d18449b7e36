import { replayBlock } from '../../evm/tracers/blockReplayer.ts'
import { traceCallRequest } from '../../evm/tracers/callRequestTracer.ts'
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
import { blockTraces, flatTracer } from './blockTraces.ts'
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
  params: [p.hash],
  handler: async (ctx: RpcContext, [hash]) => {
    const found = await ctx.chain.findTransaction(hash)
    if (!found) return null
    return traceTransactionAt(ctx, found.block, found.index, flatTracer(found.block))
  },
})

/** Flat traces of every transaction of a block. */
export const traceBlock = defineMethod({
  name: 'trace_block',
  params: [p.blockNumberOrTag],
  handler: async (ctx: RpcContext, [ref]) => {
    const block = await ctx.chain.resolve(ref)
    return block ? blockTraces(ctx, block) : null
  },
})

/** One trace of a transaction, by its position in trace_transaction's list. */
export const traceGet = defineMethod({
  name: 'trace_get',
  params: [p.hash, p.array(p.index, 'indices')],
  handler: async (ctx: RpcContext, [hash, indices]) => {
    const found = await ctx.chain.findTransaction(hash)
    if (!found || indices.length === 0) return null
    const traces = await traceTransactionAt(ctx, found.block, found.index, flatTracer(found.block))
    return traces.find((t) => JSON.stringify(t.traceAddress) === JSON.stringify(indices.map(Number))) ?? null
  },
})

/** Replays a transaction and returns the trace types asked for. */
export const replayTransaction = defineMethod({
  name: 'trace_replayTransaction',
  params: [p.hash, traceTypes],
  handler: async (ctx: RpcContext, [hash, types]) => {
    const { block, index } = await requireTransaction(ctx, hash)
    return traceTransactionAt(ctx, block, index, createReplayTracer(types))
  },
})

/** Replays every transaction of a block and returns the trace types asked for. */
export const replayBlockTransactions = defineMethod({
  name: 'trace_replayBlockTransactions',
  params: [p.blockNumberOrTag, traceTypes],
  handler: async (ctx: RpcContext, [ref, types]) => {
    const block = await ctx.chain.resolve(ref)
    if (!block) throw besuError('blockNotFound')
    if (block.header.number === 0n) return []
    const out = await mapTracingErrors(() => replayBlock(ctx.chain, block, () => createReplayTracer(types)))
    return block.transactions.map((tx, i) => ({ ...out.get(i), transactionHash: bytesToHex(tx.hash()) }))
  },
})

/** Runs a call on a block's state and returns the trace types asked for. */
export const traceCall = defineMethod({
  name: 'trace_call',
  params: [callParams.call, traceTypes, p.block.optional('latest')],
  handler: async (ctx: RpcContext, [req, types, ref]) => {
    const block = await requireBlock(ctx, ref)
    const opts = { gasCap: ctx.settings.rpcGasCap, isBalanceChecked: req.strict }
    return mapCallErrors(ctx.chain.common, () =>
      traceCallRequest(ctx.chain, block, req, opts, createReplayTracer(types)),
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
  traceFilter,
]
