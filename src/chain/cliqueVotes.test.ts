/**
 * Clique's vote tally, against EIP-225's rules worked by hand: a majority is floor(n/2) + 1 of the
 * signers as they stand, a signer's later vote replaces its earlier one, a passed proposal clears
 * the votes on its subject, a dropped signer's own votes go, and the sealer offers only proposals
 * that still change something and that it has not cast yet.
 */
import { describe, expect, it } from '../runtime/testing.ts'
import { CliqueTally, openProposals, pickProposal, voteOfHeader } from './cliqueVotes.ts'

const addr = (c: string) => `0x${c.repeat(40)}`
const [A, B, C, D, E] = ['a', 'b', 'c', 'd', 'e'].map(addr)
const add = (signer: string, subject: string) => ({ signer, subject, isAdd: true })
const drop = (signer: string, subject: string) => ({ signer, subject, isAdd: false })

describe('clique vote tally (EIP-225)', () => {
  it('a single signer adds another at once (1 of 1 is a majority)', () => {
    const t = new CliqueTally([A])
    t.apply(add(A, B))
    expect(t.signers()).toEqual([A, B])
  })

  it('needs more than half of the signers: 2 of 2, 2 of 3, 3 of 4', () => {
    const two = new CliqueTally([A, B])
    two.apply(add(A, C))
    expect(two.signers()).toEqual([A, B])
    two.apply(add(B, C))
    expect(two.signers()).toEqual([A, B, C])

    const four = new CliqueTally([A, B, C, D])
    four.apply(drop(A, D))
    four.apply(drop(B, D))
    expect(four.signers()).toEqual([A, B, C, D])
    four.apply(drop(C, D))
    expect(four.signers()).toEqual([A, B, C])
  })

  it("a signer's later vote on a subject replaces its earlier one", () => {
    const t = new CliqueTally([A, B, C])
    t.apply(add(A, D))
    t.apply(drop(A, D))
    t.apply(add(B, D))
    // A's add was replaced by a drop: one add vote of the two needed.
    expect(t.signers()).toEqual([A, B, C])
    t.apply(add(A, D))
    expect(t.signers()).toEqual([A, B, C, D])
  })

  it('a passed proposal clears the votes on its subject', () => {
    const t = new CliqueTally([A, B, C])
    t.apply(add(A, D))
    t.apply(add(B, D))
    expect(t.hasVoted(A, D, true)).toBe(false)
    // Four signers now: dropping D takes three votes, none carried over.
    t.apply(drop(A, D))
    t.apply(drop(B, D))
    expect(t.signers()).toEqual([A, B, C, D])
    t.apply(drop(C, D))
    expect(t.signers()).toEqual([A, B, C])
  })

  it("a dropped signer's pending votes no longer count", () => {
    const t = new CliqueTally([A, B, C])
    t.apply(add(C, E))
    t.apply(drop(A, C))
    t.apply(drop(B, C))
    expect(t.signers()).toEqual([A, B])
    // Without C's vote, A's add is one of the two needed.
    t.apply(add(A, E))
    expect(t.signers()).toEqual([A, B])
    t.apply(add(B, E))
    expect(t.signers()).toEqual([A, B, E])
  })

  it('the majority counts against the signers as they stand when the vote arrives', () => {
    const t = new CliqueTally([A, B])
    t.apply(add(A, C))
    t.apply(add(B, C))
    // Three signers: C's vote alone does not add D, a second one does.
    t.apply(add(C, D))
    expect(t.signers()).toEqual([A, B, C])
    t.apply(add(A, D))
    expect(t.signers()).toEqual([A, B, C, D])
  })

  it('a copy is independent of the original', () => {
    const t = new CliqueTally([A, B])
    t.apply(add(A, C))
    const copy = t.copy()
    copy.apply(add(B, C))
    expect(copy.signers()).toEqual([A, B, C])
    expect(t.signers()).toEqual([A, B])
  })
})

describe('a header as a vote', () => {
  const ones = new Uint8Array(8).fill(0xff)
  const zeros = new Uint8Array(8)
  it('reads nonce all ones as add and zero as drop of the beneficiary', () => {
    expect(voteOfHeader(A, B, ones, false)).toEqual(add(A, B))
    expect(voteOfHeader(A, B, zeros, false)).toEqual(drop(A, B))
  })
  it('carries no vote with a zero beneficiary or at a checkpoint', () => {
    expect(voteOfHeader(A, addr('0'), zeros, false)).toBeUndefined()
    expect(voteOfHeader(A, B, ones, true)).toBeUndefined()
  })
  it('refuses any other nonce', () => {
    expect(() => voteOfHeader(A, B, Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 1), false)).toThrow('invalid nonce')
  })
})

describe('the proposals a sealer may put in its block', () => {
  it('offers only proposals that change the signers and that it has not cast yet', () => {
    const t = new CliqueTally([A, B, C])
    const proposals = new Map([
      [B, true], // B is a signer already: nothing to add
      [D, false], // D is no signer: nothing to drop
      [E, true],
      [C, false],
    ])
    expect(openProposals(proposals, t, A)).toEqual([add(A, E), drop(A, C)])
    t.apply(add(A, E))
    expect(openProposals(proposals, t, A)).toEqual([drop(A, C)])
    // B has not voted on E: its own sealer still offers it.
    expect(openProposals(proposals, t, B)).toEqual([add(B, E), drop(B, C)])
  })
  it('picks one of them at random, none when there is none', () => {
    const open = [add(A, D), add(A, E)]
    expect(pickProposal(open, () => 0)).toEqual(add(A, D))
    expect(pickProposal(open, () => 0.99)).toEqual(add(A, E))
    expect(pickProposal([], () => 0)).toBeUndefined()
  })
})
