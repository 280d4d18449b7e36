import { describe, expect, it } from '../runtime/testing.ts'
import { nextGasLimit } from './gasLimit.ts'

describe('nextGasLimit', () => {
  it('keeps the parent gas limit without a target', () => {
    expect(nextGasLimit(30_000_000n)).toBe(30_000_000n)
  })

  it('moves toward the target by at most parent / 1024 − 1 and stops on it', () => {
    expect(nextGasLimit(30_000_000n, 60_000_000n)).toBe(30_029_295n)
    expect(nextGasLimit(30_000_000n, 20_000_000n)).toBe(29_970_705n)
    expect(nextGasLimit(30_000_000n, 30_010_000n)).toBe(30_010_000n)
    expect(nextGasLimit(30_000_000n, 29_990_000n)).toBe(29_990_000n)
  })

  it('never goes below 5000', () => {
    expect(nextGasLimit(5_100_000n, 1_000n) >= 5000n).toBe(true)
    expect(nextGasLimit(5_000n, 1_000n)).toBe(5_000n)
  })
})
