import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { bytesToBigInt, setLengthLeft, setLengthRight } from '@ethereumjs/util'
import { patchLibraryFile } from '../../scripts/libraryPatches.ts'
import { describe, expect, it } from '../runtime/testing.ts'

const require = createRequire(import.meta.url)

/** The installed file `file` of the package `name` (both its ESM and CommonJS builds). */
function libraryFiles(name: string, file: string): string[] {
  const root = dirname(dirname(dirname(require.resolve(name))))
  return ['esm', 'cjs'].map((kind) => join(root, 'dist', kind, file))
}

describe('library patches', () => {
  it('find their text in the installed libraries, and change it', () => {
    for (const path of [
      ...libraryFiles('@ethereumjs/evm', 'memory.js'),
      ...libraryFiles('@ethereumjs/util', 'bytes.js'),
    ]) {
      const text = readFileSync(path, 'utf8')
      expect(patchLibraryFile(path, text)).not.toBe(text)
    }
  })

  it('pad bytes as the library did: zeros on the left or the right, the input kept, a new array', () => {
    for (let size = 0; size <= 33; size++) {
      const bytes = Uint8Array.from({ length: size }, (_, i) => 255 - i)
      for (const length of [size, size + 1, 20, 32, 64]) {
        if (length < size) continue
        const left = setLengthLeft(bytes, length)
        const right = setLengthRight(bytes, length)
        const zeros = Array<number>(length - size).fill(0)
        expect(Array.from(left)).toEqual([...zeros, ...bytes])
        expect(Array.from(right)).toEqual([...bytes, ...zeros])
        if (length > size) expect(left === bytes || right === bytes).toBe(false)
      }
    }
    expect(Array.from(setLengthLeft(Uint8Array.of(1, 2, 3), 2, { allowTruncate: true }))).toEqual([2, 3])
    expect(() => setLengthLeft(Uint8Array.of(1, 2, 3), 2)).toThrow('exceeds target length')
  })

  it('read one- and two-byte integers as the unpatched table did: every value below 2^16, either byte order', () => {
    for (let n = 0; n < 65_536; n++) {
      const big = BigInt(n)
      if (n < 256) expect(bytesToBigInt(Uint8Array.of(n))).toBe(big)
      expect(bytesToBigInt(Uint8Array.of(n >> 8, n & 255))).toBe(big)
      expect(bytesToBigInt(Uint8Array.of(n & 255, n >> 8), true)).toBe(big)
    }
    expect(bytesToBigInt(new Uint8Array(0))).toBe(0n)
    expect(bytesToBigInt(Uint8Array.of(1, 0, 0))).toBe(65_536n)
  })
})
