/**
 * Typed accessors over the schema (readX / writeX / deleteX). Bytes in, bytes out: encoding blocks
 * and receipts is the chain layer's business; this layer only knows rows.
 */
import { bigintToBytes as bigToBytes, bytesToBigint as bytesToBig } from '../primitives/hex.ts'
import { runRows, valuesSql } from './multiRow.ts'
import type { SqlDatabase, SqlValue } from './sqlite.ts'

export interface StoredLog {
  blockNumber: number
  logIndex: number
  blockHash: Uint8Array
  txHash: Uint8Array
  txIndex: number
  address: Uint8Array
  topics: Uint8Array[]
  data: Uint8Array
  /** Seconds; absent for rows written before the column existed. */
  blockTimestamp?: number
}

export interface BlockRow {
  hash: Uint8Array
  number: bigint
  totalDifficulty: bigint
  headerRlp: Uint8Array
  bodyRlp: Uint8Array
  /** 20 bytes per transaction, in block order. */
  senders: Uint8Array
  receiptsRlp: Uint8Array
  /** The RLP of the block's access list (EIP-7928); absent before Amsterdam. */
  blockAccessListRlp?: Uint8Array
  /** The RLP of the block's revert reasons (see schema.ts); absent when none are recorded. */
  revertReasonsRlp?: Uint8Array
}

export interface CanonicalEntry {
  number: bigint
  hash: Uint8Array
  txHashes: Uint8Array[]
  logs: StoredLog[]
}

/** A log query: inclusive block range, any-of addresses, per-position any-of topics (null = any). */
export interface LogQuery {
  fromBlock: number
  toBlock: number
  addresses: Uint8Array[]
  topics: (Uint8Array[] | null)[]
  limit?: number
}

const TOPIC_COLUMNS = ['topic0', 'topic1', 'topic2', 'topic3']
/** Block numbers per `IN (…)` query, well below SQLite's bound on parameters. */
const BLOCKS_PER_QUERY = 500
const INSERT_TRIE_NODES = valuesSql('INSERT OR IGNORE INTO trie_nodes (key, value)', 2)
/** A block's transaction and log index rows, in multi-row statements (a burst's block holds dozens). */
const INSERT_TXS = valuesSql('INSERT OR REPLACE INTO txs (hash, block_hash, idx)', 3)
const INSERT_LOGS = valuesSql(
  `INSERT OR REPLACE INTO logs (block_number, log_index, block_hash, tx_hash, tx_index, address,
   topic0, topic1, topic2, topic3, data, block_timestamp)`,
  12,
)

export class ChainStore {
  readonly db: SqlDatabase

  constructor(db: SqlDatabase) {
    this.db = db
  }

  readMeta(key: string): Uint8Array | undefined {
    return (this.db.prepare('SELECT value FROM meta WHERE key = ?').get(key)?.value as Uint8Array) ?? undefined
  }

  writeMeta(key: string, value: Uint8Array): void {
    this.db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(key, value)
  }

  deleteMeta(key: string): void {
    this.db.prepare('DELETE FROM meta WHERE key = ?').run(key)
  }

  readHeaderRlp(hash: Uint8Array): Uint8Array | undefined {
    return (this.db.prepare('SELECT rlp FROM headers WHERE hash = ?').get(hash)?.rlp as Uint8Array) ?? undefined
  }

  /** Header RLPs of many blocks (those stored), in batches of a fixed size so one statement serves all. */
  readHeaderRlps(hashes: Uint8Array[]): { hash: Uint8Array; rlp: Uint8Array }[] {
    const BATCH = 64
    const st = this.db.prepare(`SELECT hash, rlp FROM headers WHERE hash IN (${Array(BATCH).fill('?').join(',')})`)
    const out: { hash: Uint8Array; rlp: Uint8Array }[] = []
    for (let i = 0; i < hashes.length; i += BATCH) {
      const batch = hashes.slice(i, i + BATCH)
      while (batch.length < BATCH) batch.push(batch[0])
      for (const r of st.all(...batch)) out.push({ hash: r.hash as Uint8Array, rlp: r.rlp as Uint8Array })
    }
    return out
  }

  readTotalDifficulty(hash: Uint8Array): bigint | undefined {
    const td = this.db.prepare('SELECT td FROM headers WHERE hash = ?').get(hash)?.td as Uint8Array | undefined
    return td === undefined ? undefined : bytesToBig(td)
  }

  readBlockNumber(hash: Uint8Array): bigint | undefined {
    const n = this.db.prepare('SELECT number FROM headers WHERE hash = ?').get(hash)?.number
    return n === undefined ? undefined : BigInt(n as number)
  }

