/**
 * Round changes of one height: the ROUND_CHANGE messages received per target round, this
 * validator's latest prepared certificate, and the justification rules that tie a proposal for a
 * round above 0 to a quorum of round changes (and, when any of them was prepared, to the block of
 * the highest prepared round with a quorum of its prepares).
 */
import type { Block, BlockHeader } from '@ethereumjs/block'
import { bytesToHex, equalBytes, type Hex } from '../../primitives/hex.ts'
import { withRoundAndProposer } from '../bftBlocks.ts'
import { type BftKind, decodeBftExtraData } from '../bftExtraData.ts'
import { commitSealHash } from '../bftHashing.ts'
import { prepareQuorum, quorumSize } from '../bftRules.ts'
import {
  type MessageCodec,
  type PreparePayload,
  type ProposalPayload,
  type QbftMessage,
  ROUND_CHANGE,
  type RoundChangePayload,
  type Signed,
} from './messages.ts'
import type { ProposalMessage, RoundState } from './roundState.ts'

type RoundChangeMessage = Extract<QbftMessage, { code: 0x15 }>

interface PreparedCertificate {
  round: number
  block: Block
  proposal: Signed<ProposalPayload>
  prepares: Signed<PreparePayload>[]
}

export class RoundChanges {
  private readonly byRound = new Map<number, Map<Hex, RoundChangeMessage>>()
  private readonly quorumReached = new Set<number>()
  private latestPrepared?: PreparedCertificate

  private readonly kind: BftKind
  private readonly height: bigint
  private readonly validators: Uint8Array[]
  private readonly quorum: number
  private readonly proposerOf: (round: number) => Uint8Array

  constructor(kind: BftKind, height: bigint, validators: Uint8Array[], proposerOf: (round: number) => Uint8Array) {
    this.kind = kind
    this.height = height
    this.validators = validators
    this.quorum = quorumSize(validators.length)
    this.proposerOf = proposerOf
  }

  /** Records a valid round change; answers its target round the first time that round has a quorum. */
  add(msg: RoundChangeMessage): number | undefined {
    const { round, prepared } = msg.signed.payload
    if (round < 1) return undefined
    if (prepared) {
      const block = msg.preparedBlock
      if (!block || prepared.round >= round || !equalBytes(commitSealHash(this.kind, block.header), prepared.hash))
        return undefined
      if (block.header.number !== this.height) return undefined
      const certAuthor = msg.signed.payload.certificate?.proposal.author
      if (this.kind === 'ibft2' && !(certAuthor && equalBytes(certAuthor, this.proposerOf(prepared.round))))
        return undefined
      if (!this.hasPrepareQuorum(msg.prepares, prepared.round, prepared.hash)) return undefined
    }
    const forRound = this.byRound.get(round) ?? new Map<Hex, RoundChangeMessage>()
    this.byRound.set(round, forRound)
    forRound.set(bytesToHex(msg.signed.author), msg)
    if (forRound.size < this.quorum || this.quorumReached.has(round)) return undefined
    this.quorumReached.add(round)
    return round
  }

  notePrepared(round: number, state: RoundState): void {
    if (this.latestPrepared && this.latestPrepared.round >= round) return
    const proposal = state.proposal!.signed
    this.latestPrepared = { round, block: state.block!, proposal, prepares: state.validPrepares() }
  }

  /** This validator's ROUND_CHANGE for `round`, carrying its latest prepared certificate. */
  ownRoundChange(round: number, key: Uint8Array, codec: MessageCodec): RoundChangeMessage {
    const cert = this.latestPrepared
    const payload: RoundChangePayload = { height: this.height, round }
    if (cert) {
      const hash = commitSealHash(this.kind, cert.block.header)
      payload.prepared = { round: cert.round, hash }
      // IBFT 2.0 signs the certificate into the round change: the proposal as its proposer signed it.
      const proposal = { ...cert.proposal, payload: { height: this.height, round: cert.round, digest: hash } }
      if (this.kind === 'ibft2') payload.certificate = { proposal, prepares: cert.prepares }
    }
    return {
      code: ROUND_CHANGE,
      signed: codec.signRoundChange(payload, key),
      preparedBlock: cert?.block,
      prepares: cert?.prepares ?? [],
    }
  }

