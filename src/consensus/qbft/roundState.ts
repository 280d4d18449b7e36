/**
 * What one round of one height has seen: the accepted proposal, and the prepares and commits of
 * validators (one per author, the first). Prepares count toward "prepared" only when their
 * digest is the proposal's, commits toward "committed" only when their seal signs the proposal at
 * this round, so messages that arrive before the proposal are kept and judged once it is known.
 */
import type { Block } from '@ethereumjs/block'
import { bytesToHex, equalBytes, type Hex } from '../../primitives/hex.ts'
import type { BftKind } from '../bftExtraData.ts'
import { commitSealHash, recoverAddress } from '../bftHashing.ts'
import { prepareQuorum, quorumSize } from '../bftRules.ts'
import type { CommitPayload, PreparePayload, QbftMessage, Signed } from './messages.ts'

export type ProposalMessage = Extract<QbftMessage, { code: 0x12 }>

export class RoundState {
  proposal?: ProposalMessage
  private digest?: Uint8Array
  readonly prepares = new Map<Hex, Signed<PreparePayload>>()
  readonly commits = new Map<Hex, Signed<CommitPayload>>()
  hasSentCommit = false
  isImported = false

  readonly kind: BftKind
  readonly round: number
  readonly quorum: number
  private readonly preparesNeeded: number

  constructor(kind: BftKind, round: number, validatorCount: number) {
    this.kind = kind
    this.round = round
    this.quorum = quorumSize(validatorCount)
    this.preparesNeeded = prepareQuorum(kind, validatorCount)
  }

  get block(): Block | undefined {
    return this.proposal?.signed.payload.block
  }

  setProposal(msg: ProposalMessage): void {
    this.proposal = msg
    // The proposal carries this round in its extraData (checked on receipt): its digest is the hash
    // commit seals sign.
    this.digest = commitSealHash(this.kind, msg.signed.payload.block.header)
  }

  addPrepare(p: Signed<PreparePayload>): void {
    const key = bytesToHex(p.author)
    if (!this.prepares.has(key)) this.prepares.set(key, p)
  }

  addCommit(c: Signed<CommitPayload>): void {
    const key = bytesToHex(c.author)
    if (!this.commits.has(key)) this.commits.set(key, c)
  }

  /** The prepares for the accepted proposal (IBFT 2.0: not its proposer's, which Besu refuses). */
  validPrepares(): Signed<PreparePayload>[] {
    const { digest, proposal } = this
    if (!digest || !proposal) return []
    const isIbftProposer = (a: Uint8Array) => this.kind === 'ibft2' && equalBytes(a, proposal.signed.author)
    return [...this.prepares.values()].filter((p) => equalBytes(p.payload.digest, digest) && !isIbftProposer(p.author))
  }

  /** The commits for the accepted proposal whose seal its author made over this round's header. */
  validCommits(): Signed<CommitPayload>[] {
    const { digest } = this
    if (!digest) return []
    return [...this.commits.values()].filter((c) => {
      if (!equalBytes(c.payload.digest, digest)) return false
      const signer = recoverAddress(digest, c.payload.seal)
      return signer !== undefined && equalBytes(signer, c.author)
    })
  }

  isPrepared(): boolean {
    return this.proposal !== undefined && this.validPrepares().length >= this.preparesNeeded
  }

  isCommitted(): boolean {
    return this.proposal !== undefined && this.validCommits().length >= this.quorum
  }

  /** The proposal's digest: the hash a commit seal of this round signs (its header at this round, no seals). */
  proposalDigest(): Uint8Array | undefined {
    return this.digest
  }
}
