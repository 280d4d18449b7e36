/**
 * Typed accessors over the BONSAI tables (see schema.ts): the flat head state, the per-block trie
 * logs and the trie nodes waiting to leave the history window. Rows only; what they mean is the
 * state layer's business (src/state/bonsaiState.ts).
 */
import { bytesToBareHex } from '../primitives/hex.ts'
import { inListSql, runRows, type SqlForRows, valuesSql } from './multiRow.ts'
import type { SqlDatabase, SqlValue } from './sqlite.ts'

const INSERT_STALE_NODES = valuesSql('INSERT OR REPLACE INTO stale_nodes (key, stale_at)', 2)
const DELETE_STALE_NODES = inListSql('DELETE FROM stale_nodes WHERE key')
const UPSERT_ACCOUNTS = valuesSql('INSERT OR REPLACE INTO flat_accounts (key, value)', 2)
const DELETE_ACCOUNTS = inListSql('DELETE FROM flat_accounts WHERE key')
const UPSERT_SLOTS = valuesSql('INSERT OR REPLACE INTO flat_storage (account, slot, value)', 3)
const DELETE_SLOTS = valuesSql('DELETE FROM flat_storage WHERE (account, slot) IN (', 2, ')')

/** A row of the flat tables: an account (`slot` absent) or a storage slot; an empty value deletes it. */
export interface FlatRow {
  key: Uint8Array
  slot?: Uint8Array
  value: Uint8Array
}

/** One table's writes in order: a run of upserts or of deletes, written when the other kind comes. */
class RowRuns {
  private readonly db: SqlDatabase
  private readonly upsert: [SqlForRows, number]
  private readonly remove: [SqlForRows, number]
  private readonly values: SqlValue[] = []
  private isDeleting = false

  /** `upsert` and `remove`: each statement's text and its values a row. */
  constructor(db: SqlDatabase, upsert: [SqlForRows, number], remove: [SqlForRows, number]) {
    this.db = db
    this.upsert = upsert
    this.remove = remove
  }

  /** Adds an upsert's values, or (`upsert` undefined) a delete's. */
  add(upsert: SqlValue[] | undefined, remove: SqlValue[]): void {
    const isDelete = upsert === undefined
    if (isDelete !== this.isDeleting) this.end()
    this.isDeleting = isDelete
    for (const v of upsert ?? remove) this.values.push(v)
  }

  end(): void {
    const [sqlFor, width] = this.isDeleting ? this.remove : this.upsert
    runRows(this.db, sqlFor, width, this.values)
    this.values.length = 0
  }
}

export class FlatStore {
  readonly db: SqlDatabase
  /**
   * Rows held in memory by `hold` until `writeHeld` (keyed by the account's hex, and the account's
   * and the slot's for a slot; the last value of a key kept). Reads through this object see them
   * first; the tables, and another connection, see them once written.
   */
  private readonly heldAccounts = new Map<string, FlatRow>()
  private readonly heldSlots = new Map<string, FlatRow>()

  constructor(db: SqlDatabase) {
    this.db = db
  }

  readAccount(key: Uint8Array): Uint8Array | undefined {
    if (this.heldAccounts.size > 0) {
      const held = this.heldAccounts.get(bytesToBareHex(key))
      if (held) return held.value.length > 0 ? held.value : undefined
    }
    return (this.db.prepare('SELECT value FROM flat_accounts WHERE key = ?').get(key)?.value as Uint8Array) ?? undefined
  }

  readSlot(account: Uint8Array, slot: Uint8Array): Uint8Array | undefined {
    if (this.heldSlots.size > 0) {
      const held = this.heldSlots.get(bytesToBareHex(account) + bytesToBareHex(slot))
      if (held) return held.value.length > 0 ? held.value : undefined
    }
    const row = this.db.prepare('SELECT value FROM flat_storage WHERE account = ? AND slot = ?').get(account, slot)
    return (row?.value as Uint8Array) ?? undefined
  }

  /** Whether rows are held back (see `hold`). */
  get isHolding(): boolean {
    return this.heldAccounts.size > 0 || this.heldSlots.size > 0
  }

  /**
   * Keeps rows in memory instead of writing them (what `writeRows` would write, in the same order):
   * a block's accounts and slots are at random keys, about a fifth of the pages its commit wrote;
   * held until the next flush, many blocks share those pages. The caller must be able to write
   * them again after a crash (the state layer replays them from the trie logs).
   */
  hold(rows: Iterable<FlatRow>): void {
    for (const row of rows) {
      if (row.slot === undefined) this.heldAccounts.set(bytesToBareHex(row.key), row)
      else this.heldSlots.set(bytesToBareHex(row.key) + bytesToBareHex(row.slot), row)
    }
  }

  /** Writes the held rows (inside the caller's transaction) and forgets them. */
  writeHeld(): void {
    if (!this.isHolding) return
    this.writeRows([...this.heldAccounts.values(), ...this.heldSlots.values()])
    this.dropHeld()
  }

  /** Forgets the held rows without writing them. */
  dropHeld(): void {
    this.heldAccounts.clear()
    this.heldSlots.clear()
  }

