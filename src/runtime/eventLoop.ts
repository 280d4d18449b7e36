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

/** Calls `fn` once after `ms` milliseconds, however long: past the timers' range it waits in steps. */
export function after(ms: number, fn: () => void, stepMs = MAX_TIMER_MS): LongTimer {
  let handle: ReturnType<typeof setTimeout>
  const arm = (left: number) => {
    handle = setTimeout(() => (left > stepMs ? arm(left - stepMs) : fn()), Math.min(left, stepMs))
  }
  arm(ms)
  return { cancel: () => clearTimeout(handle) }
}

/** Calls `fn` every `ms` milliseconds, however long. */
export function every(ms: number, fn: () => void, stepMs = MAX_TIMER_MS): LongTimer {
  if (ms <= stepMs) {
    const handle = setInterval(fn, ms)
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
      stepMs,
    )
  }
  next()
  return { cancel: () => timer.cancel() }
}
