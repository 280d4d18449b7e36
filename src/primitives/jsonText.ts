/**
 * JSON text read losslessly and printed as Besu prints it. JSON.parse would round big integers (a
 * terminalTotalDifficulty of 5.875e22) and reorder keys that look like array indices; Besu keeps
 * both. Its writer is Jackson's default pretty printer: two-space indent, `"key" : value`, arrays on
 * one line as `[ a, b ]`, empty containers as `{ }` and `[ ]`.
 */

/** A JSON number kept as written, so that big integers survive the round trip. */
export class JsonNumber {
  readonly text: string

  constructor(text: string) {
    this.text = text
  }
}
export type JsonObject = Map<string, JsonValue>
export type JsonValue = JsonObject | JsonValue[] | string | JsonNumber | boolean | null

/** Parses strict JSON (RFC 8259) keeping key order and number text; throws naming line and column. */
export function parseJsonText(text: string): JsonValue {
  const reader = new JsonReader(text.replace(/^\uFEFF/, ''))
  const value = reader.value()
  reader.end()
  return value
}

const LITERAL = /true|false|null/y
const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y
// biome-ignore lint/suspicious/noControlCharactersInRegex: JSON strings may not hold raw control characters.
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y

class JsonReader {
  private i = 0
  private readonly s: string

  constructor(s: string) {
    this.s = s
  }

  value(): JsonValue {
    this.skipSpace()
    const c = this.s[this.i]
    if (c === '{') return this.object()
    if (c === '[') return this.array()
    if (c === '"') return this.string()
    const literal = this.match(LITERAL)
    if (literal) return literal === 'null' ? null : literal === 'true'
    const number = this.match(NUMBER)
    return number ? new JsonNumber(number) : this.fail()
  }

  end(): void {
    this.skipSpace()
    if (this.i < this.s.length) this.fail()
  }

  private object(): JsonObject {
    const obj: JsonObject = new Map()
    this.i++
    if (this.close('}')) return obj
    do {
      if (this.peek() !== '"') this.fail()
      const key = this.string()
      if (!this.close(':')) this.fail()
      obj.set(key, this.value())
    } while (this.comma())
    if (!this.close('}')) this.fail()
    return obj
  }

  private array(): JsonValue[] {
    const items: JsonValue[] = []
    this.i++
    if (this.close(']')) return items
    do items.push(this.value())
    while (this.comma())
    if (!this.close(']')) this.fail()
    return items
  }

  private string(): string {
    const literal = this.match(STRING)
    return literal ? JSON.parse(literal) : this.fail('invalid string')
  }

  /** Consumes and returns the text `token` matches at the current position. */
  private match(token: RegExp): string | undefined {
    token.lastIndex = this.i
    const text = token.exec(this.s)?.[0]
    if (text) this.i += text.length
    return text
  }

  private comma(): boolean {
    return this.close(',')
  }

  /** Consumes `c` when it comes next. */
  private close(c: string): boolean {
    if (this.peek() !== c) return false
    this.i++
    return true
  }

  private peek(): string | undefined {
    this.skipSpace()
    return this.s[this.i]
  }

  private skipSpace(): void {
    while (this.i < this.s.length && ' \t\n\r'.includes(this.s[this.i])) this.i++
  }

  private fail(what?: string): never {
    const before = this.s.slice(0, this.i).split('\n')
    const where = `line ${before.length}, column ${before[before.length - 1].length + 1}`
    if (this.i >= this.s.length) throw new Error(`unexpected end of input at ${where}`)
    throw new Error(`${what ?? `unexpected character ${JSON.stringify(this.s[this.i])}`} at ${where}`)
  }
}

/** Prints a JSON value as Jackson's default pretty printer does (no trailing newline). */
export function printJacksonJson(value: JsonValue, level = 0): string {
  if (value instanceof Map) {
    if (value.size === 0) return '{ }'
    const indent = `\n${'  '.repeat(level + 1)}`
    const entries = [...value].map(([k, v]) => `${indent}${jacksonString(k)} : ${printJacksonJson(v, level + 1)}`)
    return `{${entries.join(',')}\n${'  '.repeat(level)}}`
  }
  if (Array.isArray(value)) {
    // Arrays do not indent: an object inside one is printed at the array's own level.
    return value.length === 0 ? '[ ]' : `[ ${value.map((v) => printJacksonJson(v, level)).join(', ')} ]`
  }
  if (value instanceof JsonNumber) return jacksonNumber(value.text)
  if (typeof value === 'string') return jacksonString(value)
  return String(value)
}

const SHORT_ESCAPES: Record<string, string> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\f': '\\f',
  '\r': '\\r',
}

function jacksonString(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters Jackson escapes.
  const escaped = s.replace(/["\\\u0000-\u001f]/g, (c) => {
    return SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`
  })
  return `"${escaped}"`
}

/** Integers print as written (Jackson keeps them exact); fractions as Java's Double.toString. */
function jacksonNumber(text: string): string {
  if (/^-?\d+$/.test(text)) return text === '-0' ? '0' : text
  const d = Number(text)
  if (!Number.isFinite(d)) return text
  if (d === 0) return Object.is(d, -0) ? '-0.0' : '0.0'
  const [mantissa, exp] = Math.abs(d).toExponential().split('e')
  const digits = mantissa.replace('.', '')
  const e = Number(exp)
  const sign = d < 0 ? '-' : ''
  if (e >= -3 && e < 7) {
    const whole = e >= 0 ? digits.slice(0, e + 1).padEnd(e + 1, '0') : '0'
    const fraction = e >= 0 ? digits.slice(e + 1) : '0'.repeat(-e - 1) + digits
    return `${sign}${whole}.${fraction || '0'}`
  }
  return `${sign}${digits[0]}.${digits.slice(1) || '0'}E${e}`
}
