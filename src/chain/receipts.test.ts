import { RLP } from '@ethereumjs/rlp'
import { describe, expect, it } from '../runtime/testing.ts'
import { attachRevertReasons, decodeReceipts, encodeRevertReasons, type Receipt } from './receipts.ts'

const receipt = (status: number): Receipt => ({
  txType: 2,
  status,
  cumulativeGasUsed: 21_000n,
  bloom: new Uint8Array(256),
  logs: [],
})

describe('revert reasons beside the receipts', () => {
  it('stores nothing for a block without a reverted transaction', () => {
    expect(encodeRevertReasons([])).toBeUndefined()
    expect(encodeRevertReasons([undefined, undefined])).toBeUndefined()
  })

  it('tells an empty REVERT from none, and attaches each to its receipt', () => {
    const reasons = [undefined, new Uint8Array(0), Uint8Array.of(0x08, 0xc3, 0x79, 0xa0)]
    const rlp = encodeRevertReasons(reasons)!
    const receipts = [receipt(1), receipt(0), receipt(0)]
    attachRevertReasons(receipts, rlp)
    expect(receipts[0].revertReason).toBeUndefined()
    expect(receipts[1].revertReason).toEqual(new Uint8Array(0))
    expect(receipts[2].revertReason).toEqual(Uint8Array.of(0x08, 0xc3, 0x79, 0xa0))
  })

  it('leaves the consensus receipts as they were', () => {
    const legacy = RLP.encode([Uint8Array.of(1), Uint8Array.of(0x52, 0x08), new Uint8Array(256), []])
    const decoded = decodeReceipts(RLP.encode([legacy]))
    expect(decoded[0].revertReason).toBeUndefined()
    expect(decoded[0].status).toBe(1)
  })
})
