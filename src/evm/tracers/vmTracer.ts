/**
 * Parity's `vmTrace` (trace_call, trace_replay*): per frame its code and one entry per executed
 * opcode, `{cost, ex: {mem, push, store, used}, pc, sub}`, with a nested trace under each call or
 * create into code. The rules are Besu's VmTraceGenerator's, checked against its test fixtures:
 * - `cost` is the opcode's gas cost; for a call or create into code it adds the gas the callee
 *   started with (a value call's stipend included), into a precompile the precompile's own cost,
 *   and for CALL/STATICCALL into an account without code the gas handed over (see closeCall);
 * - `ex.used` is the gas left after the opcode (after a call: once the callee has returned);
 *   `ex.push` the stack items the opcode produced, deepest first (DUPn and SWAPn produce n+1);
 *   `ex.mem` the memory an opcode wrote or read (MSTORE, MSTORE8, MLOAD, CALLDATACOPY, CODECOPY,
 *   EXTCODECOPY, RETURNDATACOPY; after a call the callee's output as written at the out offset);
 *   `ex.store` the slot an SSTORE wrote;
 * - an opcode that ran out of gas is listed without `ex` inside a call, and with it at the top level
 *   (`used` is the gas left minus the opcode's cost, below zero); one that failed on a bad jump
 *   destination is listed with it; a call that cannot pay its own cost is listed as Besu records it
 *   (see closeUnpaidCall); other failing opcodes (a write in a static context among them) are left
 *   out;
 * - after a CALL or DELEGATECALL that wrote no output to memory, `ex.mem` is the output of the next
 *   RETURN at the caller's depth, at offset 0 (Besu's VmTraceGenerator looks that RETURN up);
 * - a failing precompile's `cost` adds the gas the precompile asked for, not the gas it burnt;
 * - a transaction whose whole execution is a single STOP has no ops, and code that runs off its end
 *   gets no op for the STOP the EVM adds there (Besu's virtual operation, not listed).
 */
