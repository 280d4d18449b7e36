/**
 * Full sync from one peer at a time: learn the number of the peer's head, find the highest block we
 * share (walking back in batches of canonical headers), then fetch headers and bodies forward and
 * hand each block to the importer — which validates and executes it as `blocks import` does. One run
 * at a time; a request made meanwhile runs after it. `status()` feeds eth_syncing.
 */
import type { Block } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { decodeBlockRlp, headerHashOf } from '../../chain/blockRlp.ts'
import type { Chain } from '../../chain/chain.ts'
import { maxBigInt, minBigInt } from '../../primitives/bigintMath.ts'
import { bytesToBigint, bytesToHex, equalBytes } from '../../primitives/hex.ts'
import { createLogger } from '../../primitives/logger.ts'
import type { HeaderQuery } from './messages.ts'

const log = createLogger('sync')
const HEADER_BATCH = 128
const ANCESTOR_BATCH = 64
/** How far back the ancestor search goes before giving up on a peer. */
const MAX_ANCESTOR_BATCHES = 256
const MAX_FORWARD_BATCHES = 100_000

type Nested = Uint8Array | Nested[]

/** What sync needs from a peer: its announced head and two requests. */
export interface SyncPeer {
  readonly id: string
  headHash: Uint8Array
  getHeaders(q: HeaderQuery): Promise<Nested[]>
  getBodies(hashes: Uint8Array[]): Promise<Nested[]>
}

export interface SyncStatus {
  startingBlock: bigint
  currentBlock: bigint
  highestBlock: bigint
}

export class BlockSync {
  private running?: Promise<void>
  private queued?: SyncPeer
  private current?: SyncStatus

  private readonly chain: Chain
  private readonly importBlock: (block: Block) => Promise<void>

  constructor(chain: Chain, importBlock: (block: Block) => Promise<void>) {
    this.chain = chain
    this.importBlock = importBlock
  }

  /** The run in progress, or undefined when in sync. */
  status(): SyncStatus | undefined {
    return this.current && { ...this.current, currentBlock: this.chain.head.header.number }
  }

  /** Syncs from `peer` unless its head is already ours; resolves when this and queued runs end. */
  requestSync(peer: SyncPeer): Promise<void> {
    if (this.chain.store.hasBlock(peer.headHash)) return this.running ?? Promise.resolve()
    if (this.running) {
      this.queued = peer
      return this.running
    }
    this.running = (async () => {
      let next: SyncPeer | undefined = peer
      while (next) {
        this.queued = undefined
        await this.syncFrom(next).catch((e) =>
          log.warn('sync from peer failed', { peer: next?.id.slice(0, 16), error: (e as Error).message }),
        )
        next = this.queued
      }
      this.current = undefined
      this.running = undefined
    })()
    return this.running
  }

  private async syncFrom(peer: SyncPeer): Promise<void> {
    if (this.chain.store.hasBlock(peer.headHash)) return
    const [head] = await peer.getHeaders({ origin: peer.headHash, amount: 1, skip: 0, reverse: false })
    if (!head) return
    const target = headerNumber(head)
    const ancestor = await this.findAncestor(peer, target)
    this.current = { startingBlock: this.chain.head.header.number, currentBlock: ancestor, highestBlock: target }
    log.info('syncing', { peer: peer.id.slice(0, 16), from: ancestor, to: target })
    let next = ancestor + 1n
    for (let i = 0; i < MAX_FORWARD_BATCHES; i++) {
      const headers = await peer.getHeaders({ origin: next, amount: HEADER_BATCH, skip: 0, reverse: false })
      if (headers.length === 0) break
      const hashes = headers.map((h) => headerHashOf(this.chain, h))
      const bodies = await peer.getBodies(hashes)
      if (bodies.length === 0) throw new Error('peer sent no bodies')
      for (const [j, body] of bodies.entries()) {
        const block = await decodeBlockRlp(this.chain, RLP.encode([headers[j], ...(body as Nested[])]))
        if (!equalBytes(block.hash(), hashes[j])) throw new Error(`body does not match header ${bytesToHex(hashes[j])}`)
        await this.importBlock(block)
      }
      next += BigInt(bodies.length)
      if (this.current) this.current.highestBlock = maxBigInt(this.current.highestBlock, next - 1n)
      if (headers.length < HEADER_BATCH && bodies.length === headers.length) break
    }
    log.info('synced', { peer: peer.id.slice(0, 16), head: this.chain.head.header.number })
  }

  /** The highest block number at which the peer's canonical chain and ours hold the same block. */
  private async findAncestor(peer: SyncPeer, peerHead: bigint): Promise<bigint> {
    let from = minBigInt(this.chain.head.header.number, peerHead)
    for (let i = 0; i < MAX_ANCESTOR_BATCHES && from >= 0n; i++) {
      const headers = await peer.getHeaders({ origin: from, amount: ANCESTOR_BATCH, skip: 0, reverse: true })
      if (headers.length === 0) break
      for (const h of headers) if (this.chain.store.hasBlock(headerHashOf(this.chain, h))) return headerNumber(h)
      from -= BigInt(headers.length)
    }
    throw new Error('no common ancestor with the peer')
  }
}

function headerNumber(h: Nested): bigint {
  return bytesToBigint((h as Uint8Array[])[8])
}
