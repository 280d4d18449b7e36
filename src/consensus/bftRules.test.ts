import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { faultTolerance, proposerFor, quorumSize, roundTimeoutMs } from './bftRules.ts'

const addr = (b: number) => new Uint8Array(20).fill(b)
const VALIDATORS = [0x30, 0x10, 0x20, 0x40].map(addr)
const pick = (parent: number, round: number) => bytesToHex(proposerFor(addr(parent), VALIDATORS, round))

describe('quorumSize', () => {
  it('is ceil(2n/3), as Besu counts it', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(quorumSize)).toEqual([1, 2, 2, 3, 4, 4, 5, 6, 6, 7])
    expect([1, 4, 7, 10].map(faultTolerance)).toEqual([0, 1, 2, 3])
  })
})

describe('proposerFor', () => {
  it("moves the parent's proposer on by 1 + round in address order", () => {
    expect(pick(0x10, 0)).toBe(bytesToHex(addr(0x20)))
    expect(pick(0x10, 1)).toBe(bytesToHex(addr(0x30)))
    expect(pick(0x40, 0)).toBe(bytesToHex(addr(0x10)))
    expect(pick(0x30, 5)).toBe(bytesToHex(addr(0x10)))
  })

  it('starts after a parent proposer that is no validator (genesis, or voted out), moved on by round', () => {
    expect(pick(0x00, 0)).toBe(bytesToHex(addr(0x10)))
    expect(pick(0x00, 2)).toBe(bytesToHex(addr(0x30)))
    expect(pick(0x25, 0)).toBe(bytesToHex(addr(0x30)))
    expect(pick(0x50, 0)).toBe(bytesToHex(addr(0x10)))
    expect(bytesToHex(proposerFor(hexToBytes(`0x${'ff'.repeat(20)}`), VALIDATORS, 1))).toBe(bytesToHex(addr(0x20)))
  })
})

describe('roundTimeoutMs', () => {
  it('doubles the request timeout with each round', () => {
    expect([0, 1, 2, 3].map((r) => roundTimeoutMs(4, r))).toEqual([4000, 8000, 16000, 32000])
  })
})
