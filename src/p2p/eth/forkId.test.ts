import { bytesToHex, hexToBytes } from '../../primitives/hex.ts'
import { describe, expect, it } from '../../runtime/testing.ts'
import { checkForkId, type ForkPoint, forkIdAt } from './forkId.ts'

// EIP-2124's mainnet vectors (up to Petersburg).
const GENESIS = hexToBytes('0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3')
const SCHEDULE: ForkPoint[] = [1150000n, 1920000n, 2463000n, 2675000n, 4370000n, 7280000n].map((at) => ({
  at,
  isTime: false,
}))
const at = (number: bigint) => ({ number, timestamp: 0n })
const id = (hash: string, next: bigint) => ({ hash: hexToBytes(hash), next })

describe('forkIdAt', () => {
  it('matches the EIP-2124 mainnet vectors', () => {
    const cases: [bigint, string, bigint][] = [
      [0n, '0xfc64ec04', 1150000n],
      [1149999n, '0xfc64ec04', 1150000n],
      [1150000n, '0x97c2c34c', 1920000n],
      [2463000n, '0x7a64da13', 2675000n],
      [4370000n, '0xa00bc324', 7280000n],
      [7987396n, '0x668db0af', 0n],
    ]
    for (const [head, hash, next] of cases) {
      const f = forkIdAt(GENESIS, SCHEDULE, at(head))
      expect([bytesToHex(f.hash) as string, f.next]).toEqual([hash, next])
    }
  })
})

describe('checkForkId', () => {
  const petersburg = at(7987396n)
  it('accepts the same fork, a stale remote that knows the next fork, and a remote ahead of us', () => {
    expect(checkForkId(GENESIS, SCHEDULE, petersburg, id('0x668db0af', 0n))).toBeUndefined()
    expect(checkForkId(GENESIS, SCHEDULE, petersburg, id('0xa00bc324', 7280000n))).toBeUndefined()
    expect(checkForkId(GENESIS, SCHEDULE, at(7279999n), id('0x668db0af', 0n))).toBeUndefined()
  })

  it('rejects a remote that missed a fork we passed, and an unknown checksum', () => {
    expect(checkForkId(GENESIS, SCHEDULE, petersburg, id('0xa00bc324', 0n))).toContain('stale')
    expect(checkForkId(GENESIS, SCHEDULE, petersburg, id('0xafec6b27', 0n))).toContain('unknown')
    expect(checkForkId(GENESIS, SCHEDULE, petersburg, id('0x668db0af', 7987396n))).toContain('past')
  })
})
