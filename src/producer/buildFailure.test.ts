import { describe, expect, it } from '../runtime/testing.ts'
import { buildFailureReason, isTransientBuildFailure } from './buildFailure.ts'

describe('isTransientBuildFailure', () => {
  it('keeps what a later block may take: block full, fees below this block, a nonce gap', () => {
    expect(isTransientBuildFailure('tx has a higher gas limit than the remaining gas in the block')).toBe(true)
    expect(isTransientBuildFailure('block blob gas limit reached')).toBe(true)
    expect(isTransientBuildFailure("Transaction's maxFeePerGas (7) is less than the block's baseFeePerGas (9)")).toBe(
      true,
    )
    expect(
      isTransientBuildFailure("the tx doesn't have the correct nonce. account has nonce of: 2 tx has nonce of: 5"),
    ).toBe(true)
  })

  it('drops what no block will take: intrinsic gas, funds, a used nonce', () => {
    expect(
      isTransientBuildFailure('INTRINSIC_GAS_TOO_LOW: tx gas limit 40000 is lower than the minimum gas limit of 79000'),
    ).toBe(false)
    expect(isTransientBuildFailure("sender doesn't have enough funds to send tx. The upfront cost is: 5")).toBe(false)
    expect(
      isTransientBuildFailure("the tx doesn't have the correct nonce. account has nonce of: 5 tx has nonce of: 2"),
    ).toBe(false)
  })
})

describe('buildFailureReason', () => {
  it("leaves out the library's block and transaction dump", () => {
    expect(buildFailureReason('INTRINSIC_GAS_TOO_LOW: too low (vm hf=amsterdam -> block number=3 -> tx type=2)')).toBe(
      'INTRINSIC_GAS_TOO_LOW: too low',
    )
  })
})
