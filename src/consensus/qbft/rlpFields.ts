/**
 * Reading the RLP of BFT messages: typed accessors that throw `QbftMessageError` naming the field,
 * shared by the QBFT (`istanbul/100`) and IBFT 2.0 (`IBF/1`) codecs.
 */
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigint } from '../../primitives/hex.ts'
import { recoverAddress } from '../bftHashing.ts'

export type RlpItem = Uint8Array | RlpItem[]

/** A message that does not decode, or whose signature does not recover. */
export class QbftMessageError extends Error {
  override name = 'QbftMessageError'
}

export function fail(reason: string): never {
  throw new QbftMessageError(reason)
}

export function parseRlp(data: Uint8Array): RlpItem {
  try {
    return RLP.decode(data) as RlpItem
  } catch (e) {
    fail(`not RLP: ${(e as Error).message}`)
  }
}

export function list(item: RlpItem | undefined, what: string, length?: number): RlpItem[] {
  if (!Array.isArray(item)) fail(`${what} is not a list`)
  if (length !== undefined && item.length !== length) fail(`${what} has ${item.length} items, expected ${length}`)
  return item
}

export function bytes(item: RlpItem | undefined, what: string, length?: number): Uint8Array {
  if (!(item instanceof Uint8Array)) fail(`${what} is not a byte string`)
  if (length !== undefined && item.length !== length) fail(`${what} is ${item.length} bytes, expected ${length}`)
  return item
}

/** An RLP scalar (no leading zero) of at most `maxBytes` bytes. */
export function int(item: RlpItem | undefined, what: string, maxBytes: number): bigint {
  const b = bytes(item, what)
  if (b.length > maxBytes || b[0] === 0) fail(`${what} is not a scalar of at most ${maxBytes} bytes`)
  return bytesToBigint(b)
}

/** A big-endian integer of exactly `width` bytes (Besu's `writeLong` / `writeInt`). */
export function fixedInt(item: RlpItem | undefined, what: string, width: number): bigint {
  return bytesToBigint(bytes(item, what, width))
}

/** Whether an item is the RLP "null" Besu writes for an absent value (the empty byte string). */
export const isNull = (item: RlpItem | undefined): boolean => item instanceof Uint8Array && item.length === 0

/** `[payload, signature]` with its signer recovered over `hashOf(payload)`. */
export function readSignedItem(
  item: RlpItem,
  hashOf: (raw: RlpItem) => Uint8Array,
): { raw: RlpItem[]; signature: Uint8Array; author: Uint8Array } {
  const [raw, sig] = list(item, 'signed payload', 2)
  const fields = list(raw, 'payload')
  const signature = bytes(sig, 'signature', 65)
  const author = recoverAddress(hashOf(fields), signature) ?? fail('signature does not recover')
  return { raw: fields, signature, author }
}
