/**
 * Parameter codecs: each turns one JSON value into a typed value or throws a message saying what
 * was expected. `defineMethod` turns a failure into -32602: Besu's text for the parameter where the
 * method names one, otherwise a message naming the argument.
 */
import { hexToBytes, isHexData } from '../primitives/hex.ts'
import type { BesuParamKind } from './errors.ts'

export interface Codec<T> {
  /** What the argument is called in error messages. */
  readonly label: string
  readonly isOptional: boolean
  decode(v: unknown): T
  optional(): Codec<T | undefined>
  optional<D extends T>(fallback: D): Codec<T>
}

export type Decoded<C> = C extends Codec<infer T> ? T : never

export class CodecError extends Error {
  /** Besu's kind for this failure when it is not the parameter's own (a negative block number). */
  readonly besuKind?: BesuParamKind

  constructor(message: string, besuKind?: BesuParamKind) {
    super(message)
    this.besuKind = besuKind
  }
}

/**
 * A parameter that decoded but that the handler refuses (a slot above 2^256, a count out of range):
 * `defineMethod` answers it as a decode failure of that argument, named by its index or its codec's
 * label.
 */
export class ParamError extends CodecError {
  readonly argument: number | string

  constructor(argument: number | string, message: string) {
    super(message)
    this.argument = argument
  }
}

export function codec<T>(label: string, decode: (v: unknown) => T, isOptional = false): Codec<T> {
  const c: Codec<T> = {
    label,
    isOptional,
    decode,
    optional(fallback?: T) {
      return codec(label, (v) => (v === undefined || v === null ? (fallback as T) : decode(v)), true)
    },
  } as Codec<T>
  return c
}

function fail(msg: string): never {
  throw new CodecError(msg)
}

const MAX_ECHO_CHARS = 48

/**
 * A bad value as an error message quotes it: short, and safe for values that cannot be stringified
 * (too deep, cyclic). The dispatcher bounds JSON depth, so stringifying stays cheap.
 */
export function describe(v: unknown): string {
  let s: string
  try {
    s = JSON.stringify(v) ?? String(v)
  } catch {
    s = Array.isArray(v) ? 'an unprintable array' : 'an unprintable object'
  }
  return s.length > MAX_ECHO_CHARS ? `${s.slice(0, MAX_ECHO_CHARS)}… (${s.length} characters)` : s
}

const QUANTITY = /^0x(0|[1-9a-fA-F][0-9a-fA-F]*)$/

function quantity(v: unknown): bigint {
  if (typeof v === 'string' && QUANTITY.test(v)) return BigInt(v)
  if (typeof v === 'string' && /^0x0[0-9a-fA-F]+$/.test(v)) fail(`hex number with leading zero digits: ${describe(v)}`)
  return fail(`expected a hex quantity, got ${describe(v)}`)
}

/** A quantity below 2^bits: fields the protocol holds as uint64 or uint256 refuse larger values here. */
function bounded(bits: bigint) {
  const limit = 1n << bits
  return (v: unknown): bigint => {
    const n = quantity(v)
    return n < limit ? n : fail(`number larger than ${bits} bits: ${describe(v)}`)
  }
}
const uint64 = bounded(64n)
const uint256 = bounded(256n)

/** Accepts any hex number including leading zeros (some clients send them in filters/indices). */
function lenientQuantity(v: unknown): bigint {
  if (typeof v === 'string' && /^0x[0-9a-fA-F]+$/.test(v)) return BigInt(v)
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v)
  return fail(`expected a hex quantity, got ${describe(v)}`)
}

function data(v: unknown): Uint8Array {
  if (!isHexData(v)) fail(`expected 0x-prefixed hex data of even length, got ${describe(v)}`)
  return hexToBytes(v)
}

function fixed(size: number, what: string) {
  return (v: unknown): Uint8Array => {
    const b = data(v)
    if (b.length !== size) fail(`expected ${what} of ${size} bytes, got ${b.length}`)
    return b
  }
}

