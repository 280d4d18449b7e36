/**
 * The gas limit a locally built block takes (Besu's `--target-gas-limit`): the parent's, moved
 * toward the target by at most parent / 1024 − 1 per block, the largest step the header rule
 * (|gasLimit − parent| < parent / 1024) allows. Without a target it stays the parent's.
 */
import type { Common } from '@ethereumjs/common'

/**
 * True for London's fork block on a chain where London is not at genesis: its gas limit starts from
 * twice the parent's (EIP-1559's elasticity) and its base fee is the initial one, even when an
 * earlier milestone already ran London's fee market (Besu's `isForkBlock`).
 */
export function isLondonForkBlock(common: Common, number: bigint): boolean {
  const at = common.hardforkBlock('london')
  return at !== null && at !== 0n && at === number
}

/** The gas limit a locally built block `number` moves from: the parent's, doubled on London's fork block. */
export function baseGasLimit(common: Common, parentGasLimit: bigint, number: bigint): bigint {
  return isLondonForkBlock(common, number) ? parentGasLimit * 2n : parentGasLimit
}

/** Besu's floor for a block gas limit. */
const MIN_GAS_LIMIT = 5000n

export function nextGasLimit(parentGasLimit: bigint, targetGasLimit?: bigint): bigint {
  if (targetGasLimit === undefined || targetGasLimit === parentGasLimit) return parentGasLimit
  const step = parentGasLimit / 1024n - 1n
  if (step <= 0n) return parentGasLimit
  if (targetGasLimit > parentGasLimit) {
    const up = parentGasLimit + step
    return up < targetGasLimit ? up : targetGasLimit
  }
  const down = parentGasLimit - step
  const floor = targetGasLimit > MIN_GAS_LIMIT ? targetGasLimit : MIN_GAS_LIMIT
  return down > floor ? down : floor
}
