/**
 * Typed accessors over the BONSAI state history (see schema.ts): `history_keys` gives each hashed
 * account key (or account ‖ slot key) a small id, `state_history` holds (id, block) → the value
 * after that block. Rows only; what they mean is the state layer's business
 * (src/state/stateHistory.ts).
 */
import { bytesToHex } from '../primitives/hex.ts'
import { allRows, inListSql, runRows, valuesSql } from './multiRow.ts'
import type { SqlDatabase, SqlValue } from './sqlite.ts'

const SELECT_IDS = inListSql('SELECT key, id FROM history_keys WHERE key')
const INSERT_KEYS = valuesSql('INSERT INTO history_keys (key, id)', 2)
const WRITE_VALUES = valuesSql('INSERT OR REPLACE INTO state_history (id, number, value)', 3)

/** A value of a key after a block, to write (an empty value: the key does not exist then). */
export interface HistoryValue {
  key: Uint8Array
  number: bigint
  value: Uint8Array
}

/** Keys read per statement by `valuesOf` (a shorter rest in one statement of its size). */
const READ_CHUNK_KEYS = 64
/** `valuesOf`'s statement for `n` keys: the block is ?1, the keys follow. */
const readKeysSql = (n: number) =>
  `SELECT k.key AS key, (SELECT h.value FROM state_history h WHERE h.id = k.id AND h.number <= ?1
     ORDER BY h.number DESC LIMIT 1) AS value
   FROM history_keys k WHERE k.key IN (${new Array(n).fill('?').join(', ')})`

/** Bound on the ids remembered in memory (all are forgotten when full). */
const ID_MEMO_ENTRIES = 1 << 16
/** Keys read per query when walking the whole state at a block. */
const STATE_PAGE_KEYS = 4096

export class HistoryStore {
  readonly db: SqlDatabase
  private nextId?: number
  private readonly ids = new Map<string, number>()

  constructor(db: SqlDatabase) {
    this.db = db
  }

  /** The id of `key`, or undefined when no row was ever written for it. */
  idOf(key: Uint8Array): number | undefined {
    const hex = bytesToHex(key)
    const memo = this.ids.get(hex)
    if (memo !== undefined) return memo
    const id = this.db.prepare('SELECT id FROM history_keys WHERE key = ?').get(key)?.id
    if (id === undefined || id === null) return undefined
    this.remember(hex, Number(id))
    return Number(id)
  }

  /**
   * Writes values in order, as one statement a value would (a key without an id gets the next
   * one, in order of first appearance; of two values of a key at one block the last is kept),
   * with the lookups of the keys not in memory in one multi-key query and the inserts in multi-row
   * statements. Inside a transaction.
   */
  writeValues(values: HistoryValue[]): void {
    const ids = this.ensureIds(values.map((v) => v.key))
    const rows: SqlValue[] = []
    for (let i = 0; i < values.length; i++) rows.push(ids[i], values[i].number, values[i].value)
    runRows(this.db, WRITE_VALUES, 3, rows)
  }

  /** The ids of `keys`, in order, those without one assigned now (see `writeValues`). */
  private ensureIds(keys: Uint8Array[]): number[] {
    const hexes = keys.map(bytesToHex)
    const ids = new Map<string, number>()
    const unknown = new Map<string, Uint8Array>()
    for (let i = 0; i < keys.length; i++) {
      const memo = this.ids.get(hexes[i])
      if (memo !== undefined) ids.set(hexes[i], memo)
      else unknown.set(hexes[i], keys[i])
    }
    if (unknown.size === 0) return hexes.map((h) => ids.get(h)!)
    for (const r of allRows(this.db, SELECT_IDS, 1, [...unknown.values()])) {
      const hex = bytesToHex(r.key as Uint8Array)
      ids.set(hex, Number(r.id))
      this.remember(hex, Number(r.id))
    }
    const inserts: SqlValue[] = []
    for (const [hex, key] of unknown) {
      if (ids.has(hex)) continue
      this.nextId ??= Number(this.db.prepare('SELECT MAX(id) AS n FROM history_keys').get()?.n ?? 0) + 1
      const id = this.nextId++
      // Not remembered until read back: the caller's transaction may still roll the row back.
      ids.set(hex, id)
      inserts.push(key, id)
    }
    runRows(this.db, INSERT_KEYS, 2, inserts)
    return hexes.map((h) => ids.get(h)!)
  }

