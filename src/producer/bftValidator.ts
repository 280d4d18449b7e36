/**
 * The QBFT / IBFT 2.0 validator of a node: runs the consensus state machine against the chain, the
 * pool and a transport. It turns the machine's actions into work (build a proposal from the pool,
 * send a message, store a sealed block), feeds it the chain's new heads, the transport's messages
 * (a proposal's block is checked and executed first) and timer ticks at the times it asks for.
 * Everything runs in one queue, so the machine sees one input at a time. Also holds the validator
 * votes this node's proposals carry (`qbft_proposeValidatorVote`). A node that is not a validator
 * keeps following heads (for votes and RPC) and says, once per change, why it produces no block.
 * On a chain migrating from IBFT 2.0 to QBFT each height is decided by the state machine of its
 * block's protocol (the schedule's `kindAt`), so the blocks from `qbft.startBlock` on are proposed,
 * sealed and messaged as QBFT's; a message of the next protocol that comes before the switch (a
 * peer already at the first QBFT height) is held (bounded) until the switch.
 */
import { type Block, type BlockHeader, createBlockFromBytesArray } from '@ethereumjs/block'
import { executeBlock, importBlock } from '../chain/blockImporter.ts'
import type { Chain } from '../chain/chain.ts'
import type { BftGenesisOptions } from '../chain/genesis.ts'
import type { BftKind, BftVote } from '../consensus/bftExtraData.ts'
import { proposalHeaderFields, validateBftHeader } from '../consensus/bftHeaderRules.ts'
import { quorumSize } from '../consensus/bftRules.ts'
import type { BftSchedule } from '../consensus/bftSchedule.ts'
import { codecFor } from '../consensus/qbft/messageCodec.ts'
import { PROPOSAL, type QbftMessage, ROUND_CHANGE } from '../consensus/qbft/messages.ts'
import { type QbftAction, QbftStateMachine } from '../consensus/qbft/qbftStateMachine.ts'
import type { ProposalMessage } from '../consensus/qbft/roundState.ts'
import type { BftTransport } from '../consensus/qbft/transport.ts'
import type { ValidatorTracker } from '../consensus/voteTally.ts'
import type { Clock } from '../primitives/clock.ts'
import { bytesToHex, equalBytes, type Hex, hexToBytes } from '../primitives/hex.ts'
import { createLogger } from '../primitives/logger.ts'
import { after, type LongTimer } from '../runtime/eventLoop.ts'
import type { TxPool } from '../txpool/txPool.ts'
import type { ContractValidators } from './bftContractValidators.ts'
import { type AssembledBlock, BlockAssembler, type MinerSettings } from './blockAssembler.ts'

const log = createLogger('bft')
/** Proposals for later heights kept until their height starts. */
const MAX_HELD_PROPOSALS = 64
/** Frames of the next protocol kept until the chain switches to it (the state machine's future-message bound). */
const MAX_HELD_FRAMES = 1000

interface HeldFrame {
  code: number
  data: Uint8Array
  kind: BftKind
}

export interface BftValidatorOptions {
  bft: BftGenesisOptions
  /** Per-block timing and validators (genesis transitions); without it the genesis values hold. */
  schedule?: BftSchedule
  /** QBFT validators chosen by contract, read once per head before its height starts. */
  contract?: ContractValidators
  privateKey: Uint8Array
  clock: Clock
  transport: BftTransport
  /** Whether other validators can be reached at all (false while the node runs no peer-to-peer network). */
  hasPeers: boolean
  /** Called when a validator is at a later height than this node's head (the cue to sync). */
  onBehind?: (height: bigint) => void
  /** Besu's --target-gas-limit and --miner-extra-data (the vanity of proposals). */
  blocks?: MinerSettings
}

export class BftValidator {
  /** The state machine of each protocol the chain runs (two on a migrating chain). */
  private readonly machines = new Map<BftKind, QbftStateMachine>()
  /** Votes this node's proposals carry: address → add (true) or drop (false). */
  readonly votes = new Map<Hex, boolean>()
  private readonly assembler: BlockAssembler
  private readonly built = new Map<Hex, AssembledBlock>()
  private queue: Promise<void> = Promise.resolve()
  private timer?: LongTimer
  private unsubscribes: (() => void)[] = []
  private lastStatus = ''
  private heldProposals: ProposalMessage[] = []
  private heldFrames: HeldFrame[] = []
  /** Whether the node said, once, that it waits for imported IBFT 1.0 blocks. */
  private hasToldLegacy = false
  private isStopped = false
  private isStartedOnce = false