  /**
   * Writes accounts and slots in order, with the outcome of one statement a row (the last value of
   * a key is the one kept, an empty value deletes the row): each table's consecutive upserts go in
   * one run of multi-row statements, and so do its consecutive deletes (a one-transfer block
   * changes about five accounts and two slots: two statements).
   */
  writeRows(rows: Iterable<FlatRow>): void {
    const accounts = new RowRuns(this.db, [UPSERT_ACCOUNTS, 2], [DELETE_ACCOUNTS, 1])
    const slots = new RowRuns(this.db, [UPSERT_SLOTS, 3], [DELETE_SLOTS, 2])
    for (const { key, slot, value } of rows) {
      if (slot === undefined) accounts.add(value.length === 0 ? undefined : [key, value], [key])
      else slots.add(value.length === 0 ? undefined : [key, slot, value], [key, slot])
    }
    accounts.end()
    slots.end()
  }

  /** Deletes every account and slot, held ones too (before the tables are filled again from a trie). */
  clearState(): void {
    this.dropHeld()
    this.db.prepare('DELETE FROM flat_accounts').run()
    this.db.prepare('DELETE FROM flat_storage').run()
  }

  /** The accounts in the table (held rows aside). */
  countAccounts(): number {
    return Number(this.db.prepare('SELECT COUNT(*) AS n FROM flat_accounts').get()?.n ?? 0)
  }

  writeTrieLog(hash: Uint8Array, seq: number, number: bigint, log: Uint8Array): void {
    this.db
      .prepare('INSERT OR REPLACE INTO trie_logs (hash, seq, number, log) VALUES (?, ?, ?, ?)')
      .run(hash, seq, number, log)
  }

  /** The trie logs of block `number` with `hash` in order (its execution first, then the edits after it). */
  readTrieLogs(number: bigint, hash: Uint8Array): Uint8Array[] {
    return this.db
      .prepare('SELECT log FROM trie_logs WHERE number = ? AND hash = ? ORDER BY seq')
      .all(number, hash)
      .map((r) => r.log as Uint8Array)
  }

  countTrieLogs(): number {
    return Number(this.db.prepare('SELECT COUNT(*) AS n FROM trie_logs').get()?.n ?? 0)
  }

  /** Records that no state from block `at` on needs these nodes (unless marked live again). */
  markStale(keys: Uint8Array[], at: bigint): void {
    const values: SqlValue[] = []
    for (const k of keys) values.push(k, at)
    runRows(this.db, INSERT_STALE_NODES, 2, values)
  }

  /**
   * Writes records of distinct nodes: stale from block `at` on, or live again (`at` null). The keys
   * being distinct, the live ones and the stale ones go in two runs of statements.
   */
  writeStaleRecords(records: Iterable<{ key: Uint8Array; at: bigint | null }>): void {
    const live: Uint8Array[] = []
    const stale: SqlValue[] = []
    for (const { key, at } of records) {
      if (at === null) live.push(key)
      else stale.push(key, at)
    }
    this.markLive(live)
    runRows(this.db, INSERT_STALE_NODES, 2, stale)
  }

  /** Whether a block recorded that it left this node behind (and the node has not been pruned yet). */
  isStale(key: Uint8Array): boolean {
    return this.db.prepare('SELECT 1 AS x FROM stale_nodes WHERE key = ?').get(key) != null
  }

  markLive(keys: Uint8Array[]): void {
    runRows(this.db, DELETE_STALE_NODES, 1, keys)
  }

  /**
   * The trie logs of blocks up to `upTo` that are not on the canonical chain (blocks imported
   * without becoming the head, or rolled back): their created nodes no canonical block marks stale.
   */
  readSideTrieLogs(upTo: bigint): Uint8Array[] {
    return this.db
      .prepare(
        `SELECT log FROM trie_logs t WHERE t.number <= ?
         AND NOT EXISTS (SELECT 1 FROM canonical c WHERE c.number = t.number AND c.hash = t.hash)`,
      )
      .all(upTo)
      .map((r) => r.log as Uint8Array)
  }

  /** The trie logs of the blocks above `n`, every branch. */
  readTrieLogsAbove(n: bigint): Uint8Array[] {
    return this.db
      .prepare('SELECT log FROM trie_logs WHERE number > ?')
      .all(n)
      .map((r) => r.log as Uint8Array)
  }

  hasTrieNode(key: Uint8Array): boolean {
    return this.db.prepare('SELECT 1 AS x FROM trie_nodes WHERE key = ?').get(key) != null
  }

  deleteTrieNodes(keys: Iterable<Uint8Array>): void {
    const st = this.db.prepare('DELETE FROM trie_nodes WHERE key = ?')
    for (const k of keys) st.run(k)
  }

  /** Deletes the nodes stale at or before block `upTo`, and the trie logs of blocks up to it. */
  prune(upTo: bigint): void {
    this.db.prepare('DELETE FROM trie_nodes WHERE key IN (SELECT key FROM stale_nodes WHERE stale_at <= ?)').run(upTo)
    this.db.prepare('DELETE FROM stale_nodes WHERE stale_at <= ?').run(upTo)
    this.db.prepare('DELETE FROM trie_logs WHERE number <= ?').run(upTo)
  }
}
