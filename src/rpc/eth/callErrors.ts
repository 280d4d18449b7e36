/**
 * The one mapping from message-execution outcomes to JSON-RPC errors, with Besu's codes: a revert
 * is code 3 with the revert bytes as `data` and the Error(string) reason in the message; any other
 * EVM failure is Besu's "could not be completed due to an exception" with the halt reason; a
 * message that cannot start (cannot pay, too little gas) gets the matching transaction error.
 */
import type { Common } from '@ethereumjs/common'
import { withKzgOnDemand } from '../../chain/kzg.ts'
import { CallError, type CallErrorKind } from '../../evm/callError.ts'
import type { CallResult } from '../../evm/callService.ts'
import { ExecutionTimeoutError } from '../../evm/executionDeadline.ts'
import { StateOverrideError } from '../../evm/stateOverrides.ts'
import {
  BESU_ERRORS,
  type BesuErrorKind,
  besuError,
  ExecutionRevertedError,
  InternalError,
  InvalidParamsError,
  RpcError,
} from '../../jsonrpc/errors.ts'
import { bytesToBigint, bytesToHex } from '../../primitives/hex.ts'
import { StateUnavailableError } from '../../state/bonsaiState.ts'
import { ForkRemoteError } from '../../state/forkSource.ts'

const ERROR_SELECTOR = '0x08c379a0'

/** The string of an ABI-encoded `Error(string)`, or undefined for any other revert data. */
export function decodeRevertReason(data: Uint8Array): string | undefined {
  if (data.length < 68 || bytesToHex(data.subarray(0, 4)) !== ERROR_SELECTOR) return undefined
  const body = data.subarray(4)
  const offset = bytesToBigint(body.subarray(0, 32))
  if (offset + 32n > BigInt(body.length)) return undefined
  const start = Number(offset)
  const length = bytesToBigint(body.subarray(start, start + 32))
  if (BigInt(start + 32) + length > BigInt(body.length)) return undefined
  return new TextDecoder().decode(body.subarray(start + 32, start + 32 + Number(length)))
}

/**
 * The EVM library's halt reasons in Besu's words (the descriptions of Besu's `ExceptionalHaltReason`,
 * which Besu puts after the colon): a deployment onto an existing account is an illegal state
 * change, a deployed code starting with 0xEF is invalid code, a failed precompile a precompile error.
 */
const HALT_REASONS: Record<string, string> = {
  'out of gas': 'Out of gas',
  'code store out of gas': 'Out of gas',
  'invalid JUMP': 'Bad jump destination',
  'invalid opcode': 'Bad instruction',
  'stack underflow': 'Stack underflow',
  'stack overflow': 'Out of stack',
  'static state change': 'Illegal state change',
  'create collision': 'Illegal state change',
  'code size to deposit exceeds maximum code size': 'Code is too large',
  'invalid bytecode deployed': 'Code is invalid',
  'invalid EOF format': 'Code is invalid',
  'value out of range': 'Out of bounds',
  'invalid input length': 'Precompile error',
  'point not on curve': 'Precompile error',
  'input is empty': 'Precompile error',
  'fp point not in field': 'Precompile error',
  'kzg commitment does not match versioned hash': 'Precompile error',
  'kzg inputs invalid': 'Precompile error',
  'kzg proof invalid': 'Precompile error',
}

/**
 * Besu's description of why a run halted. An invalid or undefined opcode names the opcode
 * (`Invalid opcode: 0xfe`); the library's bad-jump text carries the place it happened, which
 * Besu's does not; a RETURNDATACOPY past the return data is out of gas to the library and out of
 * bounds to Besu.
 */
function haltReason(r: CallResult): string {
  const error = r.exceptionError ?? ''
  if (r.isReturnDataOverrun) return HALT_REASONS['value out of range']
  if (error === 'invalid opcode' && r.haltedOpcode !== undefined) {
    return `Invalid opcode: 0x${r.haltedOpcode.toString(16).padStart(2, '0')}`
  }
  if (error.startsWith('invalid JUMP')) return HALT_REASONS['invalid JUMP']
  return HALT_REASONS[error] ?? error
}