  private readonly chain: Chain
  private readonly pool: TxPool
  readonly tracker: ValidatorTracker
  private readonly opts: BftValidatorOptions

  constructor(chain: Chain, pool: TxPool, tracker: ValidatorTracker, opts: BftValidatorOptions) {
    this.chain = chain
    this.pool = pool
    this.tracker = tracker
    this.opts = opts
    const { blockPeriodSeconds, requestTimeoutSeconds } = opts.bft
    for (const kind of opts.schedule?.kinds ?? [opts.bft.kind]) {
      const machine = new QbftStateMachine({
        kind,
        privateKey: opts.privateKey,
        blockPeriodSeconds,
        requestTimeoutSeconds,
        timingAt: opts.schedule && ((height) => opts.schedule!.at(height)),
        clock: opts.clock,
      })
      this.machines.set(kind, machine)
    }
    this.assembler = new BlockAssembler(chain, pool, { miner: opts.blocks })
  }

  /** The protocols of the chain (two on a migrating chain). */
  get kinds(): BftKind[] {
    return [...this.machines.keys()]
  }

  /** The protocol of block `number`. */
  kindAt(number: bigint): BftKind {
    return this.opts.schedule?.kindAt(number) ?? this.opts.bft.kind
  }

  /** The state machine of the height above the head. */
  get machine(): QbftStateMachine {
    return this.machineOf(this.kindAt(this.chain.head.header.number + 1n))
  }

  private machineOf(kind: BftKind): QbftStateMachine {
    const machine = this.machines.get(kind)
    if (!machine) throw new Error(`no ${kind} state machine on this chain`)
    return machine
  }

  /** Started and not stopped: Besu's BFT mining coordinator reports itself mining then. */
  get isRunning(): boolean {
    return this.isStartedOnce && !this.isStopped
  }

  start(): void {
    this.isStartedOnce = true
    this.unsubscribes.push(this.chain.onNewBlock(({ block }) => this.enqueue(() => this.onHead(block))))
    this.unsubscribes.push(
      this.opts.transport.onMessage((code, data, kind) => this.enqueue(() => this.onMessage(code, data, kind))),
    )
    this.enqueue(() => this.onHead(this.chain.head))
  }

  async stop(): Promise<void> {
    this.isStopped = true
    this.timer?.cancel()
    for (const u of this.unsubscribes) u()
    await this.queue
  }

  /** Whether the height being decided is a legacy IBFT 1.0 block's, which no one decides any more. */
  private isLegacyHeight(): boolean {
    return this.opts.schedule?.isLegacyBlock(this.chain.head.header.number + 1n) ?? false
  }

  private isContractMode(height: bigint): boolean {
    return this.opts.schedule?.at(height).selection.mode === 'contract'
  }

  /** The request timeout of the height being decided. */
  get requestTimeoutSeconds(): number {
    const next = this.chain.head.header.number + 1n
    return this.opts.schedule?.at(next).requestTimeoutSeconds ?? this.opts.bft.requestTimeoutSeconds
  }

  /**
   * The validators of a block (the ones that sealed it): those its extraData lists, or, where a
   * contract chooses them, what the contract answered at its parent's state.
   */
  async validatorsOf(header: BlockHeader): Promise<Uint8Array[]> {
    const parent = header.number > 0n ? this.chain.getHeaderByHash(header.parentHash) : undefined
    if (!parent || !this.opts.contract || !this.isContractMode(header.number))
      return this.tracker.listedValidators(header)
    await this.opts.contract.prepare(parent)
    return this.tracker.validatorsAfter(parent)
  }

  /**
   * The validators of the block after the head: where a contract chooses them, what it answers at
   * the head's state; else those the head lists (Besu's QBFT answers these for the `pending` tag).
   */
  async nextValidators(): Promise<Uint8Array[]> {
    const head = this.chain.head.header
    if (!this.opts.contract || !this.isContractMode(head.number + 1n)) return this.tracker.listedValidators(head)
    await this.opts.contract.prepare(head)
    return this.tracker.validatorsAfter(head)
  }

