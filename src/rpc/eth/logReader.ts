/**
 * Reads logs for eth_getLogs and eth_getFilterLogs: ranges from the SQLite log index, single blocks
 * (EIP-234) from their receipts. The log index stores each log's block timestamp; rows written
 * before it did get theirs from one batched header read per query, cached by block hash, so a wide
 * query never decodes a block per log.
 */
import type { Block } from '@ethereumjs/block'
import type { Chain } from '../../chain/chain.ts'
import type { LogBloomCache } from '../../chain/logBloomCache.ts'
import { blockLogs, headerTimestamp, isUnsatisfiable, type LogCriteria, matchesLog } from '../../chain/logFilter.ts'
import type { BlockTagName } from '../../jsonrpc/codecs.ts'
import { BESU_PARAM_ERRORS, besuError, InvalidParamsError } from '../../jsonrpc/errors.ts'
import { type JsonText, JsonTextWriter } from '../../jsonrpc/jsonText.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import type { LogQuery, StoredLog } from '../../storage/chainStore.ts'
import { formatStoredLog, writeStoredLogs } from '../format.ts'

/**
 * Besu puts no cap on results; an unbounded answer can exhaust memory, so a query matching more
 * logs than this fails with -32005 and go-ethereum's / Infura's wording, which log-fetching
 * clients recognise as "split the range and retry".
 */
export const MAX_LOG_RESULTS = 10_000
const TIMESTAMP_CACHE_SIZE = 65_536

/**
 * Whether the bloom cache beats the log index for `c`: only when a topic without an index column
 * (positions 1 to 3) is constrained. Measured on 200,000 blocks (docs/performance.md): a topic1 or
 * topic2 filter took 144 ms from the log index and 28–38 ms with the cache; an address-only filter
 * took 57 ms from its index and 113 ms with the cache.
 */
function isBloomFaster(c: LogCriteria): boolean {
  return c.topics.slice(1, 4).some((alts) => alts !== null && alts.length > 0)
}

type Json = Record<string, unknown>

export class LogReader {
  private readonly timestamps = new Map<string, bigint>()
  /** Writes answers' text; each answer is written and handed out in one synchronous call. */
  private readonly writer = new JsonTextWriter()

  private readonly chain: Chain
  private readonly bloomCache?: LogBloomCache

  constructor(chain: Chain, bloomCache?: LogBloomCache) {
    this.chain = chain
    this.bloomCache = bloomCache
  }

  /** The block number a filter bound names; safe/finalized before there is one is an error. */
  blockNumberOf(ref: BlockTagName | bigint): bigint {
    if (typeof ref === 'bigint') return ref
    switch (ref) {
      case 'latest':
      case 'pending':
        return this.chain.head.header.number
      case 'earliest':
        return 0n
      case 'safe':
      case 'finalized': {
        const block = this.chain[ref]
        if (!block) throw besuError('unknownBlock', `Unknown block: no ${ref} block yet`)
        return block.header.number
      }
    }
  }

  /**
   * The canonical block range of a filter. A range past the head is an error for eth_getLogs, as
   * in the execution-apis tests; `isClamped` cuts it at the head instead (installed filters).
   */
  range(fromRef: BlockTagName | bigint, toRef: BlockTagName | bigint, isClamped = false): { from: bigint; to: bigint } {
    const from = this.blockNumberOf(fromRef)
    let to = this.blockNumberOf(toRef)
    // Besu's FilterParameter.isValid refuses a reversed range: its filter text.
    if (from > to) throw new InvalidParamsError(BESU_PARAM_ERRORS.filter)
    const head = this.chain.head.header.number
    if (to > head) {
      if (!isClamped) throw new InvalidParamsError('block range extends beyond current head block')
      to = head
    }
    return { from, to }
  }

  /** Canonical logs in `[from, to]` meeting `c`, as JSON. */
  inRange(from: bigint, to: bigint, c: LogCriteria): Json[] {
    const { logs, timestampOf } = this.matching(from, to, c)
    return logs.map((l) => formatStoredLog(l, timestampOf(l)))
  }

  /** The same as `inRange`, as its JSON text (eth_getLogs' answer, written without its objects). */
  inRangeText(from: bigint, to: bigint, c: LogCriteria): JsonText {
    const { logs, timestampOf } = this.matching(from, to, c)
    return writeStoredLogs(this.writer, logs, timestampOf)
  }

