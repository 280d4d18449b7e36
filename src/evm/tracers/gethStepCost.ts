import type { InterpreterStep } from '@ethereumjs/evm'

const CALL = 0xf1
const CALLCODE = 0xf2
const DELEGATECALL = 0xf4
const STATICCALL = 0xfa
const UINT64_LIMIT = 1n << 64n

/**
 * An opcode's `gasCost` as geth's struct logger and EIP-3155 lines report it (Besu's too). For the
 * CALL family geth counts the gas the call hands to its callee in the opcode's cost (its dynamic gas
 * adds the call gas it works out, `callGasTemp`): the gas asked for, from Tangerine Whistle capped at
 * all but a 64th of what is left after the opcode's own cost (EIP-150); the 2,300 stipend of a value
 * call is not part of it. The EVM library reports the opcode's own cost only. A call whose own cost
 * cannot be paid, or that asks for more than 64 bits of gas, keeps its own cost (geth fails it
 * before any call gas is worked out).
 */
export function gethStepCost(s: InterpreterStep, isEip150: boolean): bigint {
  return gethOpCost(
    s.opcode.code,
    s.opcode.dynamicFee ?? BigInt(s.opcode.fee),
    s.gasLeft,
    s.stack,
    s.stack.length,
    isEip150,
  )
}

/**
 * `gethStepCost` from the opcode, its own cost (`own`), the gas left before it and the stack
 * (items `stack[0 .. depth)`, top last).
 */
export function gethOpCost(
  op: number,
  own: bigint,
  gasLeft: bigint,
  stack: readonly bigint[],
  depth: number,
  isEip150: boolean,
): bigint {
  if (op !== CALL && op !== CALLCODE && op !== DELEGATECALL && op !== STATICCALL) return own
  if (depth < 1 || gasLeft < own) return own
  const requested = stack[depth - 1]
  if (!isEip150) return requested < UINT64_LIMIT ? own + requested : own
  const available = gasLeft - own
  const cap = available - available / 64n
  return own + (requested < cap ? requested : cap)
}
