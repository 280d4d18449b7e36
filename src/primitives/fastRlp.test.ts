import { RLP } from '@ethereumjs/rlp'
import { describe, expect, it } from '../runtime/testing.ts'
import { fastEncode, installFastRlp, libraryEncode } from './fastRlp.ts'

/** A deterministic pseudo-random generator, so that a failure can be replayed. */
function generator(seed: number): () => number {
  let x = seed
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31
    return x / 2 ** 31
  }
}

const LENGTHS = [0, 1, 1, 1, 2, 31, 32, 54, 55, 56, 57, 100, 255, 256, 257, 1_000]

function randomBytes(rand: () => number): Uint8Array {
  const n = LENGTHS[Math.floor(rand() * LENGTHS.length)]
  const b = new Uint8Array(n)
  for (let i = 0; i < n; i++) b[i] = Math.floor(rand() * 256)
  // Single bytes around the 0x80 boundary, where the encoding changes.
  if (n === 1) b[0] = [0, 0x7f, 0x80, 0xff][Math.floor(rand() * 4)]
  return b
}

type Item = Uint8Array | Item[]

function randomItem(rand: () => number, depth: number): Item {
  if (depth > 2 || rand() < 0.5) return randomBytes(rand)
  const n = Math.floor(rand() * 8)
  return Array.from({ length: n }, () => randomItem(rand, depth + 1))
}

describe('fastEncode', () => {
  it('gives the library encoder’s bytes for byte strings and nested lists of every length class', () => {
    const rand = generator(7)
    for (let i = 0; i < 400; i++) {
      const item = randomItem(rand, 0)
      expect(fastEncode(item)).toEqual(libraryEncode(item))
    }
  })

  it('encodes long lists and empty ones like the library', () => {
    const long = Array.from({ length: 3_000 }, (_, i) => new Uint8Array([i & 0xff, i >> 8]))
    const huge = [new Uint8Array(65_536), new Uint8Array(70_000)]
    for (const item of [[], [[]], [[], [[]]], long, [long, new Uint8Array(60)], huge, new Uint8Array(65_535)]) {
      expect(fastEncode(item)).toEqual(libraryEncode(item))
    }
  })

  it('leaves other inputs (hex strings, numbers, bigints, null) to the library', () => {
    for (const item of ['0x1234', 'abc', 0, 1_024, 0n, 2n ** 70n, null, [1, '0x', [2n]]]) {
      expect(fastEncode(item)).toEqual(libraryEncode(item))
    }
    expect(() => fastEncode(-1)).toThrow()
  })

  it('is what RLP.encode runs once installed, and round-trips through RLP.decode', () => {
    installFastRlp()
    expect(RLP.encode).toBe(fastEncode)
    const item = [new Uint8Array([1, 2, 3]), [new Uint8Array(0), new Uint8Array(70).fill(9)]]
    expect(RLP.decode(RLP.encode(item))).toEqual(item)
  })
})
