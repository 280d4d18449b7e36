import { describe, expect, it } from '../runtime/testing.ts'
import { parseJsonText, printJacksonJson } from './jsonText.ts'

describe('parseJsonText', () => {
  it('keeps big integers, key order and duplicate keys in their first place', () => {
    const value = parseJsonText('{"b": 58750000000000000000000, "1": 0, "a": 1, "b": 2}')
    expect(printJacksonJson(value)).toBe('{\n  "b" : 2,\n  "1" : 0,\n  "a" : 1\n}')
    expect(printJacksonJson(parseJsonText('[58750000000000000000000]'))).toBe('[ 58750000000000000000000 ]')
  })

  it('refuses comments, trailing commas, leading zeros and trailing text', () => {
    for (const text of ['{"a": 1 // c\n}', '{"a": 1,}', '[01]', '{} x', '"\t"', "{'a': 1}", '']) {
      expect(() => parseJsonText(text)).toThrow()
    }
  })
})

describe('printJacksonJson', () => {
  it('prints arrays on one line, objects inside them indented at the array level', () => {
    const text = '{"t":{"qbft":[{"block":5,"x":[]}]},"e":{},"n":[1,[2]]}'
    expect(printJacksonJson(parseJsonText(text))).toBe(
      '{\n  "t" : {\n    "qbft" : [ {\n      "block" : 5,\n      "x" : [ ]\n    } ]\n  },\n  "e" : { },\n  "n" : [ 1, [ 2 ] ]\n}',
    )
  })

  it('prints fractions as Java does and escapes control characters in upper-case hex', () => {
    const text = '[1.5, 1e3, 1e-5, 123456789.25, 0.001, -0, "a\\"\\u0001\\u001f\\t/é"]'
    expect(printJacksonJson(parseJsonText(text))).toBe(
      '[ 1.5, 1000.0, 1.0E-5, 1.2345678925E8, 0.001, 0, "a\\"\\u0001\\u001F\\t/é" ]',
    )
  })
})
