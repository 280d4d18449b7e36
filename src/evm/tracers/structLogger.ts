/**
 * The default (opcode) tracer: one struct log per executed opcode, in the execution-apis
 * OpcodeTransactionTrace shape (geth's field formats, which Besu's fixtures follow): stack items as
 * quantities, memory as 32-byte words, storage as a cumulative per-contract map shown at SLOAD and
 * SSTORE, `refund` and `returnData` only when non-empty. Work per step is only what the options ask for.
 */
import type { EVM, EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import type { RunTxResult } from '@ethereumjs/vm'
import { bytesToHex, type Hex } from '../../primitives/hex.ts'
import { withDirectStep } from '../stepEvent.ts'
import { frameErrorText } from './gethErrors.ts'
import { gethOpCost } from './gethStepCost.ts'
import type { TxContext, TxTracer } from './txTracer.ts'

export interface StructLoggerOptions {
  disableStack?: boolean
  disableStorage?: boolean
  enableMemory?: boolean
  enableReturnData?: boolean
  /** Besu's spelling: memory is captured unless this is true. */
  disableMemory?: boolean
  /** Stop recording after this many logs (0: no limit). */
  limit?: number
}

export interface StructLog {
  pc: number
  op: string
  gas: number
  gasCost: number
  depth: number
  stack?: Hex[]
  memory?: Hex[]
  returnData?: Hex
  storage?: Record<string, Hex>
  refund?: number
  error?: string
}

export interface StructLoggerResult {
  gas: number
  failed: boolean
  returnValue: Hex
  structLogs: StructLog[]
}

const SLOAD = 0x54
const SSTORE = 0x55
const REVERT_MESSAGE = 'revert'
const HEX_WORD = 64
const EMPTY = new Uint8Array(0)
/** STOP, RETURN, REVERT, INVALID, SELFDESTRUCT: a frame whose last opcode is one of these ended on it. */
const HALTS = new Set([0x00, 0xf3, 0xfd, 0xfe, 0xff])

function quantity(n: bigint): Hex {
  return `0x${n.toString(16)}`
}

function word(n: bigint): Hex {
  return `0x${n.toString(16).padStart(HEX_WORD, '0')}`
}

function memoryWords(memory: Uint8Array): Hex[] {
  const hex = bytesToHex(memory)
  const out: Hex[] = new Array(hex.length >> 6)
  for (let i = 0; i < out.length; i++) out[i] = `0x${hex.slice(2 + i * HEX_WORD, 2 + (i + 1) * HEX_WORD)}`
  return out
}

export class StructLogger implements TxTracer<StructLoggerResult> {
  private readonly logs: StructLog[] = []
  private readonly isStack: boolean
  private readonly isMemory: boolean
  private readonly isStorage: boolean
  private readonly isReturnData: boolean
  private readonly limit: number
  /** Per contract address: slots seen so far (hex key → hex value). */
  private readonly storage = new Map<string, Map<string, Hex>>()
  /** An SLOAD whose loaded value is known only at the next step (it is then on top of the stack). */
  private pendingLoad?: { log: StructLog; slots: Map<string, Hex>; key: string }
  /** Open frames (innermost last): where their logs start, the return data of their last call. */
  private readonly frames: { firstLog: number; returnData: Uint8Array; lastOp: number }[] = []
  private evm?: EVM
  /** Whether EIP-150 (Tangerine Whistle) caps the gas a call hands over, for the CALL family's gasCost. */
  private isEip150 = true
  /** The own cost (without gas handed to a callee) of the opcode of the latest log. */
  private lastOwnCost = 0n
  /**
   * The stack items last seen at each depth and their hex: most items stay put between steps, and
   * keep their text (entries above the current height are stale, compared by value when reached).
   */
  private readonly lastStack: bigint[] = []
  private readonly lastStackHex: Hex[] = []

  constructor(opts: StructLoggerOptions = {}) {
    this.isStack = opts.disableStack !== true
    this.isMemory = opts.enableMemory === true || opts.disableMemory === false
    this.isStorage = opts.disableStorage !== true
    this.isReturnData = opts.enableReturnData === true
    this.limit = opts.limit ?? 0
  }

  start({ vm }: TxContext): void {
    this.evm = vm.evm as EVM
    this.isEip150 = this.evm.common.gteHardfork('tangerineWhistle')
    this.evm.events.on('step', this.onStep)
    this.evm.events.on('beforeMessage', this.onEnter)
    this.evm.events.on('afterMessage', this.onExit)
  }

  finish(_ctx: TxContext, result: RunTxResult): StructLoggerResult {
    this.evm?.events.off('step', this.onStep)
    this.evm?.events.off('beforeMessage', this.onEnter)
    this.evm?.events.off('afterMessage', this.onExit)
    const exec = result.execResult
    return {
      gas: Number(result.totalGasSpent),
      failed: exec.exceptionError !== undefined,
      returnValue: bytesToHex(exec.returnValue),
      structLogs: this.logs,
    }
  }

  /** Each step, from the library's event or (without the event) from the interpreter's state. */
  private readonly onStep = withDirectStep(
    (s: InterpreterStep): void =>
      this.record(
        s.pc,
        s.opcode.name,
        s.opcode.code,
        s.opcode.dynamicFee ?? BigInt(s.opcode.fee),
        s.gasLeft,
        s.gasRefund,
        s.depth,
        s.stack,
        s.stack.length,
        s.address,
        s.memory,
        s.memory.length,
      ),
    (run, env, info, fee, gasLeft, memorySize) =>
      this.record(
        run.programCounter,
        info.fullName,
        info.code,
        fee,
        gasLeft,
        run.gasRefund,
        env.depth,
        run.stack._store,
        run.stack._len,
        env.address,
        run.memory._store,
        Math.min(Number(memorySize) * 32, run.memory._store.length),
      ),
  )

  /**
   * One step: the stack is `stack[0 .. height)` (top last), the memory `memory[0 .. memoryBytes)`;
   * neither is kept past the call.
   */
  private record(
    pc: number,
    opName: string,
    op: number,
    ownCost: bigint,
    gasLeft: bigint,
    gasRefund: bigint,
    eventDepth: number,
    stack: readonly bigint[],
    height: number,
    address: { toString(): string },
    memory: Uint8Array,
    memoryBytes: number,
  ): void {
    if (this.pendingLoad) this.resolveLoad(height > 0 ? stack[height - 1] : 0n)
    const frame = this.frames[this.frames.length - 1]
    if (frame) frame.lastOp = op
    if (this.limit > 0 && this.logs.length >= this.limit) return
    const log: StructLog = {
      pc,
      op: opName,
      gas: Number(gasLeft),
      gasCost: Number(gethOpCost(op, ownCost, gasLeft, stack, height, this.isEip150)),
      depth: eventDepth + 1,
    }
    if (this.isStack) log.stack = this.stackHex(stack, height)
    if (this.isMemory && memoryBytes > 0) log.memory = memoryWords(memory.subarray(0, memoryBytes))
    if (this.isReturnData) {
      const rd = this.frames[this.frames.length - 1]?.returnData
      if (rd !== undefined && rd.length > 0) log.returnData = bytesToHex(rd)
    }
    if (this.isStorage && (op === SLOAD || op === SSTORE)) {
      this.recordStorage(op, stack, height, address, log)
    }
    if (gasRefund > 0n) log.refund = Number(gasRefund)
    this.logs.push(log)
    this.lastOwnCost = ownCost
  }

  /** Hex of `items[0 .. height)`; an item equal to the previous step's at its depth keeps its text. */
  private stackHex(items: readonly bigint[], height: number): Hex[] {
    const last = this.lastStack
    const lastHex = this.lastStackHex
    for (let i = 0; i < height; i++) {
      const v = items[i]
      if (i >= last.length || last[i] !== v) {
        last[i] = v
        lastHex[i] = quantity(v)
      }
    }
    return lastHex.slice(0, height)
  }

  /** Code that runs off its end stops there; geth logs that STOP, the EVM emits no step for it. */
  private logImplicitStop(r: EVMResult, returnData: Uint8Array): void {
    const run = r.execResult.runState
    if (!run || (this.limit > 0 && this.logs.length >= this.limit)) return
    const log: StructLog = {
      pc: run.programCounter,
      op: 'STOP',
      gas: Number(run.gasLeft),
      gasCost: 0,
      depth: this.frames.length + 1,
    }
    if (this.isStack) log.stack = run.stack.getStack().map(quantity)
    if (this.isMemory && run.memoryWordCount > 0n)
      log.memory = memoryWords(run.memory.read(0, Number(run.memoryWordCount) * 32))
    if (this.isReturnData && returnData.length > 0) log.returnData = bytesToHex(returnData)
    // The frame's final refund counter: the result's runState takes the frame's starting
    // environment over the interpreter's, so its gasRefund is the counter as the frame began.
    const refund = r.execResult.gasRefund ?? run.gasRefund
    if (refund > 0n) log.refund = Number(refund)
    this.logs.push(log)
  }

  private recordStorage(
    op: number,
    stack: readonly bigint[],
    n: number,
    contract: { toString(): string },
    log: StructLog,
  ): void {
    if (n < (op === SLOAD ? 1 : 2)) return
    const address = contract.toString()
    let slots = this.storage.get(address)
    if (!slots) {
      slots = new Map()
      this.storage.set(address, slots)
    }
    const key = word(stack[n - 1])
    if (op === SSTORE) {
      slots.set(key, word(stack[n - 2]))
      log.storage = Object.fromEntries(slots)
    } else {
      this.pendingLoad = { log, slots, key }
    }
  }

  private resolveLoad(value: bigint): void {
    const { log, slots, key } = this.pendingLoad!
    this.pendingLoad = undefined
    slots.set(key, word(value))
    log.storage = Object.fromEntries(slots)
  }

  private readonly onEnter = (_m: Message): void => {
    this.frames.push({ firstLog: this.logs.length, returnData: EMPTY, lastOp: -1 })
  }

  private readonly onExit = (r: EVMResult): void => {
    // An SLOAD as the frame's last opcode: its value is on top of the final stack.
    if (this.pendingLoad) {
      const stack = r.execResult.runState?.stack
      this.resolveLoad(stack && stack.length > 0 ? stack.peek(1)[0] : 0n)
    }
    const frame = this.frames.pop()
    const parent = this.frames[this.frames.length - 1]
    if (frame && frame.lastOp >= 0 && !HALTS.has(frame.lastOp) && !r.execResult.exceptionError) {
      this.logImplicitStop(r, frame.returnData)
    }
    if (parent) parent.returnData = r.execResult.returnValue
    const err = r.execResult.exceptionError
    if (!err || err.error === REVERT_MESSAGE || !frame || this.logs.length <= frame.firstLog) return
    const last = this.logs[this.logs.length - 1]
    if (last.error === undefined)
      last.error = frameErrorText(r.execResult, undefined, { gasLeft: BigInt(last.gas), cost: this.lastOwnCost })
  }
}
