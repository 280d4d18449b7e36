/**
 * Clique's signer votes (EIP-225), tallied as Besu tallies them. Pure: no chain, no I/O.
 *
 * A block that is not a checkpoint carries its signer's vote when its beneficiary is not the zero
 * address: nonce all ones proposes adding the beneficiary as a signer, nonce zero dropping it. A
 * signer's later vote on the same subject replaces its earlier one. When more than half of the
 * current signers (floor(n/2) + 1) agree, the list changes at once and every pending vote on that
 * subject is forgotten; a dropped signer's own votes go with it. Every checkpoint starts afresh from
 * the signers it lists.
 */

/** A vote on `subject`: add it to the signers (`isAdd`) or drop it. Addresses are lower-case hex. */
export interface CliqueVote {
  signer: string
  subject: string
  isAdd: boolean
}

export const CLIQUE_NONCE_ADD = new Uint8Array(8).fill(0xff)
export const CLIQUE_NONCE_DROP = new Uint8Array(8)

/** The vote a header carries, or undefined (zero beneficiary, or a checkpoint). Throws on a nonce that is no vote. */
export function voteOfHeader(
  signer: string,
  beneficiary: string,
  nonce: Uint8Array,
  isCheckpoint: boolean,
): CliqueVote | undefined {
  if (isCheckpoint || /^0x0{40}$/.test(beneficiary)) return undefined
  if (nonce.every((b) => b === 0xff)) return { signer, subject: beneficiary, isAdd: true }
  if (nonce.every((b) => b === 0)) return { signer, subject: beneficiary, isAdd: false }
  throw new Error('invalid nonce: clique votes are 0x0 or 0xff…ff')
}

/** The signer list and the pending votes since the last checkpoint. */
export class CliqueTally {
  private readonly signerSet: Set<string>
  /** subject → (signer → isAdd). */
  private readonly votes = new Map<string, Map<string, boolean>>()

  constructor(signers: Iterable<string>) {
    this.signerSet = new Set(signers)
  }

  /** The signers, ascending (the order of the in-turn rule and of a checkpoint's list). */
  signers(): string[] {
    return [...this.signerSet].sort()
  }

  /** Whether `signer` has a pending vote on `subject` in this direction. */
  hasVoted(signer: string, subject: string, isAdd: boolean): boolean {
    return this.votes.get(subject)?.get(signer) === isAdd
  }

  /** Counts one block's vote; the signer list changes when the vote completes a majority. */
  apply(vote: CliqueVote): void {
    const bySigner = this.votes.get(vote.subject) ?? new Map<string, boolean>()
    this.votes.set(vote.subject, bySigner)
    bySigner.set(vote.signer, vote.isAdd)
    const limit = Math.floor(this.signerSet.size / 2) + 1
    const count = [...bySigner.values()].filter((v) => v === vote.isAdd).length
    if (count < limit) return
    this.votes.delete(vote.subject)
    if (vote.isAdd) {
      this.signerSet.add(vote.subject)
      return
    }
    this.signerSet.delete(vote.subject)
    for (const pending of this.votes.values()) pending.delete(vote.subject)
  }

  copy(): CliqueTally {
    const out = new CliqueTally(this.signerSet)
    for (const [subject, bySigner] of this.votes) out.votes.set(subject, new Map(bySigner))
    return out
  }
}

/**
 * The proposals of this node that still change something and that `signer` has not yet cast since
 * the checkpoint: adding a non-signer, dropping a signer. The sealer puts one of them in its block.
 */
export function openProposals(
  proposals: ReadonlyMap<string, boolean>,
  tally: CliqueTally,
  signer: string,
): CliqueVote[] {
  const current = new Set(tally.signers())
  return [...proposals]
    .filter(([subject, isAdd]) => isAdd !== current.has(subject) && !tally.hasVoted(signer, subject, isAdd))
    .map(([subject, isAdd]) => ({ signer, subject, isAdd }))
}

/** One of the open proposals, picked at random as Besu's miner does, or undefined. */
export function pickProposal(open: CliqueVote[], random: () => number = Math.random): CliqueVote | undefined {
  return open.length === 0 ? undefined : open[Math.floor(random() * open.length)]
}
