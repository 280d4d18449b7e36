/**
 * The dev chain's notion of time: the timestamps the dev sealer gives its blocks. Wall time plus an
 * offset that `evm_increaseTime` / `anvil_setTime` move, a one-shot timestamp for the next block
 * (`evm_setNextBlockTimestamp`) and an optional fixed step between blocks
 * (`anvil_setBlockTimestampInterval`). Timestamps always increase strictly, as post-merge blocks must.
 */
import { MAX_UINT64 } from '@ethereumjs/util'
import type { Clock } from '../primitives/clock.ts'

/** The largest block timestamp: the header holds it as a uint64 (execution-apis, Besu's unsigned long). */
export const MAX_BLOCK_TIMESTAMP = MAX_UINT64

/** A block timestamp past `MAX_BLOCK_TIMESTAMP`: the dev tools moved the chain's time too far. */
export class TimestampRangeError extends Error {
  constructor(timestamp: bigint) {
    super(
      `the next block's timestamp ${timestamp} is above the largest block timestamp ${MAX_BLOCK_TIMESTAMP} (2^64 - 1): remove the timestamp interval, set the time back (evm_setTime) or, with the head at 2^64 - 1, roll it back`,
    )
  }
}

/** What a snapshot keeps of the time settings. */
export interface BlockTimeSettings {
  offsetSec: bigint
  nextTimestamp?: bigint
  intervalSec?: bigint
}

export class BlockTime {
  private settings: BlockTimeSettings = { offsetSec: 0n }

  private readonly clock: Clock

  constructor(clock: Clock) {
    this.clock = clock
  }

  /** Seconds since the epoch on the chain's clock (wall time plus the offset). */
  nowSec(): bigint {
    return BigInt(Math.floor(this.clock.nowMs() / 1000)) + this.settings.offsetSec
  }

  get offsetSec(): bigint {
    return this.settings.offsetSec
  }

  /** Moves the chain's clock forward by `seconds`; answers the total offset. */
  increase(seconds: bigint): bigint {
    this.settings.offsetSec += seconds
    return this.settings.offsetSec
  }

  /** Sets the chain's clock to `timestampSec`; answers the new offset. */
  setTime(timestampSec: bigint): bigint {
    this.settings.offsetSec = timestampSec - BigInt(Math.floor(this.clock.nowMs() / 1000))
    this.settings.nextTimestamp = undefined
    return this.settings.offsetSec
  }

  setNext(timestampSec: bigint): void {
    this.settings.nextTimestamp = timestampSec
  }

  setInterval(seconds: bigint | undefined): boolean {
    const had = this.settings.intervalSec !== undefined
    this.settings.intervalSec = seconds
    return had
  }

  /** The timestamp of the next block on a parent of `parentTimestamp`. */
  next(parentTimestamp: bigint): bigint {
    const s = this.settings
    if (s.nextTimestamp !== undefined) return s.nextTimestamp
    if (s.intervalSec !== undefined) return parentTimestamp + s.intervalSec
    const now = this.nowSec()
    return now > parentTimestamp ? now : parentTimestamp + 1n
  }

  /**
   * Called once a block with `timestamp` is sealed: a set timestamp moves the clock with it, and the
   * clock never stays behind the head (after blocks mined at an interval into the future).
   */
  sealed(timestamp: bigint): void {
    const wallSec = BigInt(Math.floor(this.clock.nowMs() / 1000))
    if (this.settings.nextTimestamp !== undefined) {
      this.settings.nextTimestamp = undefined
      this.settings.offsetSec = timestamp - wallSec
    } else if (timestamp > wallSec + this.settings.offsetSec) {
      this.settings.offsetSec = timestamp - wallSec
    }
  }

  save(): BlockTimeSettings {
    return { ...this.settings }
  }

  restore(settings: BlockTimeSettings): void {
    this.settings = { ...settings }
  }
}
