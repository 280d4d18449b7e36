import { CodecError } from '../jsonrpc/codecs.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { ep } from './payloadCodec.ts'

const h32 = `0x${'11'.repeat(32)}`
const PAYLOAD = {
  parentHash: h32,
  feeRecipient: `0x${'22'.repeat(20)}`,
  stateRoot: h32,
  receiptsRoot: h32,
  logsBloom: `0x${'00'.repeat(256)}`,
  prevRandao: h32,
  blockNumber: '0x1',
  gasLimit: '0x1c9c380',
  gasUsed: '0x0',
  timestamp: '0x5',
  extraData: '0x',
  baseFeePerGas: '0x7',
  blockHash: h32,
  transactions: [],
}

describe('ep.payload', () => {
  it('refuses uint64 fields past 2^64 - 1 and a base fee past 2^256 - 1', () => {
    const max64 = `0x${'f'.repeat(16)}`
    expect(ep.payload.decode({ ...PAYLOAD, timestamp: max64 }).timestamp).toBe(2n ** 64n - 1n)
    for (const field of [
      'blockNumber',
      'gasLimit',
      'gasUsed',
      'timestamp',
      'blobGasUsed',
      'excessBlobGas',
      'slotNumber',
    ]) {
      expect(() => ep.payload.decode({ ...PAYLOAD, [field]: `0x1${'0'.repeat(16)}` })).toThrow(
        new RegExp(`${field}: number larger than 64 bits`),
      )
    }
    expect(() => ep.payload.decode({ ...PAYLOAD, baseFeePerGas: `0x1${'0'.repeat(64)}` })).toThrow(
      /larger than 256 bits/,
    )
    const withdrawal = { index: '0x0', validatorIndex: '0x0', address: `0x${'44'.repeat(20)}`, amount: '0x1' }
    for (const field of ['index', 'validatorIndex', 'amount']) {
      expect(() =>
        ep.payload.decode({ ...PAYLOAD, withdrawals: [{ ...withdrawal, [field]: `0x1${'0'.repeat(16)}` }] }),
      ).toThrow(/larger than 64 bits/)
    }
    expect(() => ep.payloadAttributes.decode({ ...ATTRIBUTES_V3, timestamp: `0x1${'0'.repeat(16)}` })).toThrow(
      /timestamp: number larger than 64 bits/,
    )
  })

  it('decodes an ExecutionPayloadV1 and leaves the later fields absent', () => {
    const p = ep.payload.decode(PAYLOAD)
    expect(p.blockNumber).toBe(1n)
    expect(p.withdrawals).toBeUndefined()
    expect(p.blobGasUsed).toBeUndefined()
  })

  it('counts a null field as absent', () => {
    expect(ep.payload.decode({ ...PAYLOAD, withdrawals: null, excessBlobGas: null }).withdrawals).toBeUndefined()
  })

  it('names the field that is wrong', () => {
    expect(() => ep.payload.decode({ ...PAYLOAD, gasUsed: '0x01' })).toThrow(CodecError)
    expect(() => ep.payload.decode({ ...PAYLOAD, feeRecipient: '0x12' })).toThrow(/feeRecipient/)
    expect(() => ep.payload.decode({ ...PAYLOAD, withdrawals: [{ index: '0x0' }] })).toThrow(
      /withdrawals: element 0: missing field validatorIndex/,
    )
  })
})

const ATTRIBUTES_V3 = {
  timestamp: '0x10',
  prevRandao: h32,
  suggestedFeeRecipient: `0x${'33'.repeat(20)}`,
  withdrawals: [],
  parentBeaconBlockRoot: h32,
}

describe('ep.payloadAttributes', () => {
  it('decodes V3 attributes', () => {
    const a = ep.payloadAttributes.decode(ATTRIBUTES_V3)
    expect(a.timestamp).toBe(16n)
    expect(a.withdrawals).toEqual([])
    expect(a.parentBeaconBlockRoot).toHaveLength(32)
  })
})

/** The RpcError `fn` throws, as code, message and data. */
function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (e) {
    const err = e as { code?: number; message: string; data?: unknown }
    return [err.code, err.message, err.data]
  }
  return undefined
}

describe("Amsterdam's fields as the latest Besu reads them", () => {
  const BAL_ERROR = 'Invalid block access list params (missing or invalid)'

  it('takes a block access list with or without 0x, and a null one as absent', () => {
    expect(ep.payload.decode({ ...PAYLOAD, blockAccessList: '0xc0' }).blockAccessList).toEqual(new Uint8Array([0xc0]))
    expect(ep.payload.decode({ ...PAYLOAD, blockAccessList: 'c0' }).blockAccessList).toEqual(new Uint8Array([0xc0]))
    expect(ep.payload.decode({ ...PAYLOAD, blockAccessList: null }).blockAccessList).toBeUndefined()
  })

  it('refuses bad hex in the access list with -32602 and the reason in data', () => {
    expect(thrown(() => ep.payload.decode({ ...PAYLOAD, blockAccessList: '0xzz' }))).toEqual([
      -32602,
      BAL_ERROR,
      "Failed to decode block access list payload parameter (Illegal character 'z' found at index 0 in hex binary representation)",
    ])
    expect(thrown(() => ep.payload.decode({ ...PAYLOAD, blockAccessList: '0xc' }))).toEqual([
      -32602,
      BAL_ERROR,
      'Failed to decode block access list payload parameter (Invalid odd-length hex binary representation)',
    ])
    expect(thrown(() => ep.payload.decode({ ...PAYLOAD, blockAccessList: 7 }))).toEqual([
      -32602,
      BAL_ERROR,
      'Failed to decode block access list payload parameter (expected a hex string, got 7)',
    ])
  })

  it('reads V4 attributes with the slot number and the target gas limit', () => {
    const a = ep.payloadAttributes.decode({ ...ATTRIBUTES_V3, slotNumber: '0x2a', targetGasLimit: '0x1c9c380' })
    expect([a.slotNumber, a.targetGasLimit]).toEqual([42n, 30_000_000n])
  })

  it('takes 16 bytes of custody columns and refuses any other length or shape', () => {
    expect(ep.custodyColumns.decode(`0x${'ab'.repeat(16)}`)).toHaveLength(16)
    expect(thrown(() => ep.custodyColumns.decode(`0x${'ab'.repeat(10)}`))).toEqual([
      -32602,
      'Invalid custody columns params',
      'custodyColumns must be 16 bytes, got 10',
    ])
    expect(thrown(() => ep.custodyColumns.decode('0xzz'))).toEqual([
      -32602,
      'Invalid custody columns params',
      'Invalid custodyColumns parameter (index 2)',
    ])
  })
})
