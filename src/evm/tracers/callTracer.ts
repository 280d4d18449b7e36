/**
 * The call tracer: the tree of message calls a transaction made, built from the EVM's
 * before/after-message events. `CallTracer` keeps frames as bigint/bytes; `formatCallFrame` gives
 * geth's callTracer JSON, and `parityTrace.ts` flattens the same tree into parity traces.
 */
import type { EVM, EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import type { RunTxResult } from '@ethereumjs/vm'
import { bytesToHex, toQuantity } from '../../primitives/hex.ts'
import { completeFailFast, type FailFastCall, failFastCall } from './failFastCalls.ts'
import { frameErrorText, type LastStep } from './gethErrors.ts'
import type { TxContext, TxTracer } from './txTracer.ts'

export type CallType = 'CALL' | 'STATICCALL' | 'DELEGATECALL' | 'CALLCODE' | 'CREATE' | 'CREATE2' | 'SELFDESTRUCT'

export interface CallLog {
  address: Uint8Array
  topics: Uint8Array[]
  data: Uint8Array
  /** How many sub-calls of the frame came before this log. */
  position: number
}

export interface CallFrame {
  type: CallType
  from: Uint8Array
  /** The callee, or the created contract (absent when a create failed before an address existed). */
  to?: Uint8Array
  /** Undefined for DELEGATECALL and STATICCALL, which carry no value. */
  value?: bigint
  gas: bigint
  gasUsed: bigint
  /** For the top frame: gas and gas used of its message (without intrinsic gas and refunds). */
  messageGas?: bigint
  messageGasUsed?: bigint
  input: Uint8Array
  output: Uint8Array
  /** geth's error text (`execution reverted`, `out of gas`, …). */
  error?: string
  calls: CallFrame[]
  logs: CallLog[]
  isStatic: boolean
}

export interface CallTracerOptions {
  onlyTopCall?: boolean
  withLog?: boolean
  /** Record SELFDESTRUCT as a frame, as geth does (default); false leaves them out. */
  withSelfdestructs?: boolean
}

const LOG0 = 0xa0
const LOG4 = 0xa4
const SELFDESTRUCT = 0xff
const RETURN = 0xf3
/** The largest RETURN the tracer copies: far past what any block's gas pays for in memory. */
const MAX_RETURN_COPY = 1n << 26n
/** The EVM library's error for a creation that cannot pay for the code it returns. */
const CODE_STORE_OOG = 'code store out of gas'
const EMPTY = new Uint8Array(0)

function callTypeOf(m: Message, parent: CallFrame | undefined): CallType {
  if (m.to === undefined) return m.salt === undefined ? 'CREATE' : 'CREATE2'
  if (m.delegatecall) return 'DELEGATECALL'
  if ((m as unknown as { _codeAddress?: unknown })._codeAddress !== undefined) return 'CALLCODE'
  if (m.isStatic && parent !== undefined && !parent.isStatic) return 'STATICCALL'
  return 'CALL'
}

function bigintToWord(n: bigint): Uint8Array {
  const out = new Uint8Array(32)
  let v = n
  for (let i = 31; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn)
    v >>= 8n
  }
  return out
}

/** A frame being built, with the message it runs and where it stands. */
interface OpenFrame {
  frame: CallFrame
  message: Message
  /** The frame's latest opcode: the gas before it and its cost, from its step. */
  lastStep?: LastStep
  /** What a creation frame's RETURN handed back: the code it deploys. */
  returned?: Uint8Array
}

export class CallTracer implements TxTracer<CallFrame> {
  private readonly stack: OpenFrame[] = []
  private root?: CallFrame
  /** A call seen at its step that fails before entering; completed at the frame's next step. */
  private failFast?: FailFastCall
  /** A SELFDESTRUCT frame added at its step: gone again if that step fails on its cost. */
  private selfdestruct?: CallFrame
  private evm?: EVM

  private readonly opts: CallTracerOptions

  constructor(opts: CallTracerOptions = {}) {
    this.opts = opts
  }

