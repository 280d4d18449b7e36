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
