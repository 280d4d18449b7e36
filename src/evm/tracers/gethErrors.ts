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
}

const INVALID = 0xfe
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
  return GETH_ERRORS[error] ?? error
}

/** geth's text for a frame's failure, from the EVM's error and the run state it stopped in. */
export function frameErrorText(exec: EVMResult['execResult']): string | undefined {
  const err = exec.exceptionError?.error
  if (err === undefined) return undefined
  const run = exec.runState
  return gethErrorText(err, run ? { opcode: run.opCode, stackLength: run.stack.length } : undefined)
}
