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
