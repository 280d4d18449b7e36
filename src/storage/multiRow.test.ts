import { describe, expect, it } from '../runtime/testing.ts'
import { allRows, inListSql, runRows, valuesSql } from './multiRow.ts'
import { openSqlite, type SqlValue } from './sqlite.ts'

const INSERT_IGNORE = valuesSql('INSERT OR IGNORE INTO t (k, v)', 2)
const INSERT_REPLACE = valuesSql('INSERT OR REPLACE INTO t (k, v)', 2)
const DELETE_KEYS = inListSql('DELETE FROM t WHERE k')

async function table() {
  const db = await openSqlite(':memory:')
  db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, v INTEGER NOT NULL)')
  return db
}

describe('runRows', () => {
  it('writes every row for counts around each chunk size', async () => {
    for (const count of [0, 1, 2, 3, 5, 8, 9, 15, 16, 17, 63, 64, 65, 127, 128, 200]) {
      const db = await table()
      const values: SqlValue[] = []
      for (let i = 0; i < count; i++) values.push(i, i * 10)
      runRows(db, INSERT_IGNORE, 2, values)
      const rows = db.prepare('SELECT k, v FROM t ORDER BY k').all()
      expect(rows).toEqual(Array.from({ length: count }, (_, i) => ({ k: i, v: i * 10 })))
      db.close()
    }
  })

  it('applies rows in order: OR IGNORE keeps the first of equal keys, OR REPLACE the last', async () => {
    const db = await table()
    runRows(db, INSERT_IGNORE, 2, [1, 1, 1, 2, 2, 1])
    runRows(db, INSERT_REPLACE, 2, [3, 1, 3, 2, 3, 3])
    expect(db.prepare('SELECT k, v FROM t ORDER BY k').all()).toEqual([
      { k: 1, v: 1 },
      { k: 2, v: 1 },
      { k: 3, v: 3 },
    ])
    db.close()
  })

  it('deletes a list of keys in chunks, leaving the others', async () => {
    const db = await table()
    const values: SqlValue[] = []
    for (let i = 0; i < 150; i++) values.push(i, 0)
    runRows(db, INSERT_IGNORE, 2, values)
    const doomed = Array.from({ length: 100 }, (_, i) => i * 2 - 50).filter((k) => k >= 0)
    runRows(db, DELETE_KEYS, 1, doomed)
    const left = db
      .prepare('SELECT k FROM t ORDER BY k')
      .all()
      .map((r) => r.k)
    expect(left).toEqual(Array.from({ length: 150 }, (_, i) => i).filter((k) => k % 2 === 1 || k >= 150))
    db.close()
  })

  it('puts a run of up to eight rows in one statement, a longer one in powers of two', async () => {
    const db = await table()
    const texts: string[] = []
    const counting = { ...db, prepare: (sql: string) => (texts.push(sql), db.prepare(sql)) }
    const sizes = (count: number) => {
      texts.length = 0
      runRows(
        counting,
        INSERT_REPLACE,
        2,
        Array.from({ length: count * 2 }, (_, i) => i),
      )
      return texts.map((t) => t.split('(?, ?)').length - 1)
    }
    expect(sizes(5)).toEqual([5])
    expect(sizes(8)).toEqual([8])
    expect(sizes(9)).toEqual([8, 1])
    expect(sizes(75)).toEqual([64, 8, 3])
    expect(sizes(100)).toEqual([64, 32, 4])
    db.close()
  })
})

describe('allRows', () => {
  it('answers a query over a list of keys in chunks, with the rows of every chunk', async () => {
    for (const count of [0, 1, 7, 9, 64, 65, 130]) {
      const db = await table()
      const values: SqlValue[] = []
      for (let i = 0; i < 200; i++) values.push(i, i + 1000)
      runRows(db, INSERT_IGNORE, 2, values)
      // Every third key asked for is absent from the table.
      const keys = Array.from({ length: count }, (_, i) => (i % 3 === 2 ? 500 + i : i))
      const rows = allRows(db, inListSql('SELECT k, v FROM t WHERE k'), 1, keys)
      const expected = keys.filter((k) => k < 200).map((k) => ({ k, v: k + 1000 }))
      expect(rows.sort((a, b) => Number(a.k) - Number(b.k))).toEqual(expected)
      db.close()
    }
  })
})
