import { describe, expect, it, seededRandom } from '../runtime/testing.ts'
import { HistoryStore, type HistoryValue } from './historyStore.ts'
import { migrate } from './schema.ts'
import { openSqlite, type SqlDatabase } from './sqlite.ts'

async function database(): Promise<SqlDatabase> {
  const db = await openSqlite(':memory:')
  migrate(db, true)
  return db
}

/** One lookup and one insert a value, in order: how the rows were written before batching. */
function writeOneByOne(db: SqlDatabase, values: HistoryValue[]): void {
  for (const { key, number, value } of values) {
    let id = db.prepare('SELECT id FROM history_keys WHERE key = ?').get(key)?.id
    if (id === undefined || id === null) {
      id = Number(db.prepare('SELECT MAX(id) AS n FROM history_keys').get()?.n ?? 0) + 1
      db.prepare('INSERT INTO history_keys (key, id) VALUES (?, ?)').run(key, id)
    }
    db.prepare('INSERT OR REPLACE INTO state_history (id, number, value) VALUES (?, ?, ?)').run(id, number, value)
  }
}

function contents(db: SqlDatabase) {
  return {
    keys: db.prepare('SELECT key, id FROM history_keys ORDER BY key').all(),
    rows: db.prepare('SELECT id, number, value FROM state_history ORDER BY id, number').all(),
  }
}

/** `count` values over about a hundred keys (32-byte accounts and 64-byte slots) and a few blocks. */
function randomValues(random: () => number, count: number): HistoryValue[] {
  const values: HistoryValue[] = []
  for (let i = 0; i < count; i++) {
    const key = new Uint8Array(random() < 0.5 ? 32 : 64).fill(Math.floor(random() * 50))
    const value = random() < 0.2 ? new Uint8Array(0) : new Uint8Array([i & 0xff])
    values.push({ key, number: BigInt(Math.floor(random() * 4)), value })
  }
  return values
}

describe('HistoryStore.writeValues', () => {
  it('writes the rows and ids that one statement a value writes, for counts around each chunk size', async () => {
    const random = seededRandom(7)
    for (const count of [0, 1, 3, 8, 9, 64, 65, 130, 400]) {
      const [one, batched] = [await database(), await database()]
      const before = randomValues(random, 40)
      writeOneByOne(one, before)
      new HistoryStore(batched).writeValues(before)
      // A new store knows no ids; some are then read into its memory, the rest come from one query.
      const store = new HistoryStore(batched)
      for (const { key } of before.slice(0, 10)) store.idOf(key)
      const values = randomValues(random, count)
      writeOneByOne(one, values)
      store.writeValues(values)
      expect(contents(batched)).toEqual(contents(one))
      // The next ids follow on from those assigned here.
      const next = [{ key: new Uint8Array(32).fill(0xee), number: 9n, value: new Uint8Array([1]) }]
      writeOneByOne(one, next)
      store.writeValues(next)
      expect(contents(batched)).toEqual(contents(one))
      one.close()
      batched.close()
    }
  })

  it('keeps the last of two values of a key at one block, and gives a new key one id', async () => {
    const db = await database()
    const store = new HistoryStore(db)
    const key = new Uint8Array(32).fill(3)
    store.writeValues([
      { key, number: 5n, value: new Uint8Array([1]) },
      { key, number: 5n, value: new Uint8Array([2]) },
      { key, number: 6n, value: new Uint8Array(0) },
    ])
    const id = store.idOf(key)!
    expect(db.prepare('SELECT COUNT(*) AS n FROM history_keys').get()?.n).toBe(1)
    expect(store.read(id, 5n)).toEqual(new Uint8Array([2]))
    expect(store.read(id, 7n)).toEqual(new Uint8Array(0))
    db.close()
  })
})

describe('HistoryStore.valuesOf', () => {
  it('answers what `read` answers key by key, at every block, for counts around the chunk size', async () => {
    const random = seededRandom(11)
    const db = await database()
    const store = new HistoryStore(db)
    store.writeValues(randomValues(random, 400))
    const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')
    const known = (db.prepare('SELECT key FROM history_keys').all() as { key: Uint8Array }[]).map((r) => r.key)
    const unknown = [new Uint8Array(32).fill(0xaa), new Uint8Array(64).fill(0xbb)]
    for (const count of [1, 63, 64, 65, known.length]) {
      const keys = [...known.slice(0, count), ...unknown]
      for (const number of [0n, 1n, 2n, 3n, 9n]) {
        const got = store.valuesOf(keys, number)
        const expected = new Map<string, string>()
        for (const key of keys) {
          const id = store.idOf(key)
          const value = id === undefined ? undefined : store.read(id, number)
          if (value !== undefined) expected.set(hex(key), hex(value))
        }
        expect(new Map([...got].map(([k, v]) => [k.slice(2), hex(v)]))).toEqual(expected)
      }
    }
    db.close()
  })
})
