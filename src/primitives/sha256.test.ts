import { sha256 } from '@noble/hashes/sha2.js'
import { describe, expect, needsBun, test } from '../runtime/testing.ts'
import { nativeSha256 } from './sha256.ts'

test('nativeSha256 is there only under Bun (elsewhere the libraries keep @noble/hashes)', () => {
  expect(nativeSha256() !== undefined).toBe('Bun' in globalThis)
})

describe.skipIf(needsBun('Bun.SHA256'))('nativeSha256', () => {
  const native = nativeSha256()

  test("answers @noble/hashes' digest for inputs of 0 to 300 bytes, views and whole arrays", () => {
    const source = new Uint8Array(1024)
    let x = 0x9e3779b9
    for (let i = 0; i < source.length; i++) {
      x = (x * 1103515245 + 12345) >>> 0
      source[i] = x >>> 24
    }
    for (let length = 0; length <= 300; length++) {
      const view = source.subarray(7, 7 + length)
      const own = view.slice()
      for (const input of [view, own]) {
        const digest = native!(input)
        expect(digest).toEqual(sha256(input))
        expect(Object.getPrototypeOf(digest)).toBe(Uint8Array.prototype)
        expect(digest.length).toBe(32)
      }
    }
  })

  test('hands out a new array each call, leaving its input alone', () => {
    const input = new Uint8Array([1, 2, 3])
    const a = native!(input)
    const b = native!(input)
    expect(a).not.toBe(b)
    expect(a).toEqual(b)
    expect(input).toEqual(new Uint8Array([1, 2, 3]))
  })

  test('a large input (1 MiB) too', () => {
    const input = new Uint8Array(1 << 20).fill(0xab)
    expect(native!(input)).toEqual(sha256(input))
  })
})
