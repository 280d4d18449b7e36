/**
 * Turns the chain's new-head events into canonical-chain updates: the blocks (with their logs) that
 * left the canonical chain and those that joined it. A head that does not extend the previous one
 * (a reorg, a forkchoice jump or a rewind) is walked back to the common ancestor, so filters and
 * subscriptions can report removed logs and every new head in order.
 */
import type { Block } from '@ethereumjs/block'
import type { Chain, NewBlockEvent } from '../../chain/chain.ts'
import { blockLogs } from '../../chain/logFilter.ts'
import { equalBytes } from '../../primitives/hex.ts'
import { createLogger } from '../../primitives/logger.ts'
import type { StoredLog } from '../../storage/chainStore.ts'

const log = createLogger('rpc')

/** Deeper reorgs are reported only down to this many blocks. */
const MAX_REORG_DEPTH = 1024

export interface BlockWithLogs {
  block: Block
  logs: StoredLog[]
}

export interface ChainUpdate {
  /** Blocks that left the canonical chain, newest first. */
  removed: BlockWithLogs[]
  /** Blocks that joined the canonical chain, oldest first. */
  added: BlockWithLogs[]
}

export class HeadTracker {
  private last: Block
  private queue: Promise<void> = Promise.resolve()
  private queued = 0
  private readonly listeners = new Set<(u: ChainUpdate) => void>()
  private readonly unsubscribe: () => void

  private readonly chain: Chain

  constructor(chain: Chain) {
    this.chain = chain
    this.last = chain.head
    this.unsubscribe = chain.onNewBlock((e) => this.onNewBlock(e))
  }

  onUpdate(fn: (u: ChainUpdate) => void): () => void {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  stop(): void {
    this.unsubscribe()
    this.listeners.clear()
  }

  /** Resolves once every head seen so far has been reported. */
  idle(): Promise<void> {
    return this.queue
  }

  private onNewBlock(e: NewBlockEvent): void {
    // The common case stays synchronous: the update reaches clients before the next block lands.
    if (this.queued === 0 && equalBytes(e.block.header.parentHash, this.last.hash())) {
      this.last = e.block
      this.emit({ removed: [], added: [{ block: e.block, logs: blockLogs(e.block, e.receipts) }] })
      return
    }
    this.queued++
    this.queue = this.queue
      .then(async () => {
        const update = await this.walk(this.last, e.block)
        this.last = e.block
        this.emit(update)
      })
      .catch((err) =>
        log.error('reporting a head change failed', { error: err instanceof Error ? err.message : String(err) }),
      )
      .finally(() => {
        this.queued--
      })
  }

  private async walk(oldHead: Block, newHead: Block): Promise<ChainUpdate> {
    const removed: BlockWithLogs[] = []
    let cur: Block | undefined = oldHead
    while (cur && !this.chain.isCanonical(cur) && removed.length < MAX_REORG_DEPTH) {
      removed.push(this.withLogs(cur))
      cur = await this.chain.getBlockByHash(cur.header.parentHash)
    }
    const forkNumber = cur?.header.number ?? -1n
    const added: BlockWithLogs[] = []
    let b: Block | undefined = newHead
    while (b && b.header.number > forkNumber && added.length < MAX_REORG_DEPTH) {
      added.unshift(this.withLogs(b))
      b = await this.chain.getBlockByHash(b.header.parentHash)
    }
    return { removed, added }
  }

  private withLogs(block: Block): BlockWithLogs {
    return { block, logs: blockLogs(block, this.chain.getReceipts(block)) }
  }

  private emit(u: ChainUpdate): void {
    for (const fn of this.listeners) {
      try {
        fn(u)
      } catch (err) {
        log.error('head listener failed', { error: err instanceof Error ? err.message : String(err) })
      }
    }
  }
}
