/**
 * Why a simulated message could not even start (as opposed to running and failing): the VM's
 * validation messages sorted into kinds the RPC surfaces map to Besu's errors.
 */
import { ExecutionTimeoutError } from './executionDeadline.ts'
import { StateOverrideError } from './stateOverrides.ts'
import { TraceTimeoutError } from './tracers/txTracer.ts'

export type CallErrorKind =
  | 'nonceTooLow'
  | 'insufficientFunds'
  | 'intrinsicGasTooLow'
  | 'feeCapBelowBaseFee'
  | 'blobFeeCapTooLow'
  | 'priorityFeeExceedsMaxFee'
  | 'gasLimitTooHigh'
  | 'senderNotEoa'
  | 'invalidBlobs'
  | 'invalidType'
  | 'blobGasTooHigh'
  | 'invalid'

export class CallError extends Error {
  readonly kind: CallErrorKind

  constructor(kind: CallErrorKind, message: string) {
    super(message)
    this.kind = kind
    this.name = 'CallError'
  }
}

const PATTERNS: [RegExp, CallErrorKind][] = [
  [/doesn't have enough funds/, 'insufficientFunds'],
  [/INTRINSIC_GAS_TOO_LOW|lower than the minimum gas limit/, 'intrinsicGasTooLow'],
  [/less than the block's baseFeePerGas/, 'feeCapBelowBaseFee'],
  [/maxFeePerBlobGas .*less than block blobGasPrice/, 'blobFeeCapTooLow'],
  [/maxFeePerGas cannot be less than maxPriorityFeePerGas/, 'priorityFeeExceedsMaxFee'],
  [/EIP-7825|higher gas limit than the block/, 'gasLimitTooHigh'],
  [/EIP-3607/, 'senderNotEoa'],
  [/blob gas of \d+ to exceed maximum blob gas per block/, 'blobGasTooHigh'],
  [/versioned hash|at least one blob/i, 'invalidBlobs'],
  // The call's fields ask for a transaction type the block's fork does not have yet (blob fields
  // before Cancun, fee caps before London), or a blob transaction without a recipient: Besu's
  // validator refuses the transaction's format.
  [/EIP-\d+ not enabled on Common|should have a "to" field/, 'invalidType'],
]

/** The VM's message without its trailing transaction dump. */
function cleanMessage(message: string): string {
  return message.replace(/ \((?:vm hf=|tx type=)[\s\S]*$/, '').trim()
}

/** Sorts an error thrown while building or running a simulated transaction. */
export function callFailure(e: unknown): Error {
  // A tracer that stopped the run (its timeout) is no failure of the call.
  if (
    e instanceof CallError ||
    e instanceof StateOverrideError ||
    e instanceof ExecutionTimeoutError ||
    e instanceof TraceTimeoutError
  )
    return e
  if (!(e instanceof Error)) return new CallError('invalid', String(e))
  const message = cleanMessage(e.message)
  for (const [re, kind] of PATTERNS) if (re.test(message)) return new CallError(kind, message)
  return new CallError('invalid', message)
}
