/**
 * The digests a wallet signs besides transactions: EIP-191 personal messages
 * (`"\x19Ethereum Signed Message:\n" + length + message`) and EIP-712 typed structured data
 * (`0x19 0x01 ‖ domainSeparator ‖ hashStruct(message)`). Typed data is checked while it is
 * encoded: a malformed document throws `TypedDataError` saying what is wrong, never a partial hash.
 * Spec: https://eips.ethereum.org/EIPS/eip-191, https://eips.ethereum.org/EIPS/eip-712
 */
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bigintToPaddedBytes, concatBytes, hexToBytes, isHexData } from '../../primitives/hex.ts'

/** The EIP-191 (version 0x45) hash of a personal message. */
export function personalMessageHash(message: Uint8Array): Uint8Array {
  const prefix = new TextEncoder().encode(`\x19Ethereum Signed Message:\n${message.length}`)
  return keccak_256(concatBytes(prefix, message))
}

export class TypedDataError extends Error {}

interface Field {
  name: string
  type: string
}
type Types = Record<string, Field[]>

/** The EIP-712 document as `eth_signTypedData_v4` carries it (an object, or that object as JSON text). */
export interface TypedData {
  types: Types
  primaryType: string
  domain: Record<string, unknown>
  message: Record<string, unknown>
}

/** The EIP712Domain fields in the order wallets list them when the document leaves the type out. */
const DOMAIN_FIELDS: Field[] = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
  { name: 'salt', type: 'bytes32' },
]

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/
const ARRAY_SUFFIX = /^(.*)\[(\d*)\]$/

