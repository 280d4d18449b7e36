/**
 * The QBFT protocol of one validator as a pure state machine: inputs are decoded messages
 * (`receive`), clock ticks (`tick`), the block it asked for (`blockCreated`) and new chain heads
 * (`startHeight`); outputs are actions for the layer above. It does no I/O, holds no timers (it says
 * when it wants the next tick, `nextDeadlineMs`) and reads time only from the injected clock, so a
 * network of validators runs in one test on a fake clock.
 *
 * The same machine runs IBFT 2.0 (`opts.kind`): its messages are signed and encoded by that kind's
 * `MessageCodec`, its proposer sends no PREPARE (a round is prepared with quorum − 1 of the others'),
 * and a prepared block is re-proposed with only its round changed.
 *
 * The network it needs is two operations, which the layer above maps onto a transport (the
 * `istanbul/100` or `IBF/1` devp2p subprotocol, or a loopback for a network of one):
 * - send: a `broadcast` action carries a message for every other validator; its bytes are
 *   `codecFor(kind).encode(msg)` under code `msg.code` (own messages are handled here, never sent to self);
 * - receive: every frame from a peer goes through `codecFor(kind).decode(code, bytes)` into `receive`,
 *   which checks the author is a validator and ignores duplicates, stale heights and rounds.
 * Blocks are built and executed outside: `createBlock` asks for a proposal body, a received
 * proposal must already have passed header and execution checks, and `import` hands over a sealed
 * block. Messages for later heights are held (bounded) and replayed when that height starts; the
 * first from a validator for a new later height yields a `behind` action (start a sync). With an
 * empty-block period (QBFT), an empty block asked for is held back until that period after the parent.
 */
import type { Block, BlockHeader } from '@ethereumjs/block'
import type { Clock } from '../../primitives/clock.ts'
import { bytesToHex, equalBytes, type Hex } from '../../primitives/hex.ts'
import { signHash } from '../../primitives/nodeKey.ts'
import { sealBlock } from '../bftBlocks.ts'
import type { BftKind } from '../bftExtraData.ts'
import { addressOf, commitSealHash } from '../bftHashing.ts'
import { proposerFor, quorumSize, roundTimeoutMs } from '../bftRules.ts'
import { codecFor } from './messageCodec.ts'
import { COMMIT, type MessageCodec, PREPARE, PROPOSAL, type QbftMessage, ROUND_CHANGE } from './messages.ts'
import { RoundChanges } from './roundChanges.ts'
import { type ProposalMessage, RoundState } from './roundState.ts'

export type QbftAction =
  | { type: 'broadcast'; message: QbftMessage }
  | { type: 'createBlock'; height: bigint; round: number; timestampSec: bigint }
  | { type: 'import'; block: Block; round: number }
  /** A validator is at a later height: this node is behind and should sync (once per height). */
  | { type: 'behind'; height: bigint }

/** The timing of one height (genesis transitions may change it from a block on). */
export interface HeightTiming {
  blockPeriodSeconds: number
  /** QBFT: with an empty pool, the proposer waits this long after the parent; 0 = no wait. */
  emptyBlockPeriodSeconds: number
  requestTimeoutSeconds: number
}

export interface QbftOptions {
  kind: BftKind
  privateKey: Uint8Array
  blockPeriodSeconds: number
  requestTimeoutSeconds: number
  emptyBlockPeriodSeconds?: number
  /** The timing of each height; without it, the three fields above hold at every height. */
  timingAt?: (height: bigint) => HeightTiming
  clock: Clock
}

const MAX_FUTURE_MESSAGES = 1000
const MAX_FUTURE_HEIGHTS = 10n
/** Messages for rounds further ahead than this are dropped (round numbers cost a sender nothing). */
const MAX_ROUND_LEAD = 100

export class QbftStateMachine {
  readonly address: Uint8Array
  height = 0n
  round = 0
  parent?: BlockHeader
  validators: Uint8Array[] = []
  private rounds = new Map<number, RoundState>()
  private roundChanges!: RoundChanges
  private blockDueMs?: number
  private roundDeadlineMs?: number
  private future: QbftMessage[] = []
  private highestSeen = 0n
  private out: QbftAction[] = []
  private readonly codec: MessageCodec
  private timing!: HeightTiming

  readonly opts: QbftOptions

  constructor(opts: QbftOptions) {
    this.opts = opts
    this.address = addressOf(opts.privateKey)
    this.codec = codecFor(opts.kind)
  }

  get quorum(): number {
    return quorumSize(this.validators.length)
  }

  isValidator(address: Uint8Array = this.address): boolean {
    return this.validators.some((v) => equalBytes(v, address))
  }

  proposerOf(round: number): Uint8Array {
    return proposerFor(this.parent!.coinbase.bytes, this.validators, round)
  }

  /** The earliest time a tick has something to do, if any. */
  nextDeadlineMs(): number | undefined {
    const times = [this.blockDueMs, this.roundDeadlineMs].filter((t): t is number => t !== undefined)
    return times.length ? Math.min(...times) : undefined
  }

