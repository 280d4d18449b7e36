import { describe, expect, it } from '../runtime/testing.ts'
import { scalarCodec } from './scalars.ts'

describe('Long', () => {
  const long = scalarCodec('Long')
  it('goes out as 0x-hex (execution-apis spec, geth, Besu)', () => expect(long.output(5n)).toBe('0x5'))
  it('comes in as a number, a decimal string or a hex string', () => {
    expect(long.input(7)).toBe(7n)
    expect(long.input('12')).toBe(12n)
    expect(long.input('0x1f')).toBe(31n)
  })
  it('refuses negatives, fractions and values past 64 bits', () => {
    expect(() => long.input(-1)).toThrow()
    expect(() => long.input(1.5)).toThrow()
    expect(() => long.input(`0x1${'0'.repeat(16)}`)).toThrow('larger than 64 bits')
  })
})

describe('BigInt', () => {
  const big = scalarCodec('BigInt')
  it('goes out as 0x-hex', () => expect(big.output(10n ** 18n)).toBe('0xde0b6b3a7640000'))
  it('comes in beyond 64 bits', () => expect(big.input(`0x1${'0'.repeat(40)}`)).toBe(1n << 160n))
})

describe('Address', () => {
  const address = scalarCodec('Address')
  it('needs exactly 20 bytes with 0x', () => {
    expect(address.input(`0x${'ab'.repeat(20)}`)).toEqual(new Uint8Array(20).fill(0xab))
    expect(() => address.input('ab'.repeat(20))).toThrow('not prefixed with 0x')
    expect(() => address.input(`0x${'ab'.repeat(19)}`)).toThrow('not 20 bytes')
  })
})

describe('Bytes32', () => {
  const b32 = scalarCodec('Bytes32')
  it('left-pads short values (storage slots like 0x0)', () =>
    expect(b32.input('0x1')).toEqual(Uint8Array.from([...new Uint8Array(31), 1])))
  it('refuses more than 32 bytes', () => expect(() => b32.input(`0x${'00'.repeat(33)}`)).toThrow())
})

describe('Bytes', () => {
  const bytes = scalarCodec('Bytes')
  it("writes empty bytes as '0x'", () => expect(bytes.output(new Uint8Array(0))).toBe('0x'))
  it('refuses an odd number of digits', () => expect(() => bytes.input('0x123')).toThrow('odd'))
})
