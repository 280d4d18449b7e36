import { describe, expect, it, seededRandom } from '../runtime/testing.ts'
import { type FlatRow, FlatStore } from './flatStore.ts'
import { migrate } from './schema.ts'
import { openSqlite, type SqlDatabase } from './sqlite.ts'

async function database(): Promise<SqlDatabase> {
  const db = await openSqlite(':memory:')
  migrate(db, true)
  return db
}

/** One statement a row, in order: what the flat tables held after each write before batching. */
function writeOneByOne(db: SqlDatabase, rows: FlatRow[]): void {
  for (const { key, slot, value } of rows) {
    if (slot === undefined) {
      if (value.length === 0) db.prepare('DELETE FROM flat_accounts WHERE key = ?').run(key)
      else db.prepare('INSERT OR REPLACE INTO flat_accounts (key, value) VALUES (?, ?)').run(key, value)
    } else if (value.length === 0) {
      db.prepare('DELETE FROM flat_storage WHERE account = ? AND slot = ?').run(key, slot)
    } else {
      db.prepare('INSERT OR REPLACE INTO flat_storage (account, slot, value) VALUES (?, ?, ?)').run(key, slot, value)
    }
  }
}

function contents(db: SqlDatabase) {
  return {
    accounts: db.prepare('SELECT key, value FROM flat_accounts ORDER BY key').all(),
    slots: db.prepare('SELECT account, slot, value FROM flat_storage ORDER BY account, slot').all(),
  }
}

/** `count` writes over a few dozen keys, so that keys repeat and deletes hit existing rows. */
function randomRows(random: () => number, count: number): FlatRow[] {
  const byte = (n: number) => new Uint8Array(32).fill(Math.floor(random() * n))
  const rows: FlatRow[] = []
  for (let i = 0; i < count; i++) {
    const value = random() < 0.3 ? new Uint8Array(0) : new Uint8Array([i & 0xff, 1])
    rows.push(random() < 0.5 ? { key: byte(40), value } : { key: byte(4), slot: byte(40), value })
  }
  return rows
}

/** An account key and a slot key of the tests below. */
const a = new Uint8Array(32).fill(1)
const s = new Uint8Array(32).fill(2)

describe('FlatStore.writeRows', () => {
  it('leaves the rows that one statement a row leaves, for counts around each chunk size', async () => {
    const random = seededRandom(18)
    for (const count of [0, 1, 2, 5, 8, 9, 63, 64, 65, 129, 300]) {
      const [one, batched] = [await database(), await database()]
      // The same rows there first, so that deletes and replacements find something.
      const before = randomRows(random, 60)
      writeOneByOne(one, before)
      new FlatStore(batched).writeRows(before)
      const rows = randomRows(random, count)
      writeOneByOne(one, rows)
      new FlatStore(batched).writeRows(rows)
      expect(contents(batched)).toEqual(contents(one))
      one.close()
      batched.close()
    }
  })

  it('keeps the last write of a key, a delete included', async () => {
    const db = await database()
    const store = new FlatStore(db)
    store.writeRows([
      { key: a, value: new Uint8Array([1]) },
      { key: a, slot: s, value: new Uint8Array([5]) },
      { key: a, value: new Uint8Array([2]) },
    ])
    expect(store.readAccount(a)).toEqual(new Uint8Array([2]))
    store.writeRows([
      { key: a, value: new Uint8Array([3]) },
      { key: a, value: new Uint8Array(0) },
      { key: a, slot: s, value: new Uint8Array(0) },
      { key: a, slot: s, value: new Uint8Array([6]) },
    ])
    expect(store.readAccount(a)).toBeUndefined()
    expect(store.readSlot(a, s)).toEqual(new Uint8Array([6]))
    db.close()
  })
})

describe('FlatStore.hold', () => {
  it('serves held rows before the tables, and writes what writeRows would have written', async () => {
    const random = seededRandom(19)
    for (const count of [1, 5, 64, 300]) {
      const [direct, held] = [await database(), await database()]
      const before = randomRows(random, 60)
      new FlatStore(direct).writeRows(before)
      new FlatStore(held).writeRows(before)
      const rows = randomRows(random, count)
      new FlatStore(direct).writeRows(rows)
      const store = new FlatStore(held)
      const tablesBefore = contents(held)
      store.hold(rows)
      expect(store.isHolding).toBe(true)
      // The tables are untouched; reads through the store see every held row's last value.
      expect(contents(held)).toEqual(tablesBefore)
      const reader = new FlatStore(direct)
      for (const { key, slot } of [...before, ...rows]) {
        if (slot === undefined) expect(store.readAccount(key)).toEqual(reader.readAccount(key))
        else expect(store.readSlot(key, slot)).toEqual(reader.readSlot(key, slot))
      }
      store.writeHeld()
      expect(store.isHolding).toBe(false)
      expect(contents(held)).toEqual(contents(direct))
      direct.close()
      held.close()
    }
  })

  it('forgets held rows on dropHeld and clearState', async () => {
    const db = await database()
    const store = new FlatStore(db)
    store.writeRows([{ key: a, value: new Uint8Array([1]) }])
    store.hold([
      { key: a, value: new Uint8Array(0) },
      { key: a, slot: s, value: new Uint8Array([7]) },
    ])
    expect(store.readAccount(a)).toBeUndefined()
    expect(store.readSlot(a, s)).toEqual(new Uint8Array([7]))
    store.dropHeld()
    expect(store.readAccount(a)).toEqual(new Uint8Array([1]))
    expect(store.readSlot(a, s)).toBeUndefined()
    store.hold([{ key: a, value: new Uint8Array([9]) }])
    store.clearState()
    expect(store.isHolding).toBe(false)
    expect(store.readAccount(a)).toBeUndefined()
    db.close()
  })
})

describe('the trie logs table', () => {
  it('keeps every trie log when a data path of schema version 9 (logs keyed by hash) is migrated', async () => {
    const db = await database()
    // The table as schema version 9 left it.
    db.exec(`DROP TABLE trie_logs;
      CREATE TABLE trie_logs (hash BLOB NOT NULL, seq INTEGER NOT NULL, number INTEGER NOT NULL, log BLOB NOT NULL,
        PRIMARY KEY (hash, seq)) WITHOUT ROWID;
      CREATE INDEX trie_logs_by_number ON trie_logs (number);
      PRAGMA user_version = 9;`)
    const hash = (n: number) => new Uint8Array(32).fill(n)
    const insert = db.prepare('INSERT INTO trie_logs (hash, seq, number, log) VALUES (?, ?, ?, ?)')
    for (const [h, seq, n] of [
      [7, 0, 3],
      [7, 1, 3],
      [9, 0, 3],
      [8, 0, 4],
    ])
      insert.run(hash(h), seq, n, new Uint8Array([h, seq]))
    migrate(db, true)
    const store = new FlatStore(db)
    expect(store.readTrieLogs(3n, hash(7))).toEqual([new Uint8Array([7, 0]), new Uint8Array([7, 1])])
    expect(store.readTrieLogs(3n, hash(9))).toEqual([new Uint8Array([9, 0])])
    expect(store.readTrieLogsAbove(3n)).toEqual([new Uint8Array([8, 0])])
    expect(store.countTrieLogs()).toBe(4)
    expect(db.prepare("SELECT COUNT(*) AS n FROM sqlite_schema WHERE name = 'trie_logs_by_number'").get()?.n).toBe(0)
    db.close()
  })
})