export type BlockTagName = 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized'
const TAGS = new Set(['latest', 'earliest', 'pending', 'safe', 'finalized'])
export type BlockParam = BlockTagName | bigint | { hash: Uint8Array; requireCanonical?: boolean }

/** Block numbers are uint64 (execution-apis); Besu refuses larger ones as unparsable too. */
const MAX_BLOCK_NUMBER = (1n << 64n) - 1n

function blockNumberOrTag(v: unknown): BlockTagName | bigint {
  if (typeof v === 'string' && TAGS.has(v)) return v as BlockTagName
  if (typeof v === 'string' && v.startsWith('0x')) {
    const n = lenientQuantity(v)
    return n > MAX_BLOCK_NUMBER ? fail(`block number larger than 64 bits: ${describe(v)}`) : n
  }
  return fail(`expected a block number or one of latest, earliest, pending, safe, finalized, got ${describe(v)}`)
}

/** EIP-1898: a block number, tag, `0x` block hash, or `{blockNumber}` / `{blockHash, requireCanonical}`. */
function blockParam(v: unknown): BlockParam {
  // Besu reads "-0x10" as a number, then refuses it as a block number rather than as unreadable.
  if (typeof v === 'string' && /^-0x[0-9a-fA-F]+$/.test(v))
    throw new CodecError(`negative block number: ${describe(v)}`, 'blockNumber')
  if (typeof v === 'string' && v.length === 66) return { hash: fixed(32, 'a block hash')(v) }
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
    const o = v as Record<string, unknown>
    if (o.blockHash !== undefined && o.blockNumber !== undefined)
      fail('blockHash and blockNumber are mutually exclusive')
    if (o.blockHash !== undefined) {
      const requireCanonical = o.requireCanonical === undefined ? false : bool(o.requireCanonical)
      return { hash: fixed(32, 'a block hash')(o.blockHash), requireCanonical }
    }
    if (o.blockNumber !== undefined) return blockNumberOrTag(o.blockNumber)
    return fail('expected blockHash or blockNumber')
  }
  return blockNumberOrTag(v)
}

function bool(v: unknown): boolean {
  if (typeof v !== 'boolean') fail(`expected a boolean, got ${describe(v)}`)
  return v
}

/** The codec table methods declare their parameters with. */
export const p = {
  address: codec('address', fixed(20, 'an address')),
  hash: codec('hash', fixed(32, 'a hash')),
  bytes32: codec('bytes32', fixed(32, 'a 32-byte value')),
  data: codec('data', data),
  quantity: codec('quantity', quantity),
  /** Block index, count: accepts leading zeros and plain JSON numbers. */
  index: codec('index', lenientQuantity),
  bool: codec('bool', bool),
  blockNumberOrTag: codec('block', blockNumberOrTag),
  block: codec('block', blockParam),
  string: codec('string', (v) => (typeof v === 'string' ? v : fail(`expected a string, got ${describe(v)}`))),
  any: codec('value', (v) => v),
  object: codec('object', (v) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : fail('expected an object'),
  ),
  array<T>(inner: Codec<T>, label = `${inner.label}s`): Codec<T[]> {
    return codec(label, (v) => {
      if (!Array.isArray(v)) fail(`expected an array, got ${describe(v)}`)
      return v.map((x, i) => {
        try {
          return inner.decode(x)
        } catch (e) {
          return fail(`element ${i}: ${(e as Error).message}`)
        }
      })
    })
  },
  named<T>(label: string, inner: Codec<T>): Codec<T> {
    return codec(label, inner.decode)
  },
}

/** Raw decoders for building object codecs field by field. */
export const decoders = {
  quantity,
  uint64,
  uint256,
  lenientQuantity,
  data,
  fixed,
  bool,
  blockParam,
  blockNumberOrTag,
  fail,
  describe,
}
