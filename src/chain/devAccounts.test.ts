import { mnemonicToAccount } from 'viem/accounts'
import { hexToBytes } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { addressOfKey, devAccounts, TEST_MNEMONIC } from './devAccounts.ts'

describe('devAccounts', () => {
  it('starts with the three accounts of Besu dev.json', () => {
    expect(
      devAccounts()
        .slice(0, 3)
        .map((a) => a.address),
    ).toEqual([
      '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73',
      '0x627306090abab3a6e1400e9345bc60c78a8bef57',
      '0xf17f52151ebef6c7334fad080c5704d77216b732',
    ])
  })

  it('continues with the ten accounts of the test mnemonic, in derivation order', () => {
    const mnemonic = devAccounts().filter((a) => a.source === 'test-mnemonic')
    expect(mnemonic).toHaveLength(10)
    mnemonic.forEach((a, i) => {
      expect(a.address).toBe(mnemonicToAccount(TEST_MNEMONIC, { addressIndex: i }).address.toLowerCase())
    })
  })

  it('lists each address of its key', () => {
    for (const a of devAccounts()) expect(a.address).toBe(addressOfKey(hexToBytes(a.privateKey)))
  })
})
