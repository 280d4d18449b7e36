/**
 * The gauges a running node adds to the metrics registry (read by debug_metrics): pool counts,
 * head height, database size, unflushed state, process memory and uptime.
 */
import type { Chain } from '../chain/chain.ts'
import { metrics } from '../primitives/metrics.ts'
import type { TxPool } from '../txpool/txPool.ts'
import type { CallPool } from './callPool.ts'
import type { ListenerThreads } from './listenerThreads.ts'

const GAUGE_CATEGORY_POOL = 'transaction_pool'
const GAUGE_CATEGORY_STORAGE = 'storage'
const GAUGE_CATEGORY_PROCESS = 'process'
const GAUGE_CATEGORY_CHAIN = 'blockchain'
const GAUGE_CATEGORY_CALLS = 'rpc_calls'
const GAUGE_CATEGORY_LISTENERS = 'rpc_listener_threads'

/** The figures read when debug_metrics asks: pool counts, head, database size, process memory. */
export function registerNodeGauges(chain: Chain, pool: TxPool): void {
  metrics.gauge(GAUGE_CATEGORY_POOL, 'transactions', () => pool.size)
  metrics.gauge(GAUGE_CATEGORY_POOL, 'max_size', () => pool.maxSize)
  metrics.gauge(GAUGE_CATEGORY_CHAIN, 'height', () => Number(chain.head.header.number))
  metrics.gauge(GAUGE_CATEGORY_STORAGE, 'database_used_bytes', () => chain.store.sizeBytes().usedBytes)
  metrics.gauge(GAUGE_CATEGORY_STORAGE, 'database_free_bytes', () => chain.store.sizeBytes().freeBytes)
  metrics.gauge(GAUGE_CATEGORY_STORAGE, 'unflushed_trie_nodes', () => chain.trieDb.pendingCount)
  const startedMs = Date.now()
  metrics.gauge(GAUGE_CATEGORY_PROCESS, 'uptime_seconds', () => Math.floor((Date.now() - startedMs) / 1000))
  metrics.gauge(GAUGE_CATEGORY_PROCESS, 'resident_memory_bytes', () => process.memoryUsage().rss)
  metrics.gauge(GAUGE_CATEGORY_PROCESS, 'heap_used_bytes', () => process.memoryUsage().heapUsed)
  // The JavaScript heap's split (what the collector holds, live or not yet collected, and the
  // memory outside it that heap objects own: typed arrays' stores), to tell it from SQLite's.
  metrics.gauge(GAUGE_CATEGORY_PROCESS, 'heap_total_bytes', () => process.memoryUsage().heapTotal)
  metrics.gauge(GAUGE_CATEGORY_PROCESS, 'external_memory_bytes', () => process.memoryUsage().external)
}

/** How many eth_call / eth_estimateGas the call workers answered, and how many ran on the main thread. */
export function registerCallGauges(calls: CallPool): void {
  metrics.gauge(GAUGE_CATEGORY_CALLS, 'worker_answers', () => calls.counts.worker)
  metrics.gauge(GAUGE_CATEGORY_CALLS, 'main_thread_answers', () => calls.counts.here)
  metrics.gauge(GAUGE_CATEGORY_CALLS, 'stale_worker_answers', () => calls.counts.stale)
}

/** How many listener threads listen, and how many requests they answered themselves. */
export function registerListenerGauges(threads: ListenerThreads): void {
  metrics.gauge(GAUGE_CATEGORY_LISTENERS, 'listening', () => threads.counts.listening)
  metrics.gauge(GAUGE_CATEGORY_LISTENERS, 'answered', () => threads.counts.answered)
}

/** Removes the gauges of a stopped node (their sources are closed). */
export function dropNodeGauges(): void {
  for (const category of [
    GAUGE_CATEGORY_POOL,
    GAUGE_CATEGORY_STORAGE,
    GAUGE_CATEGORY_PROCESS,
    GAUGE_CATEGORY_CHAIN,
    GAUGE_CATEGORY_CALLS,
    GAUGE_CATEGORY_LISTENERS,
  ])
    metrics.dropGauges(category)
}
