import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from '../runtime/testing.ts'
import { readKzgCache } from './kzgCache.ts'

const dir = mkdtempSync(join(tmpdir(), 'basalt-kzg-cache-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('readKzgCache', () => {
  it('finds nothing in a missing file', async () => {
    expect(await readKzgCache(join(dir, 'absent.mem'))).toBeUndefined()
  })

  it('ignores a file whose memory does not verify the known proof', async () => {
    const file = join(dir, 'garbage.mem')
    writeFileSync(file, new Uint8Array(16 * 1024 * 1024).fill(7))
    expect(await readKzgCache(file)).toBeUndefined()
    writeFileSync(file, new Uint8Array(100))
    expect(await readKzgCache(file)).toBeUndefined()
  })
})
