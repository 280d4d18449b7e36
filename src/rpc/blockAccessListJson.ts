/**
 * A stored block access list (EIP-7928, the RLP the header's `blockAccessListHash` commits to) as
 * JSON, in the two shapes Besu has answered with: execution-apis' `BlockAccessList` (a bare array of
 * account entries with all six fields, Besu's `BlockAccessListResult`) and the earlier
 * `{accountChanges}` object of `eth_getBlockAccessListByNumber`.
 */
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigInt } from '@ethereumjs/util'
import { bytesToHex, type Hex, toQuantity } from '../primitives/hex.ts'

/** One account of a decoded list; numbers as bigint, slots and code as bytes. */
interface AccountChanges {
  address: Uint8Array
  storageChanges: { slot: Uint8Array; changes: { index: bigint; value: Uint8Array }[] }[]
  storageReads: Uint8Array[]
  balanceChanges: { index: bigint; value: bigint }[]
  nonceChanges: { index: bigint; value: bigint }[]
  codeChanges: { index: bigint; code: Uint8Array }[]
}

type Item = Uint8Array | Item[]

function list(item: Item | undefined, what: string): Item[] {
  if (!Array.isArray(item)) throw new Error(`invalid block access list: ${what} is not a list`)
  return item
}

function bytes(item: Item | undefined, what: string): Uint8Array {
  if (!(item instanceof Uint8Array)) throw new Error(`invalid block access list: ${what} is not a byte string`)
  return item
}

const scalar = (item: Item | undefined, what: string): bigint => bytesToBigInt(bytes(item, what))

/** [index, value] pairs of one kind of change. */
function changes(item: Item | undefined, what: string): [bigint, Uint8Array][] {
  return list(item, what).map((c) => {
    const [index, value] = list(c, what)
    return [scalar(index, `${what} index`), bytes(value, `${what} value`)]
  })
}

/** The accounts of an access list's RLP (per account: address, storage changes and reads, balance, nonce and code changes). */
function decodeBlockAccessList(rlp: Uint8Array): AccountChanges[] {
  return list(RLP.decode(rlp) as Item, 'the list').map((account) => {
    const [address, storage, reads, balances, nonces, codes] = list(account, 'an account')
    return {
      address: bytes(address, 'an address'),
      storageChanges: list(storage, 'storageChanges').map((slot) => {
        const [key, slotChanges] = list(slot, 'a slot')
        const entries = changes(slotChanges, 'a storage change')
        return { slot: bytes(key, 'a slot key'), changes: entries.map(([index, value]) => ({ index, value })) }
      }),
      storageReads: list(reads, 'storageReads').map((r) => bytes(r, 'a storage read')),
      balanceChanges: changes(balances, 'a balance change').map(([index, v]) => ({ index, value: bytesToBigInt(v) })),
      nonceChanges: changes(nonces, 'a nonce change').map(([index, v]) => ({ index, value: bytesToBigInt(v) })),
      codeChanges: changes(codes, 'a code change').map(([index, code]) => ({ index, code })),
    }
  })
}

/** A slot key or storage value as 32 bytes (the RLP holds them as scalars without leading zeros). */
function word(b: Uint8Array): Hex {
  return `0x${bytesToHex(b).slice(2).padStart(64, '0')}`
}

/**
 * execution-apis' `BlockAccessList` (src/schemas/block-access-list.yaml), as Besu's
 * `BlockAccessListResult` writes it: every field present, slot keys, reads and storage values as
 * 32-byte words, indices, balances and nonces as quantities, code as bytes.
 */
export function blockAccessListJson(rlp: Uint8Array) {
  return decodeBlockAccessList(rlp).map((a) => ({
    address: bytesToHex(a.address),
    storageChanges: a.storageChanges.map((s) => ({
      key: word(s.slot),
      changes: s.changes.map((c) => ({ index: toQuantity(c.index), value: word(c.value) })),
    })),
    storageReads: a.storageReads.map(word),
    balanceChanges: a.balanceChanges.map((c) => ({ index: toQuantity(c.index), value: toQuantity(c.value) })),
    nonceChanges: a.nonceChanges.map((c) => ({ index: toQuantity(c.index), value: toQuantity(c.value) })),
    codeChanges: a.codeChanges.map((c) => ({ index: toQuantity(c.index), code: bytesToHex(c.code) })),
  }))
}

/** Drops the empty lists of an object, as Jackson's NON_EMPTY inclusion does. */
function nonEmpty<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => !Array.isArray(v) || v.length > 0)) as Partial<T>
}

/**
 * The shape of Besu's first `eth_getBlockAccessListByNumber`: `{accountChanges: [...]}` with
 * `slot`/`changes`, numeric `txIndex`, `newValue` and `postBalance` as 32-byte words, a numeric
 * `newNonce` and `newCode` in base64, empty lists left out.
 */
export function legacyBlockAccessListJson(rlp: Uint8Array) {
  const accountChanges = decodeBlockAccessList(rlp).map((a) =>
    nonEmpty({
      address: bytesToHex(a.address),
      storageChanges: a.storageChanges.map((s) =>
        nonEmpty({
          slot: word(s.slot),
          changes: s.changes.map((c) => ({ txIndex: Number(c.index), newValue: word(c.value) })),
        }),
      ),
      storageReads: a.storageReads.map(word),
      balanceChanges: a.balanceChanges.map((c) => ({
        txIndex: Number(c.index),
        postBalance: `0x${c.value.toString(16).padStart(64, '0')}`,
      })),
      nonceChanges: a.nonceChanges.map((c) => ({ txIndex: Number(c.index), newNonce: Number(c.value) })),
      codeChanges: a.codeChanges.map((c) => ({ txIndex: Number(c.index), newCode: base64(c.code) })),
    }),
  )
  return { accountChanges }
}

function base64(b: Uint8Array): string {
  let s = ''
  for (const x of b) s += String.fromCharCode(x)
  return btoa(s)
}