  readBody(hash: Uint8Array): { rlp: Uint8Array; senders: Uint8Array } | undefined {
    const row = this.db.prepare('SELECT rlp, senders FROM bodies WHERE hash = ?').get(hash)
    return row ? { rlp: row.rlp as Uint8Array, senders: row.senders as Uint8Array } : undefined
  }

  readReceiptsRlp(hash: Uint8Array): Uint8Array | undefined {
    return (this.db.prepare('SELECT rlp FROM receipts WHERE hash = ?').get(hash)?.rlp as Uint8Array) ?? undefined
  }

  hasBlock(hash: Uint8Array): boolean {
    return this.db.prepare('SELECT 1 AS x FROM headers WHERE hash = ?').get(hash) !== null
  }

  readCanonicalHash(number: bigint): Uint8Array | undefined {
    return (this.db.prepare('SELECT hash FROM canonical WHERE number = ?').get(number)?.hash as Uint8Array) ?? undefined
  }

  readTxLocation(txHash: Uint8Array): { blockHash: Uint8Array; index: number } | undefined {
    const row = this.db.prepare('SELECT block_hash, idx FROM txs WHERE hash = ?').get(txHash)
    return row ? { blockHash: row.block_hash as Uint8Array, index: Number(row.idx) } : undefined
  }

  /** Stores a block with its receipts; it becomes canonical only through `writeCanonical`. */
  writeBlock(b: BlockRow): void {
    this.db
      .prepare('INSERT OR REPLACE INTO headers (hash, number, td, rlp) VALUES (?, ?, ?, ?)')
      .run(b.hash, b.number, bigToBytes(b.totalDifficulty), b.headerRlp)
    this.db
      .prepare('INSERT OR REPLACE INTO bodies (hash, rlp, senders) VALUES (?, ?, ?)')
      .run(b.hash, b.bodyRlp, b.senders)
    this.db.prepare('INSERT OR REPLACE INTO receipts (hash, rlp) VALUES (?, ?)').run(b.hash, b.receiptsRlp)
    if (b.revertReasonsRlp !== undefined) {
      this.db.prepare('INSERT OR REPLACE INTO revert_reasons (hash, rlp) VALUES (?, ?)').run(b.hash, b.revertReasonsRlp)
    }
    if (b.blockAccessListRlp === undefined) return
    this.db
      .prepare('INSERT OR REPLACE INTO block_access_lists (hash, rlp) VALUES (?, ?)')
      .run(b.hash, b.blockAccessListRlp)
  }

  /** The RLP of a block's revert reasons, when they were recorded with it. */
  readRevertReasons(hash: Uint8Array): Uint8Array | undefined {
    return (this.db.prepare('SELECT rlp FROM revert_reasons WHERE hash = ?').get(hash)?.rlp as Uint8Array) ?? undefined
  }

  /** The RLP of a block's access list (EIP-7928), when one was stored with the block. */
  readBlockAccessList(hash: Uint8Array): Uint8Array | undefined {
    return (
      (this.db.prepare('SELECT rlp FROM block_access_lists WHERE hash = ?').get(hash)?.rlp as Uint8Array) ?? undefined
    )
  }

  /** Makes `e.hash` the canonical block at its height, indexing its transactions and logs. */
  writeCanonical(e: CanonicalEntry): void {
    this.db.prepare('INSERT OR REPLACE INTO canonical (number, hash) VALUES (?, ?)').run(e.number, e.hash)
    const txs: SqlValue[] = []
    for (const [i, h] of e.txHashes.entries()) txs.push(h, e.hash, i)
    runRows(this.db, INSERT_TXS, 3, txs)
    const logs: SqlValue[] = []
    for (const l of e.logs) {
      const t = l.topics
      logs.push(l.blockNumber, l.logIndex, l.blockHash, l.txHash, l.txIndex, l.address)
      logs.push(t[0] ?? null, t[1] ?? null, t[2] ?? null, t[3] ?? null, l.data, l.blockTimestamp ?? null)
    }
    runRows(this.db, INSERT_LOGS, 12, logs)
  }

  /** Drops the canonical entries at `fromNumber` and above, with their tx and log index rows. */
  deleteCanonicalFrom(fromNumber: bigint): void {
    const rows = this.db.prepare('SELECT hash FROM canonical WHERE number >= ?').all(fromNumber)
    for (const r of rows) this.db.prepare('DELETE FROM txs WHERE block_hash = ?').run(r.hash)
    this.db.prepare('DELETE FROM logs WHERE block_number >= ?').run(fromNumber)
    this.db.prepare('DELETE FROM canonical WHERE number >= ?').run(fromNumber)
  }

