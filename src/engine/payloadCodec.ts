import { codec, decoders } from '../jsonrpc/codecs.ts'
import { RpcError } from '../jsonrpc/errors.ts'
import { hexToBytes } from '../primitives/hex.ts'
import { engineParamsError } from './errors.ts'

const { uint64, uint256, data, fixed, fail } = decoders

export interface WithdrawalData {
  index: bigint
  validatorIndex: bigint
  address: Uint8Array
  amount: bigint
}

export interface ExecutionPayload {
  parentHash: Uint8Array
  feeRecipient: Uint8Array
  stateRoot: Uint8Array
  receiptsRoot: Uint8Array
  logsBloom: Uint8Array
  prevRandao: Uint8Array
  blockNumber: bigint
  gasLimit: bigint
  gasUsed: bigint
  timestamp: bigint
  extraData: Uint8Array
  baseFeePerGas: bigint
  blockHash: Uint8Array
  transactions: Uint8Array[]
  withdrawals?: WithdrawalData[]
  blobGasUsed?: bigint
  excessBlobGas?: bigint
  /** newPayloadV5 (Amsterdam): the RLP of the block access list (EIP-7928), whose hash the header carries. */
  blockAccessList?: Uint8Array
  /** newPayloadV5 (Amsterdam): the header's slot number (EIP-7843). */
  slotNumber?: bigint
}

export interface ForkchoiceState {
  headBlockHash: Uint8Array
  safeBlockHash: Uint8Array
  finalizedBlockHash: Uint8Array
}

export interface PayloadAttributes {
  timestamp: bigint
  prevRandao: Uint8Array
  suggestedFeeRecipient: Uint8Array
  withdrawals?: WithdrawalData[]
  parentBeaconBlockRoot?: Uint8Array
  /** forkchoiceUpdatedV4 (Amsterdam): the slot number of the payload to build (EIP-7843). */
  slotNumber?: bigint
  /** forkchoiceUpdatedV4 (Amsterdam, required by Besu): the gas limit the payload moves toward. */
  targetGasLimit?: bigint
}

type Json = Record<string, unknown>

function object(v: unknown): Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Json)
    : fail(`expected an object, got ${JSON.stringify(v)}`)
}

/** Reads field `name` of `o`; absent or null gives undefined unless `isRequired`. */
function field<T>(o: Json, name: string, decode: (v: unknown) => T, isRequired: true): T
function field<T>(o: Json, name: string, decode: (v: unknown) => T, isRequired: false): T | undefined
function field<T>(o: Json, name: string, decode: (v: unknown) => T, isRequired: boolean): T | undefined {
  const v = o[name]
  if (v === undefined || v === null) {
    if (isRequired) fail(`missing field ${name}`)
    return undefined
  }
  try {
    return decode(v)
  } catch (e) {
    if (e instanceof RpcError) throw e
    return fail(`${name}: ${(e as Error).message}`)
  }
}

function list<T>(decode: (v: unknown) => T) {
  return (v: unknown): T[] => {
    const items = Array.isArray(v) ? v : fail(`expected an array, got ${JSON.stringify(v)}`)
    return items.map((x, i) => {
      try {
        return decode(x)
      } catch (e) {
        return fail(`element ${i}: ${(e as Error).message}`)
      }
    })
  }
}

const hash32 = fixed(32, 'a 32-byte hash')
const address = fixed(20, 'an address')

function withdrawal(v: unknown): WithdrawalData {
  const o = object(v)
  return {
    index: field(o, 'index', uint64, true),
    validatorIndex: field(o, 'validatorIndex', uint64, true),
    address: field(o, 'address', address, true),
    amount: field(o, 'amount', uint64, true),
  }
}

