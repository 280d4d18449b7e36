/**
 * A KZG trusted setup file as Besu's `--kzg-trusted-setup` takes it: the ceremony's text format
 * (c-kzg-4844's `trusted_setup.txt`): the count of G1 points (4096), the count of G2 points (65),
 * then the G1 points in Lagrange form, the G2 points in monomial form and the G1 points in monomial
 * form, each a hex string (with or without `0x`) on a line of its own. The older form without the
 * G1 monomial points cannot serve EIP-7594's cell proofs, so it is refused, as Besu refuses it.
 */

/** The setup as kzg-wasm's loadKZG takes it: each part the concatenated hex of its points. */
export interface TrustedSetup {
  g1_lagrange: string
  g2_monomial: string
  g1_monomial: string
}

const G1_POINTS = 4096
const G2_POINTS = 65
const G1_HEX = 96
const G2_HEX = 192

/** Parses the text of a trusted setup file; throws an Error saying what is wrong (the caller names the file). */
export function parseTrustedSetup(text: string): TrustedSetup {
  const tokens = text
    .split('\n')
    .flatMap((line, i) => line.split(/\s+/).flatMap((value) => (value === '' ? [] : [{ value, line: i + 1 }])))
  const lineOf = (at: number) => tokens[at]?.line ?? text.split('\n').length
  const count = (at: number, what: string, expected: number) => {
    const token = tokens[at]?.value
    if (token === undefined || !/^\d+$/.test(token)) throw new Error(`line ${lineOf(at)} must be the count of ${what}`)
    if (Number(token) !== expected)
      throw new Error(`line ${lineOf(at)}: ${token} ${what}, where a blob's setup has ${expected}`)
  }
  count(0, 'G1 points', G1_POINTS)
  count(1, 'G2 points', G2_POINTS)
  let at = 2
  const points = (n: number, hexLength: number, what: string) => {
    const part: string[] = []
    for (let i = 0; i < n; i++, at++) {
      const token = tokens[at]?.value
      if (token === undefined) {
        const older = what === 'G1 monomial' && i === 0 ? ' (the older format without them: use a current file)' : ''
        throw new Error(`the file ends ${i === 0 ? 'before its' : `after ${i} of its ${n}`} ${what} points${older}`)
      }
      const hex = token.startsWith('0x') ? token.slice(2) : token
      if (hex.length !== hexLength || !/^[0-9a-fA-F]+$/.test(hex))
        throw new Error(`line ${lineOf(at)} is no ${what} point (${hexLength / 2} bytes of hex)`)
      part.push(hex.toLowerCase())
    }
    return part.join('')
  }
  const g1_lagrange = points(G1_POINTS, G1_HEX, 'G1 Lagrange')
  const g2_monomial = points(G2_POINTS, G2_HEX, 'G2 monomial')
  const g1_monomial = points(G1_POINTS, G1_HEX, 'G1 monomial')
  if (at !== tokens.length) throw new Error(`line ${lineOf(at)}: more than the ${at} values of a setup`)
  return { g1_lagrange, g2_monomial, g1_monomial }
}
