/** `Math.min` / `Math.max` for bigint, which the built-ins do not take. */
export function minBigInt(a: bigint, b: bigint): bigint {
  return a < b ? a : b
}

export function maxBigInt(a: bigint, b: bigint): bigint {
  return a > b ? a : b
}
