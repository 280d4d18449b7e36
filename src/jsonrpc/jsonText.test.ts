import { bytesToHex } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { ascii, JsonText, JsonTextWriter } from './jsonText.ts'

const random = (n: number) => crypto.getRandomValues(new Uint8Array(n))

describe('JsonTextWriter', () => {
  it('writes hex and quantities as JSON.stringify writes their strings', () => {
    const w = new JsonTextWriter()
    const values: string[] = []
    w.raw('[')
    for (let i = 0; i < 300; i++) {
      if (i > 0) w.raw(',')
      const bytes = random(i % 70)
      const n = i % 3 === 0 ? BigInt(i) ** 9n : i * 977
      w.hex(bytes)
      w.raw(',')
      w.quantity(n)
      w.bytes(ascii(',true'))
      values.push(bytesToHex(bytes), `0x${n.toString(16)}`, 'true')
    }
    w.raw(']')
    const text = w.take()
    expect(text.text).toBe(JSON.stringify(values.map((v) => (v === 'true' ? true : v))))
    expect(text.toJSON()).toEqual(values.map((v) => (v === 'true' ? true : v)))
  })

  it('grows past its first buffer and starts over empty after each take', () => {
    const w = new JsonTextWriter()
    // More than one call of getRandomValues may give (64 KiB under Deno).
    const big = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 131 + (i >> 8)) & 0xff)
    w.hex(big)
    expect(w.take().text).toBe(`"${bytesToHex(big)}"`)
    w.quantity(0)
    expect(w.take().text).toBe('"0x0"')
    // Each result owns its bytes: a later one does not change an earlier one.
    w.quantity(255n)
    const first = w.take()
    w.quantity(1n)
    w.take()
    expect(first.text).toBe('"0xff"')
  })

  it('writes the next result into the buffer of a released result, never of one still held', () => {
    const w = new JsonTextWriter()
    w.quantity(1)
    const first = w.take()
    w.quantity(2)
    const second = w.take()
    expect(second.bytes.buffer).not.toBe(first.bytes.buffer)
    expect([first.text, second.text]).toEqual(['"0x1"', '"0x2"'])
    first.release()
    first.release()
    w.quantity(3)
    const third = w.take()
    expect(third.bytes.buffer).toBe(first.bytes.buffer)
    expect([second.text, third.text]).toEqual(['"0x2"', '"0x3"'])
    // One buffer is kept: a second one given back while one waits is left to the collector.
    second.release()
    third.release()
    w.quantity(4)
    expect(w.take().bytes.buffer).toBe(second.bytes.buffer)
  })

  it('refuses text that is not ASCII as a key', () => {
    expect(() => ascii('"clé"')).toThrow('not ASCII')
  })
})

describe('JsonText.response', () => {
  it('is the response JSON.stringify writes, for ids short and long', () => {
    for (const id of [1, 'a'.repeat(90), 'b'.repeat(300), null, undefined, 'ü']) {
      const w = new JsonTextWriter()
      w.raw('{"a":[1,2]}')
      const out = new TextDecoder().decode(w.take().response(id))
      expect(out).toBe(JSON.stringify({ jsonrpc: '2.0', id: id ?? null, result: { a: [1, 2] } }))
    }
  })

  it('keeps its text readable after the response is written around it', () => {
    const t = new JsonText(new TextEncoder().encode('    "x" '), 4)
    expect(t.text).toBe('"x"')
    expect(new TextDecoder().decode(t.response(5).subarray(0, 5))).toBe('{"jso')
  })
})
