import { keccak_256 } from '@noble/hashes/sha3.js'
import { describe, expect, it } from '../runtime/testing.ts'
import { loadKeccak256 } from './keccak.ts'

describe('loadKeccak256', () => {
  it('hashes like @noble/hashes, for empty, short and multi-block inputs', async () => {
    const keccak256 = await loadKeccak256()
    for (const size of [0, 1, 20, 32, 135, 136, 137, 532, 4096, 4097, 5000]) {
      const data = Uint8Array.from({ length: size }, (_, i) => (i * 31 + size) & 0xff)
      expect(keccak256(data)).toEqual(keccak_256(data))
      // A view into a larger array hashes only its own bytes.
      const view = new Uint8Array(size + 9).fill(0xaa).subarray(4, 4 + size)
      view.set(data)
      expect(keccak256(view)).toEqual(keccak_256(data))
    }
  })

  it('returns a fresh array per call', async () => {
    const keccak256 = await loadKeccak256()
    const a = keccak256(new Uint8Array([1]))
    const copy = a.slice()
    keccak256(new Uint8Array([2]))
    expect(a).toEqual(copy)
  })
})
