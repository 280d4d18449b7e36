import { RLP } from '@ethereumjs/rlp'
import { describe, expect, it } from '../runtime/testing.ts'
import { fastDecode, fastEncode, installFastRlp, libraryDecode, libraryEncode } from './fastRlp.ts'

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

  it('encodes null and undefined as the empty string (the empty slots of a trie branch)', () => {
    const branch = [...new Array(16).fill(null), null]
    branch[3] = new Uint8Array(32).fill(7)
    for (const item of [null, undefined, branch, [undefined, [null]]]) {
      expect(fastEncode(item as never)).toEqual(libraryEncode(item as never))
    }
  })

  it('encodes non-negative integers (trie keys) like the library', () => {
    for (const n of [0, 1, 0x7f, 0x80, 0xff, 0x100, 1_000, 65_535, 65_536, 2 ** 32, Number.MAX_SAFE_INTEGER]) {
      expect(fastEncode(n)).toEqual(libraryEncode(n))
      expect(fastEncode([n, [n]])).toEqual(libraryEncode([n, [n]]))
    }
    for (const bad of [-1, 1.5]) expect(() => fastEncode(bad)).toThrow()
    expect(fastEncode(Number.NaN)).toEqual(libraryEncode(Number.NaN))
  })

  it('leaves other inputs (hex strings, numbers, bigints, null) to the library', () => {
    for (const item of ['0x1234', 'abc', 0, 1_024, 0n, 2n ** 70n, null, [1, '0x', [2n]]]) {
      expect(fastEncode(item)).toEqual(libraryEncode(item))
    }
    expect(() => fastEncode(-1)).toThrow()
  })

  it('is what RLP.encode and RLP.decode run once installed, and round-trips', () => {
    installFastRlp()
    expect(RLP.encode).toBe(fastEncode)
    expect(RLP.decode).toBe(fastDecode)
    const item = [new Uint8Array([1, 2, 3]), [new Uint8Array(0), new Uint8Array(70).fill(9)]]
    expect(RLP.decode(RLP.encode(item))).toEqual(item)
  })
})

/** What a decoder gives for `input`: its result, or the message it throws. */
function outcome(decode: (input: Uint8Array) => unknown, input: Uint8Array): unknown {
  try {
    return { value: decode(input) }
  } catch (e) {
    return { error: (e as Error).message }
  }
}

describe('fastDecode', () => {
  it('gives the library decoder’s result for every encoding the encoder writes', () => {
    const rand = generator(11)
    for (let i = 0; i < 400; i++) {
      const encoded = libraryEncode(randomItem(rand, 0))
      expect(fastDecode(encoded)).toEqual(libraryDecode(encoded))
    }
  })

  it('returns copies, not views of the input', () => {
    const encoded = libraryEncode([new Uint8Array([1, 2, 3]), new Uint8Array([0x7f])])
    const decoded = fastDecode(encoded) as Uint8Array[]
    encoded.fill(0)
    expect(decoded).toEqual([new Uint8Array([1, 2, 3]), new Uint8Array([0x7f])])
  })

  it('answers or refuses malformed input exactly as the library does', () => {
    const cases = [
      '',
      '80',
      '00',
      '7f',
      '8100',
      '817f',
      '8180',
      'b800',
      'b837' + '00'.repeat(55),
      'b838' + '00'.repeat(56),
      'b90000',
      'b9003800',
      'c0',
      'c180',
      'c281',
      'c3820102',
      'c38201',
      'c0c0',
      '8201',
      'f800',
      'f837' + '80'.repeat(55),
      'f838' + '80'.repeat(56),
      'f839' + '80'.repeat(56),
      'f90000',
      'c1c0',
      'c2c180',
      'c2c2',
      'ff',
      'bf0000000000000000',
    ]
    const rand = generator(5)
    for (let i = 0; i < 300; i++) {
      // Random corruptions of valid encodings: a byte changed, cut short, or one appended.
      const e = libraryEncode(randomItem(rand, 0)).slice()
      const at = Math.floor(rand() * e.length)
      const kind = Math.floor(rand() * 3)
      let hex = Buffer.from(e).toString('hex')
      if (kind === 0 && e.length > 0) e[at] = Math.floor(rand() * 256)
      hex = Buffer.from(kind === 1 ? e.subarray(0, at) : e).toString('hex') + (kind === 2 ? '00' : '')
      cases.push(hex)
    }
    for (const hex of cases) {
      const input = new Uint8Array(Buffer.from(hex, 'hex'))
      expect(outcome(fastDecode, input)).toEqual(outcome(libraryDecode, input))
    }
  })

  it('leaves streams and non-byte input to the library', () => {
    const encoded = new Uint8Array([0x82, 1, 2, 0x05])
    const { data, remainder } = fastDecode(encoded, true)
    expect([data, remainder]).toEqual([new Uint8Array([1, 2]), new Uint8Array([5])])
    expect(fastDecode('0x820102' as never)).toEqual(new Uint8Array([1, 2]))
  })
})
