/**
 * What one round of one height has seen: the accepted proposal, and the prepares and commits of
 * validators (one per author; the latest wins). Prepares count toward "prepared" only when their
 * digest is the proposal's, commits toward "committed" only when their seal signs the proposal at
 * this round, so messages that arrive before the proposal are kept and judged once it is known.
 */
import type { Block } from '@ethereumjs/block'
import { bytesToHex, equalBytes, type Hex } from '../../primitives/hex.ts'
import { type BftKind, decodeBftExtraData } from '../bftExtraData.ts'
import { commitSealHash, recoverAddress } from '../bftHashing.ts'
import type { CommitPayload, PreparePayload, QbftMessage, Signed } from './messages.ts'

export type ProposalMessage = Extract<QbftMessage, { code: 0x12 }>

export class RoundState {
  proposal?: ProposalMessage
  private digest?: Uint8Array
  private sealHash?: Uint8Array
  readonly prepares = new Map<Hex, Signed<PreparePayload>>()
  readonly commits = new Map<Hex, Signed<CommitPayload>>()
  hasSentCommit = false
  isImported = false

  constructor(
    readonly kind: BftKind,
    readonly round: number,
    readonly quorum: number,
  ) {}

  get block(): Block | undefined {
    return this.proposal?.signed.payload.block
  }

  setProposal(msg: ProposalMessage): void {
    this.proposal = msg
    const header = msg.signed.payload.block.header
    this.digest = header.hash()
    this.sealHash = commitSealHash(this.kind, header, {
      ...decodeBftExtraData(this.kind, header.extraData),
      round: this.round,
    })
  }

  addPrepare(p: Signed<PreparePayload>): void {
    this.prepares.set(bytesToHex(p.author), p)
  }

  addCommit(c: Signed<CommitPayload>): void {
    this.commits.set(bytesToHex(c.author), c)
  }

  /** The prepares for the accepted proposal. */
  validPrepares(): Signed<PreparePayload>[] {
    const digest = this.digest
    if (!digest) return []
    return [...this.prepares.values()].filter((p) => equalBytes(p.payload.digest, digest))
  }

  /** The commits for the accepted proposal whose seal its author made over this round's header. */
  validCommits(): Signed<CommitPayload>[] {
    const { digest, sealHash } = this
    if (!digest || !sealHash) return []
    return [...this.commits.values()].filter((c) => {
      if (!equalBytes(c.payload.digest, digest)) return false
      const signer = recoverAddress(sealHash, c.payload.seal)
      return signer !== undefined && equalBytes(signer, c.author)
    })
  }

  isPrepared(): boolean {
    return this.proposal !== undefined && this.validPrepares().length >= this.quorum
  }

  isCommitted(): boolean {
    return this.proposal !== undefined && this.validCommits().length >= this.quorum
  }

  /** The hash a commit seal of this round signs (the proposal's header at this round, no seals). */
  commitSealHash(): Uint8Array | undefined {
    return this.sealHash
  }
}