  /** The vote a proposal on `parent` carries: the first one that would change the validator set. */
  voteFor(validators: Uint8Array[]): BftVote | undefined {
    const current = new Set(validators.map(bytesToHex))
    for (const [address, isAuth] of this.votes) {
      if (isAuth !== current.has(address)) return { recipient: hexToBytes(address), isAuth }
    }
    return undefined
  }

  private enqueue(fn: () => Promise<void>): void {
    this.queue = this.queue.then(async () => {
      if (this.isStopped) return
      try {
        await fn()
      } catch (e) {
        log.error('validator step failed', { error: e instanceof Error ? (e.stack ?? e.message) : String(e) })
      }
    })
  }

  private async onHead(head: Block): Promise<void> {
    await this.opts.contract?.prepare(head.header)
    const validators = this.tracker.validatorsAfter(head.header)
    this.reportStatus(head, validators)
    if (this.isLegacyHeight()) {
      // As Besu's IBFT 1.0 controller: no block is produced below QBFT's start block, only imported.
      if (!this.hasToldLegacy)
        log.info('legacy IBFT 1.0 blocks are imported only; QBFT starts at block', {
          startBlock: this.opts.schedule?.migrationBlock,
          head: head.header.number,
        })
      this.hasToldLegacy = true
      return
    }
    const kind = this.kindAt(head.header.number + 1n)
    if (kind !== this.kindAt(head.header.number))
      log.info('consensus switches protocol', { from: head.header.number + 1n, kind })
    await this.apply(this.machineOf(kind).startHeight(head.header, validators))
    const frames = this.heldFrames.filter((f) => f.kind === kind)
    this.heldFrames = this.heldFrames.filter((f) => f.kind !== kind)
    for (const f of frames) await this.onMessage(f.code, f.data, f.kind)
    const due = this.heldProposals.filter((m) => m.signed.payload.height === this.machine.height)
    this.heldProposals = this.heldProposals.filter((m) => m.signed.payload.height > this.machine.height)
    for (const m of due) await this.receiveProposal(m)
  }

  /** A message from a peer, in the protocol it came by (the height's when the transport does not say). */
  private async onMessage(code: number, data: Uint8Array, via?: BftKind): Promise<void> {
    const kind = this.kindAt(this.chain.head.header.number + 1n)
    if (this.isLegacyHeight()) {
      // QBFT messages of peers already past the legacy blocks: held until this node imports them.
      if (this.heldFrames.length < MAX_HELD_FRAMES) this.heldFrames.push({ code, data, kind: via ?? kind })
      return
    }
    if (via !== undefined && via !== kind) {
      // Only QBFT can be ahead of this node (IBFT 2.0 never follows it): held until the switch.
      if (via === 'qbft' && this.heldFrames.length < MAX_HELD_FRAMES) this.heldFrames.push({ code, data, kind: via })
      return
    }
    let msg: QbftMessage
    try {
      msg = codecFor(kind).decode(code, data, (values) =>
        createBlockFromBytesArray(values as never, { common: this.chain.common, setHardfork: true }),
      )
    } catch (e) {
      log.debug('dropping undecodable message', { code, error: (e as Error).message })
      return
    }
    if (msg.code === PROPOSAL) return this.receiveProposal(msg)
    await this.apply(this.machine.receive(msg))
  }

  /**
   * A proposal reaches the machine only with a block checked on its parent; one for a later height
   * waits here (bounded) until that height starts, since its parent is not stored yet.
   */
  private async receiveProposal(msg: ProposalMessage): Promise<void> {
    const { height, block } = msg.signed.payload
    if (height > this.machine.height) {
      if (this.heldProposals.length < MAX_HELD_PROPOSALS) this.heldProposals.push(msg)
      return
    }
    if (height === this.machine.height && block.header.number === height && (await this.isProposalBlockValid(block)))
      await this.apply(this.machine.receive(msg))
  }

  /** Header rules (without seals) and execution on the parent, for a proposal at the current height. */
  private async isProposalBlockValid(block: Block): Promise<boolean> {
    const parent = this.chain.head
    const kind = this.kindAt(block.header.number)
    const blockPeriodSeconds =
      this.opts.schedule?.at(block.header.number).blockPeriodSeconds ?? this.opts.bft.blockPeriodSeconds
    try {
      const validators = this.machine.validators
      const nowSec = BigInt(Math.floor(this.opts.clock.nowMs() / 1000))
      validateBftHeader(block.header, parent.header, {
        kind,
        blockPeriodSeconds,
        validators,
        requireSeals: false,
        nowSec,
        isContractMode: this.isContractMode(block.header.number),
      })
      await executeBlock(this.chain, block, parent)
      return true
    } catch (e) {
      log.warn('invalid proposal', { number: block.header.number, error: (e as Error).message })
      return false
    }
  }

