/**
 * Installed filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter) and their
 * accumulated changes, fed by canonical-chain updates (with removed logs after a reorg) and by the
 * pool. Filters not polled for `timeoutMs` (Besu: 10 minutes) are gone, and at most `maxFilters`
 * (Besu's --rpc-max-active-filters, 1000) live at once. Also holds the log reader behind
 * eth_getLogs and the WebSocket subscriptions, which share the same chain updates.
 */
import type { Chain } from '../../chain/chain.ts'
import type { LogBloomCache } from '../../chain/logBloomCache.ts'
import { besuError } from '../../jsonrpc/errors.ts'
import type { JsonText } from '../../jsonrpc/jsonText.ts'
import { type Clock, systemClock } from '../../primitives/clock.ts'
import { bytesToBigint, bytesToHex, toQuantity } from '../../primitives/hex.ts'
import type { TxPool } from '../../txpool/txPool.ts'
import { type ChainUpdate, HeadTracker } from './headTracker.ts'
import type { FilterParam } from './logFilterParam.ts'
import { LogReader, MAX_LOG_RESULTS } from './logReader.ts'
import { type SubscriptionLimits, SubscriptionManager } from './subscriptionManager.ts'

export const FILTER_TIMEOUT_MS = 10 * 60 * 1000
export const MAX_FILTERS = 1000
const SWEEP_INTERVAL_MS = 60 * 1000

type Json = Record<string, unknown>

type Filter = { lastPollMs: number } & (
  | { kind: 'log'; param: FilterParam; changes: Json[] }
  | { kind: 'block'; changes: string[] }
  | { kind: 'pendingTransaction'; changes: string[] }
)

export interface FilterManagerOptions {
  clock?: Clock
  timeoutMs?: number
  maxFilters?: number
  subscriptions?: SubscriptionLimits
  /** Log bloom cache files, used by log queries where they beat the log index. */
  logBloomCache?: LogBloomCache
}

export class FilterManager {
  readonly logs: LogReader
  readonly heads: HeadTracker
  readonly subscriptions: SubscriptionManager
  private readonly filters = new Map<string, Filter>()
  private readonly clock: Clock
  private readonly timeoutMs: number
  private readonly maxFilters: number
  private readonly unsubscribers: (() => void)[] = []
  private readonly sweeper: ReturnType<typeof setInterval>

  readonly chain: Chain
  readonly pool: TxPool

  constructor(chain: Chain, pool: TxPool, opts: FilterManagerOptions = {}) {
    this.chain = chain
    this.pool = pool
    this.clock = opts.clock ?? systemClock
    this.timeoutMs = opts.timeoutMs ?? FILTER_TIMEOUT_MS
    this.maxFilters = opts.maxFilters ?? MAX_FILTERS
    this.logs = new LogReader(chain, opts.logBloomCache)
    this.heads = new HeadTracker(chain)
    this.subscriptions = new SubscriptionManager(chain, this.logs, opts.subscriptions)
    this.unsubscribers.push(
      this.heads.onUpdate((u) => this.onChainUpdate(u)),
      this.heads.onUpdate((u) => this.subscriptions.onChainUpdate(u)),
      pool.onAdded((t) => {
        for (const f of this.filters.values()) if (f.kind === 'pendingTransaction') push(f.changes, t.hash)
        this.subscriptions.onPendingTransaction(t)
      }),
    )
    this.sweeper = setInterval(() => this.sweep(), Math.min(SWEEP_INTERVAL_MS, this.timeoutMs))
    this.sweeper.unref?.()
  }

  newLogFilter(param: FilterParam): string {
    return this.install({ kind: 'log', param, changes: [], lastPollMs: this.clock.nowMs() })
  }

  newBlockFilter(): string {
    return this.install({ kind: 'block', changes: [], lastPollMs: this.clock.nowMs() })
  }

  newPendingTransactionFilter(): string {
    return this.install({ kind: 'pendingTransaction', changes: [], lastPollMs: this.clock.nowMs() })
  }

  /** What happened since the last poll: logs, block hashes or transaction hashes. */
  changes(id: string): unknown[] {
    const f = this.find(id)
    const out = f.changes
    f.changes = []
    return out
  }

  /** Every log a log filter matches now, over its whole range (a range as its JSON text, as eth_getLogs). */
  async filterLogs(id: string): Promise<Json[] | JsonText> {
    const f = this.find(id)
    if (f.kind !== 'log') throw besuError('filterNotFound')
    const { param } = f
    if (param.blockHash) return this.logs.inBlock(param.blockHash, param.criteria)
    const { from, to } = this.logs.range(param.fromBlock, param.toBlock, true)
    return this.logs.inRangeText(from, to, param.criteria)
  }

  uninstall(id: string): boolean {
    return this.filters.delete(id.toLowerCase())
  }

  /** Removes the filters nobody polled within the timeout. */
  sweep(): void {
    for (const [id, f] of this.filters) if (this.isExpired(f)) this.filters.delete(id)
  }

  get size(): number {
    return this.filters.size
  }

  stop(): void {
    clearInterval(this.sweeper)
    for (const u of this.unsubscribers) u()
    this.heads.stop()
    this.subscriptions.stop()
    this.filters.clear()
  }

  private install(f: Filter): string {
    if (this.filters.size >= this.maxFilters) this.sweep()
    if (this.filters.size >= this.maxFilters) throw besuError('exceedsMaxActiveFilters')
    const id = newFilterId()
    this.filters.set(id, f)
    return id
  }

  private find(id: string): Filter {
    const f = this.filters.get(id.toLowerCase())
    if (!f || this.isExpired(f)) throw besuError('filterNotFound')
    f.lastPollMs = this.clock.nowMs()
    return f
  }

  /** Expired between sweeps too: the timeout holds to the millisecond, whenever the sweep runs. */
  private isExpired(f: Filter): boolean {
    return f.lastPollMs < this.clock.nowMs() - this.timeoutMs
  }

  private onChainUpdate(u: ChainUpdate): void {
    for (const f of this.filters.values()) {
      if (f.kind === 'block') {
        for (const { block } of u.added) push(f.changes, bytesToHex(block.hash()))
      } else if (f.kind === 'log' && !f.param.blockHash) {
        for (const { block, logs } of u.removed) {
          if (this.isInRange(f.param, block.header.number))
            push(f.changes, ...this.logs.ofBlock(block, f.param.criteria, true, logs))
        }
        for (const { block, logs } of u.added) {
          if (this.isInRange(f.param, block.header.number))
            push(f.changes, ...this.logs.ofBlock(block, f.param.criteria, false, logs))
        }
      }
    }
  }

  /** Numeric bounds limit a filter; tags (latest, pending, …) follow the head. */
  private isInRange(param: FilterParam, n: bigint): boolean {
    if (typeof param.fromBlock === 'bigint' && n < param.fromBlock) return false
    if (typeof param.toBlock === 'bigint' && n > param.toBlock) return false
    return true
  }
}

/** Keeps at most MAX_LOG_RESULTS changes per filter, dropping the oldest. */
function push<T>(list: T[], ...items: T[]): void {
  list.push(...items)
  if (list.length > MAX_LOG_RESULTS) list.splice(0, list.length - MAX_LOG_RESULTS)
}

/** Besu's filter ids: 16 random bytes as a hex quantity. */
function newFilterId(): string {
  return toQuantity(bytesToBigint(crypto.getRandomValues(new Uint8Array(16))))
}
