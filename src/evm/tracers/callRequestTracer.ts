/** Traces call requests (debug_traceCall, trace_call, trace_callMany) on a scratch copy of a block's state. */
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
  return traceInSession(session, req, tracer, false)
}

/**
 * Runs several requests one after the other on one scratch copy of the state after `block`: each
 * sees the state the earlier ones left (trace_callMany). Fee rules come from the first request.
 */
export async function traceCallRequests<R>(
  chain: CallChain,
  block: Block,
  calls: { req: CallRequest; tracer: TxTracer<R> }[],
  opts: CallOptions,
): Promise<R[]> {
  if (calls.length === 0) return []
  const session = await CallSession.open(chain, block, calls[0].req, opts)
  const out: R[] = []
  for (const { req, tracer } of calls) out.push(await traceInSession(session, req, tracer, true))
  return out
}

async function traceInSession<R>(
  session: CallSession,
  req: CallRequest,
  tracer: TxTracer<R>,
  isCommitted: boolean,
): Promise<R> {
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
    await session.run(req, { isCommitted })
  } finally {
    events.off('beforeTx', before)
    events.off('afterTx', after)
  }
  if (failure) throw failure
  return result as R
}
