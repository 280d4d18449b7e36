import { describe, expect, it } from '../runtime/testing.ts'
import { CodecError, describe as describeValue, p } from './codecs.ts'

const nested = (depth: number): unknown => {
  let v: unknown = []
  for (let i = 0; i < depth; i++) v = [v]
  return v
}

describe('describe', () => {
  it('quotes short values as JSON', () => {
    expect(describeValue('0x12')).toBe('"0x12"')
    expect(describeValue({ a: 1 })).toBe('{"a":1}')
    expect(describeValue(undefined)).toBe('undefined')
  })

  it('cuts long values and says how long they were', () => {
    const s = describeValue(`0x${'ab'.repeat(1000)}`)
    expect(s.length).toBeLessThan(80)
    expect(s).toEndWith('(2004 characters)')
  })

  it('does not throw on values it cannot stringify', () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(describeValue(cyclic)).toBe('an unprintable object')
  })
})

describe('codecs', () => {
  it('refuses a deeply nested value with a short CodecError', () => {
    for (const c of [p.address, p.hash, p.data, p.quantity, p.index, p.bool, p.block, p.blockNumberOrTag, p.string]) {
      expect(() => c.decode(nested(1000))).toThrow(CodecError)
      try {
        c.decode(nested(1000))
      } catch (e) {
        expect((e as Error).message.length).toBeLessThan(150)
      }
    }
  })

  it('refuses block numbers beyond 64 bits', () => {
    expect(p.blockNumberOrTag.decode('0xffffffffffffffff')).toBe(2n ** 64n - 1n)
    expect(() => p.blockNumberOrTag.decode('0x10000000000000000')).toThrow('larger than 64 bits')
    expect(() => p.block.decode(`0x${'22'.repeat(31)}`)).toThrow('larger than 64 bits')
    expect(() => p.block.decode({ blockNumber: `0x${'f'.repeat(40)}` })).toThrow('larger than 64 bits')
  })

  it('tells a block hash from a number by length', () => {
    expect(p.block.decode(`0x${'22'.repeat(32)}`)).toEqual({ hash: new Uint8Array(32).fill(0x22) })
    expect(p.block.decode('0x10')).toBe(16n)
    expect(() => p.block.decode(`0x${'2'.repeat(63)}`)).toThrow(CodecError)
  })

  it('refuses quantities with leading zeros, signs or no prefix', () => {
    for (const bad of ['0x01', '-0x1', '1', '0x', '0xg', 1, null])
      expect(() => p.quantity.decode(bad)).toThrow(CodecError)
    expect(p.quantity.decode('0x0')).toBe(0n)
  })

  it('accepts plain non-negative integers as indices, nothing else', () => {
    expect(p.index.decode(3)).toBe(3n)
    expect(p.index.decode('0x01')).toBe(1n)
    for (const bad of [-1, 1.5, 1e300, '0x', 'abc', {}, []]) expect(() => p.index.decode(bad)).toThrow(CodecError)
  })

  it('refuses addresses and hashes of the wrong size or form', () => {
    for (const bad of [`0x${'11'.repeat(19)}`, `0x${'11'.repeat(21)}`, '11'.repeat(20), `0x${'1'.repeat(39)}`, 20]) {
      expect(() => p.address.decode(bad)).toThrow(CodecError)
    }
    for (const bad of [`0x${'22'.repeat(31)}`, `0x${'22'.repeat(33)}`, `0x${'zz'.repeat(32)}`]) {
      expect(() => p.hash.decode(bad)).toThrow(CodecError)
    }
  })

  it('treats null as absent for an optional argument only', () => {
    expect(p.bool.optional(false).decode(null)).toBe(false)
    expect(() => p.bool.decode(null)).toThrow(CodecError)
  })
})
