/** Addresses the protocol derives: contract creation (CREATE). */
import { RLP } from '@ethereumjs/rlp'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bigintToBytes } from '../primitives/hex.ts'

/** keccak256(rlp([sender, nonce]))[12:] */
export function computeContractAddress(sender: Uint8Array, nonce: bigint): Uint8Array {
  return keccak_256(RLP.encode([sender, bigintToBytes(nonce)])).subarray(12)
}