import type { EVM, EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import type { RunTxResult } from '@ethereumjs/vm'
import { bytesToHex, type Hex, toQuantity } from '../../primitives/hex.ts'
import { callOwnCost, delegationCost, type WarmJournal } from './callOwnCost.ts'
import type { TxContext, TxTracer } from './txTracer.ts'

export interface VmTraceJson {
  code: Hex
  ops: VmOpJson[]
}

export interface VmOpJson {
  cost: number
  ex: {
    mem: { data: Hex; off: number } | null
    push: Hex[]
    store: { key: Hex; val: Hex } | null
    used: number
  } | null
  pc: number
  sub: VmTraceJson | null
}

const STOP = 0x00
const SSTORE = 0x55
const CALLS = new Set([0xf1, 0xf2, 0xf4, 0xfa])
const CREATES = new Set([0xf0, 0xf5])
const HALTS = new Set([0x00, 0xf3, 0xfd, 0xfe, 0xff])
/** Opcodes that produce no stack item (everything else not listed in `producedItems` produces one). */
const PRODUCE_NONE = new Set([
  0x00, 0x37, 0x39, 0x3c, 0x3e, 0x50, 0x52, 0x53, 0x55, 0x56, 0x57, 0x5b, 0x5d, 0x5e, 0xa0, 0xa1, 0xa2, 0xa3, 0xa4,
  0xf3, 0xfd, 0xfe, 0xff,
])
/** EVM errors after which the failing opcode stays listed (Besu keeps only these two halt reasons). */
const LISTED_ERRORS = new Set(['invalid JUMP', 'out of gas'])
const CALL = 0xf1
const DELEGATECALL = 0xf4
const RETURN = 0xf3
/**
 * Opcodes whose item Besu takes off the stack before charging their gas (MLOAD, SLOAD, EXP,
 * KECCAK256, BALANCE, EXTCODESIZE, EXTCODEHASH); the others that produce an item check their gas
 * first, or peek at the stack (the call and create families), and leave it as it was.
 */
const POPPED_BEFORE_CHARGE: Record<number, number> = { 81: 1, 84: 1, 10: 2, 32: 2, 49: 1, 59: 1, 63: 1 }
/** More gas than any transaction has: a precompile run with it fails only for its input. */
const UNBOUNDED_GAS = 2n ** 62n
const OUT_OF_GAS = 'out of gas'
/** Failures of a create's code deposit: the frame's last opcode (RETURN) itself succeeded. */
const DEPOSIT_ERRORS = new Set([
  'code store out of gas',
  'code size to deposit exceeds maximum code size',
  'invalid bytecode deployed',
])

function producedItems(op: number): number {
  if (op >= 0x80 && op <= 0x8f) return op - 0x80 + 2 // DUPn: the n items it read and the copy
  if (op >= 0x90 && op <= 0x9f) return op - 0x90 + 2 // SWAPn: the n+1 items it reordered
  return PRODUCE_NONE.has(op) ? 0 : 1
}

/** Which memory an opcode's `ex.mem` shows, read from the stack before it runs (top last). */
function memoryWrite(op: number, st: bigint[]): { off: bigint; size: bigint } | undefined {
  const n = st.length
  const at = (i: number) => st[n - 1 - i] ?? 0n
  switch (op) {
    case 0x51: // MLOAD: Besu shows the word it read
    case 0x52: // MSTORE
      return { off: at(0), size: 32n }
    case 0x53: // MSTORE8
      return { off: at(0), size: 1n }
    case 0x37: // CALLDATACOPY
    case 0x39: // CODECOPY
    case 0x3e: // RETURNDATACOPY
      return { off: at(0), size: at(2) }
    case 0x3c: // EXTCODECOPY
      return { off: at(1), size: at(3) }
    default:
      return undefined
  }
}

/** Where a call writes its callee's output: [outOffset, outSize] from the stack before it. */
function callOutput(op: number, st: bigint[]): { off: bigint; size: bigint } {
  const n = st.length
  const hasValue = op === 0xf1 || op === 0xf2
  const base = hasValue ? 5 : 4
  return { off: st[n - 1 - base] ?? 0n, size: st[n - 2 - base] ?? 0n }
}

/** What the callee of a call or create did, learnt when its frame ends. */
interface CalleeResult {
  hasCode: boolean
  isPrecompile: boolean
  gasGiven: bigint
  gasUsed: bigint
  /** What a precompile that failed asked for (Besu's precompiled gas cost). */
  gasAsked?: bigint
  output: Uint8Array
}

/** An opcode whose effects are known only once the next opcode of its frame (or the frame's end) comes. */
interface PendingOp {
  json: VmOpJson
  opcode: number
  gasLeft: bigint
  cost: bigint
  /** The stack before the opcode (top last). */
  stack: bigint[]
  write?: { off: bigint; size: bigint }
  out?: { off: bigint; size: bigint }
  store?: { key: Hex; val: Hex }
  callee?: CalleeResult
  /** A CALL-family opcode's own cost as Besu counts it (a promise while the target's emptiness is read). */
  ownCost?: bigint | Promise<bigint>
  /** The gas for resolving the EIP-7702 delegation of a CALL-family opcode's target (see delegationCost). */
  delegation: bigint
}

interface OpenTrace {
  trace: VmTraceJson
  pending?: PendingOp
  precompile: boolean
  gasGiven: bigint
  /** The message, kept for a precompile (its gas asked for is worked out again if it fails). */
  message?: Message
}

/** What the frame looks like after an opcode: at the next step, or at the frame's end. */
interface After {
  gasLeft: bigint
  stack: bigint[]
  memory: (off: number, size: number) => Uint8Array
}

export class VmTracer implements TxTracer<VmTraceJson> {
  private readonly open: OpenTrace[] = []
  private root?: VmTraceJson
  private stepCount = 0
  private isFirstOpStop = false
  private evm?: EVM
  private precompiles = new Set<string>()
  private journal?: WarmJournal
  /** How many addresses were warm at the last EVM event (see callOwnCost). */
  private warmSize = 0
  private readonly rootCallSubs: VmTraceJson[] = []
  /** CALL and DELEGATECALL ops with no memory written, by the depth of their frame, awaiting its next RETURN. */
  private readonly awaitingReturn = new Map<number, VmOpJson[]>()

  start({ vm }: TxContext): void {
    this.evm = vm.evm as EVM
    const keys = (this.evm as unknown as { precompiles: Map<string, unknown> }).precompiles.keys()
    this.precompiles = new Set(keys)
    const journal = (this.evm as unknown as { journal?: Partial<WarmJournal> }).journal
    if (journal?.journal instanceof Map) this.journal = journal as WarmJournal
    this.evm.events.on('beforeMessage', this.onEnter)
    this.evm.events.on('afterMessage', this.onExit)
    this.evm.events.on('step', this.onStep)
  }

  finish({ tx }: TxContext, _r: RunTxResult): VmTraceJson {
    this.evm?.events.off('beforeMessage', this.onEnter)
    this.evm?.events.off('afterMessage', this.onExit)
    this.evm?.events.off('step', this.onStep)
    const root = this.root ?? { code: tx.to ? '0x' : bytesToHex(tx.data), ops: [] }
    if (this.stepCount === 1 && this.isFirstOpStop) root.ops = []
    for (const sub of this.rootCallSubs) sub.code = root.code
    return root
  }

  private readonly onEnter = (m: Message): void => {
    const parent = this.open[this.open.length - 1]
    const trace: VmTraceJson = { code: m.to === undefined ? bytesToHex(m.data) : '0x', ops: [] }
    // Besu counts the gas the callee starts with, a value call's 2,300 stipend included.
    const gasGiven = m.gasLimit
    const precompile = m.to !== undefined && this.precompiles.has(bytesToHex(m.codeAddress.bytes).slice(2))
    if (parent?.pending) parent.pending.json.sub = trace
    else if (!parent) this.root = trace
    this.open.push({ trace, precompile, gasGiven, message: precompile ? m : undefined })
    this.warmSize = this.journal?.journal.size ?? 0
  }

  // Two parameters: the EVM waits for `done`, so a failed precompile's gas can be worked out first.
  private readonly onExit = (r: EVMResult, done?: () => void): void => {
    const frame = this.open[this.open.length - 1]
    const err = r.execResult.exceptionError?.error
    const p = frame?.pending
    let waiting: Promise<bigint | undefined> | undefined
    if (frame?.message && err) waiting = this.gasAsked(frame.message)
    else if (p?.ownCost instanceof Promise && err === OUT_OF_GAS && !p.callee) {
      waiting = p.ownCost.then((cost) => {
        p.ownCost = cost
        return undefined
      })
    }
    if (!waiting) {
      this.exit(r)
      done?.()
      return
    }
    waiting.then(
      (asked) => {
        this.exit(r, asked)
        done?.()
      },
      () => {
        this.exit(r)
        done?.()
      },
    )
  }

  /**
   * The gas a precompile asks for `m`'s input: run again with no gas limit that could stop it, what
   * it uses; when it fails for its input even then, the least gas with which it no longer fails for
   * want of gas (found by halving).
   */
  private async gasAsked(m: Message): Promise<bigint> {
    const evm = this.evm as unknown as {
      runPrecompile(
        fn: unknown,
        data: Uint8Array,
        gas: bigint,
      ): Promise<EVMResult['execResult']> | EVMResult['execResult']
    }
    const run = async (gas: bigint) => evm.runPrecompile.call(this.evm, m.code, m.data, gas)
    const unbounded = await run(UNBOUNDED_GAS)
    if (!unbounded.exceptionError) return unbounded.executionGasUsed
    let low = 0n
    let high = UNBOUNDED_GAS
    for (let i = 0; i < 64 && low < high; i++) {
      const mid = (low + high) / 2n
      if ((await run(mid)).exceptionError?.error === OUT_OF_GAS) low = mid + 1n
      else high = mid
    }
    return low
  }

  private exit(r: EVMResult, gasAsked?: bigint): void {
    const frame = this.open.pop()
    if (!frame) return
    const exec = r.execResult
    const run = exec.runState
    if (run && frame.trace.code === '0x') frame.trace.code = bytesToHex(run.code)
    if (frame.pending) {
      const err = exec.exceptionError?.error
      const isLastOpFailure = err !== undefined && err !== 'revert' && !DEPOSIT_ERRORS.has(err)
      const p = frame.pending
      const cannotPay = err === OUT_OF_GAS && CALLS.has(p.opcode) && !p.callee && typeof p.ownCost === 'bigint'
      if (cannotPay) this.closeUnpaidCall(p, this.open.length === 0)
      else if (isLastOpFailure) this.closeFailed(frame, p, err, this.open.length === 0)
      else if (run) {
        const stack = run.stack.getStack()
        this.close(frame.pending, this.open.length === 0, {
          gasLeft: HALTS.has(frame.pending.opcode) ? frame.pending.gasLeft - frame.pending.cost : run.gasLeft,
          stack,
          memory: (off, size) => run.memory.read(off, size),
        })
      }
      frame.pending = undefined
    }
    this.warmSize = this.journal?.journal.size ?? 0
    const parent = this.open[this.open.length - 1]
    if (parent?.pending) {
      const hasCode = run !== undefined && run.code.length > 0
      if (!hasCode) parent.pending.json.sub = { code: '0x', ops: [] }
      parent.pending.callee = {
        hasCode,
        isPrecompile: frame.precompile,
        gasGiven: frame.gasGiven,
        gasUsed: exec.executionGasUsed,
        gasAsked,
        output: exec.returnValue,
      }
    }
  }

  // Two parameters: the EVM waits for `done`, so a call's delegation can be read from the state first.
  private readonly onStep = (s: InterpreterStep, done?: () => void): void => {
    const frame = this.open[this.open.length - 1]
    if (!frame) {
      done?.()
      return
    }
    this.stepCount++
    if (frame.pending) {
      this.close(frame.pending, frame === this.open[0], {
        gasLeft: s.gasLeft,
        stack: s.stack,
        memory: (off, size) => s.memory.subarray(off, off + size),
      })
    }
    const op = s.opcode.code
    if (op === RETURN) this.fillAwaitingReturn(this.open.length - 1, s)
    const cost = s.opcode.dynamicFee ?? BigInt(s.opcode.fee)
    const json: VmOpJson = { cost: Number(cost), ex: null, pc: s.pc, sub: null }
    frame.trace.ops.push(json)
    if (this.stepCount === 1) this.isFirstOpStop = op === STOP
    const n = s.stack.length
    frame.pending = {
      json,
      opcode: op,
      gasLeft: s.gasLeft,
      cost,
      stack: s.stack,
      write: memoryWrite(op, s.stack),
      out: CALLS.has(op) ? callOutput(op, s.stack) : undefined,
      store: op === SSTORE && n >= 2 ? { key: toQuantity(s.stack[n - 1]), val: toQuantity(s.stack[n - 2]) } : undefined,
      ownCost: CALLS.has(op) && this.evm ? callOwnCost(s, this.evm.common, this.journal, this.warmSize) : undefined,
      delegation: 0n,
    }
    const pending = frame.pending
    const delegation =
      CALLS.has(op) && this.evm?.common.isActivatedEIP(7702)
        ? delegationCost(s, this.evm.common, this.journal, this.warmSize)
        : undefined
    this.warmSize = this.journal?.journal.size ?? 0
    if (!delegation) {
      done?.()
      return
    }
    // Besu leaves the delegation's gas out of the opcode's cost (the EVM library counts it in).
    delegation.then(
      (d) => {
        pending.delegation = d
        pending.cost -= d
        json.cost = Number(pending.cost)
        done?.()
      },
      () => done?.(),
    )
  }

  /** Fills the pending opcode's `ex` from the frame as it stands after it. */
  private close(p: PendingOp, isRoot: boolean, after: After): void {
    const n = producedItems(p.opcode)
    const push: Hex[] = []
    for (let i = Math.max(0, after.stack.length - n); i < after.stack.length; i++) push.push(toQuantity(after.stack[i]))
    let mem: { data: Hex; off: number } | null = null
    if (p.write && p.write.size > 0n) {
      const off = Number(p.write.off)
      mem = { data: bytesToHex(after.memory(off, Number(p.write.size))), off }
    } else if (p.out && p.callee && p.callee.output.length > 0 && p.out.size > 0n) {
      const written = p.callee.output.subarray(0, Math.min(p.callee.output.length, Number(p.out.size)))
      mem = { data: bytesToHex(written), off: Number(p.out.off) }
    }
    p.json.ex = { mem, push, store: p.store ?? null, used: Number(after.gasLeft) }
    if (mem === null && (p.opcode === CALL || p.opcode === DELEGATECALL)) {
      const depth = this.depthOf(p)
      const list = this.awaitingReturn.get(depth) ?? []
      list.push(p.json)
      this.awaitingReturn.set(depth, list)
    }
    if (CALLS.has(p.opcode) || CREATES.has(p.opcode)) this.closeCall(p, isRoot, after.gasLeft)
  }

  /** The depth of the frame whose pending opcode `p` is (0 for the transaction's own frame). */
  private depthOf(p: PendingOp): number {
    const i = this.open.findIndex((f) => f.pending === p)
    return i < 0 ? this.open.length : i
  }

  /** A RETURN at `depth`: its output becomes the memory entry of the calls there still without one. */
  private fillAwaitingReturn(depth: number, s: InterpreterStep): void {
    const list = this.awaitingReturn.get(depth)
    if (!list) return
    this.awaitingReturn.delete(depth)
    const n = s.stack.length
    const off = Number(s.stack[n - 1] ?? 0n)
    const size = Number(s.stack[n - 2] ?? 0n)
    const data = new Uint8Array(size)
    data.set(s.memory.subarray(off, off + size))
    for (const json of list) if (json.ex) json.ex.mem = { data: bytesToHex(data), off: 0 }
  }

  /**
   * A call's or create's `cost` and `sub` as Besu's VmTraceGenerator sets them: into code, the gas
   * the callee started with is added and `sub` is its trace; into an account without code, `sub` is
   * an empty trace and the cost adds a precompile's own gas, or for CALL and STATICCALL the gas
   * handed over; a call that never entered (too little balance, depth limit) at the top level costs
   * the gas it took in the end (a value call's stipend comes back) and has an empty trace of the
   * caller's code as `sub`, deeper it keeps the opcode's cost and no `sub`.
   */
  private closeCall(p: PendingOp, isRoot: boolean, gasLeftAfter: bigint): void {
    const c = p.callee
    if (!c) {
      if (isRoot) {
        p.json.cost = Number(p.gasLeft - gasLeftAfter)
        // The root's code is known once it exits: filled in by finish().
        p.json.sub = { code: '0x', ops: [] }
        this.rootCallSubs.push(p.json.sub)
      }
      return
    }
    if (c.hasCode) p.json.cost = Number(p.cost + c.gasGiven)
    else if (c.isPrecompile) p.json.cost = Number(p.cost + (c.gasAsked ?? c.gasUsed))
    else if (p.opcode === 0xf1 || p.opcode === 0xfa) p.json.cost = Number(p.cost + c.gasGiven)
  }

  /**
   * A CALL-family opcode that could not pay its own cost, as Besu lists it: its gas cost is recorded
   * with all the frame's gas added (the frame on top of the stack is still the caller's), so `used`
   * is minus its own cost; at the top level the cost shown is the gas left before it (no later step
   * records the gas after it) and `sub` the caller's code with no ops; deeper, no `ex` and no `sub`.
   */
  private closeUnpaidCall(p: PendingOp, isRoot: boolean): void {
    const own = p.ownCost as bigint
    // Besu records the cost its operation reports plus the gas the frame still has. A call that pays
    // its own cost but not its target's EIP-7702 delegation reports the delegation's gas, the own
    // cost having been taken; one that cannot pay its own cost reports that, nothing taken.
    const isDelegationUnpaid = p.delegation > 0n && p.gasLeft >= own
    const recorded = isDelegationUnpaid ? p.delegation + p.gasLeft - own : own + p.gasLeft
    if (!isRoot) {
      p.json.cost = Number(recorded)
      p.json.ex = null
      return
    }
    const top = p.stack[p.stack.length - 1]
    p.json.cost = Number(p.gasLeft)
    p.json.ex = {
      mem: null,
      push: top === undefined ? [] : [toQuantity(top)],
      store: null,
      used: Number(p.gasLeft - recorded),
    }
    p.json.sub = { code: '0x', ops: [] }
    this.rootCallSubs.push(p.json.sub)
  }

  /**
   * The frame's last opcode failed: dropped unless out of gas or on a bad jump. Out of gas inside a
   * call it has no `ex`; at the top level, and on a bad jump, `ex.used` is the gas left minus its
   * cost, and `ex.push` the items it would have produced read from the stack as the failure left it
   * (Besu reads the stack after the opcode).
   */
  private closeFailed(frame: OpenTrace, p: PendingOp, err: string, isRoot: boolean): void {
    if (!LISTED_ERRORS.has(err)) {
      frame.trace.ops = frame.trace.ops.filter((o) => o !== p.json)
      return
    }
    if (err === OUT_OF_GAS && !isRoot) {
      p.json.ex = null
      return
    }
    const push: Hex[] = []
    if (err === OUT_OF_GAS) {
      const popped = POPPED_BEFORE_CHARGE[p.opcode] ?? 0
      const left = p.stack.slice(0, Math.max(0, p.stack.length - popped))
      const n = producedItems(p.opcode)
      for (let i = Math.max(0, left.length - n); i < left.length; i++) push.push(toQuantity(left[i]))
    }
    p.json.ex = { mem: null, push, store: null, used: Number(p.gasLeft - p.cost) }
  }
}
