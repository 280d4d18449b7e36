import { describe, expect, it } from '../runtime/testing.ts'
import { hostChecker } from './httpGuard.ts'

describe('hostChecker', () => {
  it('answers each Host header by its name, whatever the previous header was', () => {
    const isAllowed = hostChecker(['localhost', '127.0.0.1', '[::1]'])
    const cases: [string | undefined, boolean][] = [
      ['127.0.0.1:8545', true],
      ['127.0.0.1:8545', true],
      ['evil.example:8545', false],
      ['evil.example:8545', false],
      ['127.0.0.1:8545', true],
      ['LOCALHOST', true],
      [undefined, false],
      ['', false],
      ['[::1]:8545', true],
      ['[::2]:8545', false],
      ['127.0.0.1', true],
    ]
    for (const [host, expected] of cases) expect([host, isAllowed(host)]).toEqual([host, expected])
    expect(hostChecker(['*'])('anything:1')).toBe(true)
  })
})
