/**
 * RLP encoding in one allocation. `@ethereumjs/rlp`'s `encode` builds every item and every list
 * prefix as an array of its own and concatenates them level by level, which was about a third of
 * updating a trie path (each changed node is encoded, then hashed) and shows again in every account,
 * receipt and transaction the libraries encode. This encoder measures the whole structure first,
 * then writes it into one buffer; its output is byte for byte the library's (a test compares them).
 *
 * Installed by replacing `RLP.encode` on the library's shared `RLP` object, which every
 * `@ethereumjs` package calls through. Input with anything other than byte arrays and lists (hex
 * strings, numbers, bigints, null), which the hot paths never pass, goes to the library's encoder.
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
  let bytes = 0
  for (let l = n; l > 0; l = Math.floor(l / 256)) bytes++
  return 1 + bytes
}

/** The encoded length of `input`, or -1 when it holds something other than bytes and lists. */
function measure(input: unknown): number {
  if (input instanceof Uint8Array) {
    const n = input.length
    return n === 1 && input[0] < 0x80 ? 1 : lengthOfLength(n) + n
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

function write(input: Uint8Array | unknown[]): void {
  if (input instanceof Uint8Array) {
    if (input.length !== 1 || input[0] >= 0x80) writeLength(input.length, 0x80)
    out.set(input, pos)
    pos += input.length
    return
  }
  writeLength(listLengths[listIndex++], 0xc0)
  for (let i = 0; i < input.length; i++) write(input[i] as Uint8Array | unknown[])
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

let isInstalled = false

/** Routes every `RLP.encode` call (ours and the libraries') through `fastEncode`. */
export function installFastRlp(): void {
  if (isInstalled) return
  isInstalled = true
  ;(RLP as { encode: typeof RLP.encode }).encode = fastEncode
}
