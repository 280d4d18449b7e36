import { addressOf } from '../consensus/bftHashing.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { decodeAddressArray, GET_VALIDATORS_SELECTOR } from './bftContractValidators.ts'

const ADDRESSES = [1, 2].map((i) => addressOf(new Uint8Array(32).fill(i)))
const word = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0')

describe('decodeAddressArray', () => {
  it('reads an ABI address[] (offset, length, one word per address) and refuses short data', () => {
    const data = hexToBytes(`0x${word('20')}${word('2')}${ADDRESSES.map((a) => word(bytesToHex(a))).join('')}`)
    expect(decodeAddressArray(data).map(bytesToHex)).toEqual(ADDRESSES.map(bytesToHex))
    expect(() => decodeAddressArray(data.subarray(0, 100))).toThrow('too little data')
  })

  it('calls getValidators() by its selector, keccak("getValidators()")[0..4]', async () => {
    const { keccak_256 } = await import('@noble/hashes/sha3.js')
    const selector = keccak_256(new TextEncoder().encode('getValidators()')).subarray(0, 4)
    expect(bytesToHex(GET_VALIDATORS_SELECTOR)).toBe(bytesToHex(selector))
  })
})