  start({ vm }: TxContext): void {
    this.evm = vm.evm as EVM
    this.evm.events.on('beforeMessage', this.onEnter)
    this.evm.events.on('afterMessage', this.onExit)
    this.evm.events.on('step', this.onStep)
  }

  finish({ tx, sender }: TxContext, result: RunTxResult): CallFrame {
    this.evm?.events.off('beforeMessage', this.onEnter)
    this.evm?.events.off('afterMessage', this.onExit)
    this.evm?.events.off('step', this.onStep)
    const root = this.root ?? this.emptyRoot(sender, tx.to?.bytes, tx.data, tx.value)
    root.messageGas = root.gas
    root.messageGasUsed = root.gasUsed
    root.gas = tx.gasLimit
    root.gasUsed = result.totalGasSpent
    if (result.createdAddress && root.error === undefined) root.to = result.createdAddress.bytes
    return root
  }

  private emptyRoot(from: Uint8Array, to: Uint8Array | undefined, input: Uint8Array, value: bigint): CallFrame {
    return {
      type: to ? 'CALL' : 'CREATE',
      from,
      to,
      value,
      gas: 0n,
      gasUsed: 0n,
      input,
      output: EMPTY,
      calls: [],
      logs: [],
      isStatic: false,
    }
  }

  /**
   * geth's view of a call: `from` is the account whose code made it (for a frame inside a
   * DELEGATECALL, the delegating contract), `to` the account whose code runs (for DELEGATECALL and
   * CALLCODE the code's address, not the storage context), and a DELEGATECALL carries the value of
   * the frame it runs in.
   */
  private readonly onEnter = (m: Message): void => {
    const parent = this.stack[this.stack.length - 1]
    const type = callTypeOf(m, parent?.frame)
    const isCodeCall = type === 'DELEGATECALL' || type === 'CALLCODE'
    const frame: CallFrame = {
      type,
      from: parent?.message.to?.bytes ?? m.caller.bytes,
      to: isCodeCall ? m.codeAddress.bytes : m.to?.bytes,
      value: type === 'STATICCALL' ? undefined : m.value,
      gas: m.gasLimit,
      gasUsed: 0n,
      // A copy: the call's input is a view of the caller's memory, which its output may overwrite.
      input: m.data.slice(),
      output: EMPTY,
      calls: [],
      logs: [],
      isStatic: m.isStatic,
    }
    if (this.stack.length === 0) this.root = frame
    this.stack.push({ frame, message: m })
  }

  private readonly onExit = (r: EVMResult): void => {
    const open = this.stack.pop()
    if (!open) return
    const { frame } = open
    const exec = r.execResult
    // A fail-fast call as the frame's last step (the frame ran off its end after it).
    if (this.failFast && !exec.exceptionError && exec.runState) this.addFailFast(frame, exec.runState.gasLeft)
    this.failFast = undefined
    if (this.selfdestruct && exec.exceptionError) frame.calls = frame.calls.filter((c) => c !== this.selfdestruct)
    this.selfdestruct = undefined
    frame.gasUsed = exec.executionGasUsed
    if (r.createdAddress) frame.to = r.createdAddress.bytes
    const err = exec.exceptionError?.error
    if (err === CODE_STORE_OOG && this.evm?.common.gteHardfork('homestead') === false) {
      // Before Homestead a creation that cannot pay for its code still succeeds, without code; geth
      // clears the error of a frame whose changes stand and gives the code the RETURN handed back.
      frame.output = open.returned ?? EMPTY
    } else if (err === undefined) frame.output = exec.returnValue
    else {
      frame.error = frameErrorText(exec, frame, open.lastStep, frame.type === 'CREATE' || frame.type === 'CREATE2')
      if (err === 'revert') frame.output = exec.returnValue
      // geth leaves out the address of a create that failed.
      if (frame.type === 'CREATE' || frame.type === 'CREATE2') frame.to = undefined
      frame.logs = []
      for (const c of frame.calls) dropLogs(c)
    }
    const parent = this.stack[this.stack.length - 1]
    if (parent && !this.opts.onlyTopCall) parent.frame.calls.push(frame)
  }

