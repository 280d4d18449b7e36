/**
 * What the debug_ and trace_ groups share: finding what to trace, replaying it with a tracer, and
 * the one mapping of tracing failures to Besu's errors.
 */
import type { Block } from '@ethereumjs/block'
import { ReplayError, replayBlock, replayBlockPastTimeouts } from '../../evm/tracers/blockReplayer.ts'
import {
  createTracer,
  InvalidTimeoutError,
  InvalidTracerConfigError,
  type TraceConfig,
  UnknownTracerError,
} from '../../evm/tracers/createTracer.ts'
import { TraceTimeoutError, type TxTracer } from '../../evm/tracers/txTracer.ts'
import { codec, decoders, ParamError } from '../../jsonrpc/codecs.ts'
import { besuError, RpcError } from '../../jsonrpc/errors.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { StateUnavailableError } from '../../state/bonsaiState.ts'
import type { RpcContext } from '../context.ts'

/** The trace config's codec label: a tracer that cannot be built is a bad value of that argument. */
const TRACE_CONFIG_LABEL = 'trace config'

/** Turns tracing failures into RPC errors; anything else passes through. */
export function tracingError(e: unknown): unknown {
  if (e instanceof ReplayError) return besuError('blockNotFound', e.message)
  if (e instanceof UnknownTracerError || e instanceof InvalidTimeoutError || e instanceof InvalidTracerConfigError)
    return new ParamError(TRACE_CONFIG_LABEL, e.message)
  if (e instanceof TraceTimeoutError) return new RpcError(-32000, e.message)
  if (e instanceof StateUnavailableError) return besuError('worldStateUnavailable')
  return e
}

export async function mapTracingErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (e) {
    throw tracingError(e)
  }
}

/** The TraceConfig object; unknown members are ignored, as in geth and Besu. */
export const traceConfig = codec(TRACE_CONFIG_LABEL, (v): TraceConfig => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return decoders.fail('expected a trace config object')
  const o = v as Record<string, unknown>
  for (const k of ['disableStack', 'disableStorage', 'enableMemory', 'enableReturnData', 'disableMemory']) {
    if (o[k] !== undefined && typeof o[k] !== 'boolean') decoders.fail(`${k}: expected a boolean`)
  }
  if (o.tracer !== undefined && typeof o.tracer !== 'string') decoders.fail('tracer: expected a string')
  if (o.timeout !== undefined && typeof o.timeout !== 'string') decoders.fail('timeout: expected a duration string')
  if (o.tracerConfig !== undefined && (typeof o.tracerConfig !== 'object' || o.tracerConfig === null)) {
    decoders.fail('tracerConfig: expected an object')
  }
  return o as TraceConfig
})

/** Replays transaction `index` of `block` with `tracer`. */
export async function traceTransactionAt<R>(
  ctx: RpcContext,
  block: Block,
  index: number,
  tracer: TxTracer<R>,
): Promise<R> {
  const out = await mapTracingErrors(() =>
    replayBlock(ctx.chain, block, (_tx, i) => (i === index ? tracer : undefined), index),
  )
  return out.get(index) as R
}

/** The transaction a hash names, or Besu's -32000 `transaction not found`. */
export async function requireTransaction(ctx: RpcContext, hash: Uint8Array): Promise<{ block: Block; index: number }> {
  const found = await ctx.chain.findTransaction(hash)
  if (!found) throw besuError('transactionNotFound', 'transaction not found')
  return found
}

/**
 * Traces every transaction of a block as debug_traceBlock* answer: `[{txHash, result}]`. A
 * transaction whose trace runs past the `timeout` gets geth's `{txHash, error: "execution timeout"}`
 * entry instead, and the others are traced on the state it leaves.
 */
export async function traceBlockTransactions(ctx: RpcContext, block: Block, config: TraceConfig = {}) {
  const { results, timedOut } = await mapTracingErrors(async () => {
    createTracer(config)
    return replayBlockPastTimeouts(ctx.chain, block, () => createTracer(config))
  })
  return block.transactions.map((tx, i) => {
    const txHash = bytesToHex(tx.hash())
    return timedOut.has(i) ? { txHash, error: new TraceTimeoutError().message } : { txHash, result: results.get(i) }
  })
}

/** A block named by hash, or Besu's -32000 error. */
export async function requireBlockByHash(ctx: RpcContext, hash: Uint8Array): Promise<Block> {
  const block = await ctx.chain.getBlockByHash(hash)
  if (!block) throw besuError('blockNotFound', `block ${bytesToHex(hash)} not found`)
  return block
}
