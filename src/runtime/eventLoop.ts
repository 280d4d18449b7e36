/**
 * A turn of the event loop for code that holds the thread for long (the interruptible EVM, batches):
 * the point is to let timers and sockets in. `setImmediate` does that under Bun and Node; under Deno
 * it does not poll the server's I/O (a request waited until the loop was left), a zero timer does.
 */
import { runtimeName } from './runtime.ts'

const isDeno = runtimeName() === 'deno'

/** Resolves after the event loop has had a turn in which timers and sockets were served. */
export function nextEventLoopTurn(): Promise<void> {
  return new Promise((resolve) => (isDeno ? setTimeout(resolve, 0) : setImmediate(resolve)))
}

/**
 * The longest delay the runtimes' timers keep (2^31 - 1 ms, about 24.8 days): a timer set for longer
 * fires after 1 ms instead, so a long interval asked of the node would turn into a busy loop.
 */
const MAX_TIMER_MS = 2 ** 31 - 1

/** A timer of any length. */
export interface LongTimer {
  cancel(): void
}

/** How a long timer waits: its step (the runtimes' range unless a test sets a shorter one), and whether it keeps the process alive. */
export interface LongTimerOptions {
  stepMs?: number
  /** Unreferenced: the timer alone does not keep the process running. */
  unref?: boolean
}

/** Calls `fn` once after `ms` milliseconds, however long: past the timers' range it waits in steps. */
export function after(ms: number, fn: () => void, opts: LongTimerOptions = {}): LongTimer {
  const stepMs = opts.stepMs ?? MAX_TIMER_MS
  let handle: ReturnType<typeof setTimeout>
  const arm = (left: number) => {
    handle = setTimeout(() => (left > stepMs ? arm(left - stepMs) : fn()), Math.min(left, stepMs))
    if (opts.unref) (handle as { unref?: () => void }).unref?.()
  }
  arm(ms)
  return { cancel: () => clearTimeout(handle) }
}

/** Calls `fn` every `ms` milliseconds, however long. */
export function every(ms: number, fn: () => void, opts: LongTimerOptions = {}): LongTimer {
  if (ms <= (opts.stepMs ?? MAX_TIMER_MS)) {
    const handle = setInterval(fn, ms)
    if (opts.unref) (handle as { unref?: () => void }).unref?.()
    return { cancel: () => clearInterval(handle) }
  }
  let timer: LongTimer
  const next = () => {
    timer = after(
      ms,
      () => {
        next()
        fn()
      },
      opts,
    )
  }
  next()
  return { cancel: () => timer.cancel() }
}
