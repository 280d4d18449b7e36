/**
 * EIP-1767's scalars: the only place GraphQL values meet hex. Inside the resolvers an Address,
 * Bytes or Bytes32 is a Uint8Array and a BigInt or Long is a bigint; here they become JSON.
 */
import { type ConstValueNode, GraphQLError, type GraphQLScalarType, type GraphQLSchema, Kind } from 'graphql'
import { bytesToHex, hexToBytes, toQuantity } from '../primitives/hex.ts'
import { javaValue, ScalarLiteralError } from './besuErrors.ts'

const MAX_LONG = (1n << 64n) - 1n
const HEX_BODY = /^[0-9a-fA-F]*$/

interface ScalarCodec {
  output(value: unknown): unknown
  input(value: unknown): unknown
}

function hexBody(name: string, value: unknown): string {
  if (typeof value !== 'string') throw new GraphQLError(`${name} value must be a hex string, not ${typeof value}`)
  if (!value.startsWith('0x') && !value.startsWith('0X')) {
    throw new GraphQLError(`${name} value '${value}' is not prefixed with 0x`)
  }
  const body = value.slice(2)
  if (!HEX_BODY.test(body)) throw new GraphQLError(`${name} value '${value}' is not valid hex`)
  return body
}

function fixedBytes(name: string, size: number): ScalarCodec {
  return {
    output: (v) => bytesToHex(asBytes(name, v)),
    input: (v) => {
      const body = hexBody(name, v)
      if (name === 'Address' ? body.length !== size * 2 : body.length > size * 2) {
        throw new GraphQLError(`${name} value '${v}' is not ${size} bytes`)
      }
      return hexToBytes(body.padStart(size * 2, '0'))
    },
  }
}

function asBytes(name: string, v: unknown): Uint8Array {
  if (v instanceof Uint8Array) return v
  throw new GraphQLError(`${name} cannot represent ${typeof v}`)
}

/** An unsigned integer from a JSON number, a decimal string or a 0x-hex string. */
function parseUnsigned(name: string, v: unknown, max?: bigint): bigint {
  let n: bigint
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new GraphQLError(`${name} value ${v} is not an integer`)
    n = BigInt(v)
  } else if (typeof v === 'bigint') {
    n = v
  } else if (typeof v === 'string' && /^0x[0-9a-fA-F]+$/i.test(v)) {
    n = BigInt(v)
  } else if (typeof v === 'string' && /^\d+$/.test(v)) {
    n = BigInt(v)
  } else {
    throw new GraphQLError(`${name} value '${String(v)}' is not a decimal or 0x-hex integer`)
  }
  if (n < 0n) throw new GraphQLError(`${name} value ${n} is negative`)
  if (max !== undefined && n > max) throw new GraphQLError(`${name} value ${n} is larger than 64 bits`)
  return n
}

const codecs: Record<string, ScalarCodec> = {
  Address: fixedBytes('Address', 20),
  Bytes32: fixedBytes('Bytes32', 32),
  Bytes: {
    output: (v) => bytesToHex(asBytes('Bytes', v)),
    input: (v) => {
      const body = hexBody('Bytes', v)
      if (body.length % 2 !== 0) throw new GraphQLError(`Bytes value '${v}' has an odd number of hex digits`)
      return hexToBytes(body)
    },
  },
  BigInt: {
    output: (v) => toQuantity(parseUnsigned('BigInt', v)),
    input: (v) => parseUnsigned('BigInt', v),
  },
  // The execution-apis GraphQL spec (since 2023; geth and Besu follow it): a Long goes out as
  // 0x-hex, like JSON-RPC quantities, and comes in as a number, a decimal or a hex string.
  Long: {
    output: (v) => toQuantity(parseUnsigned('Long', v, MAX_LONG)),
    input: (v) => parseUnsigned('Long', v, MAX_LONG),
  },
}

function literalValue(node: ConstValueNode): unknown {
  if (node.kind === Kind.STRING) return node.value
  if (node.kind === Kind.INT) return BigInt(node.value)
  throw new GraphQLError(`expected a string or an integer, found ${node.kind}`)
}

const HEX_SCALARS = new Set(['Bytes', 'Bytes32'])

/**
 * Besu's words for a literal its scalar refuses: the hex scalars name a missing 0x, anything else is
 * "Value is not any Long : 'IntValue{value=…}'" (the AST node as graphql-java prints it).
 */
function literalDetail(name: string, node: ConstValueNode): string {
  if (HEX_SCALARS.has(name) && node.kind === Kind.STRING && !/^0x/i.test(node.value))
    return `${name} value '${node.value}' is not prefixed with 0x`
  return `Value is not any ${name} : '${javaValue(node)}'`
}

/**
 * Gives the scalars a schema built from SDL their EIP-1767 coercions. `buildSchema` makes identity
 * scalars; the type objects are shared by every field that uses them, so they are filled in place.
 */
export function installScalars(schema: GraphQLSchema): void {
  for (const [name, codec] of Object.entries(codecs)) {
    const type = schema.getType(name) as GraphQLScalarType | undefined
    if (!type) throw new Error(`schema lacks scalar ${name}`)
    Object.assign(type, {
      coerceOutputValue: codec.output,
      serialize: codec.output,
      coerceInputValue: codec.input,
      parseValue: codec.input,
      coerceInputLiteral: (node: ConstValueNode) => {
        try {
          return codec.input(literalValue(node))
        } catch {
          throw new ScalarLiteralError(name, literalDetail(name, node), node)
        }
      },
    })
  }
}

/** The codec of one scalar (for tests). */
export function scalarCodec(name: string): ScalarCodec {
  return codecs[name]
}
