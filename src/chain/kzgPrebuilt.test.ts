import { describe, expect, it } from '../runtime/testing.ts'
import { decodeKzgMemory, encodeKzgMemory, readPrebuiltKzg, restoreChecked } from './kzgPrebuilt.ts'

describe('the prebuilt KZG setup', () => {
  it('is restored from the build and verifies the point-evaluation test vector', async () => {
    const prebuilt = await readPrebuiltKzg()
    // make build writes it before the executable (and before any test runs).
    expect(prebuilt?.memory.byteLength).toBe(16 * 1024 * 1024)
  })

  it('ignores memory that does not verify the known proof', async () => {
    expect(await restoreChecked(new Uint8Array(16 * 1024 * 1024).fill(7))).toBeUndefined()
    expect(await restoreChecked(new Uint8Array(100))).toBeUndefined()
  })
})

describe('the KZG memory file format', () => {
  it('keeps every byte and leaves out the long runs of zeros, and refuses what it did not write', () => {
    const memory = new Uint8Array(4096)
    memory.set([1, 2, 3], 0)
    memory.set([4, 0, 0, 5], 100) // a short gap stays inside its run
    memory[4095] = 9
    const file = encodeKzgMemory(memory)
    expect(file.byteLength).toBeLessThan(200)
    expect(decodeKzgMemory(file)).toEqual(memory)
    expect(decodeKzgMemory(encodeKzgMemory(new Uint8Array(64)))).toEqual(new Uint8Array(64))
    expect(() => decodeKzgMemory(new Uint8Array(100))).toThrow('not a KZG memory file')
    expect(() => decodeKzgMemory(file.subarray(0, file.byteLength - 1))).toThrow('a truncated KZG memory file')
  })
})