  /** Starts the height above `parent`, sealed by `validators`; older heights are dropped. */
  startHeight(parent: BlockHeader, validators: Uint8Array[]): QbftAction[] {
    if (parent.number + 1n <= this.height) return []
    this.parent = parent
    this.validators = validators
    this.height = parent.number + 1n
    this.rounds = new Map()
    this.roundChanges = new RoundChanges(this.opts.kind, this.height, validators, (r) => this.proposerOf(r))
    this.round = 0
    this.roundDeadlineMs = undefined
    this.timing = this.opts.timingAt?.(this.height) ?? {
      blockPeriodSeconds: this.opts.blockPeriodSeconds,
      emptyBlockPeriodSeconds: this.opts.emptyBlockPeriodSeconds ?? 0,
      requestTimeoutSeconds: this.opts.requestTimeoutSeconds,
    }
    const dueMs = Number(parent.timestamp + BigInt(this.timing.blockPeriodSeconds)) * 1000
    const now = this.opts.clock.nowMs()
    this.blockDueMs = this.isValidator() ? Math.max(dueMs, now) : undefined
    // Besu's IBFT 2.0 creates round 0, and starts its timer, when the height starts; QBFT does when
    // the block is due (`tick`).
    if (this.opts.kind === 'ibft2' && this.isValidator())
      this.roundDeadlineMs = now + roundTimeoutMs(this.timing.requestTimeoutSeconds, 0)
    const held = this.future.filter((m) => m.signed.payload.height === this.height)
    this.future = this.future.filter((m) => m.signed.payload.height > this.height)
    for (const m of held) if (this.isValidator(m.signed.author)) this.handle(m)
    return this.flush()
  }

  /**
   * Runs what is due: the round-0 proposal once the block period passed, and round expiry. Round 0's
   * timer runs from when the block is due (QBFT; IBFT 2.0: from the height's start).
   */
  tick(): QbftAction[] {
    const now = this.opts.clock.nowMs()
    if (this.blockDueMs !== undefined && now >= this.blockDueMs) {
      this.blockDueMs = undefined
      const timeout = roundTimeoutMs(this.timing.requestTimeoutSeconds, 0)
      const isQbft = this.opts.kind === 'qbft'
      if (this.round === 0 && equalBytes(this.proposerOf(0), this.address)) {
        if (isQbft) this.roundDeadlineMs = now + timeout
        this.out.push({ type: 'createBlock', height: this.height, round: 0, timestampSec: this.timestampAt(now) })
      } else if (isQbft) {
        // The proposer may rightly wait for the empty-block period: round 0 runs from its end.
        this.roundDeadlineMs = Math.max(now, this.emptyBlockDueMs()) + timeout
      }
    }
    if (this.roundDeadlineMs !== undefined && now >= this.roundDeadlineMs) this.roundExpired()
    return this.flush()
  }

  /** A message from a peer (already decoded and its signature recovered). */
  receive(msg: QbftMessage): QbftAction[] {
    const { height } = msg.signed.payload
    if (height > this.height && height <= this.height + MAX_FUTURE_HEIGHTS) {
      if (this.future.length < MAX_FUTURE_MESSAGES) this.future.push(msg)
      if (height > this.highestSeen && this.isValidator(msg.signed.author)) {
        this.highestSeen = height
        this.out.push({ type: 'behind', height })
      }
    } else if (height === this.height && this.isValidator(msg.signed.author)) {
      if (msg.signed.payload.round <= this.round + MAX_ROUND_LEAD) this.handle(msg)
    }
    return this.flush()
  }

  /** The block asked for by a `createBlock` action, built on the parent for `round`. */
  blockCreated(round: number, block: Block): QbftAction[] {
    if (block.header.number !== this.height || round !== this.round) return []
    const now = this.opts.clock.nowMs()
    if (round === 0 && block.transactions.length === 0 && now < this.emptyBlockDueMs()) {
      // Besu's empty-block period: no proposal yet; ask again after a block period, or when it ends.
      this.roundDeadlineMs = undefined
      this.blockDueMs = Math.min(this.emptyBlockDueMs(), now + this.timing.blockPeriodSeconds * 1000)
      return []
    }
    const justification = round === 0 ? undefined : this.roundChanges.justification(round)
    if (round > 0 && !justification) return []
    this.propose(block, justification ?? { roundChanges: [], prepares: [] })
    return this.flush()
  }

  private handle(msg: QbftMessage): void {
    // A node outside the validator set takes blocks from sync, not from the rounds.
    if (!this.isValidator()) return
    const { round } = msg.signed.payload
    if (msg.code === PROPOSAL) this.onProposal(msg)
    else if (msg.code === ROUND_CHANGE) {
      const target = this.roundChanges.add(msg)
      if (target !== undefined && target >= this.round) this.onRoundChangeQuorum(target)
    } else if (round >= this.round) {
      if (msg.code === PREPARE) this.state(round).addPrepare(msg.signed)
      else this.state(round).addCommit(msg.signed)
      this.progress(round)
    }
  }