  /** Writes the value of key `id` after block `number` (an empty value: it does not exist). */
  write(id: number, number: bigint, value: Uint8Array): void {
    this.db.prepare('INSERT OR REPLACE INTO state_history (id, number, value) VALUES (?, ?, ?)').run(id, number, value)
  }

  /** The value of key `id` after block `number`: the row at the highest block ≤ `number`. */
  read(id: number, number: bigint): Uint8Array | undefined {
    const row = this.db
      .prepare('SELECT value FROM state_history WHERE id = ? AND number <= ? ORDER BY number DESC LIMIT 1')
      .get(id, number)
    return (row?.value as Uint8Array) ?? undefined
  }

  /**
   * `read` of many keys (not ids) at once, one statement per 64 keys: the value of each key after
   * block `number`, by the key's hex; a key without a row up to `number` is left out.
   */
  valuesOf(keys: Uint8Array[], number: bigint): Map<string, Uint8Array> {
    const out = new Map<string, Uint8Array>()
    for (let at = 0; at < keys.length; at += READ_CHUNK_KEYS) {
      const chunk = keys.slice(at, at + READ_CHUNK_KEYS)
      for (const r of this.db.prepare(readKeysSql(chunk.length)).all(number, ...chunk)) {
        if (r.value !== null && r.value !== undefined) out.set(bytesToHex(r.key as Uint8Array), r.value as Uint8Array)
      }
    }
    return out
  }

  /** Deletes the row of key `id` at block `number` (its block left the canonical chain). */
  delete(id: number, number: bigint): void {
    this.db.prepare('DELETE FROM state_history WHERE id = ? AND number = ?').run(id, number)
  }

  /** Deletes every row above block `number` (a scan of the table: only for rare head moves). */
  deleteAbove(number: bigint): void {
    this.db.prepare('DELETE FROM state_history WHERE number > ?').run(number)
  }

  /** Deletes the whole history (the data path stops keeping it). */
  clear(): void {
    this.db.prepare('DELETE FROM state_history').run()
    this.db.prepare('DELETE FROM history_keys').run()
    this.forget()
  }

  /** Forgets the ids held in memory (after a rolled-back transaction that may have assigned some). */
  forget(): void {
    this.ids.clear()
    this.nextId = undefined
  }

  countRows(): number {
    return Number(this.db.prepare('SELECT COUNT(*) AS n FROM state_history').get()?.n ?? 0)
  }

  /** Every flat account and slot row (to start the history from the flat state). */
  *flatRows(): Generator<[Uint8Array, Uint8Array]> {
    for (const r of this.db.prepare('SELECT key, value FROM flat_accounts').all())
      yield [r.key as Uint8Array, r.value as Uint8Array]
    for (const r of this.db.prepare('SELECT account, slot, value FROM flat_storage').all()) {
      const key = new Uint8Array(64)
      key.set(r.account as Uint8Array, 0)
      key.set(r.slot as Uint8Array, 32)
      yield [key, r.value as Uint8Array]
    }
  }

  /**
   * Every key with a value after block `number` (keys whose value is empty are left out), in key
   * order, so that an account's slots (account ‖ slot keys) follow the account; read a page of keys
   * at a time.
   */
  *valuesAt(number: bigint): Generator<[Uint8Array, Uint8Array]> {
    const page = this.db.prepare(
      `SELECT k.key AS key, (SELECT h.value FROM state_history h WHERE h.id = k.id AND h.number <= ?
         ORDER BY h.number DESC LIMIT 1) AS value
       FROM history_keys k WHERE k.key > ? ORDER BY k.key LIMIT ${STATE_PAGE_KEYS}`,
    )
    let after: Uint8Array = new Uint8Array(0)
    for (;;) {
      const rows = page.all(number, after)
      for (const r of rows) {
        const value = r.value as Uint8Array | null
        if (value && value.length > 0) yield [r.key as Uint8Array, value]
      }
      if (rows.length < STATE_PAGE_KEYS) return
      after = rows[rows.length - 1].key as Uint8Array
    }
  }

  private remember(hex: string, id: number): void {
    if (this.ids.size >= ID_MEMO_ENTRIES) this.ids.clear()
    this.ids.set(hex, id)
  }
}
