/**
 * Time limits for EVM runs that serve a request (eth_call, estimates, simulations, traces). The EVM
 * runs on the one JS thread and its interpreter awaits each opcode as a microtask, which never lets
 * timers or sockets in: a call looping to the gas cap would hold every other request and the sealer
 * until it ends. An interruptible VM's jumps and calls (the only ways a run outlasts its code size)
 * count down; every CHECK_EVERY of them the clock is read, the run gives the event loop a turn once a
 * slice has passed, and it is aborted with ExecutionTimeoutError once the deadline has passed.
 * The deadline travels with the request (AsyncLocalStorage), so one VM can serve calls of several
 * requests in turn; a VM without a deadline in scope (the sealer's, an import's) is never touched.
 * A batch is one request: its calls share one deadline, counted from its arrival.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { VM } from '@ethereumjs/vm'
import { nextTurn } from '../primitives/clock.ts'

/** Opcodes whose handlers count: JUMP, JUMPI, CREATE, CALL, CALLCODE, DELEGATECALL, CREATE2, STATICCALL. */
const COUNTED_OPCODES = [0x56, 0x57, 0xf0, 0xf1, 0xf2, 0xf4, 0xf5, 0xfa]
/** A jump costs about half a microsecond: the clock is read about every 0.1 ms of a loop. */
const CHECK_EVERY = 128
/** Longest stretch a run keeps the thread before it lets other work in. */
const SLICE_MS = 8

/** A run went past its request's time limit (geth's `--rpc.evmtimeout`). */
export class ExecutionTimeoutError extends Error {
  readonly timeoutMs: number

  constructor(timeoutMs: number) {
    super(`execution aborted (timeout = ${formatDuration(timeoutMs)})`)
    this.timeoutMs = timeoutMs
    this.name = 'ExecutionTimeoutError'
  }
}

/** geth prints the limit as a Go duration: `5s`, `1.5s`, `250ms`. */
function formatDuration(ms: number): string {
  return ms >= 1000 ? `${ms / 1000}s` : `${ms}ms`
}

class Deadline {
  private countdown = CHECK_EVERY
  private sliceStartMs: number
  private endMs: number

  readonly timeoutMs: number
  private readonly now: () => number

  constructor(timeoutMs: number, now: () => number) {
    this.timeoutMs = timeoutMs
    this.now = now
    this.sliceStartMs = now()
    this.endMs = timeoutMs > 0 ? this.sliceStartMs + timeoutMs : Number.POSITIVE_INFINITY
  }

  /** Undefined while the run may go on without a pause; otherwise the pause (which may reject). */
  tick(): Promise<void> | undefined {
    if (--this.countdown > 0) return undefined
    this.countdown = CHECK_EVERY
    const t = this.now()
    if (t >= this.endMs) return Promise.reject(new ExecutionTimeoutError(this.timeoutMs))
    if (pendingTurn === undefined && t - this.sliceStartMs < SLICE_MS) return undefined
    return sharedTurn().then(() => {
      this.sliceStartMs = this.now()
    })
  }

  /** Milliseconds left before the deadline (Infinity without a limit). */
  remainingMs(): number {
    return this.endMs - this.now()
  }

  /** Throws once the deadline has passed (before work that would only be thrown away). */
  check(): void {
    if (this.now() >= this.endMs) throw new ExecutionTimeoutError(this.timeoutMs)
  }

  /** Moves the deadline by the time `fn` took. */
  async excluding<T>(fn: () => Promise<T>): Promise<T> {
    const startMs = this.now()
    try {
      return await fn()
    } finally {
      this.endMs += this.now() - startMs
    }
  }
}

/**
 * The turn that runs in progress wait for. Runs side by side (a batch's calls, several requests)
 * join the first one's turn at their next check instead of each using a slice of its own, so the
 * thread is held about one slice between two turns however many runs there are: a request that
 * needs a few turns to be read and answered (Deno's server does) is not kept waiting by each.
 */
let pendingTurn: Promise<void> | undefined

function sharedTurn(): Promise<void> {
  pendingTurn ??= nextTurn().then(() => {
    pendingTurn = undefined
  })
  return pendingTurn
}

const scope = new AsyncLocalStorage<Deadline>()

/**
 * Runs `fn` with a time limit for the interruptible VMs it drives; 0 = no limit (runs still give
 * way to other work). `now` is injectable for tests.
 */
export function withExecutionDeadline<T>(
  timeoutMs: number,
  fn: () => Promise<T>,
  now: () => number = performance.now.bind(performance),
): Promise<T> {
  return scope.run(new Deadline(timeoutMs, now), fn)
}

type OpHandler = (runState: unknown, common: unknown) => unknown
interface OpEntry {
  opcodeInfo: { isAsync: boolean }
  opHandler: OpHandler
  gasHandler?: unknown
}
interface OpcodeTables {
  _opcodeMap: OpEntry[]
  getActiveOpcodes(): unknown
}

function countingEntry(entry: OpEntry): OpEntry {
  const run = entry.opHandler
  const opHandler: OpHandler = (runState, common) => {
    const pause = scope.getStore()?.tick()
    return pause === undefined ? run(runState, common) : pause.then(() => run(runState, common))
  }
  // The interpreter awaits only handlers marked async; the copy keeps the original frozen.
  return { ...entry, opcodeInfo: Object.freeze({ ...entry.opcodeInfo, isAsync: true }), opHandler }
}

function wrapOpcodes(tables: OpcodeTables): void {
  for (const code of COUNTED_OPCODES) {
    const entry = tables._opcodeMap[code]
    if (entry !== undefined) tables._opcodeMap[code] = countingEntry(entry)
  }
}

/** Runs `fn` (a wait for a shared resource, not EVM work) without counting its time against the limit. */
export function excludedFromDeadline<T>(fn: () => Promise<T>): Promise<T> {
  const deadline = scope.getStore()
  return deadline ? deadline.excluding(fn) : fn()
}

/** Milliseconds the request in scope has left (Infinity without a request or a limit). */
export function remainingExecutionMs(): number {
  return scope.getStore()?.remainingMs() ?? Number.POSITIVE_INFINITY
}

/** Throws ExecutionTimeoutError when the request in scope is out of time. */
export function checkExecutionDeadline(): void {
  scope.getStore()?.check()
}

/** Makes `vm` honour the deadline of the request it runs for (tables are rebuilt on a fork change). */
export function makeInterruptible(vm: VM): void {
  const tables = vm.evm as unknown as OpcodeTables
  const rebuild = tables.getActiveOpcodes.bind(tables)
  tables.getActiveOpcodes = () => {
    const out = rebuild()
    wrapOpcodes(tables)
    return out
  }
  wrapOpcodes(tables)
}