function executionPayload(v: unknown): ExecutionPayload {
  const o = object(v)
  return {
    parentHash: field(o, 'parentHash', hash32, true),
    feeRecipient: field(o, 'feeRecipient', address, true),
    stateRoot: field(o, 'stateRoot', hash32, true),
    receiptsRoot: field(o, 'receiptsRoot', hash32, true),
    logsBloom: field(o, 'logsBloom', fixed(256, 'a 256-byte bloom'), true),
    prevRandao: field(o, 'prevRandao', hash32, true),
    blockNumber: field(o, 'blockNumber', uint64, true),
    gasLimit: field(o, 'gasLimit', uint64, true),
    gasUsed: field(o, 'gasUsed', uint64, true),
    timestamp: field(o, 'timestamp', uint64, true),
    extraData: field(o, 'extraData', data, true),
    baseFeePerGas: field(o, 'baseFeePerGas', uint256, true),
    blockHash: field(o, 'blockHash', hash32, true),
    transactions: field(o, 'transactions', list(data), true),
    withdrawals: field(o, 'withdrawals', list(withdrawal), false),
    blobGasUsed: field(o, 'blobGasUsed', uint64, false),
    excessBlobGas: field(o, 'excessBlobGas', uint64, false),
    blockAccessList: field(o, 'blockAccessList', accessListHex, false),
    slotNumber: field(o, 'slotNumber', uint64, false),
  }
}

function forkchoiceState(v: unknown): ForkchoiceState {
  const o = object(v)
  return {
    headBlockHash: field(o, 'headBlockHash', hash32, true),
    safeBlockHash: field(o, 'safeBlockHash', hash32, true),
    finalizedBlockHash: field(o, 'finalizedBlockHash', hash32, true),
  }
}

function payloadAttributes(v: unknown): PayloadAttributes {
  const o = object(v)
  return {
    timestamp: field(o, 'timestamp', uint64, true),
    prevRandao: field(o, 'prevRandao', hash32, true),
    suggestedFeeRecipient: field(o, 'suggestedFeeRecipient', address, true),
    withdrawals: field(o, 'withdrawals', list(withdrawal), false),
    parentBeaconBlockRoot: field(o, 'parentBeaconBlockRoot', hash32, false),
    slotNumber: field(o, 'slotNumber', uint64, false),
    targetGasLimit: field(o, 'targetGasLimit', uint64, false),
  }
}

/**
 * The payload's `blockAccessList` as Besu reads it: hex with or without `0x`; bad hex is its
 * INVALID_BLOCK_ACCESS_LIST_PARAMS with tuweni's reason (the RLP is decoded later: INVALID status).
 */
function accessListHex(v: unknown): Uint8Array {
  const failure = (reason: string) =>
    engineParamsError('blockAccessList', `Failed to decode block access list payload parameter (${reason})`)
  if (typeof v !== 'string') throw failure(`expected a hex string, got ${JSON.stringify(v)}`)
  const digits = v.startsWith('0x') || v.startsWith('0X') ? v.slice(2) : v
  const bad = digits.search(/[^0-9a-fA-F]/)
  if (bad >= 0) throw failure(`Illegal character '${digits[bad]}' found at index ${bad} in hex binary representation`)
  if (digits.length % 2 === 1) throw failure('Invalid odd-length hex binary representation')
  return hexToBytes(`0x${digits}`)
}

/** forkchoiceUpdatedV4's optional third parameter (EIP-8070, Besu): the 16-byte custody column bitmap. */
function custodyColumns(v: unknown): Uint8Array {
  try {
    const b = data(v)
    if (b.length === 16) return b
    throw engineParamsError('custodyColumns', `custodyColumns must be 16 bytes, got ${b.length}`)
  } catch (e) {
    if (e instanceof RpcError) throw e
    throw engineParamsError('custodyColumns', 'Invalid custodyColumns parameter (index 2)')
  }
}

/** Parameter codecs of the engine methods. */
export const ep = {
  payload: codec('executionPayload', executionPayload),
  forkchoiceState: codec('forkchoiceState', forkchoiceState),
  payloadAttributes: codec('payloadAttributes', payloadAttributes),
  payloadId: codec('payloadId', fixed(8, 'an 8-byte payload id')),
  hashes: codec('hashes', list(hash32)),
  requests: codec('executionRequests', list(data)),
  beaconRoot: codec('parentBeaconBlockRoot', hash32),
  custodyColumns: codec('custodyColumns', custodyColumns),
  strings: codec(
    'strings',
    list((v) => (typeof v === 'string' ? v : fail(`expected a string, got ${JSON.stringify(v)}`))),
  ),
}
