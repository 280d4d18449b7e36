/**
 * Hex and quantity codecs for the edges (RPC, GraphQL, CLI, genesis files). Inside the node values
 * are bigint and Uint8Array; hex strings exist only where bytes meet text.
 */
import { bytesToHex as nobleBytesToHex, hexToBytes as nobleHexToBytes } from '@noble/hashes/utils.js'

export type Hex = `0x${string}`

const HEX_BODY = /^[0-9a-fA-F]*$/

/** True when `s` is `0x` followed by an even number of hex digits. */
export function isHexData(s: unknown): s is Hex {
  return typeof s === 'string' && s.startsWith('0x') && s.length % 2 === 0 && HEX_BODY.test(s.slice(2))
}

/** Bytes to `0x`-prefixed lower-case hex. */
export function bytesToHex(b: Uint8Array): Hex {
  return `0x${nobleBytesToHex(b)}`
}

/** Bytes to unprefixed lower-case hex (store keys): the runtime's native encoder where there is one. */
export function bytesToBareHex(b: Uint8Array): string {
  return nobleBytesToHex(b)
}

/** `0x`-prefixed (or bare) hex to bytes; throws on odd length or a non-hex digit. */
export function hexToBytes(s: string): Uint8Array {
  const body = s.startsWith('0x') || s.startsWith('0X') ? s.slice(2) : s
  if (body.length % 2 !== 0) throw new Error(`hex string has odd length: ${s}`)
  if (!HEX_BODY.test(body)) throw new Error(`invalid hex string: ${s}`)
  return nobleHexToBytes(body)
}

/** A bigint as an RPC quantity: `0x` + shortest hex, `0x0` for zero. */
export function toQuantity(n: bigint | number): Hex {
  return `0x${n.toString(16)}`
}

/** Big-endian unsigned bytes of `n`, minimal length (empty for zero). */
export function bigintToBytes(n: bigint): Uint8Array {
  if (n === 0n) return new Uint8Array(0)
  let hex = n.toString(16)
  if (hex.length % 2) hex = `0${hex}`
  return nobleHexToBytes(hex)
}

/** Big-endian bytes of `n`, left-padded to `size` bytes. */
export function bigintToPaddedBytes(n: bigint, size: number): Uint8Array {
  return nobleHexToBytes(n.toString(16).padStart(size * 2, '0'))
}

/** Big-endian bytes to an unsigned bigint. */
export function bytesToBigint(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(`0x${nobleBytesToHex(b)}`)
}

/** Pads hex data on the left to `size` bytes. */
export function padHex(h: string, size: number): Hex {
  return `0x${h.replace(/^0x/, '').padStart(size * 2, '0')}`
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let i = 0
  for (const p of parts) {
    out.set(p, i)
    i += p.length
  }
  return out
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
