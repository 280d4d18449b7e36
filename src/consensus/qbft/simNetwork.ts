/**
 * An in-process network of QBFT validators on one fake clock, for tests: each node is a state
 * machine with an in-memory chain of empty blocks; messages go through the wire codec to every
 * reachable peer; imported blocks are gossiped, and a node that missed blocks copies them from a
 * reachable peer (what eth sync does between real nodes). Links can be cut to drop a node or split
 * the network.
 */
import { type Block, createBlock, createBlockFromBytesArray } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { manualClock } from '../../primitives/clock.ts'
import { bytesToHex, type Hex } from '../../primitives/hex.ts'
import type { BftKind, BftVote } from '../bftExtraData.ts'
import { proposalHeaderFields, validateBftHeader } from '../bftHeaderRules.ts'
import { ValidatorTracker } from '../voteTally.ts'
import { codecFor } from './messageCodec.ts'
import { PROPOSAL } from './messages.ts'
import { type QbftAction, QbftStateMachine } from './qbftStateMachine.ts'

export interface SimOptions {
  kind: BftKind
  common: Common
  genesis: Block
  keys: Uint8Array[]
  blockPeriodSeconds: number
  requestTimeoutSeconds: number
  epochLength: bigint
  startMs: number
}

export class SimNode {
  readonly blocks = new Map<Hex, Block>()
  readonly byNumber: Block[] = []
  readonly machine: QbftStateMachine
  readonly tracker: ValidatorTracker
  vote?: BftVote
  isUp = true

  readonly id: number
  private readonly net: SimNetwork

  constructor(id: number, key: Uint8Array, net: SimNetwork) {
    this.id = id
    this.net = net
    const o = net.opts
    this.machine = new QbftStateMachine({ ...o, privateKey: key, clock: net.clock })
    this.tracker = new ValidatorTracker(o.kind, o.epochLength, {
      getHeaderByHash: (h) => this.blocks.get(bytesToHex(h))?.header,
    })
    this.store(o.genesis)
  }

  get head(): Block {
    return this.byNumber[this.byNumber.length - 1]
  }

  private store(block: Block): void {
    this.blocks.set(bytesToHex(block.hash()), block)
    this.byNumber[Number(block.header.number)] = block
  }

  start(): void {
    this.apply(this.machine.startHeight(this.head.header, this.tracker.validatorsAfter(this.head.header)))
  }

  apply(actions: QbftAction[]): void {
    for (const a of actions) {
      if (a.type === 'broadcast') this.net.send(this, a.message.code, codecFor(this.net.opts.kind).encode(a.message))
      else if (a.type === 'createBlock')
        this.apply(this.machine.blockCreated(a.round, this.build(a.round, a.timestampSec)))
      else if (a.type === 'import' && this.importBlock(a.block)) this.net.gossip(this, a.block)
    }
  }

  private build(round: number, timestamp: bigint): Block {
    const parent = this.head.header
    const validators = this.tracker.validatorsAfter(parent)
    const isUseful = (v: BftVote) => v.isAuth !== validators.some((x) => bytesToHex(x) === bytesToHex(v.recipient))
    const fields = proposalHeaderFields({
      kind: this.net.opts.kind,
      round,
      proposer: this.machine.address,
      validators,
      vote: this.vote && isUseful(this.vote) ? this.vote : undefined,
    })
    const header = {
      ...fields,
      parentHash: parent.hash(),
      number: parent.number + 1n,
      timestamp,
      gasLimit: parent.gasLimit,
    }
    return createBlock({ header }, { common: this.net.opts.common })
  }

  /** Stores a sealed block on the head after checking its header and seals; false when refused. */
  importBlock(block: Block): boolean {
    if (this.blocks.has(bytesToHex(block.hash())) || block.header.number !== this.head.header.number + 1n) return false
    const validators = this.tracker.validatorsAfter(this.head.header)
    const { kind, blockPeriodSeconds } = this.net.opts
    validateBftHeader(block.header, this.head.header, { kind, blockPeriodSeconds, validators, requireSeals: true })
    this.store(block)
    this.start()
    return true
  }

  receive(code: number, data: Uint8Array): void {
    const msg = codecFor(this.net.opts.kind).decode(code, data, (values) =>
      createBlockFromBytesArray(values as never, { common: this.net.opts.common }),
    )
    if (msg.code === PROPOSAL && msg.signed.payload.height === this.machine.height) {
      const { kind, blockPeriodSeconds } = this.net.opts
      const validators = this.machine.validators
      try {
        validateBftHeader(msg.signed.payload.block.header, this.head.header, {
          kind,
          blockPeriodSeconds,
          validators,
          requireSeals: false,
        })
      } catch {
        return
      }
    }
    this.apply(this.machine.receive(msg))
  }
}

export class SimNetwork {
  readonly clock
  readonly nodes: SimNode[]
  private readonly queue: { to: SimNode; code: number; data: Uint8Array }[] = []
  /** Pairs "a-b" that cannot reach each other. */
  private readonly cut = new Set<string>()
  /** Messages for which this answers false are lost on the way. */
  dropIf: (code: number, data: Uint8Array) => boolean = () => false

  readonly opts: SimOptions

  constructor(opts: SimOptions) {
    this.opts = opts
    this.clock = manualClock(opts.startMs)
    this.nodes = opts.keys.map((k, i) => new SimNode(i, k, this))
  }

  canReach(a: SimNode, b: SimNode): boolean {
    return a !== b && a.isUp && b.isUp && !this.cut.has(`${a.id}-${b.id}`)
  }

  /** Cuts every link between the two groups (given by node id). */
  partition(left: number[], right: number[]): void {
    for (const a of left) for (const b of right) this.cut.add(`${a}-${b}`).add(`${b}-${a}`)
  }

  heal(): void {
    this.cut.clear()
  }

  send(from: SimNode, code: number, data: Uint8Array): void {
    if (this.dropIf(code, data)) return
    for (const to of this.nodes) if (this.canReach(from, to)) this.queue.push({ to, code, data })
  }

  gossip(from: SimNode, block: Block): void {
    for (const to of this.nodes) if (this.canReach(from, to)) to.importBlock(block)
  }

  start(): void {
    for (const n of this.nodes) n.start()
  }

  /** Advances the clock in steps of `stepMs`, ticking every live node and delivering every message. */
  run(ms: number, stepMs = 100): void {
    for (let t = 0; t < ms; t += stepMs) {
      this.clock.advance(stepMs)
      for (const n of this.nodes) if (n.isUp) this.syncFromPeers(n)
      for (const n of this.nodes) if (n.isUp) n.apply(n.machine.tick())
      for (let i = 0; i < 100_000 && this.queue.length > 0; i++) {
        const m = this.queue.shift()!
        if (m.to.isUp) m.to.receive(m.code, m.data)
      }
    }
  }

  /** Copies the blocks a node lacks from the longest reachable peer (eth sync between real nodes). */
  private syncFromPeers(n: SimNode): void {
    const peers = this.nodes.filter((p) => this.canReach(p, n))
    const best = peers.sort((a, b) => Number(b.head.header.number - a.head.header.number))[0]
    while (best && best.head.header.number > n.head.header.number) {
      if (!n.importBlock(best.byNumber[Number(n.head.header.number) + 1])) break
    }
  }
}
