/**
 * Values of a genesis file as Besu reads them: numbers as JSON numbers, decimal strings or
 * 0x-hex strings; bytes as hex with or without the 0x prefix. Each failure names its field.
 */
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'

/** A genesis file Basalt cannot use; the message names the field (the loader adds the file). */
export class GenesisError extends Error {
  override name = 'GenesisError'
}

function show(v: unknown): string {
  return typeof v === 'bigint' ? v.toString() : JSON.stringify(v)
}

/** A non-negative integer: a JSON number, a decimal string or a 0x-hex string. */
export function toGenesisQuantity(v: unknown, field: string): bigint {
  if (typeof v === 'bigint' && v >= 0n) return v
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v)
  if (typeof v === 'string') {
    const s = v.trim()
    if (/^0x[0-9a-f]*$/i.test(s)) return s.length === 2 ? 0n : BigInt(s)
    if (/^\d+$/.test(s)) return BigInt(s)
  }
  throw new GenesisError(`${field} must be a non-negative integer (decimal or 0x-hex), got ${show(v)}`)
}

/** A quantity that fits a block number or a timestamp (Besu reads them as a Java long). */
export function toMilestone(v: unknown, field: string): number {
  const n = toGenesisQuantity(v, field)
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new GenesisError(`${field} is too large: ${n}`)
  return Number(n)
}

/** Hex bytes, with or without 0x; `length` pins the size (addresses, hashes). */
export function toBytes(v: unknown, field: string, length?: number): Uint8Array {
  if (typeof v === 'string') {
    const digits = v.startsWith('0x') || v.startsWith('0X') ? v.slice(2) : v
    if (/^[0-9a-fA-F]*$/.test(digits)) {
      const even = digits.length % 2 === 1 ? `0${digits}` : digits
      const bytes = hexToBytes(`0x${even}`)
      if (length === undefined || bytes.length === length) return bytes
      throw new GenesisError(`${field} must be ${length} bytes, got ${bytes.length}: ${show(v)}`)
    }
  }
  throw new GenesisError(`${field} must be a hex string, got ${show(v)}`)
}

/**
 * `size` bytes written as hex of at most that many, left-padded with zeros as Besu's lenient
 * parsers do (a storage slot "0x01" is slot 1; a short mixHash is a hash with leading zeros).
 */
export function toWord(v: unknown, field: string, size = 32): Uint8Array {
  const bytes = toBytes(v, field)
  if (bytes.length > size) throw new GenesisError(`${field} is longer than ${size} bytes: ${show(v)}`)
  const word = new Uint8Array(size)
  word.set(bytes, size - bytes.length)
  return word
}

/** A 0x-prefixed, lower-case address. */
export function toAddressHex(v: unknown, field: string): string {
  const bytes = toBytes(v, field, 20)
  return bytesToHex(bytes)
}

/** A JSON object (not an array or null), or a GenesisError naming the field. */
export function toObject(v: unknown, field: string): Record<string, unknown> {
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>
  throw new GenesisError(`${field} must be a JSON object, got ${show(v)}`)
}
