/**
 * Parity-style ("flat") traces, as Besu's trace_* methods return them: the call tree in depth-first
 * order, each entry with its `traceAddress` path and number of `subtraces`.
 */
import type { RunTxResult } from '@ethereumjs/vm'
import { bytesToHex, type Hex, toQuantity } from '../../primitives/hex.ts'
import { revertOutputOf } from '../revertOutput.ts'
import type { CallFrame } from './callTracer.ts'
import type { TxContext } from './txTracer.ts'

type Json = Record<string, unknown>

/** Where a transaction sits, for trace_transaction / trace_block / trace_filter entries. */
export interface TraceLocation {
  blockHash: Uint8Array
  blockNumber: bigint
  transactionHash: Uint8Array
  transactionPosition: number
}

const PARITY_ERRORS: Record<string, string> = {
  'execution reverted': 'Reverted',
  'out of gas': 'Out of gas',
  'invalid opcode': 'Bad instruction',
  'invalid jump destination': 'Bad jump destination',
  'stack underflow': 'Stack underflow',
  'stack overflow': 'Stack overflow',
  'write protection': 'Mutable call in static context',
  'contract creation code storage out of gas': 'Out of gas',
  'max code size exceeded': 'Out of gas',
  'contract address collision': 'Contract address collision',
}

/**
 * geth's flatCallTracer table (`convertParityErrors`): its own words, which differ from Besu's for
 * stack overflow (`Out of stack`) and leave `write protection` and `contract address collision` as
 * they are.
 */
const GETH_PARITY_ERRORS: Record<string, string> = {
  'contract creation code storage out of gas': 'Out of gas',
  'out of gas': 'Out of gas',
  'gas uint64 overflow': 'Out of gas',
  'max code size exceeded': 'Out of gas',
  'invalid jump destination': 'Bad jump destination',
  'execution reverted': 'Reverted',
  'return data out of bounds': 'Out of bounds',
  'stack limit reached 1024 (1023)': 'Out of stack',
  'precompiled failed': 'Built-in failed',
  'invalid input length': 'Built-in failed',
}

function gethParityError(gethText: string): string {
  const exact = GETH_PARITY_ERRORS[gethText]
  if (exact) return exact
  // geth wraps some out-of-gas errors (`out of gas: not enough gas for reentrancy sentry`).
  if (gethText.startsWith('out of gas:')) return 'Out of gas'
  if (gethText.startsWith('invalid opcode:')) return 'Bad instruction'
  if (gethText.startsWith('stack underflow')) return 'Stack underflow'
  return gethText
}

/** Parity's word for a geth error text; geth's texts that name the opcode or stack sizes by their start. */
function parityError(gethText: string): string {
  const exact = PARITY_ERRORS[gethText]
  if (exact) return exact
  if (gethText.startsWith('invalid opcode')) return PARITY_ERRORS['invalid opcode']
  if (gethText.startsWith('stack underflow')) return PARITY_ERRORS['stack underflow']
  if (gethText.startsWith('stack limit reached')) return PARITY_ERRORS['stack overflow']
  return gethText
}

function actionAndResult(f: CallFrame, isMessageGas: boolean): { action: Json; result: Json | null; type: string } {
  const gas = isMessageGas && f.messageGas !== undefined ? f.messageGas : f.gas
  const gasUsed = isMessageGas && f.messageGasUsed !== undefined ? f.messageGasUsed : f.gasUsed
  if (f.type === 'SELFDESTRUCT') {
    return {
      type: 'suicide',
      action: { address: bytesToHex(f.from), balance: toQuantity(f.value ?? 0n), refundAddress: bytesToHex(f.to!) },
      result: null,
    }
  }
  if (f.type === 'CREATE' || f.type === 'CREATE2') {
    return {
      type: 'create',
      action: {
        creationMethod: f.type.toLowerCase(),
        from: bytesToHex(f.from),
        gas: toQuantity(gas),
        init: bytesToHex(f.input),
        value: toQuantity(f.value ?? 0n),
      },
      result: { address: f.to ? bytesToHex(f.to) : null, code: bytesToHex(f.output), gasUsed: toQuantity(gasUsed) },
    }
  }
  return {
    type: 'call',
    action: {
      callType: f.type.toLowerCase(),
      from: bytesToHex(f.from),
      gas: toQuantity(gas),
      input: bytesToHex(f.input),
      to: bytesToHex(f.to!),
      value: toQuantity(f.value ?? 0n),
    },
    result: { gasUsed: toQuantity(gasUsed), output: bytesToHex(f.output) },
  }
}