function fail(message: string): never {
  throw new TypedDataError(message)
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Parses and shape-checks a typed data document. */
export function parseTypedData(input: unknown): TypedData {
  let doc = input
  if (typeof input === 'string') {
    try {
      doc = JSON.parse(input)
    } catch {
      fail('typed data is not valid JSON')
    }
  }
  if (!isRecord(doc)) fail('typed data must be an object with types, primaryType, domain and message')
  const { types, primaryType, domain, message } = doc
  if (!isRecord(types)) fail('typed data: types must be an object')
  if (typeof primaryType !== 'string') fail('typed data: primaryType must be a string')
  if (!isRecord(domain)) fail('typed data: domain must be an object')
  if (message !== undefined && !isRecord(message)) fail('typed data: message must be an object')
  const checked: Types = {}
  for (const [name, fields] of Object.entries(types)) {
    if (!IDENTIFIER.test(name)) fail(`typed data: invalid type name ${JSON.stringify(name)}`)
    if (!Array.isArray(fields)) fail(`typed data: type ${name} must list its fields`)
    checked[name] = fields.map((f) => {
      if (!isRecord(f) || typeof f.name !== 'string' || typeof f.type !== 'string')
        fail(`typed data: each field of ${name} needs a name and a type`)
      return { name: f.name, type: f.type }
    })
  }
  if (!checked.EIP712Domain) checked.EIP712Domain = DOMAIN_FIELDS.filter((f) => domain[f.name] !== undefined)
  if (!checked[primaryType]) fail(`typed data: missing type in type resolution: ${primaryType}`)
  return { types: checked, primaryType, domain, message: (message ?? {}) as Record<string, unknown> }
}

/** The hash `eth_signTypedData_v4` signs. */
export function typedDataHash(data: TypedData): Uint8Array {
  const domainSeparator = hashStruct(data.types, 'EIP712Domain', data.domain)
  if (data.primaryType === 'EIP712Domain') return keccak_256(concatBytes(new Uint8Array([0x19, 0x01]), domainSeparator))
  const messageHash = hashStruct(data.types, data.primaryType, data.message)
  return keccak_256(concatBytes(new Uint8Array([0x19, 0x01]), domainSeparator, messageHash))
}

/** `keccak256(encodeType(type)) ‖ enc(field)…`, hashed. */
export function hashStruct(types: Types, type: string, value: unknown): Uint8Array {
  if (!isRecord(value)) fail(`typed data: a value of type ${type} must be an object`)
  const parts: Uint8Array[] = [keccak_256(new TextEncoder().encode(encodeType(types, type)))]
  for (const field of types[type])
    parts.push(encodeValue(types, field.type, value[field.name], `${type}.${field.name}`))
  return keccak_256(concatBytes(...parts))
}

/** `Mail(Person from,Person to,string contents)Person(string name,address wallet)`: the type, then its dependencies sorted. */
export function encodeType(types: Types, type: string): string {
  const deps = new Set<string>()
  collectDependencies(types, type, deps)
  deps.delete(type)
  const one = (t: string) => `${t}(${types[t].map((f) => `${f.type} ${f.name}`).join(',')})`
  return [type, ...[...deps].sort()].map(one).join('')
}

function baseType(type: string): string {
  let t = type
  for (let m = ARRAY_SUFFIX.exec(t); m; m = ARRAY_SUFFIX.exec(t)) t = m[1]
  return t
}

function collectDependencies(types: Types, type: string, found: Set<string>): void {
  if (found.has(type)) return
  if (!types[type]) fail(`typed data: missing type in type resolution: ${type}`)
  found.add(type)
  for (const field of types[type]) {
    const base = baseType(field.type)
    if (types[base]) collectDependencies(types, base, found)
  }
}

/** One field's 32-byte encoding (`enc` of EIP-712). */
function encodeValue(types: Types, type: string, value: unknown, path: string): Uint8Array {
  const array = ARRAY_SUFFIX.exec(type)
  if (array) {
    if (!Array.isArray(value)) fail(`typed data: ${path} must be an array (${type})`)
    if (array[2] !== '' && value.length !== Number(array[2]))
      fail(`typed data: ${path} must hold ${array[2]} elements, got ${value.length}`)
    return keccak_256(concatBytes(...value.map((v, i) => encodeValue(types, array[1], v, `${path}[${i}]`))))
  }
  if (types[type]) return hashStruct(types, type, value)
  if (value === undefined || value === null) fail(`typed data: ${path} is missing`)
  if (type === 'string') {
    if (typeof value !== 'string') fail(`typed data: ${path} must be a string`)
    return keccak_256(new TextEncoder().encode(value))
  }
  if (type === 'bytes') return keccak_256(hexValue(value, path))
  if (type === 'bool') return word(boolValue(value, path) ? 1n : 0n)
  if (type === 'address') {
    const b = hexValue(value, path)
    if (b.length !== 20) fail(`typed data: ${path} must be an address of 20 bytes, got ${b.length}`)
    return leftPad(b)
  }
  const fixedBytes = /^bytes(\d+)$/.exec(type)
  if (fixedBytes) {
    const size = Number(fixedBytes[1])
    if (size < 1 || size > 32) fail(`typed data: unknown type ${type} at ${path}`)
    const b = hexValue(value, path)
    if (b.length > size) fail(`typed data: ${path} must be at most ${size} bytes (${type}), got ${b.length}`)
    const out = new Uint8Array(32)
    out.set(b, 0)
    return out
  }
  const integer = /^(u?)int(\d*)$/.exec(type)
  if (integer) {
    const bits = integer[2] === '' ? 256 : Number(integer[2])
    if (bits < 8 || bits > 256 || bits % 8 !== 0) fail(`typed data: unknown type ${type} at ${path}`)
    return word(integerValue(value, path, type, integer[1] === 'u', bits))
  }
  return fail(`typed data: unknown type ${type} at ${path}`)
}

function hexValue(value: unknown, path: string): Uint8Array {
  if (!isHexData(value)) fail(`typed data: ${path} must be 0x-prefixed hex of even length`)
  return hexToBytes(value)
}

function boolValue(value: unknown, path: string): boolean {
  if (typeof value === 'boolean') return value
  if (value === 'true' || value === 'false') return value === 'true'
  return fail(`typed data: ${path} must be a boolean`)
}

/** Numbers as JSON numbers, decimal strings or 0x hex strings, range-checked for their type. */
function integerValue(value: unknown, path: string, type: string, isUnsigned: boolean, bits: number): bigint {
  let n: bigint
  if (typeof value === 'number' && Number.isSafeInteger(value)) n = BigInt(value)
  else if (typeof value === 'string' && /^-?(0x[0-9a-fA-F]+|[0-9]+)$/.test(value))
    n = value.startsWith('-') ? -BigInt(value.slice(1)) : BigInt(value)
  else return fail(`typed data: ${path} must be an integer (${type})`)
  const min = isUnsigned ? 0n : -(1n << BigInt(bits - 1))
  const max = isUnsigned ? (1n << BigInt(bits)) - 1n : (1n << BigInt(bits - 1)) - 1n
  if (n < min || n > max) fail(`typed data: ${path} is out of range for ${type}`)
  return BigInt.asUintN(256, n)
}

function word(n: bigint): Uint8Array {
  return bigintToPaddedBytes(n, 32)
}

function leftPad(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(32)
  out.set(b, 32 - b.length)
  return out
}