  private onProposal(msg: ProposalMessage): void {
    const { round, block } = msg.signed.payload
    if (round < this.round || this.state(round).proposal) return
    if (!equalBytes(msg.signed.author, this.proposerOf(round))) return
    if (!this.roundChanges.isProposalValid(msg, this.parent!)) return
    if (round > this.round) this.enterRound(round)
    this.acceptProposal(msg)
    this.sendPrepare(block)
  }

  private propose(block: Block, justification: Pick<ProposalMessage, 'roundChanges' | 'prepares'>): void {
    const signed = this.codec.signProposal({ height: this.height, round: this.round, block }, this.opts.privateKey)
    const msg: ProposalMessage = { code: PROPOSAL, signed, ...justification }
    this.out.push({ type: 'broadcast', message: msg })
    this.acceptProposal(msg)
    // An IBFT 2.0 proposer's proposal counts as its prepare; it sends none.
    if (this.opts.kind === 'qbft') this.sendPrepare(block)
  }

  /** Records the proposal and this validator's own commit (sent once the round is prepared). */
  private acceptProposal(msg: ProposalMessage): void {
    const state = this.state(msg.signed.payload.round)
    state.setProposal(msg)
    const digest = state.proposalDigest()!
    const seal = signHash(digest, this.opts.privateKey)
    const { height, round } = msg.signed.payload
    state.addCommit(this.codec.signCommit({ height, round, digest, seal }, this.opts.privateKey))
    this.progress(round)
  }

  private sendPrepare(block: Block): void {
    const digest = commitSealHash(this.opts.kind, block.header)
    const prepare = this.codec.signPrepare({ height: this.height, round: this.round, digest }, this.opts.privateKey)
    this.out.push({ type: 'broadcast', message: { code: PREPARE, signed: prepare } })
    this.state(this.round).addPrepare(prepare)
    this.progress(this.round)
  }

  /** Sends this validator's commit once prepared; imports once committed. */
  private progress(round: number): void {
    if (round !== this.round) return
    const state = this.state(round)
    if (state.isPrepared()) this.roundChanges.notePrepared(round, state)
    if (state.isPrepared() && !state.hasSentCommit) {
      state.hasSentCommit = true
      const own = state.commits.get(bytesToHex(this.address))
      if (own) this.out.push({ type: 'broadcast', message: { code: COMMIT, signed: own } })
    }
    if (state.isCommitted() && !state.isImported) {
      state.isImported = true
      this.roundDeadlineMs = undefined
      const seals = state.validCommits().map((c) => c.payload.seal)
      this.out.push({ type: 'import', block: sealBlock(this.opts.kind, state.block!, round, seals), round })
    }
  }

  private roundExpired(): void {
    if (!this.isValidator()) return
    this.enterRound(this.round + 1)
    const rc = this.roundChanges.ownRoundChange(this.round, this.opts.privateKey, this.codec)
    this.out.push({ type: 'broadcast', message: rc })
    this.handle(rc)
  }

  private onRoundChangeQuorum(target: number): void {
    if (target > this.round) this.enterRound(target)
    if (!equalBytes(this.proposerOf(target), this.address) || this.state(target).proposal) return
    const reproposal = this.roundChanges.preparedBlockFor(target, this.address)
    if (reproposal) this.propose(reproposal, this.roundChanges.justification(target)!)
    else {
      const timestampSec = this.timestampAt(this.opts.clock.nowMs())
      this.out.push({ type: 'createBlock', height: this.height, round: target, timestampSec })
    }
  }

  private enterRound(round: number): void {
    this.round = round
    this.blockDueMs = undefined
    this.roundDeadlineMs = this.opts.clock.nowMs() + roundTimeoutMs(this.timing.requestTimeoutSeconds, round)
  }

  /**
   * When an empty block may be proposed: the parent's time plus the empty-block period (0: any
   * time). QBFT's only: Besu's IBFT 2.0 proposes empty blocks at once.
   */
  private emptyBlockDueMs(): number {
    const period = this.opts.kind === 'qbft' ? this.timing.emptyBlockPeriodSeconds : 0
    return period > 0 ? Number(this.parent!.timestamp + BigInt(period)) * 1000 : 0
  }

  private timestampAt(nowMs: number): bigint {
    const earliest = this.parent!.timestamp + BigInt(this.timing.blockPeriodSeconds)
    const now = BigInt(Math.floor(nowMs / 1000))
    return now > earliest ? now : earliest
  }

  private state(round: number): RoundState {
    let s = this.rounds.get(round)
    if (!s) {
      s = new RoundState(this.opts.kind, round, this.validators.length)
      this.rounds.set(round, s)
    }
    return s
  }

  private flush(): QbftAction[] {
    const out = this.out
    this.out = []
    return out
  }

  /** Validator addresses as hex, for logs. */
  describe(): { height: bigint; round: number; validators: Hex[] } {
    return { height: this.height, round: this.round, validators: this.validators.map(bytesToHex) }
  }
}
