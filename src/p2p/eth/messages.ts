/**
 * eth/68 messages (devp2p caps/eth.md): codes, and the RLP shapes we send and read. Request ids are
 * 64-bit, so they are bigints. Decoders throw EthMessageError on a malformed message, which costs the
 * peer its session.
 */

import { RLP } from '@ethereumjs/rlp'
import type { TypedTransaction } from '@ethereumjs/tx'
import { bigintToBytes, bytesToBigint } from '../../primitives/hex.ts'
import type { ForkId } from './forkId.ts'

export const ETH_VERSION = 68
/** Message codes eth/68 uses (0x00…0x10). */
export const ETH_LENGTH = 17

export const EthCode = {
  status: 0x00,
  newBlockHashes: 0x01,
  transactions: 0x02,
  getBlockHeaders: 0x03,
  blockHeaders: 0x04,
  getBlockBodies: 0x05,
  blockBodies: 0x06,
  newBlock: 0x07,
  newPooledTransactionHashes: 0x08,
  getPooledTransactions: 0x09,
  pooledTransactions: 0x0a,
  getReceipts: 0x0f,
  receipts: 0x10,
} as const

export class EthMessageError extends Error {}

type Nested = Uint8Array | Nested[]

export interface Status {
  version: number
  networkId: bigint
  td: bigint
  head: Uint8Array
  genesis: Uint8Array
  forkId: ForkId
}

export function encodeStatus(s: Status): Uint8Array {
  return RLP.encode([
    bigintToBytes(BigInt(s.version)),
    bigintToBytes(s.networkId),
    bigintToBytes(s.td),
    s.head,
    s.genesis,
    [s.forkId.hash, bigintToBytes(s.forkId.next)],
  ])
}

export function decodeStatus(payload: Uint8Array): Status {
  const v = RLP.decode(payload) as Nested[]
  if (!Array.isArray(v) || v.length < 6 || !Array.isArray(v[5])) throw new EthMessageError('malformed STATUS')
  const [version, networkId, td, head, genesis] = v.slice(0, 5).map((x) => bytes(x))
  const [hash, next] = (v[5] as Nested[]).map((x) => bytes(x))
  return {
    version: Number(bytesToBigint(version)),
    networkId: bytesToBigint(networkId),
    td: bytesToBigint(td),
    head,
    genesis,
    forkId: { hash, next: bytesToBigint(next) },
  }
}

/** A byte string item, or EthMessageError. */
export function bytes(x: Nested | undefined): Uint8Array {
  if (!(x instanceof Uint8Array)) throw new EthMessageError('expected a byte string')
  return x
}

/** A list item, or EthMessageError. */
export function list(x: Nested | undefined): Nested[] {
  if (!Array.isArray(x)) throw new EthMessageError('expected a list')
  return x
}

/** `[request-id, body]` of a request or response. */
export function decodeRequest(payload: Uint8Array): { id: bigint; body: Nested[] } {
  const v = list(RLP.decode(payload) as Nested)
  return { id: bytesToBigint(bytes(v[0])), body: list(v[1]) }
}

export function encodeRequest(id: bigint, body: unknown[]): Uint8Array {
  return RLP.encode([bigintToBytes(id), body as Nested[]])
}

/** GetBlockHeaders' query: a start (number or hash), how many, the step between them and the direction. */
export interface HeaderQuery {
  origin: bigint | Uint8Array
  amount: number
  skip: number
  reverse: boolean
}

export function decodeHeaderQuery(body: Nested[]): HeaderQuery {
  const origin = bytes(body[0])
  return {
    origin: origin.length === 32 ? origin : bytesToBigint(origin),
    amount: Number(bytesToBigint(bytes(body[1]))),
    skip: Number(bytesToBigint(bytes(body[2]))),
    reverse: bytesToBigint(bytes(body[3])) !== 0n,
  }
}

export function encodeHeaderQuery(q: HeaderQuery): Nested[] {
  const origin = q.origin instanceof Uint8Array ? q.origin : bigintToBytes(q.origin)
  return [origin, bigintToBytes(BigInt(q.amount)), bigintToBytes(BigInt(q.skip)), bigintToBytes(q.reverse ? 1n : 0n)]
}

/** A transaction as the wire carries it: legacy as its RLP list, typed as `type || payload` bytes. */
export function txToWire(tx: TypedTransaction): Nested {
  if (tx.type === 0) return RLP.decode(tx.serialize()) as Nested
  const withBlobs = tx as TypedTransaction & { serializeNetworkWrapper?: () => Uint8Array; blobs?: unknown[] }
  return withBlobs.blobs?.length && withBlobs.serializeNetworkWrapper
    ? withBlobs.serializeNetworkWrapper()
    : tx.serialize()
}

/** The serialized form of a wire transaction (what `createTxFromRLP` reads). */
export function wireToTxBytes(item: Nested): Uint8Array {
  return item instanceof Uint8Array ? item : RLP.encode(item)
}

/** eth/68 NewPooledTransactionHashes: `[types, [sizes…], [hashes…]]`. */
export function encodeAnnouncement(txs: TypedTransaction[]): Uint8Array {
  return RLP.encode([
    Uint8Array.from(txs.map((t) => t.type)),
    txs.map((t) => bigintToBytes(BigInt(t.serialize().length))),
    txs.map((t) => t.hash()),
  ])
}

export function decodeAnnouncementHashes(payload: Uint8Array): Uint8Array[] {
  const v = list(RLP.decode(payload) as Nested)
  return list(v[2]).map(bytes)
}
