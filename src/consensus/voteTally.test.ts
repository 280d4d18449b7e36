import type { BlockHeader } from '@ethereumjs/block'
import { bytesToHex, type Hex } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { type BftVote, encodeBftExtraData } from './bftExtraData.ts'
import { applyVote, newTally, ValidatorTracker } from './voteTally.ts'

const a = (b: number) => bytesToHex(new Uint8Array(20).fill(b))
const [V1, V2, V3, V4, X] = [1, 2, 3, 4, 9].map(a)

describe('applyVote', () => {
  it('adds a subject once more than half of the validators voted for it', () => {
    let t = newTally([V1, V2, V3, V4])
    t = applyVote(t, V1, X, true)
    t = applyVote(t, V2, X, true)
    expect(t.validators).not.toContain(X)
    t = applyVote(t, V2, X, true)
    expect(t.validators).not.toContain(X)
    t = applyVote(t, V3, X, true)
    expect(t.validators).toEqual([V1, V2, V3, V4, X])
    expect(t.adds.has(X)).toBe(false)
  })

  it('counts a changed vote once, and drops a validator together with its votes', () => {
    let t = newTally([V1, V2, V3])
    t = applyVote(t, V3, X, true)
    t = applyVote(t, V1, V3, false)
    t = applyVote(t, V1, V3, true)
    t = applyVote(t, V2, V3, false)
    expect(t.validators).toContain(V3)
    t = applyVote(t, V1, V3, false)
    expect(t.validators).toEqual([V1, V2])
    expect(t.adds.get(X)?.has(V3) ?? false).toBe(false)
  })
})

function chainOf(kind: 'qbft', votes: (BftVote & { proposer: Hex })[], validators: Hex[]) {
  const headers: BlockHeader[] = []
  const byHash = new Map<string, BlockHeader>()
  for (let i = 0; i <= votes.length; i++) {
    const v = i === 0 ? undefined : votes[i - 1]
    const extraData = encodeBftExtraData(kind, {
      vanity: new Uint8Array(32),
      validators: validators.map((x) => new Uint8Array(Buffer.from(x.slice(2), 'hex'))),
      vote: v ? { recipient: v.recipient, isAuth: v.isAuth } : undefined,
      round: 0,
      seals: [],
    })
    const hash = new Uint8Array(32).fill(i + 1)
    const header = {
      number: BigInt(i),
      extraData,
      coinbase: { bytes: new Uint8Array(Buffer.from((v?.proposer ?? V1).slice(2), 'hex')) },
      parentHash: i === 0 ? new Uint8Array(32) : new Uint8Array(32).fill(i),
      hash: () => hash,
    } as unknown as BlockHeader
    headers.push(header)
    byHash.set(bytesToHex(hash), header)
  }
  return { headers, source: { getHeaderByHash: (h: Uint8Array) => byHash.get(bytesToHex(h)) } }
}

describe('ValidatorTracker', () => {
  const recipient = new Uint8Array(20).fill(9)
  const votes = [V1, V2, V3].map((proposer) => ({ proposer, recipient, isAuth: true }))

  it('applies the votes of the blocks since the epoch block', () => {
    const { headers, source } = chainOf('qbft', votes, [V1, V2, V3, V4])
    const tracker = new ValidatorTracker('qbft', 30_000n, source)
    expect(tracker.validatorsAfter(headers[2]).map(bytesToHex)).toEqual([V1, V2, V3, V4])
    expect(tracker.validatorsAfter(headers[3]).map(bytesToHex)).toEqual([V1, V2, V3, V4, X])
  })

  it('restarts the tally at an epoch block from the validators it lists', () => {
    const { headers, source } = chainOf('qbft', votes, [V1, V2, V3, V4])
    const tracker = new ValidatorTracker('qbft', 2n, source)
    // Block 2 is an epoch block: the votes of blocks 1 and 2 are forgotten, block 3's alone is short.
    expect(tracker.validatorsAfter(headers[3]).map(bytesToHex)).toEqual([V1, V2, V3, V4])
  })

  it('takes the epoch length of each block by number (a migrating chain: each protocol its own)', () => {
    const { headers, source } = chainOf('qbft', votes, [V1, V2, V3, V4])
    // Epochs of 30000 below block 2, of 2 from it: block 2 is an epoch block, as in the test above.
    const tracker = new ValidatorTracker('qbft', (n) => (n < 2n ? 30_000n : 2n), source)
    expect(tracker.validatorsAfter(headers[3]).map(bytesToHex)).toEqual([V1, V2, V3, V4])
    const later = new ValidatorTracker(
      'qbft',
      (n) => (n < 4n ? 30_000n : 2n),
      chainOf('qbft', votes, [V1, V2, V3, V4]).source,
    )
    expect(later.validatorsAfter(headers[3]).map(bytesToHex)).toEqual([V1, V2, V3, V4, X])
  })

  it("answers a transition's validator override from its block on, whatever the votes", () => {
    const { headers, source } = chainOf('qbft', votes, [V1, V2, V3, V4])
    const override = [V2, V3].map((x) => new Uint8Array(Buffer.from(x.slice(2), 'hex')))
    const tracker = new ValidatorTracker('qbft', 30_000n, source, (h) => (h.number + 1n >= 3n ? override : undefined))
    expect(tracker.validatorsAfter(headers[1]).map(bytesToHex)).toEqual([V1, V2, V3, V4])
    expect(tracker.validatorsAfter(headers[2]).map(bytesToHex)).toEqual([V2, V3])
    expect(tracker.validatorsAfter(headers[3]).map(bytesToHex)).toEqual([V2, V3])
  })
})
