/**
 * Hashes of IBFT 2.0 / QBFT headers. A BFT block is named by the keccak of its header with the
 * extraData re-encoded without commit seals and with round 0, so that every round's proposal of
 * the same content, and the block once sealed, share one hash; a commit seal signs the header
 * without seals but with the round. The genesis header is hashed as it stands.
 *
 * The library's `BlockHeader.hash()` knows none of this, and the whole node (storage, parent checks,
 * RPC results) names blocks by it; `installBftBlockHash` makes it answer the BFT hash for the headers
 * of one chain's Common, and leaves every other chain's headers alone.
 */
import { BlockHeader } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToBigint } from '../primitives/hex.ts'
import {
  type BftEncoding,
  type BftExtraData,
  type BftKind,
  type BftKindOf,
  decodeBftExtraData,
  encodeBftExtraData,
  kindOfBlock,
} from './bftExtraData.ts'

const EXTRA_DATA_INDEX = 12

/** keccak of the header RLP with extraData re-encoded by `encoding` (genesis: as it stands). */
function hashWithExtraData(
  kind: BftKind,
  header: BlockHeader,
  encoding: BftEncoding,
  extra?: BftExtraData,
): Uint8Array {
  const raw = header.raw()
  if (header.number !== 0n) {
    raw[EXTRA_DATA_INDEX] = encodeBftExtraData(kind, extra ?? decodeBftExtraData(kind, header.extraData), encoding)
  }
  return keccak_256(RLP.encode(raw))
}

/** The hash a BFT block is stored and referenced by: no commit seals, round 0. */
export function bftBlockHash(kind: BftKind, header: BlockHeader): Uint8Array {
  return hashWithExtraData(kind, header, 'excludeCommitSealsAndRound')
}

/**
 * The hash a commit seal signs: the header without commit seals, with its round. It is also the
 * digest PREPARE and COMMIT messages name a proposal by (Besu hashes proposals "for the committed
 * seal"), so a block re-proposed in a later round has a new digest.
 */
export function commitSealHash(kind: BftKind, header: BlockHeader, extra?: BftExtraData): Uint8Array {
  return hashWithExtraData(kind, header, 'excludeCommitSeals', extra)
}

/** The address that produced `signature` over `hash`, or undefined for a malformed signature. */
export function recoverAddress(hash: Uint8Array, signature: Uint8Array): Uint8Array | undefined {
  if (signature.length !== 65 || signature[64] > 1) return undefined
  try {
    const recovered = new Uint8Array(65)
    recovered[0] = signature[64]
    recovered.set(signature.subarray(0, 64), 1)
    if (bytesToBigint(signature.subarray(32, 64)) === 0n) return undefined
    const pub = secp256k1.recoverPublicKey(recovered, hash, { prehash: false })
    const uncompressed = secp256k1.Point.fromBytes(pub).toBytes(false)
    return keccak_256(uncompressed.subarray(1)).subarray(12)
  } catch {
    return undefined
  }
}

/** The address of a secp256k1 private key. */
export function addressOf(privateKey: Uint8Array): Uint8Array {
  return keccak_256(secp256k1.getPublicKey(privateKey, false).subarray(1)).subarray(12)
}

const HASHERS = new WeakMap<object, (header: BlockHeader) => Uint8Array>()
let isInstalled = false

/**
 * Makes `header.hash()` answer the BFT block hash for every header built with `common` or a copy of
 * it (copies share its `customCrypto` object, which keys the choice), each header hashed by the
 * protocol of its number. Idempotent.
 */
export function installBftBlockHash(common: Common, kind: BftKindOf): void {
  installBlockHasher(common, (header) => bftBlockHash(kindOfBlock(kind, header.number), header))
}

/**
 * Makes `header.hash()` answer `hasher(header)` for every header built with `common` or a copy of it
 * (a chain whose blocks are not all named by one BFT protocol's rule: legacy IBFT 1.0 blocks).
 */
export function installBlockHasher(common: Common, hasher: (header: BlockHeader) => Uint8Array): void {
  HASHERS.set(common.customCrypto, hasher)
  if (isInstalled) return
  isInstalled = true
  const libraryHash = BlockHeader.prototype.hash
  BlockHeader.prototype.hash = function (this: BlockHeader): Uint8Array {
    const hasherOf = HASHERS.get(this.common.customCrypto)
    if (!hasherOf) return libraryHash.call(this)
    // The header is frozen but its cache object is not: the library itself fills it the same way.
    const cache = (this as unknown as { cache: { hash?: Uint8Array } }).cache
    if (cache.hash) return cache.hash
    let hash: Uint8Array
    try {
      hash = hasherOf(this)
    } catch {
      // An extraData that does not decode names no BFT block; the header rules refuse it, and
      // until then it goes by the plain hash rather than failing every lookup.
      return libraryHash.call(this)
    }
    if (Object.isFrozen(this)) cache.hash = hash
    return hash
  }
}
