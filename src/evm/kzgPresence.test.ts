import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createBlob4844Tx } from '@ethereumjs/tx'
import { describe, expect, it } from '../runtime/testing.ts'
import { decodeWithoutKzg } from './kzgPresence.ts'

const HASH = `0x01${'00'.repeat(31)}` as const

describe('decodeWithoutKzg', () => {
  it('builds a blob transaction without KZG and leaves none behind', () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun, customCrypto: {} })
    const data = { blobVersionedHashes: [HASH], maxFeePerBlobGas: 1n, to: `0x${'11'.repeat(20)}` as const }
    expect(() => createBlob4844Tx(data, { common })).toThrow('customCrypto.kzg')
    const tx = decodeWithoutKzg(common, () => createBlob4844Tx(data, { common }))
    expect(tx.blobVersionedHashes).toHaveLength(1)
    expect((common.customCrypto as { kzg?: unknown }).kzg).toBeUndefined()
  })

  it('fails a call into KZG with the message the retry logic recognises, and restores on a throw', () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun, customCrypto: {} })
    const kzgCall = () =>
      decodeWithoutKzg(common, () => (common.customCrypto.kzg as unknown as { verifyProof(): boolean }).verifyProof())
    expect(kzgCall).toThrow('kzg not initialized')
    expect((common.customCrypto as { kzg?: unknown }).kzg).toBeUndefined()
  })

  it('uses a KZG that is already loaded', () => {
    const real = { verifyProof: () => true }
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Cancun, customCrypto: { kzg: real as never } })
    expect(decodeWithoutKzg(common, () => (common.customCrypto as { kzg: unknown }).kzg)).toBe(real)
  })
})
