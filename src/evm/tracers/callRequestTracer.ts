/** Traces a call request (debug_traceCall, trace_call) on a scratch copy of a block's state. */
import type { Block } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { RunTxResult } from '@ethereumjs/vm'
import { type CallChain, type CallOptions, type CallRequest, CallSession } from '../callService.ts'
import type { TxContext, TxTracer } from './txTracer.ts'

/** Runs `req` on the state after `block` with `tracer` watching; returns the tracer's result. */
export async function traceCallRequest<R>(
  chain: CallChain,
  block: Block,
  req: CallRequest,
  opts: CallOptions,
  tracer: TxTracer<R>,
): Promise<R> {
  const session = await CallSession.open(chain, block, req, opts)
  const events = session.vm.events
  let ctx: TxContext | undefined
  let result: R | undefined
  let failure: unknown
  const before = (tx: TypedTransaction, done?: () => void) => {
    ctx = { vm: session.vm, tx, block: session.block, sender: tx.getSenderAddress().bytes }
    Promise.resolve(tracer.start(ctx)).then(done, (e) => {
      failure = e
      done?.()
    })
  }
  const after = (r: RunTxResult, done?: () => void) => {
    Promise.resolve(tracer.finish(ctx!, r)).then(
      (out) => {
        result = out
        done?.()
      },
      (e) => {
        failure = e
        done?.()
      },
    )
  }
  events.on('beforeTx', before)
  events.on('afterTx', after)
  try {
    await session.run(req)
  } finally {
    events.off('beforeTx', before)
    events.off('afterTx', after)
  }
  if (failure) throw failure
  return result as R
}
