import { keccak_256 } from '@noble/hashes/sha3.js'
import { type TracingChain, tracingChain } from '../../test/tracing/tracingChain.ts'
import { devAccounts } from '../chain/devAccounts.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { DevTools } from '../producer/devTools.ts'
import { afterAll, beforeAll, describe, expect, it } from '../runtime/testing.ts'

let t: TracingChain
beforeAll(async () => {
  t = await tracingChain()
})
afterAll(() => t.close())

const preimageOf = (preimage: Uint8Array) => {
  const found = t.chain.trieDb.preimages?.lookup(keccak_256(preimage))
  return found ? bytesToHex(found) : undefined
}

describe('PreimageTable', () => {
  it('knows the genesis alloc and the accounts and slots a block wrote', async () => {
    const dev = hexToBytes(devAccounts()[7].address)
    expect(preimageOf(dev)).toBe(bytesToHex(dev))
    const recipient = hexToBytes('0x00000000000000000000000000000000000f00d1')
    expect(preimageOf(recipient)).toBeUndefined()
    await t.send({ to: bytesToHex(recipient), value: 1n })
    expect(preimageOf(recipient)).toBe(bytesToHex(recipient))
  })

  it('knows what a dev-tool state edit wrote', async () => {
    const tools = new DevTools(t.chain, t.pool, t.sealer)
    const address = hexToBytes('0x00000000000000000000000000000000000f00d2')
    const slot = hexToBytes(`0x${'07'.padStart(64, '0')}`)
    await tools.setAccounts([[address, { balance: 5n, storage: [[slot, new Uint8Array([9])]] }]])
    expect(preimageOf(address)).toBe(bytesToHex(address))
    expect(preimageOf(slot)).toBe(bytesToHex(slot))
  })
})
