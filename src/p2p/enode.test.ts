import { describe, expect, it } from '../runtime/testing.ts'
import { type EnodeError, formatEnode, parseEnode } from './enode.ts'

const ID = 'ab'.repeat(64)

describe('enode URLs', () => {
  it('round-trip, with discport only when it differs', () => {
    const url = `enode://${ID}@127.0.0.1:30303?discport=0`
    expect(formatEnode(parseEnode(url))).toBe(url)
    expect(formatEnode(parseEnode(`enode://${ID.toUpperCase()}@[::1]:1`))).toBe(`enode://${ID}@[::1]:1`)
  })

  it('tells a bad node id from a bad URL', () => {
    const kind = (url: string) => {
      try {
        parseEnode(url)
      } catch (e) {
        return (e as EnodeError).kind
      }
    }
    expect(kind('enode://0x12@127.0.0.1:1')).toBe('invalidNodeId')
    expect(kind(`enode://${ID}@127.0.0.1`)).toBe('invalidUrl')
    expect(kind(`enode://${ID}@127.0.0.1:70000`)).toBe('invalidUrl')
    expect(kind('http://example.com')).toBe('invalidUrl')
  })
})