  private async apply(actions: QbftAction[]): Promise<void> {
    for (const a of actions) {
      if (a.type === 'broadcast') this.broadcast(a.message)
      else if (a.type === 'createBlock') await this.propose(a.height, a.round, a.timestampSec)
      else if (a.type === 'behind') this.opts.onBehind?.(a.height)
      else await this.importSealed(a.block, a.round)
    }
    this.schedule()
  }

  private broadcast(message: QbftMessage): void {
    if (message.code === ROUND_CHANGE && equalBytes(message.signed.author, this.machine.address)) {
      const { height, round } = message.signed.payload
      log.info('round expired without a block: moving to the next round', { height, round })
    }
    const kind = this.kindAt(message.signed.payload.height)
    this.opts.transport.broadcast(message.code, codecFor(kind).encode(message), kind)
  }

  private async propose(height: bigint, round: number, timestamp: bigint): Promise<void> {
    const parent = this.chain.head
    if (parent.header.number + 1n !== height) return
    const validators = this.tracker.validatorsAfter(parent.header)
    const kind = this.kindAt(height)
    // Validators chosen by contract are neither listed nor voted on in the header.
    const isContract = this.isContractMode(height)
    const consensus = proposalHeaderFields({
      kind,
      round,
      proposer: this.machine.address,
      validators: isContract ? [] : validators,
      vote: isContract ? undefined : this.voteFor(validators),
      vanity: this.opts.blocks?.extraData,
    })
    const isLondon = parent.header.common.isActivatedEIP(1559)
    const candidates = this.pool.executable(isLondon ? this.chain.nextBaseFee(parent.header) : 0n)
    const assembled = await this.assembler.assemble(parent, candidates, { ...consensus, timestamp })
    this.built.set(bytesToHex(assembled.block.hash()), assembled)
    await this.apply(this.machine.blockCreated(round, assembled.block))
  }

  private async importSealed(block: Block, round: number): Promise<void> {
    const key = bytesToHex(block.hash())
    const assembled = this.built.get(key)
    this.built.clear()
    // Exclusive with the chain's other writers: eth/68 may bring the same block from a peer meanwhile.
    await this.chain.exclusive(async () => {
      if (assembled && !this.chain.store.hasBlock(block.hash())) await this.assembler.commit(block, assembled)
      else await importBlock(this.chain, block, { setHead: true })
    })
    const fields = { number: block.header.number, hash: key, txs: block.transactions.length, round }
    log.info('imported sealed block', fields)
  }

  private schedule(): void {
    this.timer?.cancel()
    const at = this.machine.nextDeadlineMs()
    if (at === undefined || this.isStopped) return
    const delay = Math.max(0, at - this.opts.clock.nowMs())
    // Round timeouts double each round: past about 24.8 days a plain timer would fire at once.
    this.timer = after(delay, () => this.enqueue(() => this.apply(this.machine.tick())), { unref: true })
  }

  /** Says, when it changes, whether and why this node seals blocks. */
  private reportStatus(head: Block, validators: Uint8Array[]): void {
    const self = bytesToHex(this.machine.address)
    const list = validators.map(bytesToHex)
    const quorum = quorumSize(list.length)
    let status: string
    if (!list.includes(self)) {
      status = `node ${self} is not one of the ${list.length} validators (${list.join(', ')}); it proposes and seals no blocks, so no block comes unless those validators run and reach it`
    } else if (quorum > 1 && !this.opts.hasPeers) {
      status = `node ${self} is one of ${list.length} validators, but a block needs ${quorum} commit seals and this node reaches no other validator (no peer-to-peer network): no block will be produced`
    } else {
      status = `node ${self} is one of ${list.length} validators and seals blocks (quorum ${quorum})`
    }
    if (status === this.lastStatus) return
    this.lastStatus = status
    const fields = { head: head.header.number, validators: list.length }
    if (status.includes('no block')) log.warn(status, fields)
    else log.info(status, fields)
  }
}
