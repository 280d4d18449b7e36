/**
 * Codecs for the parameters of message-execution methods: the call object (GenericTransaction in
 * execution-apis), state overrides and block overrides. Failures name the field at fault.
 */
import type { Authorization, CallRequest } from '../../evm/callTransaction.ts'
import type { BlockOverrides } from '../../evm/simulationBlock.ts'
import type { AccountOverride, StateOverrides } from '../../evm/stateOverrides.ts'
import { CodecError, codec, decoders } from '../../jsonrpc/codecs.ts'
import { equalBytes } from '../../primitives/hex.ts'

const { quantity, fixed, bool, fail } = decoders
const bytes32 = fixed(32, 'a 32-byte value')

/**
 * Besu reads a call's addresses and byte strings as lenient hex (`Address.fromHexString`,
 * `Bytes.fromHexString`): the `0x` may be left out, so `"from": "a94f…0b"` is an address there.
 */
function prefixed(v: unknown): unknown {
  return typeof v === 'string' && BARE_HEX.test(v) ? `0x${v}` : v
}
const BARE_HEX = /^[0-9a-fA-F]+$/
const strictAddress = fixed(20, 'an address')
const address = (v: unknown): Uint8Array => strictAddress(prefixed(v))
const data = (v: unknown): Uint8Array => decoders.data(prefixed(v))

/**
 * A number below 2^bits as Besu reads a call's amounts (`Wei.fromHexString`, a long): leading
 * zeros are taken (`"0x000002"`), and so is a plain JSON number (an override's `"nonce": 88`).
 */
function below(bits: bigint) {
  const limit = 1n << bits
  return (v: unknown): bigint => {
    const n = decoders.lenientQuantity(v)
    return n < limit ? n : fail(`number larger than ${bits} bits: ${decoders.describe(v)}`)
  }
}
const uint64 = below(64n)
const uint256 = below(256n)

type Obj = Record<string, unknown>

function object(v: unknown, what: string): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    fail(`expected ${what} object, got ${decoders.describe(v)}`)
  return v as Obj
}

/** Decodes `o[name]` (absent or null = undefined), prefixing a failure with the field name. */
function field<T>(o: Obj, name: string, decode: (v: unknown) => T): T | undefined {
  const v = o[name]
  if (v === undefined || v === null) return undefined
  try {
    return decode(v)
  } catch (e) {
    if (e instanceof CodecError) fail(`${name}: ${e.message}`)
    throw e
  }
}

function list<T>(decode: (v: unknown) => T) {
  return (v: unknown): T[] => {
    if (!Array.isArray(v)) return fail(`expected an array, got ${decoders.describe(v)}`)
    return v.map((x, i) => {
      try {
        return decode(x)
      } catch (e) {
        return fail(`element ${i}: ${(e as Error).message}`)
      }
    })
  }
}

function accessListEntry(v: unknown) {
  const o = object(v, 'an access list entry')
  return {
    address: field(o, 'address', address) ?? fail('address: missing'),
    storageKeys: field(o, 'storageKeys', list(bytes32)) ?? [],
  }
}

function authorization(v: unknown): Authorization {
  const o = object(v, 'an authorization')
  const req = <T>(name: string, decode: (v: unknown) => T): T => field(o, name, decode) ?? fail(`${name}: missing`)
  const yParity = field(o, 'yParity', uint8) ?? field(o, 'v', uint8) ?? fail('yParity: missing')
  return {
    chainId: req('chainId', uint256),
    address: req('address', address),
    nonce: req('nonce', uint64),
    yParity,
    r: req('r', uint256),
    s: req('s', uint256),
  }
}

