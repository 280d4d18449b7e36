import { describe, expect, it } from '../../runtime/testing.ts'
import { nextGasLimit } from './testingMethods.ts'

describe('nextGasLimit', () => {
  it('steps down by parent/1024 - 1 toward the target, as geth builds the execution-apis blocks', () => {
    expect(nextGasLimit(0xbebc200n)).toBe(0xbe8c711n)
  })

  it('steps up toward the target and stops on it', () => {
    expect(nextGasLimit(30_000_000n)).toBe(30_000_000n + 30_000_000n / 1024n - 1n)
    expect(nextGasLimit(59_999_000n)).toBe(60_000_000n)
    expect(nextGasLimit(60_000_000n)).toBe(60_000_000n)
  })
})
