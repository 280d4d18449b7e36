/**
 * Results written as JSON text instead of built as objects. An answer of thousands of entries (an
 * `eth_getLogs` over a chain) built as objects and then stringified allocated some twenty cells an
 * entry (objects, hex strings, the ropes of their `0x` prefixes) and a growing text buffer; on a
 * machine where a fresh page costs about 11 µs the pages those took were most of the answer's time
 * (docs/performance.md, "Issue 18: large answers written as text"). A `JsonText` result is written
 * once, byte by byte, into a buffer kept between answers, and the dispatcher puts its text into the
 * response as is.
 */

/**
 * A method's result given as its JSON text, in UTF-8: `bytes[start, bytes.length - 1)`, with room
 * before it (`start` bytes) and one byte after it for the response around it, so that a response of
 * one such result is these bytes, written in place, with no copy of the text.
 */
export class JsonText {
  readonly bytes: Uint8Array<ArrayBuffer>
  readonly start: number
  private giveBack?: () => void

  /** `giveBack`, if given, returns the bytes to their writer (see `release`). */
  constructor(bytes: Uint8Array<ArrayBuffer>, start: number, giveBack?: () => void) {
    this.bytes = bytes
    this.start = start
    this.giveBack = giveBack
  }

  /**
   * Lets the writer that wrote these bytes write the next result into them. Only for a holder that
   * is done with them: the listeners call it once `response`'s bytes are decoded into a WebSocket
   * message or a relayed answer, or, under Bun, made into an HTTP response (Bun's `Response` copies
   * its body when made). Whoever never calls it loses nothing but the reuse.
   */
  release(): void {
    const giveBack = this.giveBack
    this.giveBack = undefined
    giveBack?.()
  }

  /** The JSON text of the result. */
  get text(): string {
    return new TextDecoder().decode(this.bytes.subarray(this.start, this.bytes.length - 1))
  }

  /** The value, for a response that is stringified whole (a batch's). */
  toJSON(): unknown {
    return JSON.parse(this.text)
  }

  /**
   * The response `{"jsonrpc":"2.0","id":…,"result":…}` around this result, as UTF-8. The bytes are
   * this result's own: the response is written into them and it can be given out only once.
   */
  response(id: unknown): Uint8Array<ArrayBuffer> {
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id ?? null)},"result":`
    const end = this.bytes.length - 1
    if (head.length > this.start || !isAscii(head)) {
      return new TextEncoder().encode(`${head}${this.text}}`)
    }
    const from = this.start - head.length
    for (let i = 0; i < head.length; i++) this.bytes[from + i] = head.charCodeAt(i)
    this.bytes[end] = CLOSE_BRACE
    return this.bytes.subarray(from)
  }
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false
  return true
}

const HEX_DIGITS = '0123456789abcdef'
/** The two ASCII hex digits of each byte value. */
const HIGH = new Uint8Array(256)
const LOW = new Uint8Array(256)
for (let i = 0; i < 256; i++) {
  HIGH[i] = HEX_DIGITS.charCodeAt(i >> 4)
  LOW[i] = HEX_DIGITS.charCodeAt(i & 15)
}
const QUOTE = 0x22
const CLOSE_BRACE = 0x7d
const ZERO = 0x30
const X = 0x78

/** Room kept before a result for the response's head: `{"jsonrpc":"2.0","id":…,"result":`. */
const HEAD_ROOM = 96
/** A writer's buffer outgrowing this is not kept for the next answer. */
const KEPT_BYTES = 4 * 2 ** 20
/** The writer's buffer while its last one is held by a result: the next write takes another. */
const NO_BUFFER = new Uint8Array(0)

/**
 * ASCII JSON text written into one growing byte buffer. Only ASCII goes in (keys, punctuation, hex
 * and numbers), so the bytes are the text. `take()` hands out the result, in the writer's own
 * buffer, and leaves the writer empty for the next one; a result released once its response is made
 * gives the buffer back (up to 4 MiB), so a steady stream of answers touches the same pages and
 * copies each text once, into the response.
 */
export class JsonTextWriter {
  private buf: Uint8Array<ArrayBuffer> = new Uint8Array(64 * 1024)
  private at = HEAD_ROOM
  /** A buffer given back by a released result (see `take`). */
  private spare?: Uint8Array<ArrayBuffer>

  /** Pre-encoded ASCII (see `ascii`). */
  bytes(b: Uint8Array): void {
    this.room(b.length)
    this.buf.set(b, this.at)
    this.at += b.length
  }

  /** A string of ASCII characters as is (no quotes, no escaping). */
  raw(s: string): void {
    this.room(s.length)
    const buf = this.buf
    let p = this.at
    for (let i = 0; i < s.length; i++) buf[p++] = s.charCodeAt(i)
    this.at = p
  }

  /** `"0x…"`: bytes as quoted lower-case hex. */
  hex(b: Uint8Array): void {
    const n = b.length
    this.room(2 * n + 4)
    const buf = this.buf
    let p = this.at
    buf[p++] = QUOTE
    buf[p++] = ZERO
    buf[p++] = X
    for (let i = 0; i < n; i++) {
      const v = b[i]
      buf[p++] = HIGH[v]
      buf[p++] = LOW[v]
    }
    buf[p++] = QUOTE
    this.at = p
  }

  /** `"0x…"`: a non-negative integer as a quoted quantity (shortest hex, `0x0` for zero). */
  quantity(n: number | bigint): void {
    const digits = n.toString(16)
    this.room(digits.length + 4)
    const buf = this.buf
    let p = this.at
    buf[p++] = QUOTE
    buf[p++] = ZERO
    buf[p++] = X
    for (let i = 0; i < digits.length; i++) buf[p++] = digits.charCodeAt(i)
    buf[p++] = QUOTE
    this.at = p
  }

  /**
   * The text written, as a result that holds the writer's buffer until it is released (the writer
   * writes the next result into a buffer of its own meanwhile); the writer starts over.
   */
  take(): JsonText {
    this.room(1)
    const buf = this.buf
    const out = new JsonText(buf.subarray(0, this.at + 1), HEAD_ROOM, () => this.giveBack(buf))
    this.at = HEAD_ROOM
    this.buf = NO_BUFFER
    return out
  }

  /** A buffer a released result gives back; kept for the next result unless one is kept already. */
  private giveBack(buf: Uint8Array<ArrayBuffer>): void {
    if (buf.length <= KEPT_BYTES && this.spare === undefined) this.spare = buf
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return
    if (this.buf === NO_BUFFER) {
      this.buf = this.spare ?? new Uint8Array(64 * 1024)
      this.spare = undefined
      if (this.at + n <= this.buf.length) return
    }
    let size = this.buf.length * 2
    while (size < this.at + n) size *= 2
    const next = new Uint8Array(size)
    next.set(this.buf.subarray(0, this.at))
    this.buf = next
  }
}

/** ASCII text as bytes, for `JsonTextWriter.bytes` (keys and punctuation written often). */
export function ascii(s: string): Uint8Array {
  const out = new Uint8Array(s.length)
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c > 0x7f) throw new Error(`not ASCII: ${s}`)
    out[i] = c
  }
  return out
}
