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

describe('ep.payloadAttributes', () => {
  it('decodes V3 attributes', () => {
    const a = ep.payloadAttributes.decode({
      timestamp: '0x10',
      prevRandao: h32,
      suggestedFeeRecipient: `0x${'33'.repeat(20)}`,
      withdrawals: [],
      parentBeaconBlockRoot: h32,
    })
    expect(a.timestamp).toBe(16n)
    expect(a.withdrawals).toEqual([])
    expect(a.parentBeaconBlockRoot).toHaveLength(32)
  })
})