  /** Canonical logs matching `q`, in chain order. */
  queryLogs(q: LogQuery): StoredLog[] {
    return this.selectLogs(['block_number BETWEEN ? AND ?'], [q.fromBlock, q.toBlock], q, q.limit)
  }

  /**
   * Canonical logs of the listed blocks (ascending) matching `q`'s addresses and topics, in chain
   * order, at most `q.limit` (the log bloom cache's candidate blocks).
   */
  queryLogsOfBlocks(blocks: number[], q: LogQuery): StoredLog[] {
    const out: StoredLog[] = []
    for (let i = 0; i < blocks.length; i += BLOCKS_PER_QUERY) {
      const chunk = blocks.slice(i, i + BLOCKS_PER_QUERY)
      const left = q.limit === undefined ? undefined : q.limit - out.length
      if (left !== undefined && left <= 0) break
      out.push(...this.selectLogs([`block_number IN (${chunk.map(() => '?').join(',')})`], chunk, q, left))
    }
    return out
  }

  private selectLogs(where: string[], params: SqlValue[], q: LogQuery, limit?: number): StoredLog[] {
    if (q.addresses.length > 0) {
      where.push(`address IN (${q.addresses.map(() => '?').join(',')})`)
      params.push(...q.addresses)
    }
    q.topics.forEach((alts, i) => {
      if (!alts || alts.length === 0 || i > 3) return
      where.push(`${TOPIC_COLUMNS[i]} IN (${alts.map(() => '?').join(',')})`)
      params.push(...alts)
    })
    const limitSql = limit === undefined ? '' : ` LIMIT ${Math.floor(limit)}`
    const sql = `SELECT * FROM logs WHERE ${where.join(' AND ')} ORDER BY block_number, log_index${limitSql}`
    return this.db
      .prepare(sql)
      .all(...params)
      .map(toLog)
  }

  readTrieNode(key: Uint8Array): Uint8Array | undefined {
    return (this.db.prepare('SELECT value FROM trie_nodes WHERE key = ?').get(key)?.value as Uint8Array) ?? undefined
  }

  /** Bytes the database file holds (pages in use and free), for the storage metrics. */
  sizeBytes(): { usedBytes: number; freeBytes: number } {
    const pageSize = Number(this.db.prepare('PRAGMA page_size').get()?.page_size ?? 0)
    const pages = Number(this.db.prepare('PRAGMA page_count').get()?.page_count ?? 0)
    const free = Number(this.db.prepare('PRAGMA freelist_count').get()?.freelist_count ?? 0)
    return { usedBytes: (pages - free) * pageSize, freeBytes: free * pageSize }
  }

  writeTrieNodes(nodes: Iterable<[Uint8Array, Uint8Array]>): void {
    const values: Uint8Array[] = []
    for (const [k, v] of nodes) values.push(k, v)
    runRows(this.db, INSERT_TRIE_NODES, 2, values)
  }

  writeBadBlock(hash: Uint8Array, rlp: Uint8Array, reason: string, atMs: number): void {
    this.db
      .prepare('INSERT OR REPLACE INTO bad_blocks (hash, rlp, reason, at_ms) VALUES (?, ?, ?, ?)')
      .run(hash, rlp, reason, atMs)
  }

  readBadBlocks(): { hash: Uint8Array; rlp: Uint8Array; reason: string }[] {
    return this.db
      .prepare('SELECT hash, rlp, reason FROM bad_blocks ORDER BY at_ms')
      .all()
      .map((r) => ({ hash: r.hash as Uint8Array, rlp: r.rlp as Uint8Array, reason: String(r.reason) }))
  }
}

function toLog(r: Record<string, SqlValue>): StoredLog {
  const topics: Uint8Array[] = []
  for (const c of TOPIC_COLUMNS) if (r[c] !== null) topics.push(r[c] as Uint8Array)
  return {
    blockNumber: Number(r.block_number),
    logIndex: Number(r.log_index),
    blockHash: r.block_hash as Uint8Array,
    txHash: r.tx_hash as Uint8Array,
    txIndex: Number(r.tx_index),
    address: r.address as Uint8Array,
    topics,
    data: r.data as Uint8Array,
    blockTimestamp:
      r.block_timestamp === null || r.block_timestamp === undefined ? undefined : Number(r.block_timestamp),
  }
}
