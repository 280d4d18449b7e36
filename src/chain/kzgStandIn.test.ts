import { Common, Mainnet } from '@ethereumjs/common'
import { describe, expect, it } from '../runtime/testing.ts'
import { installKzgStandIn, replaceUsedKzgStandIn } from './kzgStandIn.ts'

function kzgOf(c: Common): { verifyProof(...a: unknown[]): unknown } {
  return (c.customCrypto as { kzg: { verifyProof(...a: unknown[]): unknown } }).kzg
}

describe('installKzgStandIn', () => {
  it('puts a KZG object in place that every copy of the common sees, and fails its calls', () => {
    const c = new Common({ chain: Mainnet, customCrypto: {} })
    installKzgStandIn(c)
    const copy = c.copy()
    expect(kzgOf(copy)).toBeDefined()
    expect(() => kzgOf(copy).verifyProof('0x', '0x', '0x', '0x')).toThrow('KZG is not loaded yet')
  })

  it('keeps a KZG that is already loaded', () => {
    const real = { verifyProof: () => true }
    const c = new Common({ chain: Mainnet, customCrypto: { kzg: real as never } })
    installKzgStandIn(c)
    expect(kzgOf(c)).toBe(real)
  })
})

describe('replaceUsedKzgStandIn', () => {
  it('leaves a stand-in that was never called (nothing to execute again)', async () => {
    const c = new Common({ chain: Mainnet, customCrypto: {} })
    installKzgStandIn(c)
    expect(await replaceUsedKzgStandIn(c)).toBe(false)
    expect(await replaceUsedKzgStandIn(new Common({ chain: Mainnet, customCrypto: {} }))).toBe(false)
  })
})
