import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from '../runtime/testing.ts'
import { openSqlite, skipCheckpointSyncs } from './sqlite.ts'

describe('openSqlite', () => {
  it('commits a transaction and rolls one back on a throw', async () => {
    const db = await openSqlite(':memory:')
    db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY)')
    db.transaction(() => db.prepare('INSERT INTO t (k) VALUES (?)').run(1))
    expect(() =>
      db.transaction(() => {
        db.prepare('INSERT INTO t (k) VALUES (?)').run(2)
        throw new Error('abort')
      }),
    ).toThrow('abort')
    expect(db.prepare('SELECT k FROM t').all()).toEqual([{ k: 1 }])
    db.close()
  })

  it('joins a nested transaction to the outer one', async () => {
    const db = await openSqlite(':memory:')
    db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY)')
    db.transaction(() => {
      db.prepare('INSERT INTO t (k) VALUES (?)').run(1)
      db.transaction(() => db.prepare('INSERT INTO t (k) VALUES (?)').run(2))
    })
    expect(db.prepare('SELECT count(*) AS n FROM t').get()?.n).toBe(2)
    db.close()
  })

  it('runs the transactions of a batch as savepoints of one transaction, committed at its end', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'basalt-sqlite-'))
    const file = join(dir, 'x.sqlite')
    const db = await openSqlite(file)
    db.exec('PRAGMA journal_mode = WAL')
    db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY)')
    const insert = (k: number) => db.transaction(() => db.prepare('INSERT INTO t (k) VALUES (?)').run(k))
    const other = await openSqlite(file)
    const count = (d: typeof db) => Number(d.prepare('SELECT count(*) AS n FROM t').get()?.n)
    await db.batch(async () => {
      insert(1)
      await Promise.resolve()
      // A failing step undoes its own writes only.
      expect(() =>
        db.transaction(() => {
          db.prepare('INSERT INTO t (k) VALUES (?)').run(2)
          throw new Error('abort')
        }),
      ).toThrow('abort')
      insert(3)
      // Nested batches and transactions join.
      await db.batch(async () => db.transaction(() => db.transaction(() => insert(4))))
      expect(count(db)).toBe(3)
      // Nothing is committed yet: another connection (or the process after a crash) sees none of it.
      expect(count(other)).toBe(0)
    })
    expect(count(other)).toBe(3)
    // A batch that throws keeps what it wrote before the throw, and the error.
    await expect(
      db.batch(async () => {
        insert(5)
        throw new Error('stop')
      }),
    ).rejects.toThrow('stop')
    expect(count(other)).toBe(4)
    // Outside a batch, transactions commit one by one again.
    insert(6)
    expect(count(other)).toBe(5)
    other.close()
    db.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('checkpoints a file database only after a large WAL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'basalt-sqlite-'))
    const db = await openSqlite(join(dir, 'x.sqlite'))
    expect(db.prepare('PRAGMA wal_autocheckpoint').get()?.wal_autocheckpoint).toBe(16384)
    db.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('turns off the checkpoint fsyncs for a dev chain', async () => {
    const db = await openSqlite(':memory:')
    skipCheckpointSyncs(db)
    expect(db.prepare('PRAGMA synchronous').get()?.synchronous).toBe(0)
    db.close()
  })
})
