import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from '../runtime/testing.ts'
import { migrate } from '../storage/schema.ts'
import { openSqlite, type SqlDatabase } from '../storage/sqlite.ts'
import { databaseFile, isReadBeside, openDataPath } from './dataPath.ts'

const dir = mkdtempSync(join(tmpdir(), 'basalt-data-path-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Writes one block-like commit, then asks a second connection of this process for the head. */
async function readBeside(db: SqlDatabase, file: string): Promise<unknown> {
  migrate(db, false)
  db.transaction(() => db.prepare('INSERT INTO canonical (number, hash) VALUES (?, ?)').run(7, new Uint8Array(32)))
  const reader = await openSqlite(file)
  try {
    reader.exec('PRAGMA busy_timeout = 0')
    return reader.prepare('SELECT MAX(number) AS n FROM canonical').get()?.n
  } finally {
    reader.close()
  }
}

describe('openDataPath', () => {
  it('keeps the database to itself when no thread of the node reads it beside', async () => {
    const path = join(dir, 'alone')
    const db = await openDataPath(path)
    try {
      await expect(readBeside(db, databaseFile(path))).rejects.toThrow(/locked/)
      // WAL's index lives in the process's memory: no shared-memory file beside the database.
      expect(existsSync(`${databaseFile(path)}-shm`)).toBe(false)
    } finally {
      db.close()
    }
    // What was committed is there for the next process (the WAL is read again at the next open).
    const again = await openDataPath(path)
    try {
      expect(again.prepare('SELECT MAX(number) AS n FROM canonical').get()?.n).toBe(7)
    } finally {
      again.close()
    }
  })

  it('lets call workers and listener threads read it while the node writes', async () => {
    const path = join(dir, 'shared')
    const db = await openDataPath(path, { isShared: true })
    try {
      expect(await readBeside(db, databaseFile(path))).toBe(7)
    } finally {
      db.close()
    }
  })

  it('opens shared exactly when the node runs call workers or listener threads', () => {
    expect(isReadBeside({})).toBe(false)
    expect(isReadBeside({ rpcCallWorkers: 0, rpcListenerThreads: 0 })).toBe(false)
    expect(isReadBeside({ rpcCallWorkers: 2 })).toBe(true)
    expect(isReadBeside({ rpcListenerThreads: 1 })).toBe(true)
  })
})