/** The RPC error for a run that did not succeed. */
export function failedCallError(r: CallResult): RpcError {
  // A value the sender cannot pay is no halt in Besu: its validator refuses the transaction before
  // it runs (TransactionInvalidReason UPFRONT_COST_EXCEEDS_BALANCE), so the EVM library's
  // "insufficient balance" gets that answer, never the library's words.
  if (r.exceptionError === INSUFFICIENT_BALANCE) return besuError('upfrontCostExceedsBalance')
  if (r.isRevert) {
    const reason = decodeRevertReason(r.returnData)
    return new ExecutionRevertedError(
      reason === undefined ? 'Execution reverted' : `Execution reverted: ${reason}`,
      bytesToHex(r.returnData),
    )
  }
  return besuError('executionHalted', `${BESU_ERRORS.executionHalted[1]}: ${haltReason(r)}`)
}

/** The EVM library's text for a value transfer its sender cannot pay. */
const INSUFFICIENT_BALANCE = 'insufficient balance'

/** The short text geth puts in eth_createAccessList's and eth_simulateV1's `error` fields. */
export function failureText(r: CallResult): string {
  if (r.isRevert) return 'execution reverted'
  if (r.exceptionError === INSUFFICIENT_BALANCE) return 'insufficient balance for transfer'
  return r.exceptionError ?? 'execution failed'
}

const KINDS: Partial<Record<CallErrorKind, BesuErrorKind>> = {
  insufficientFunds: 'upfrontCostExceedsBalance',
  intrinsicGasTooLow: 'intrinsicGasExceedsLimit',
  feeCapBelowBaseFee: 'gasPriceBelowBaseFee',
  blobFeeCapTooLow: 'blobGasPriceBelowBlobBaseFee',
  priorityFeeExceedsMaxFee: 'priorityFeeExceedsMaxFee',
  gasLimitTooHigh: 'exceedsBlockGasLimit',
  invalidType: 'invalidTransactionType',
}

/**
 * Errors any method may end in: a run cut off by the request's time limit (-32000 with geth's
 * message), a forked chain's remote that failed or timed out (-32000 naming the remote call), or
 * the state of a block outside a BONSAI history window (Besu's -32000 "World state unavailable").
 */
export function executionTimeoutError(e: unknown): RpcError | undefined {
  // A BONSAI data path no longer holds the state of a block below its history window.
  if (e instanceof StateUnavailableError) return besuError('worldStateUnavailable')
  return e instanceof ExecutionTimeoutError || e instanceof ForkRemoteError
    ? new RpcError(-32000, e.message)
    : undefined
}

/** Maps the call service's errors; anything else is rethrown untouched. */
export function callServiceError(e: unknown): unknown {
  if (e instanceof StateOverrideError) return new InvalidParamsError(e.message)
  if (!(e instanceof CallError)) return e
  // Besu's newest answers put the validator's words after its message: "Nonce too low (transaction
  // nonce 2 below sender account nonce 34 for sender 0x…)".
  if (e.kind === 'nonceTooLow') return besuError('nonceTooLow', `${BESU_ERRORS.nonceTooLow[1]} (${e.message})`)
  if (e.kind === 'insufficientFunds' && e.message.startsWith('transaction up-front cost'))
    return besuError('upfrontCostExceedsBalance', `${BESU_ERRORS.upfrontCostExceedsBalance[1]} (${e.message})`)
  const kind = KINDS[e.kind]
  if (kind) return besuError(kind)
  if (e.kind === 'invalidBlobs') return new InvalidParamsError(e.message)
  if (e.kind === 'blobGasTooHigh') {
    const [, used, max] = e.message.match(/blob gas of (\d+) to exceed maximum blob gas per block of (\d+)/) ?? []
    return besuError('totalBlobGasTooHigh', `total blob gas ${used} exceeds max blob gas per block ${max}`)
  }
  return new InternalError(e.message)
}

/**
 * Runs `fn`, turning the call service's errors into RPC errors. A call that reaches the
 * point-evaluation precompile before KZG is loaded (it is loaded on first need) runs again with it.
 */
export async function mapCallErrors<T>(common: Common, fn: () => Promise<T>): Promise<T> {
  try {
    return await withKzgOnDemand(common, fn)
  } catch (e) {
    throw callServiceError(e)
  }
}
