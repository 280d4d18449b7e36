import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { getOpcodesForHF, paramsEVM } from '@ethereumjs/evm'
import { countCalldataFloorTokens, createFeeMarket1559Tx } from '@ethereumjs/tx'
import { bigIntToBytes, bytesToBigInt, setLengthLeft, setLengthRight } from '@ethereumjs/util'
import { describe, expect, it, needsPatchedLibraries } from '../runtime/testing.ts'
import { patchLibraryFile } from './libraryPatches.ts'

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
      ...libraryFiles('@ethereumjs/evm', 'opcodes/gas.js'),
      ...libraryFiles('@ethereumjs/tx', 'util/intrinsic.js'),
      ...libraryFiles('@ethereumjs/util', 'bytes.js'),
      ...libraryFiles('@ethereumjs/common', 'common.js'),
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

  it('read bytes as the integer their hex spells, big- and little-endian, whatever their length', () => {
    const hexOf = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')
    let seed = 7
    const nextByte = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff
      return seed >> 16
    }
    for (let size = 0; size <= 40; size++) {
      for (let zeros = 0; zeros <= size; zeros += size > 8 ? 3 : 1) {
        for (const fill of ['random', 'ff', 'low']) {
          const bytes = Uint8Array.from({ length: size }, (_, i) =>
            i < zeros ? 0 : fill === 'ff' ? 255 : fill === 'low' ? (i === size - 1 ? 1 : 0) : nextByte() & 255,
          )
          const expected = size === 0 ? 0n : BigInt(`0x${hexOf(bytes)}`)
          expect(bytesToBigInt(bytes)).toBe(expected)
          const reversed = bytes.slice().reverse()
          expect(bytesToBigInt(reversed, true)).toBe(expected)
          expect(Array.from(reversed)).toEqual(Array.from(bytes).reverse())
        }
      }
    }
    expect(() => bytesToBigInt([1, 2] as never)).toThrow()
  })

  it('write integers as the bytes their hex spells: at least one byte, big- and little-endian', () => {
    let value = 1n
    for (let bits = 0; bits <= 260; bits++) {
      for (const n of [value - 1n, value, value + 1n, (value * 3n) / 2n]) {
        const hex = n.toString(16)
        const expected = Array.from({ length: Math.ceil(hex.length / 2) }, (_, i) =>
          Number.parseInt(hex.padStart(2 * Math.ceil(hex.length / 2), '0').slice(2 * i, 2 * i + 2), 16),
        )
        expect(Array.from(bigIntToBytes(n))).toEqual(expected)
        expect(Array.from(bigIntToBytes(n, true))).toEqual(expected.slice().reverse())
      }
      value *= 2n
    }
    expect(Array.from(bigIntToBytes(0n))).toEqual([0])
    expect(() => bigIntToBytes(-1n)).toThrow()
  })

  const GAS_PATCH = 'the synchronous gas rules are a text patch'
  it.skipIf(needsPatchedLibraries(GAS_PATCH))(
    'answer the memory and hashing gas rules with a number, not a promise; the state-reading ones still await',
    () => {
      const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague, params: paramsEVM })
      const handlers = getOpcodesForHF(common).dynamicGasHandlers
      for (const code of [0x0a, 0x20, 0x37, 0x39, 0x3e, 0x51, 0x52, 0x53, 0x54, 0x5e, 0xa0, 0xf3, 0xfd])
        expect(handlers.get(code)?.constructor.name).toBe('Function')
      for (const code of [0x3c, 0x55, 0xf0, 0xf5, 0xff])
        expect(handlers.get(code)?.constructor.name).toBe('AsyncFunction')
    },
  )

  it("count a transaction's calldata floor tokens as the library did: 1 a zero byte, 4 any other", () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
    for (const data of [new Uint8Array(0), Uint8Array.of(0), Uint8Array.of(1), Uint8Array.of(0, 5, 0, 0, 255)]) {
      const tx = createFeeMarket1559Tx({ data, gasLimit: 100_000n }, { common })
      const expected = Array.from(data).reduce((sum, b) => sum + (b === 0 ? 1n : 4n), 0n)
      expect(countCalldataFloorTokens(tx)).toBe(expected)
    }
  })

  it('answer isActivatedEIP from the fork and EIPs set now, after every change', () => {
    const common = new Common({ chain: Mainnet, hardfork: Hardfork.London })
    expect(common.isActivatedEIP(1559)).toBe(true)
    expect(common.isActivatedEIP(3855)).toBe(false)
    expect(common.isActivatedEIP('1559' as never)).toBe(false)
    common.setHardfork(Hardfork.Shanghai)
    expect(common.isActivatedEIP(3855)).toBe(true)
    const copy = common.copy()
    copy.setHardfork(Hardfork.Berlin)
    expect(copy.isActivatedEIP(1559)).toBe(false)
    expect(common.isActivatedEIP(1559)).toBe(true)
    common.setEIPs([1153])
    expect(common.isActivatedEIP(1153)).toBe(true)
    expect(copy.isActivatedEIP(1153)).toBe(false)
  })
})