  private best(round: number): RoundChangeMessage | undefined {
    let best: RoundChangeMessage | undefined
    for (const m of this.byRound.get(round)?.values() ?? []) {
      const p = m.signed.payload.prepared
      if (p && (!best || p.round > best.signed.payload.prepared!.round)) best = m
    }
    return best
  }

  /** The round changes and prepares that justify a proposal for `round`, once it has a quorum. */
  justification(round: number): Pick<ProposalMessage, 'roundChanges' | 'prepares'> | undefined {
    const all = this.byRound.get(round)
    if (!all || all.size < this.quorum) return undefined
    return { roundChanges: [...all.values()].map((m) => m.signed), prepares: this.best(round)?.prepares ?? [] }
  }

  /** The highest prepared block among the round changes for `round`, recast for that round. */
  preparedBlockFor(round: number, proposer: Uint8Array): Block | undefined {
    const best = this.best(round)
    return best ? this.recast(best.preparedBlock!, round, proposer) : undefined
  }

  /**
   * A prepared block for another round: QBFT moves both round and coinbase to the new proposer
   * (Besu's `replaceRoundAndProposerForProposalBlock`); IBFT 2.0 changes only the round, so the
   * block keeps its first proposer as coinbase (Besu's `replaceRoundInBlock`).
   */
  private recast(block: Block, round: number, proposer: Uint8Array): Block {
    const coinbase = this.kind === 'ibft2' ? block.header.coinbase.bytes : proposer
    return withRoundAndProposer(this.kind, block, round, coinbase)
  }

  /** Whether a proposal fits the parent, its round, its author, and (above round 0) its justification. */
  isProposalValid(msg: ProposalMessage, parent: BlockHeader): boolean {
    const { round, block } = msg.signed.payload
    const h = block.header
    if (h.number !== this.height || !equalBytes(h.parentHash, parent.hash())) return false
    if (this.kind === 'qbft' && !equalBytes(h.coinbase.bytes, msg.signed.author)) return false
    try {
      if (decodeBftExtraData(this.kind, h.extraData).round !== round) return false
    } catch {
      return false
    }
    if (round === 0) return msg.roundChanges.length === 0 && msg.prepares.length === 0
    const rcs = msg.roundChanges.filter((r) => r.payload.height === this.height && r.payload.round === round)
    if (this.distinctValidators(rcs) < this.quorum) return false
    let best: RoundChangePayload['prepared']
    for (const r of rcs) {
      const p = r.payload.prepared
      if (p && (!best || p.round > best.round)) best = p
    }
    if (!best) return msg.prepares.length === 0
    if (!this.hasPrepareQuorum(msg.prepares, best.round, best.hash)) return false
    const asPrepared = this.recast(block, best.round, this.proposerOf(best.round))
    return equalBytes(commitSealHash(this.kind, asPrepared.header), best.hash)
  }

  private hasPrepareQuorum(prepares: Signed<PreparePayload>[], round: number, digest: Uint8Array): boolean {
    const proposer = this.proposerOf(round)
    const matching = prepares.filter(
      (p) =>
        p.payload.height === this.height &&
        p.payload.round === round &&
        equalBytes(p.payload.digest, digest) &&
        !(this.kind === 'ibft2' && equalBytes(p.author, proposer)),
    )
    return this.distinctValidators(matching) >= prepareQuorum(this.kind, this.validators.length)
  }

  private distinctValidators(signed: Signed<unknown>[]): number {
    const authors = new Set(signed.map((s) => bytesToHex(s.author)))
    return [...authors].filter((a) => this.validators.some((v) => bytesToHex(v) === a)).length
  }
}
