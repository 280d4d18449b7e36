/**
 * The call object and state overrides as Besu reads them: addresses and byte strings with or
 * without `0x`, amounts with leading zeros, an override's nonce as a JSON number; what is not
 * hex of the right size stays refused.
 */
import { CodecError } from '../../jsonrpc/codecs.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { describe, expect, it } from '../../runtime/testing.ts'
import { decodeBlockOverrides, decodeCallRequest, decodeStateOverrides } from './callRequest.ts'

const SENDER = 'a94f5374fce5edbc8e2a8697c15331677e6ebf0b'
const TARGET = '6295ee1b4f6dd65047762f924ecd367c17eabf8f'

describe('decodeCallRequest', () => {
  it('takes addresses and input without 0x, as Besu does', () => {
    const req = decodeCallRequest({ from: SENDER, to: `0x${TARGET}`, input: '12a7b914' })
    expect(req.from && bytesToHex(req.from)).toBe(`0x${SENDER}`)
    expect(req.to && bytesToHex(req.to)).toBe(`0x${TARGET}`)
    expect(req.data && bytesToHex(req.data)).toBe('0x12a7b914')
  })

  it('takes amounts with leading zeros', () => {
    const req = decodeCallRequest({
      from: SENDER,
      value: '0x000002',
      gasPrice: '0x000000000000000000000000000000000000000000000000000000003437004a',
      gas: '0x05208',
    })
    expect([req.value, req.gasPrice, req.gas]).toEqual([2n, 0x3437004an, 21000n])
  })

  it('still refuses what is no address, odd-length data and amounts past their width', () => {
    for (const bad of [
      { from: SENDER.slice(2) },
      { from: `${SENDER}00` },
      { to: 'zz' },
      { input: '0x123' },
      { value: `0x1${'0'.repeat(64)}` },
      { gas: `0x1${'0'.repeat(16)}` },
    ])
      expect(() => decodeCallRequest(bad)).toThrow(CodecError)
  })
})

describe('decodeStateOverrides', () => {
  it('takes an address key without 0x, a nonce as a JSON number and a balance with leading zeros', () => {
    const [[address, account]] = decodeStateOverrides({
      [SENDER]: { balance: '0x000001', nonce: 88, code: '6000', movePrecompileToAddress: null },
    }) as [[Uint8Array, { balance?: bigint; nonce?: bigint; code?: Uint8Array }]]
    expect(bytesToHex(address)).toBe(`0x${SENDER}`)
    expect([account.balance, account.nonce]).toEqual([1n, 88n])
    expect(account.code && bytesToHex(account.code)).toBe('0x6000')
  })

  it('refuses a negative or fractional nonce', () => {
    for (const nonce of [-1, 1.5]) expect(() => decodeStateOverrides({ [SENDER]: { nonce } })).toThrow(CodecError)
  })
})

describe('decodeBlockOverrides', () => {
  it('holds number, time and gas limit to 64 bits and the fees to 256, as Besu and geth read them', () => {
    const max64 = `0x${'f'.repeat(16)}`
    expect(decodeBlockOverrides({ time: max64, number: max64, gasLimit: max64 })).toMatchObject({
      time: 2n ** 64n - 1n,
      number: 2n ** 64n - 1n,
      gasLimit: 2n ** 64n - 1n,
    })
    for (const name of ['time', 'number', 'gasLimit'])
      expect(() => decodeBlockOverrides({ [name]: `0x1${'0'.repeat(16)}` })).toThrow(/larger than 64 bits|64 bits/)
    for (const name of ['baseFeePerGas', 'baseFee', 'blobBaseFee']) {
      expect(decodeBlockOverrides({ [name]: `0x${'f'.repeat(64)}` })).toBeDefined()
      expect(() => decodeBlockOverrides({ [name]: `0x1${'0'.repeat(64)}` })).toThrow(CodecError)
    }
  })
})
