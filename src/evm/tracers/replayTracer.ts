/**
 * Parity's replay output (trace_replay*, trace_call): the transaction's output with, as asked, its
 * flat call traces, its state diff and its VM trace.
 */
import type { RunTxResult } from '@ethereumjs/vm'
import { bytesToHex, type Hex } from '../../primitives/hex.ts'
import { CallTracer } from './callTracer.ts'
import { flattenCallFrames, precompileAddresses, revertReasonOf, withoutNestedPrecompileCalls } from './parityTrace.ts'
import { PrestateTracer } from './prestateTracer.ts'
import type { TxContext, TxTracer } from './txTracer.ts'
import { type VmTraceJson, VmTracer } from './vmTracer.ts'

export type TraceType = 'trace' | 'stateDiff' | 'vmTrace'

type AccountJson = { balance?: Hex; nonce?: number; code?: Hex; storage?: Record<string, Hex> }
type Diff = '=' | { '+': Hex } | { '-': Hex } | { '*': { from: Hex; to: Hex } }

export interface ReplayResult {
  output: Hex
  /** The bytes a top-level REVERT returned (Besu); absent when the transaction did not revert. */
  revertReason?: Hex
  stateDiff: Record<string, unknown> | null
  trace: Record<string, unknown>[]
  vmTrace: VmTraceJson | null
}

const ZERO_WORD: Hex = `0x${'0'.repeat(64)}`

function nonceHex(n: number | undefined): Hex {
  return `0x${(n ?? 0).toString(16)}`
}

function change(from: Hex | undefined, to: Hex | undefined, fallback: Hex): Diff {
  if (to === undefined) return '='
  const before = from ?? fallback
  return before === to ? '=' : { '*': { from: before, to } }
}

function account(a: AccountJson, sign: '+' | '-'): Record<string, unknown> {
  const one = (v: Hex) => (sign === '+' ? { '+': v } : { '-': v })
  const storage: Record<string, Diff> = {}
  for (const [k, v] of Object.entries(a.storage ?? {})) storage[k] = one(v)
  return { balance: one(a.balance ?? '0x0'), code: one(a.code ?? '0x'), nonce: one(nonceHex(a.nonce)), storage }
}

/** An account with no balance, nonce, code or storage: one that does not exist (EIP-161). */
function isEmpty(a: AccountJson): boolean {
  return (
    BigInt(a.balance ?? '0x0') === 0n &&
    (a.nonce ?? 0) === 0 &&
    (a.code ?? '0x') === '0x' &&
    Object.keys(a.storage ?? {}).length === 0
  )
}

/**
 * Parity's stateDiff from a prestate diff (`pre` and `post` of what changed). An account that was
 * empty before counts as absent, as in OpenEthereum and Besu: it is born (`+`) if the transaction
 * left something in it, and not listed if it only touched it.
 */
export function toStateDiff(
  pre: Record<string, AccountJson>,
  post: Record<string, AccountJson>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const addr of new Set([...Object.keys(pre), ...Object.keys(post)])) {
    const before = pre[addr] && !isEmpty(pre[addr]) ? pre[addr] : undefined
    const after = post[addr]
    if (!before && !after) continue
    if (!before) out[addr] = account(after, '+')
    else if (!after) out[addr] = account(before, '-')
    else {
      const storage: Record<string, Diff> = {}
      for (const k of new Set([...Object.keys(before.storage ?? {}), ...Object.keys(after.storage ?? {})])) {
        storage[k] = change(before.storage?.[k], after.storage?.[k] ?? ZERO_WORD, ZERO_WORD)
      }
      out[addr] = {
        balance: change(before.balance, after.balance, '0x0'),
        code: change(before.code, after.code, '0x'),
        nonce: change(nonceHex(before.nonce), after.nonce === undefined ? undefined : nonceHex(after.nonce), '0x0'),
        storage,
      }
    }
  }
  return out
}

/**
 * Which of Besu's two shapes: `replay` (trace_replay*: a failed transaction's `output` is `0x`, a
 * REVERT's bytes go to `revertReason`, on the result and on the top flat trace) or `call`
 * (trace_call*: `output` holds a REVERT's bytes, no `revertReason`, no `creationMethod`).
 */
export type ReplayShape = 'replay' | 'call'

function outputOf(r: RunTxResult, shape: ReplayShape): { output: Hex; revertReason?: Hex } {
  const reverted = revertReasonOf(r)
  if (shape === 'call') return { output: reverted ?? bytesToHex(r.execResult.returnValue) }
  if (r.execResult.exceptionError === undefined) return { output: bytesToHex(r.execResult.returnValue) }
  return reverted === undefined ? { output: '0x' } : { output: '0x', revertReason: reverted }
}

/** A tracer for trace_replay* and trace_call*: `types` says which parts to fill. */
export function createReplayTracer(types: TraceType[], shape: ReplayShape = 'replay'): TxTracer<ReplayResult> {
  const calls = types.includes('trace') ? new CallTracer({ withSelfdestructs: true }) : undefined
  const diff = types.includes('stateDiff') ? new PrestateTracer({ diffMode: true }) : undefined
  const vm = types.includes('vmTrace') ? new VmTracer() : undefined
  return {
    async start(ctx: TxContext) {
      await calls?.start(ctx)
      await diff?.start(ctx)
      vm?.start(ctx)
    },
    async finish(ctx: TxContext, r: RunTxResult) {
      const root = calls ? calls.finish(ctx, r) : undefined
      const prestate = diff
        ? ((await diff.finish(ctx, r)) as { pre: Record<string, AccountJson>; post: Record<string, AccountJson> })
        : undefined
      return {
        ...outputOf(r, shape),
        stateDiff: prestate ? toStateDiff(prestate.pre, prestate.post) : null,
        trace: root
          ? flattenCallFrames(withoutNestedPrecompileCalls(root, precompileAddresses(ctx)), undefined, {
              revertReason: shape === 'replay' ? revertReasonOf(r) : undefined,
              hasCreationMethod: shape === 'replay',
            })
          : [],
        vmTrace: vm ? vm.finish(ctx, r) : null,
      }
    },
  }
}