  /** The index's logs in `[from, to]` meeting `c`, and each one's block timestamp. */
  private matching(
    from: bigint,
    to: bigint,
    c: LogCriteria,
  ): { logs: StoredLog[]; timestampOf: (l: StoredLog) => bigint } {
    if (from > to || isUnsatisfiable(c)) return { logs: [], timestampOf: () => 0n }
    const q: LogQuery = {
      fromBlock: Number(from),
      toBlock: Number(to),
      addresses: c.addresses,
      topics: c.topics,
      limit: MAX_LOG_RESULTS + 1,
    }
    const logs =
      this.bloomCache && isBloomFaster(c) ? this.viaBloomCache(this.bloomCache, q, c) : this.chain.store.queryLogs(q)
    if (logs.length > MAX_LOG_RESULTS) throw besuError('exceedsMaxLogResults')
    const times = this.timestampsOf(logs.filter((l) => l.blockTimestamp === undefined))
    return {
      logs,
      timestampOf: (l) => (l.blockTimestamp === undefined ? (times.get(l.blockHash) ?? 0n) : BigInt(l.blockTimestamp)),
    }
  }

  /**
   * The same answer as one log index query, with the blocks of complete bloom segments narrowed to
   * those whose bloom may match; ranges the cache does not cover go to the log index whole.
   */
  private viaBloomCache(cache: LogBloomCache, q: LogQuery, c: LogCriteria): StoredLog[] {
    const { covered, blocks } = cache.candidates(q.fromBlock, q.toBlock, c)
    const out: StoredLog[] = []
    const limit = q.limit ?? Number.POSITIVE_INFINITY
    const add = (logs: StoredLog[]) => out.push(...logs.slice(0, limit - out.length))
    let next = q.fromBlock
    let b = 0
    for (const [lo, hi] of covered) {
      if (next < lo)
        add(this.chain.store.queryLogs({ ...q, fromBlock: next, toBlock: lo - 1, limit: limit - out.length }))
      const start = b
      while (b < blocks.length && blocks[b] <= hi) b++
      if (out.length < limit)
        add(this.chain.store.queryLogsOfBlocks(blocks.slice(start, b), { ...q, limit: limit - out.length }))
      next = hi + 1
    }
    if (next <= q.toBlock && out.length < limit)
      add(this.chain.store.queryLogs({ ...q, fromBlock: next, limit: limit - out.length }))
    return out
  }

  /** Logs of one stored block meeting `c`; unknown blocks have none (Besu), off-chain ones are `removed`. */
  async inBlock(blockHash: Uint8Array, c: LogCriteria): Promise<Json[]> {
    const block = await this.chain.getBlockByHash(blockHash)
    if (!block) return []
    return this.ofBlock(block, c, !this.chain.isCanonical(block))
  }

  /** Logs of `block` (from its receipts) meeting `c`. */
  ofBlock(block: Block, c: LogCriteria, isRemoved: boolean, logs?: StoredLog[]): Json[] {
    const all = logs ?? blockLogs(block, this.chain.getReceipts(block))
    return all
      .filter((l) => matchesLog(c, l.address, l.topics))
      .map((l) => formatStoredLog(l, block.header.timestamp, isRemoved))
  }

  /** Timestamps of the logs' blocks from their headers, keyed by the log's own blockHash object. */
  private timestampsOf(logs: StoredLog[]): Map<Uint8Array, bigint> {
    const out = new Map<Uint8Array, bigint>()
    const missing = new Map<string, Uint8Array[]>()
    let lastKey = ''
    let lastTime: bigint | undefined
    for (const l of logs) {
      const key = bytesToHex(l.blockHash)
      if (key !== lastKey) {
        lastKey = key
        lastTime = this.timestamps.get(key)
      }
      if (lastTime !== undefined) out.set(l.blockHash, lastTime)
      else {
        const list = missing.get(key)
        if (list) list.push(l.blockHash)
        else missing.set(key, [l.blockHash])
      }
    }
    if (missing.size === 0) return out
    const rows = this.chain.store.readHeaderRlps([...missing.values()].map((list) => list[0]))
    for (const r of rows) {
      const key = bytesToHex(r.hash)
      const time = headerTimestamp(r.rlp)
      this.remember(key, time)
      for (const h of missing.get(key) ?? []) out.set(h, time)
    }
    return out
  }

  private remember(key: string, time: bigint): void {
    this.timestamps.set(key, time)
    if (this.timestamps.size > TIMESTAMP_CACHE_SIZE) this.timestamps.delete(this.timestamps.keys().next().value!)
  }
}
