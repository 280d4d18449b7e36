/**
 * A TOML reader for the files Besu's users write (its configuration file, the permissioning file):
 * top-level keys only: bare or quoted keys; basic and literal strings (one line), integers and
 * floats (kept as written, so large amounts keep their digits), booleans, and arrays of those over
 * several lines, with comments and a trailing comma. Tables, dates and multi-line strings name the
 * line and are refused.
 */

export type TomlValue = string | boolean | TomlValue[]

/** Thrown for a malformed file: the message names the line and column. */
export class TomlError extends Error {}

/** Top-level `key = value` pairs of a TOML text, numbers as the text that wrote them. */
export function parseToml(text: string): Map<string, TomlValue> {
  const out = new Map<string, TomlValue>()
  // A byte order mark, as some editors write one, is not part of the first key.
  let i = text.startsWith('\uFEFF') ? 1 : 0
  const at = (index: number) => {
    const before = text.slice(0, index).split('\n')
    return `line ${before.length}, column ${before[before.length - 1].length + 1}`
  }
  const fail = (what: string, index = i): never => {
    throw new TomlError(`${what} at ${at(index)}`)
  }
  /** Skips spaces, tabs and a comment; with `isMultiline`, line ends too. */
  const skip = (isMultiline: boolean) => {
    for (;;) {
      const c = text[i]
      if (c === ' ' || c === '\t' || (isMultiline && (c === '\n' || c === '\r'))) i++
      else if (c === '#') while (i < text.length && text[i] !== '\n') i++
      else return
    }
  }
  const basicString = (): string => {
    let s = ''
    i++
    for (;;) {
      const c = text[i]
      if (c === undefined || c === '\n') return fail('unterminated string')
      i++
      if (c === '"') return s
      if (c !== '\\') {
        s += c
        continue
      }
      const e = text[i++]
      const simple: Record<string, string> = { b: '\b', t: '\t', n: '\n', f: '\f', r: '\r', '"': '"', '\\': '\\' }
      if (e in simple) s += simple[e]
      else if (e === 'u' || e === 'U') {
        const size = e === 'u' ? 4 : 8
        const hex = text.slice(i, i + size)
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== size) fail('bad unicode escape', i - 2)
        s += String.fromCodePoint(Number.parseInt(hex, 16))
        i += size
      } else fail(`bad escape \\${e ?? ''}`, i - 2)
    }
  }
  const literalString = (): string => {
    const end = text.indexOf("'", i + 1)
    const newline = text.indexOf('\n', i + 1)
    if (end === -1 || (newline !== -1 && newline < end)) fail('unterminated string')
    const s = text.slice(i + 1, end)
    i = end + 1
    return s
  }
  const value = (): TomlValue => {
    const c = text[i]
    if (text.startsWith('"""', i) || text.startsWith("'''", i)) return fail('multi-line strings are not read')
    if (c === '"') return basicString()
    if (c === "'") return literalString()
    if (c === '[') {
      i++
      const items: TomlValue[] = []
      for (;;) {
        skip(true)
        if (text[i] === ']') {
          i++
          return items
        }
        items.push(value())
        skip(true)
        if (text[i] === ',') i++
        else if (text[i] !== ']') fail("expected ',' or ']'")
      }
    }
    const word = /^[^\s,\]#]+/.exec(text.slice(i))?.[0] ?? ''
    if (word === 'true' || word === 'false') {
      i += word.length
      return word === 'true'
    }
    if (/^[+-]?(\d[\d_]*|0x[0-9a-fA-F_]+)(\.\d+)?([eE][+-]?\d+)?$/.test(word)) {
      i += word.length
      return word.replaceAll('_', '')
    }
    return fail(word ? `unsupported value '${word}'` : 'missing value')
  }
  const key = (): string => {
    if (text[i] === '"') return basicString()
    if (text[i] === "'") return literalString()
    const word = /^[A-Za-z0-9_-]+/.exec(text.slice(i))?.[0]
    if (!word) return fail(text[i] === '[' ? 'tables are not Besu options' : 'expected a key')
    i += word.length
    return word
  }
  for (;;) {
    skip(true)
    if (i >= text.length) return out
    const keyAt = i
    const name = key()
    skip(false)
    if (text[i] === '.') fail('dotted keys are not Besu options')
    if (text[i] !== '=') fail("expected '='")
    i++
    skip(false)
    const v = value()
    skip(false)
    if (i < text.length && text[i] !== '\n' && text[i] !== '\r') fail('expected the end of the line')
    if (out.has(name)) fail(`duplicate key '${name}'`, keyAt)
    out.set(name, v)
  }
}
