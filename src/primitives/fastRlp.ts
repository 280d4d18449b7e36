/**
 * RLP encoding in one allocation. `@ethereumjs/rlp`'s `encode` builds every item and every list
 * prefix as an array of its own and concatenates them level by level, which was about a third of
 * updating a trie path (each changed node is encoded, then hashed) and shows again in every account,
 * receipt and transaction the libraries encode. This encoder measures the whole structure first,
 * then writes it into one buffer; its output is byte for byte the library's (a test compares them).
 *
 * Installed by replacing `RLP.encode` on the library's shared `RLP` object, which every
 * `@ethereumjs` package calls through. Byte arrays, lists, null (an empty branch slot of a trie
 * node) and non-negative safe integers (the keys of a block's transaction and receipt tries) are
 * encoded here; anything else (hex strings, bigints, text), which the hot paths never pass, goes to
 * the library's encoder.
 */
import { RLP } from '@ethereumjs/rlp'

type Input = Parameters<typeof RLP.encode>[0]

/** The library's encoder (kept for the inputs this one does not take, and for tests). */
export const libraryEncode: typeof RLP.encode = RLP.encode

/** Payload lengths of the lists of the input being encoded, in the order they are met. */
let listLengths: number[] = []
let listIndex = 0
let out = new Uint8Array(0)
let pos = 0

function lengthOfLength(n: number): number {
  if (n < 56) return 1
  if (n < 0x100) return 2
  if (n < 0x10000) return 3
  return 1 + byteLength(n)
}

/** The encoded length of `input`, or -1 when it holds something other than bytes and lists. */
function measure(input: unknown): number {
  if (input instanceof Uint8Array) {
    const n = input.length
    return n === 1 && input[0] < 0x80 ? 1 : lengthOfLength(n) + n
  }
  // An empty branch slot of a trie node; the library encodes null as the empty string.
  if (input === null || input === undefined) return 1
  // A small number (a key of a block's transaction or receipt trie): minimal big-endian bytes.
  if (typeof input === 'number') {
    if (!Number.isSafeInteger(input) || input < 0) return -1
    const n = byteLength(input)
    return n === 1 && input < 0x80 ? 1 : 1 + n
  }
  if (!Array.isArray(input)) return -1
  const index = listLengths.length
  listLengths.push(0)
  let payload = 0
  for (let i = 0; i < input.length; i++) {
    const m = measure(input[i])
    if (m < 0) return -1
    payload += m
  }
  listLengths[index] = payload
  return lengthOfLength(payload) + payload
}

function writeLength(len: number, offset: number): void {
  if (len < 56) {
    out[pos++] = offset + len
    return
  }
  const bytes = lengthOfLength(len) - 1
  out[pos++] = offset + 55 + bytes
  for (let i = bytes - 1; i >= 0; i--) out[pos++] = Math.floor(len / 2 ** (8 * i)) & 0xff
}

function byteLength(n: number): number {
  let bytes = 0
  for (let l = n; l > 0; l = Math.floor(l / 256)) bytes++
  return bytes
}

function write(input: Uint8Array | unknown[] | number | null | undefined): void {
  if (input === null || input === undefined) {
    out[pos++] = 0x80
    return
  }
  if (typeof input === 'number') {
    const n = byteLength(input)
    if (n !== 1 || input >= 0x80) out[pos++] = 0x80 + n
    for (let i = n - 1; i >= 0; i--) out[pos++] = Math.floor(input / 2 ** (8 * i)) & 0xff
    return
  }
  if (input instanceof Uint8Array) {
    if (input.length !== 1 || input[0] >= 0x80) writeLength(input.length, 0x80)
    out.set(input, pos)
    pos += input.length
    return
  }
  writeLength(listLengths[listIndex++], 0xc0)
  for (let i = 0; i < input.length; i++) write(input[i] as Uint8Array | unknown[] | number | null)
}

/** RLP of `input`, the same bytes as `@ethereumjs/rlp`'s `encode`. */
export function fastEncode(input: Input): Uint8Array {
  listLengths = []
  const size = measure(input)
  if (size < 0) return libraryEncode(input)
  out = new Uint8Array(size)
  pos = 0
  listIndex = 0
  write(input as Uint8Array | unknown[])
  const result = out
  out = new Uint8Array(0)
  return result
}

/** The library's decoder (kept for the inputs this one does not take, and for tests). */
export const libraryDecode: typeof RLP.decode = RLP.decode

/** Thrown inside `fastDecode` on input the library would refuse; the library then gives its error. */
const INVALID = new Error('invalid RLP')

type Decoded = Uint8Array | Decoded[]

const NO_INPUT: Uint8Array<ArrayBufferLike> = new Uint8Array(0)
let src = NO_INPUT

/** Big-endian length of `n` bytes at `at`; a leading zero byte is invalid, as in the library. */
function readLength(at: number, n: number): number {
  if (src[at] === 0) throw INVALID
  let len = 0
  for (let i = 0; i < n; i++) len = len * 256 + src[at + i]
  return len
}

/** Decodes the item at `at`, which must end by `end`; returns it, its end in `decodeEnd`. */
let decodeEnd = 0
function decodeAt(at: number, end: number): Decoded {
  const first = src[at]
  if (first <= 0x7f) {
    decodeEnd = at + 1
    return src.slice(at, at + 1)
  }
  if (first <= 0xbf) {
    let start = at + 1
    let len = first - 0x80
    if (first > 0xb7) {
      const n = first - 0xb7
      if (start + n > end) throw INVALID
      len = readLength(start, n)
      if (len <= 55) throw INVALID
      start += n
    }
    if (start + len > end) throw INVALID
    if (len === 1 && src[start] < 0x80) throw INVALID
    decodeEnd = start + len
    return src.slice(start, start + len)
  }
  let start = at + 1
  let len = first - 0xc0
  if (first > 0xf7) {
    const n = first - 0xf7
    if (start + n > end) throw INVALID
    len = readLength(start, n)
    if (len < 56) throw INVALID
    start += n
  }
  const listEnd = start + len
  if (listEnd > end) throw INVALID
  const items: Decoded[] = []
  let p = start
  while (p < listEnd) {
    items.push(decodeAt(p, listEnd))
    p = decodeEnd
  }
  decodeEnd = listEnd
  return items
}

/**
 * RLP decoding with the library's results (fresh copies of every byte string) and without its
 * per-item remainders. Anything but a whole, canonical encoding in a byte array goes to the
 * library's decoder, which gives its answer or its error.
 */
function decodeBytes(input: Parameters<typeof RLP.decode>[0], stream?: boolean): unknown {
  if (stream || !(input instanceof Uint8Array) || input.length === 0) return libraryDecode(input, stream as false)
  src = input
  try {
    const out = decodeAt(0, input.length)
    return decodeEnd === input.length ? out : libraryDecode(input)
  } catch (e) {
    if (e !== INVALID) throw e
    return libraryDecode(input)
  } finally {
    src = NO_INPUT
  }
}

export const fastDecode = decodeBytes as typeof RLP.decode

let isInstalled = false

/** Routes every `RLP.encode` call (ours and the libraries') through `fastEncode`. */
export function installFastRlp(): void {
  if (isInstalled) return
  isInstalled = true
  ;(RLP as { encode: typeof RLP.encode }).encode = fastEncode
  ;(RLP as { decode: typeof RLP.decode }).decode = fastDecode
}
