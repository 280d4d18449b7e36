/**
 * What a block builder does with a pool transaction that could not be added to its block, as Besu's
 * block transaction selector decides: one that does not fit (the block's gas or blob gas is used up),
 * pays less than this block's base fee or blob base fee, or comes before a nonce not yet mined stays
 * in the pool for a later block; any other failure (too little gas for its intrinsic gas or calldata
 * floor, a balance that no longer covers it, a nonce already used, …) is invalid for good, and the
 * builder drops it from the pool with a logged reason, so that no client waits on it forever.
 */

/** Messages of the library's and our builder's refusals that a later block may not repeat. */
const TRANSIENT = [
  'remaining gas in the block',
  'blob gas limit',
  "is less than the block's baseFeePerGas",
  'is less than block blobGasPrice',
]

/** The library's nonce refusal: `account has nonce of: N tx has nonce of: M`. */
const NONCE = /account has nonce of: (\d+) tx has nonce of: (\d+)/

/** True when a transaction refused with `message` may still go into a later block. */
export function isTransientBuildFailure(message: string): boolean {
  if (TRANSIENT.some((t) => message.includes(t))) return true
  const nonce = NONCE.exec(message)
  // Besu's NONCE_TOO_HIGH is transient (the gap may fill); a used nonce never becomes valid.
  return nonce !== null && BigInt(nonce[2]) > BigInt(nonce[1])
}

/** The first line of a refusal, without the library's block and transaction dump. */
export function buildFailureReason(message: string): string {
  return message.replace(/ \(vm hf=[\s\S]*$/, '')
}
