/**
 * SHA-256 on the runtime's native hasher where it has one (Bun's `Bun.SHA256`): about ten times
 * faster than `@noble/hashes` for the short inputs a block hashes (EIP-7685's requests hash: each
 * request list, then their concatenation, at every block built or imported) and for the SHA256
 * precompile. The chain's Common hands it to the block, VM and EVM libraries through
 * `customCrypto.sha256`; where the runtime has no native hasher the libraries keep `@noble/hashes`.
 */

interface NativeSha256 {
  hash(data: Uint8Array, into: Uint8Array): Uint8Array
}

/** The native SHA-256 (a fresh 32-byte array a call), or undefined outside Bun. */
export function nativeSha256(): ((data: Uint8Array) => Uint8Array) | undefined {
  const hasher = (globalThis as { Bun?: { SHA256?: NativeSha256 } }).Bun?.SHA256
  if (hasher === undefined) return undefined
  return (data) => hasher.hash(data, new Uint8Array(32))
}