export interface FlattenOptions {
  /** Parity's error words (`Reverted`, `Out of gas`, …) instead of geth's texts; default true. */
  isParityErrors?: boolean
  /** Besu's `revertReason` on the top entry: the bytes the transaction reverted with. */
  revertReason?: Hex
  /** `creationMethod` on create actions; default true (Besu's trace_call* leave it out). */
  hasCreationMethod?: boolean
  /**
   * geth's flatCallTracer rather than Besu's trace_*: the top entry's gas and gas used are the
   * transaction's (its gas limit, the receipt's gas used, as geth's callTracer), a reverted entry
   * keeps its `result` beside the `error`, a `suicide` entry has no `result`, and `isParityErrors`
   * uses geth's table.
   */
  isGethFlat?: boolean
}

/** The bytes a transaction's top-level REVERT returned, or undefined when it did not revert. */
export function revertReasonOf(r: RunTxResult): Hex | undefined {
  const output = revertOutputOf(r)
  return output === undefined ? undefined : bytesToHex(output)
}

/**
 * The tree without CALL and STATICCALL frames into precompiles (`precompiles`: lowercase hex
 * addresses), which parity traces leave out and geth's flatCallTracer too unless asked.
 */
export function withoutPrecompileCalls(f: CallFrame, precompiles: ReadonlySet<string>): CallFrame {
  const isPrecompileCall = (c: CallFrame) =>
    (c.type === 'CALL' || c.type === 'STATICCALL') && c.to !== undefined && precompiles.has(bytesToHex(c.to))
  return { ...f, calls: f.calls.filter((c) => !isPrecompileCall(c)).map((c) => withoutPrecompileCalls(c, precompiles)) }
}

/** The precompiles of the fork a transaction runs in, as lowercase 0x addresses. */
export function precompileAddresses(ctx: TxContext): Set<string> {
  const keys = (ctx.vm.evm as unknown as { precompiles: Map<string, unknown> }).precompiles.keys()
  return new Set([...keys].map((k) => `0x${k}`))
}

/**
 * The tree as Besu's parity traces show it: no nested call into a precompile, whatever its type and
 * value (Besu's FlatTraceGenerator lists a call only when the callee ran opcodes of its own, which a
 * precompile never does); the top call always appears.
 */
export function withoutNestedPrecompileCalls(f: CallFrame, precompiles: ReadonlySet<string>): CallFrame {
  const isPrecompileCall = (c: CallFrame) =>
    c.type !== 'CREATE' &&
    c.type !== 'CREATE2' &&
    c.type !== 'SELFDESTRUCT' &&
    c.to !== undefined &&
    precompiles.has(bytesToHex(c.to))
  return {
    ...f,
    calls: f.calls.filter((c) => !isPrecompileCall(c)).map((c) => withoutNestedPrecompileCalls(c, precompiles)),
  }
}

/** The flat traces of one transaction's call tree; `at` adds the block and transaction fields. */
export function flattenCallFrames(root: CallFrame, at?: TraceLocation, opts: FlattenOptions = {}): Json[] {
  const isParityErrors = opts.isParityErrors !== false
  const isGeth = opts.isGethFlat === true
  const out: Json[] = []
  const walk = (f: CallFrame, path: number[]) => {
    const { action, result, type } = actionAndResult(f, path.length === 0 && !isGeth)
    if (opts.hasCreationMethod === false) delete action.creationMethod
    const entry: Json = { action }
    if (at) {
      entry.blockHash = bytesToHex(at.blockHash)
      entry.blockNumber = Number(at.blockNumber)
    }
    if (f.error !== undefined) {
      entry.error = !isParityErrors ? f.error : isGeth ? gethParityError(f.error) : parityError(f.error)
    }
    if (isGeth) {
      // geth leaves out the address of a create that failed rather than writing null.
      if (result?.address === null) delete result.address
      if (result !== null && (f.error === undefined || f.error === 'execution reverted')) entry.result = result
    } else if (f.error === undefined) entry.result = result
    if (path.length === 0 && opts.revertReason !== undefined) entry.revertReason = opts.revertReason
    entry.subtraces = f.calls.length
    entry.traceAddress = path
    if (at) {
      entry.transactionHash = bytesToHex(at.transactionHash)
      entry.transactionPosition = at.transactionPosition
    }
    entry.type = type
    out.push(entry)
    for (let i = 0; i < f.calls.length; i++) walk(f.calls[i], [...path, i])
  }
  walk(root, [])
  return out
}
