/** Flat (parity) traces of a block's or a transaction's calls, with their block and transaction fields. */
import type { Block } from '@ethereumjs/block'
import { replayBlock } from '../../evm/tracers/blockReplayer.ts'
import { CallTracer } from '../../evm/tracers/callTracer.ts'
import {
  flattenCallFrames,
  precompileAddresses,
  revertReasonOf,
  withoutNestedPrecompileCalls,
} from '../../evm/tracers/parityTrace.ts'
import type { TxTracer } from '../../evm/tracers/txTracer.ts'
import type { RpcContext } from '../context.ts'
import { mapTracingErrors } from '../debug/traceRunner.ts'

type Json = Record<string, unknown>

/** A tracer giving the flat traces of one transaction of `block`. */
export function flatTracer(block: Block): TxTracer<Json[]> {
  const tracer = new CallTracer({ withSelfdestructs: true })
  return {
    start: tracer.start.bind(tracer),
    finish: (ctx, r) =>
      flattenCallFrames(
        withoutNestedPrecompileCalls(tracer.finish(ctx, r), precompileAddresses(ctx)),
        {
          blockHash: block.hash(),
          blockNumber: block.header.number,
          transactionHash: ctx.tx.hash(),
          transactionPosition: ctx.index ?? 0,
        },
        { revertReason: revertReasonOf(r) },
      ),
  }
}

/** Every flat trace of a block's transactions, in order. */
export async function blockTraces(ctx: RpcContext, block: Block): Promise<Json[]> {
  if (block.header.number === 0n || block.transactions.length === 0) return []
  const out = await mapTracingErrors(() => replayBlock(ctx.chain, block, () => flatTracer(block)))
  return block.transactions.flatMap((_tx, i) => out.get(i) ?? [])
}
