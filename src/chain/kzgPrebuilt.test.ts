import { describe, expect, it } from '../runtime/testing.ts'
import { readPrebuiltKzg, restoreChecked } from './kzgPrebuilt.ts'

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