  private addFailFast(frame: CallFrame, gasLeftAfter: bigint): void {
    if (this.failFast && !this.opts.onlyTopCall) frame.calls.push(completeFailFast(this.failFast, gasLeftAfter))
    this.failFast = undefined
  }

  private readonly onStep = (s: InterpreterStep): void => {
    const open = this.stack[this.stack.length - 1]
    if (!open) return
    const op = s.opcode.code
    const frame = open.frame
    open.lastStep = { gasLeft: s.gasLeft, cost: s.opcode.dynamicFee ?? BigInt(s.opcode.fee) }
    if (this.failFast) this.addFailFast(frame, s.gasLeft)
    this.failFast = failFastCall(s)
    this.selfdestruct = undefined
    const st = s.stack
    const n = st.length
    if (op === RETURN && (frame.type === 'CREATE' || frame.type === 'CREATE2') && n >= 2) {
      // A size past any memory gas can pay for fails at this step: nothing to keep.
      const size = st[n - 2] <= MAX_RETURN_COPY ? Number(st[n - 2]) : 0
      const offset = size > 0 ? Number(st[n - 1]) : 0
      const returned = new Uint8Array(size)
      returned.set(s.memory.subarray(offset, offset + size))
      open.returned = returned
    } else if (op >= LOG0 && op <= LOG4 && this.opts.withLog && n >= 2 + op - LOG0) {
      const offset = Number(st[n - 1])
      const size = Number(st[n - 2])
      const data = new Uint8Array(size)
      data.set(s.memory.subarray(offset, offset + size))
      const topics: Uint8Array[] = []
      for (let i = 0; i < op - LOG0; i++) topics.push(bigintToWord(st[n - 3 - i]))
      frame.logs.push({ address: s.address.bytes, topics, data, position: frame.calls.length })
    } else if (op === SELFDESTRUCT && this.opts.withSelfdestructs !== false && n >= 1 && !this.opts.onlyTopCall) {
      const beneficiary = bigintToWord(st[n - 1]).subarray(12)
      this.selfdestruct = {
        type: 'SELFDESTRUCT',
        from: s.address.bytes,
        to: beneficiary,
        value: s.account.balance,
        gas: 0n,
        gasUsed: 0n,
        input: EMPTY,
        output: EMPTY,
        calls: [],
        logs: [],
        isStatic: false,
      }
      frame.calls.push(this.selfdestruct)
    }
  }
}

function dropLogs(frame: CallFrame): void {
  frame.logs = []
  for (const c of frame.calls) dropLogs(c)
}

/** An ABI `Error(string)` revert reason, if the output is one. */
export function revertReason(output: Uint8Array): string | undefined {
  if (output.length < 68 || output[0] !== 0x08 || output[1] !== 0xc3 || output[2] !== 0x79 || output[3] !== 0xa0)
    return undefined
  const len = Number(new DataView(output.buffer, output.byteOffset + 4 + 56, 8).getBigUint64(0))
  if (68 + len > output.length) return undefined
  return new TextDecoder().decode(output.subarray(68, 68 + len))
}

/** geth's callTracer JSON of a frame tree, keys in geth's order (calls before logs, value and type last). */
export function formatCallFrame(f: CallFrame): Record<string, unknown> {
  const out: Record<string, unknown> = {
    from: bytesToHex(f.from),
    gas: toQuantity(f.gas),
    gasUsed: toQuantity(f.gasUsed),
  }
  if (f.to) out.to = bytesToHex(f.to)
  out.input = bytesToHex(f.input)
  if (f.output.length > 0) out.output = bytesToHex(f.output)
  if (f.error !== undefined) out.error = f.error
  const reason = f.error === 'execution reverted' ? revertReason(f.output) : undefined
  if (reason !== undefined) out.revertReason = reason
  if (f.calls.length > 0) out.calls = f.calls.map(formatCallFrame)
  if (f.logs.length > 0) {
    out.logs = f.logs.map((l) => ({
      address: bytesToHex(l.address),
      topics: l.topics.map(bytesToHex),
      data: bytesToHex(l.data),
      position: toQuantity(l.position),
    }))
  }
  if (f.value !== undefined) out.value = toQuantity(f.value)
  out.type = f.type
  return out
}
