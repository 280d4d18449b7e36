/**
 * Calls that fail before a frame is entered (value above the caller's balance, or the 1024-deep
 * call stack): the EVM returns 0 at once and emits no message events, but geth's callTracer shows
 * each as a frame with its error and no gas used. They are recognised at the CALL step and completed
 * at the frame's next step, where the gas the callee would have received is known (EIP-150: all but
 * a 64th of what is left, at most the gas asked for, plus the 2,300 stipend with value).
 */
import type { InterpreterStep } from '@ethereumjs/evm'
import { bigintToPaddedBytes } from '../../primitives/hex.ts'
import type { CallFrame, CallType } from './callTracer.ts'

const CALLS: Record<number, CallType> = { 241: 'CALL', 242: 'CALLCODE', 244: 'DELEGATECALL', 250: 'STATICCALL' }
const MAX_DEPTH = 1024
const CALL_STIPEND = 2300n
const ADDRESS_MASK = (1n << 160n) - 1n

export interface FailFastCall {
  frame: CallFrame
  requestedGas: bigint
}

/** The call a CALL-family step makes when it is bound to fail before entering; undefined otherwise. */
export function failFastCall(s: InterpreterStep): FailFastCall | undefined {
  const type = CALLS[s.opcode.code]
  if (!type) return undefined
  const st = s.stack
  const n = st.length
  const hasValue = type === 'CALL' || type === 'CALLCODE'
  if (n < (hasValue ? 7 : 6)) return undefined
  const value = hasValue ? st[n - 3] : 0n
  const isTooDeep = s.depth >= MAX_DEPTH
  const isUnaffordable = hasValue && value > s.account.balance
  if (!isTooDeep && !isUnaffordable) return undefined
  const argsOffset = Number(st[n - (hasValue ? 4 : 3)])
  const argsLength = Number(st[n - (hasValue ? 5 : 4)])
  const input = new Uint8Array(argsLength)
  input.set(s.memory.subarray(argsOffset, argsOffset + argsLength))
  return {
    requestedGas: st[n - 1],
    frame: {
      type,
      from: s.address.bytes,
      to: bigintToPaddedBytes(st[n - 2] & ADDRESS_MASK, 20),
      value: type === 'STATICCALL' ? undefined : type === 'DELEGATECALL' ? undefined : value,
      gas: 0n,
      gasUsed: 0n,
      input,
      output: new Uint8Array(0),
      error: isTooDeep ? 'max call depth exceeded' : 'insufficient balance for transfer',
      calls: [],
      logs: [],
      isStatic: false,
    },
  }
}

/** The frame with the gas geth gives the callee, from the gas left once the CALL step is done (all of it returned). */
export function completeFailFast(call: FailFastCall, gasLeftAfter: bigint): CallFrame {
  // The stipend of a value call comes back to the caller with the unused gas: take it out again.
  const stipend = call.frame.value !== undefined && call.frame.value > 0n ? CALL_STIPEND : 0n
  const available = gasLeftAfter - stipend
  const cap = available - available / 64n
  const gas = (call.requestedGas < cap ? call.requestedGas : cap) + stipend
  return { ...call.frame, gas }
}
