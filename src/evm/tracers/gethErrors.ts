/**
 * geth's texts for EVM errors, which its tracers (and Besu's, which follow them) print: the EVM's
 * own words mapped (`revert` → `execution reverted`), and the texts that name the failing opcode or
 * the stack sizes filled in from the run state the frame stopped in.
 */
import type { EVMResult } from '@ethereumjs/evm'

const GETH_ERRORS: Record<string, string> = {
  revert: 'execution reverted',
  'invalid JUMP': 'invalid jump destination',
  'static state change': 'write protection',
  'code store out of gas': 'contract creation code storage out of gas',
  'code size to deposit exceeds maximum code size': 'max code size exceeded',
  'create collision': 'contract address collision',
  'insufficient balance': 'insufficient balance for transfer',
  'initcode exceeds max initcode size': 'max initcode size exceeded',
  'invalid bytecode deployed': 'invalid code: must not begin with 0xef',
  'value overflow': 'gas uint64 overflow',
}

/** Where a frame stood when it failed: its last opcode and the stack depth before it. */
export interface FailurePoint {
  opcode: number
  stackLength: number
  /** Gas the frame had left when it stopped, and whether the fork has EIP-2200's SSTORE sentry (Istanbul on). */
  gasLeft?: bigint
  /** Gas the frame had before its last opcode, and that opcode's cost (from its step), where a tracer saw it. */
  gasBefore?: bigint
  stepCost?: bigint
  /** Whether the frame is a contract creation. */
  isCreate?: boolean
  hasSstoreSentry?: boolean
}

const INVALID = 0xfe
const SSTORE = 0x55
const RETURN = 0xf3
/** EIP-2200: an SSTORE with no more than this gas left fails, whatever it would cost. */
const SSTORE_SENTRY_GAS = 2300n
/** The BLAKE2F precompile, whose input is 213 bytes ending in a final flag of 0 or 1. */
const BLAKE2F = 9
const BLAKE2F_INPUT_LENGTH = 213
/** Stack items each opcode takes, for geth's `stack underflow (have <=> want)` text. */
const STACK_INPUTS: Record<number, number> = {
  1: 2,
  2: 2,
  3: 2,
  4: 2,
  5: 2,
  6: 2,
  7: 2,
  8: 3,
  9: 3,
  10: 2,
  11: 2,
  16: 2,
  17: 2,
  18: 2,
  19: 2,
  20: 2,
  21: 1,
  22: 2,
  23: 2,
  24: 2,
  25: 1,
  26: 2,
  27: 2,
  28: 2,
  29: 2,
  30: 1,
  32: 2,
  49: 1,
  53: 1,
  55: 3,
  57: 3,
  59: 1,
  60: 4,
  62: 3,
  63: 1,
  64: 1,
  73: 1,
  80: 1,
  81: 1,
  82: 2,
  83: 2,
  84: 1,
  85: 2,
  86: 1,
  87: 2,
  92: 1,
  93: 2,
  94: 3,
  160: 2,
  161: 3,
  162: 4,
  163: 5,
  164: 6,
  240: 3,
  241: 7,
  242: 7,
  243: 2,
  244: 6,
  245: 4,
  250: 6,
  253: 2,
  255: 1,
}

/** Stack items DUPn / SWAPn need. */
function stackInputs(op: number): number {
  if (op >= 0x80 && op <= 0x8f) return op - 0x7f
  if (op >= 0x90 && op <= 0x9f) return op - 0x8e
  return STACK_INPUTS[op] ?? 0
}

/** geth's wording of an EVM error; `at` (the failing step) fills in the texts that name it. */
export function gethErrorText(error: string, at?: FailurePoint): string {
  // The EVM's text names the place ("invalid JUMP at <code hash>/<address>:<pc>"); geth's does not.
  if (error.startsWith('invalid JUMP')) return 'invalid jump destination'
  if (error === 'invalid opcode' && at) {
    return at.opcode === INVALID
      ? 'invalid opcode: INVALID'
      : `invalid opcode: opcode 0x${at.opcode.toString(16)} not defined`
  }
  if (error === 'stack underflow' && at) return `stack underflow (${at.stackLength} <=> ${stackInputs(at.opcode)})`
  if (error === 'stack overflow' && at) return `stack limit reached ${at.stackLength} (1023)`
  // geth wraps the sentry's own error in its out-of-gas error; the EVM library says only "out of gas".
  // geth's rule: the SSTORE found no more than 2,300 gas before it ran, none at all included. With
  // the gas of the SSTORE's step, that is read directly. Without it: the sentry check fails before
  // any gas is taken, while every other out-of-gas of an SSTORE empties the frame's gas first, so gas
  // still left at a failed SSTORE is the sentry's (one reached with none left then reads as plain
  // out of gas).
  if (error === 'out of gas' && at?.opcode === SSTORE && at.hasSstoreSentry) {
    const isSentry =
      at.gasBefore !== undefined
        ? at.gasBefore <= SSTORE_SENTRY_GAS
        : (at.gasLeft ?? 0n) > 0n && (at.gasLeft ?? 0n) <= SSTORE_SENTRY_GAS
    if (isSentry) return 'out of gas: not enough gas for reentrancy sentry'
  }
  // A creation whose RETURN could pay for itself but whose code deposit (200 a byte) could not: the
  // EVM library says "out of gas" from Homestead on, geth names the deposit.
  if (
    error === 'out of gas' &&
    at?.isCreate === true &&
    at.opcode === RETURN &&
    at.gasBefore !== undefined &&
    at.stepCost !== undefined &&
    at.gasBefore >= at.stepCost
  ) {
    return 'contract creation code storage out of gas'
  }
  return GETH_ERRORS[error] ?? error
}

/** The call a frame ran, for the errors of precompiles, which have no run state. */
export interface FrameCall {
  to?: Uint8Array
  input: Uint8Array
}

/** geth's text for a precompile's failure, where its words differ from the EVM library's. */
function precompileErrorText(error: string, call: FrameCall): string | undefined {
  const to = call.to
  const isBlake2f =
    to !== undefined && to.length === 20 && to[19] === BLAKE2F && to.subarray(0, 19).every((b) => b === 0)
  // The EVM library says "value out of range" for both of BLAKE2F's input checks; geth names each.
  if (!isBlake2f || error !== 'value out of range') return undefined
  return call.input.length === BLAKE2F_INPUT_LENGTH ? 'invalid final flag' : 'invalid input length'
}

/** A frame's last opcode as a tracer saw it at its step: the gas before it and its cost. */
export interface LastStep {
  gasLeft: bigint
  cost: bigint
}

/**
 * geth's text for a frame's failure, from the EVM's error and the run state it stopped in (or, for
 * a precompile, which has none, the call it ran), the frame's last step where the caller saw it,
 * and whether the frame is a creation.
 */
export function frameErrorText(
  exec: EVMResult['execResult'],
  call?: FrameCall,
  last?: LastStep,
  isCreate = false,
): string | undefined {
  const err = exec.exceptionError?.error
  if (err === undefined) return undefined
  const run = exec.runState
  if (!run && call) {
    const text = precompileErrorText(err, call)
    if (text !== undefined) return text
  }
  return gethErrorText(
    err,
    run
      ? {
          opcode: run.opCode,
          stackLength: run.stack.length,
          gasLeft: run.gasLeft,
          gasBefore: last?.gasLeft,
          stepCost: last?.cost,
          isCreate,
          hasSstoreSentry: run.interpreter._evm.common.gteHardfork('istanbul'),
        }
      : undefined,
  )
}
