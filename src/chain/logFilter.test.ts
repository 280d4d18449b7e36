import { createBlockHeader } from '@ethereumjs/block'
import { hexToBytes } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { headerTimestamp, isUnsatisfiable, matchesLog } from './logFilter.ts'

const A = hexToBytes(`0x${'aa'.repeat(20)}`)
const B = hexToBytes(`0x${'bb'.repeat(20)}`)
const T1 = hexToBytes(`0x${'01'.repeat(32)}`)
const T2 = hexToBytes(`0x${'02'.repeat(32)}`)
const T3 = hexToBytes(`0x${'03'.repeat(32)}`)

describe('matchesLog', () => {
  it('matches any log when there are no criteria', () => {
    expect(matchesLog({ addresses: [], topics: [] }, A, [])).toBe(true)
  })

  it('matches any of several addresses', () => {
    const c = { addresses: [A, B], topics: [] }
    expect(matchesLog(c, B, [T1])).toBe(true)
    expect(matchesLog({ addresses: [A], topics: [] }, B, [T1])).toBe(false)
  })

  it('treats null and empty positions as wildcards', () => {
    expect(matchesLog({ addresses: [], topics: [null, [T2]] }, A, [T1, T2])).toBe(true)
    expect(matchesLog({ addresses: [], topics: [[], [T2]] }, A, [T3, T2])).toBe(true)
  })

  it('matches any of the alternatives at one position', () => {
    const c = { addresses: [], topics: [[T1, T3]] }
    expect(matchesLog(c, A, [T3])).toBe(true)
    expect(matchesLog(c, A, [T2])).toBe(false)
  })

  it('refuses a log with fewer topics than a constrained position', () => {
    expect(matchesLog({ addresses: [], topics: [null, [T2]] }, A, [T1])).toBe(false)
  })
})

describe('isUnsatisfiable', () => {
  it('is true only for a constraint past the fourth topic', () => {
    expect(isUnsatisfiable({ addresses: [], topics: [null, null, null, null, [T1]] })).toBe(true)
    expect(isUnsatisfiable({ addresses: [], topics: [[T1], null, null, [T2], null] })).toBe(false)
  })
})

describe('headerTimestamp', () => {
  it('reads the timestamp of an encoded header', () => {
    for (const timestamp of [0n, 5n, 0x7fn, 0x80n, 1_700_000_000n, 2n ** 63n]) {
      const header = createBlockHeader({
        number: 1234n,
        timestamp,
        gasLimit: 30_000_000n,
        extraData: new Uint8Array(32),
      })
      expect(headerTimestamp(header.serialize())).toBe(timestamp)
    }
  })
})
