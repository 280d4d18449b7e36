import { manualClock } from '../primitives/clock.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { BlockTime } from './blockTime.ts'

const START_MS = 1_700_000_000_000
const START = 1_700_000_000n

describe('BlockTime', () => {
  it('follows the clock, strictly after the parent', () => {
    const time = new BlockTime(manualClock(START_MS))
    expect(time.next(START - 10n)).toBe(START)
    expect(time.next(START)).toBe(START + 1n)
  })

  it('moves by the offset evm_increaseTime adds', () => {
    const clock = manualClock(START_MS)
    const time = new BlockTime(clock)
    expect(time.increase(3600n)).toBe(3600n)
    expect(time.next(START)).toBe(START + 3600n)
    clock.advance(5_000)
    expect(time.nowSec()).toBe(START + 3605n)
  })

  it('uses a set timestamp once, and the clock continues from it', () => {
    const clock = manualClock(START_MS)
    const time = new BlockTime(clock)
    time.setNext(START + 1000n)
    expect(time.next(START)).toBe(START + 1000n)
    time.sealed(START + 1000n)
    clock.advance(2_000)
    expect(time.next(START + 1000n)).toBe(START + 1002n)
  })

  it('spaces blocks by a fixed interval until it is removed', () => {
    const time = new BlockTime(manualClock(START_MS))
    expect(time.setInterval(7n)).toBe(false)
    expect(time.next(START + 100n)).toBe(START + 107n)
    expect(time.setInterval(undefined)).toBe(true)
    expect(time.next(START + 100n)).toBe(START + 101n)
  })

  it('never stays behind a head sealed in its future', () => {
    const time = new BlockTime(manualClock(START_MS))
    time.sealed(START + 500n)
    expect(time.nowSec()).toBe(START + 500n)
    expect(time.increase(10n)).toBe(510n)
  })

  it('sets the clock, and a snapshot restores every setting', () => {
    const time = new BlockTime(manualClock(START_MS))
    expect(time.setTime(START + 60n)).toBe(60n)
    const saved = time.save()
    time.increase(100n)
    time.setNext(START + 9999n)
    time.restore(saved)
    expect(time.next(START)).toBe(START + 60n)
  })
})
