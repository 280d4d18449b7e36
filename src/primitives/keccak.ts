/**
 * keccak-256 compiled to WebAssembly (`hash-wasm`, which embeds its binary, so `bun build --compile`
 * carries it). For the 20–600-byte inputs that dominate block production (trie nodes, hashed keys,
 * transactions) it is 3–4 times faster than `@noble/hashes`; the chain's Common hands it to the
 * trie, the state manager, the EVM and the tx/block libraries through `customCrypto.keccak256`.
 */
import { createKeccak } from 'hash-wasm'

/** Loads the module once; the function it resolves to hashes synchronously. */
export async function loadKeccak256(): Promise<(data: Uint8Array) => Uint8Array> {
  const hasher = await createKeccak(256)
  // One instance serves every call: each runs init → update → digest without yielding.
  return (data) => hasher.init().update(data).digest('binary')
}
