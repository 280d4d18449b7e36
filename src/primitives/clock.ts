import { nextEventLoopTurn } from '../runtime/eventLoop.ts'

/** Time source, injectable so that tests never depend on wall time. */
export interface Clock {
  /** Milliseconds since the epoch. */
  nowMs(): number
}

export const systemClock: Clock = { nowMs: () => Date.now() }

/** A clock that only moves when told to; for tests. */
export function manualClock(startMs: number): Clock & { advance(ms: number): void } {
  let t = startMs
  return {
    nowMs: () => t,
    advance: (ms) => {
      t += ms
    },
  }
}

/** Resolves after the event loop has had a turn (timers, sockets), unlike a resolved promise. */
export function nextTurn(): Promise<void> {
  return nextEventLoopTurn()
}
