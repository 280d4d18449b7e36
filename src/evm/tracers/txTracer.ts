/**
 * Tracers: each one watches one transaction's execution through the EVM's events and produces one
 * JSON-ready result (struct logs, call frames, prestate, 4byte counts, parity traces). They do not
 * run anything themselves; `blockReplayer.ts` re-executes a block on its parent state and hands each
 * transaction to a tracer. Talks to `@ethereumjs/vm` only through the VM it is given.
 */
import type { Block } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import type { RunTxResult } from '@ethereumjs/vm'
import type { VM } from '../vmFactory.ts'

/** What a tracer learns about the transaction it watches. */
export interface TxContext {
  vm: VM
  tx: TypedTransaction
  block: Block
  /** Position in the block; undefined for a call that is not in a block. */
  index?: number
  sender: Uint8Array
}

export interface TxTracer<R = unknown> {
  /** Before the transaction touches state: subscribe to EVM events, read pre-state. */
  start(ctx: TxContext): Promise<void> | void
  /** After the transaction's changes are applied: unsubscribe and build the result. */
  finish(ctx: TxContext, result: RunTxResult): Promise<R> | R
}

/** Thrown (from a step) when a trace runs past its `timeout`; geth's text. */
export class TraceTimeoutError extends Error {
  constructor() {
    super('execution timeout')
  }
}
