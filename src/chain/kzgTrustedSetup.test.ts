import { describe, expect, it } from '../runtime/testing.ts'
import { parseTrustedSetup } from './kzgTrustedSetup.ts'

const g1 = (i: number) => i.toString(16).padStart(96, '0')
const g2 = (i: number) => i.toString(16).padStart(192, '0')
const range = (n: number, point: (i: number) => string) => Array.from({ length: n }, (_, i) => point(i))
/** A setup-shaped file: the points are counters (the format is checked here, the curve by the load). */
const file = (lines: string[] = []) =>
  ['4096', '65', ...range(4096, g1), ...range(65, g2), ...range(4096, g1), ...lines].join('\n')

describe('parseTrustedSetup', () => {
  it("reads the ceremony's text format, with or without 0x and in either case", () => {
    const setup = parseTrustedSetup(`${file()}\n`)
    expect(setup.g1_lagrange).toBe(range(4096, g1).join(''))
    expect(setup.g2_monomial).toBe(range(65, g2).join(''))
    expect(setup.g1_monomial).toBe(setup.g1_lagrange)
    const prefixed = file()
      .replace(/^(0{10})/gm, '0x$1')
      .replace(/a/g, 'A')
    expect(parseTrustedSetup(prefixed)).toEqual(setup)
  })

  it('says which line is wrong, and refuses the older format without G1 monomial points', () => {
    expect(() => parseTrustedSetup('')).toThrow('line 1 must be the count of G1 points')
    expect(() => parseTrustedSetup(file().replace(/^4096/, '4097'))).toThrow(
      "line 1: 4097 G1 points, where a blob's setup has 4096",
    )
    const lines = file().split('\n')
    lines[2] = lines[2].slice(2)
    expect(() => parseTrustedSetup(lines.join('\n'))).toThrow('line 3 is no G1 Lagrange point (48 bytes of hex)')
    lines[2] = `${lines[2]}zz`
    expect(() => parseTrustedSetup(lines.join('\n'))).toThrow('line 3 is no G1 Lagrange point (48 bytes of hex)')
    const older = file()
      .split('\n')
      .slice(0, 2 + 4096 + 65)
      .join('\n')
    expect(() => parseTrustedSetup(older)).toThrow(
      'the file ends before its G1 monomial points (the older format without them: use a current file)',
    )
    const cut = file()
      .split('\n')
      .slice(0, 2 + 4096 + 65 + 10)
      .join('\n')
    expect(() => parseTrustedSetup(cut)).toThrow('the file ends after 10 of its 4096 G1 monomial points')
    expect(() => parseTrustedSetup(file(['00']))).toThrow('line 8260: more than the 8259 values of a setup')
  })
})