/** The call object of eth_call, eth_estimateGas, eth_createAccessList and eth_simulateV1. */
export function decodeCallRequest(v: unknown): CallRequest {
  const o = object(v, 'a transaction call')
  const input = field(o, 'input', data)
  const legacyData = field(o, 'data', data)
  if (input && legacyData && !equalBytes(input, legacyData)) {
    fail('both "data" and "input" are set and not equal. Please use "input" to pass transaction call data')
  }
  const type = field(o, 'type', quantity)
  if (type !== undefined && type > 4n) fail(`type: unsupported transaction type ${type}`)
  const req: CallRequest = {
    from: field(o, 'from', address),
    to: field(o, 'to', address),
    gas: field(o, 'gas', uint64),
    gasPrice: field(o, 'gasPrice', uint256),
    maxFeePerGas: field(o, 'maxFeePerGas', uint256),
    maxPriorityFeePerGas: field(o, 'maxPriorityFeePerGas', uint256),
    value: field(o, 'value', uint256),
    data: input ?? legacyData,
    nonce: field(o, 'nonce', nonce),
    accessList: field(o, 'accessList', list(accessListEntry)),
    authorizationList: field(o, 'authorizationList', list(authorization)),
    blobVersionedHashes: field(o, 'blobVersionedHashes', list(bytes32)),
    maxFeePerBlobGas: field(o, 'maxFeePerBlobGas', uint256),
    type: type === undefined ? undefined : Number(type),
    strict: field(o, 'strict', bool),
  }
  if (req.authorizationList?.length === 0)
    fail('authorizationList: an EIP-7702 transaction needs at least one authorization')
  const price = req.gasPrice ?? req.maxFeePerGas
  if (req.gas !== undefined && price !== undefined && req.gas * price > MAX_UINT256) {
    fail('gas * gasPrice is larger than 256 bits')
  }
  return req
}

const MAX_UINT256 = (1n << 256n) - 1n

/** EIP-2681: an account nonce stays below 2^64 - 1, so a transaction nonce must too. */
function nonce(v: unknown): bigint {
  const n = uint64(v)
  return n < MAX_NONCE ? n : fail(`must be below 2^64-1 (EIP-2681), got ${decoders.describe(v)}`)
}
const MAX_NONCE = (1n << 64n) - 1n

function uint8(v: unknown): bigint {
  const n = quantity(v)
  return n < 256n ? n : fail(`expected 0 or 1, got ${decoders.describe(v)}`)
}

function slots(v: unknown): [Uint8Array, Uint8Array][] {
  return Object.entries(object(v, 'a storage')).map(([k, x]) => [bytes32(k), bytes32(x)])
}

function accountOverride(v: unknown): AccountOverride {
  const o = object(v, 'an account override')
  return {
    balance: field(o, 'balance', uint256),
    nonce: field(o, 'nonce', uint64),
    code: field(o, 'code', data),
    state: field(o, 'state', slots),
    stateDiff: field(o, 'stateDiff', slots),
    movePrecompileToAddress: field(o, 'movePrecompileToAddress', address),
  }
}

/** `{ <address>: { balance, nonce, code, state, stateDiff, movePrecompileToAddress } }`. */
export function decodeStateOverrides(v: unknown): StateOverrides {
  return Object.entries(object(v, 'a state override')).map(([k, x]) => {
    try {
      return [address(k), accountOverride(x)]
    } catch (e) {
      return fail(`${k}: ${(e as Error).message}`)
    }
  })
}

/** `{ number, time, gasLimit, feeRecipient, prevRandao, baseFeePerGas, blobBaseFee }`. */
export function decodeBlockOverrides(v: unknown): BlockOverrides {
  const o = object(v, 'a block override')
  return {
    // A header's number, time and gas limit are uint64, its fees uint256 (Besu's unsigned long
    // parameters, geth's hexutil.Uint64): larger values are parameter errors, not blocks. Written
    // as the spec's quantities, without leading zeros, as before.
    number: field(o, 'number', decoders.uint64),
    time: field(o, 'time', decoders.uint64),
    gasLimit: field(o, 'gasLimit', decoders.uint64),
    feeRecipient: field(o, 'feeRecipient', address) ?? field(o, 'coinbase', address),
    prevRandao: field(o, 'prevRandao', bytes32) ?? field(o, 'random', bytes32),
    baseFeePerGas: field(o, 'baseFeePerGas', decoders.uint256) ?? field(o, 'baseFee', decoders.uint256),
    blobBaseFee: field(o, 'blobBaseFee', decoders.uint256),
  }
}

export const callParams = {
  call: codec('transaction', decodeCallRequest),
  stateOverrides: codec('state overrides', decodeStateOverrides),
  blockOverrides: codec('block overrides', decodeBlockOverrides),
}

export { field, list, object }
