/**
 * The gas limit a locally built block takes (Besu's `--target-gas-limit`): the parent's, moved
 * toward the target by at most parent / 1024 − 1 per block, the largest step the header rule
 * (|gasLimit − parent| < parent / 1024) allows. Without a target it stays the parent's.
 */

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
