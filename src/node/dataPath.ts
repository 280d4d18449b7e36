/**
 * The data path: one directory per node holding its SQLite database (and its node key, JWT
 * secret). Only one process may use it at a time: a second SQLite file, `basalt.lock`, is held
 * under SQLite's exclusive lock for as long as the node runs. The database itself is opened in
 * SQLite's exclusive locking mode too, unless threads of the node read it on connections of their
 * own (call workers, listener threads: docs/performance.md, "Issue 18: eth_call on both cores"); then
 * it opens in normal locking mode so that they read while the node writes.
 *
 * Why exclusive when alone: in normal mode every transaction takes and drops locks on WAL's shared
 * index (a `fcntl` call each, about nine a block) and the index lives in a shared file mapping; in
 * exclusive mode, set before the first access, the index is kept in the process's own memory and no
 * lock call is made (docs/performance.md, "Issue 18: the data path's locking mode").
 */
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseInUseError, lockExclusively, openSqlite, type SqlDatabase } from '../storage/sqlite.ts'
import type { NodeConfig } from './config.ts'

/** The database file inside a data path. */
const DB_FILE = 'basalt.sqlite'
/** Held exclusively by the process using the data path (see above); holds no data. */
const LOCK_FILE = 'basalt.lock'
/** Where earlier versions kept the loaded KZG trusted setup (16 MiB); the executable carries it now. */
const OLD_KZG_CACHE_FILE = 'kzg-setup.mem'

/** Whether threads of the node read the database on connections of their own (see above). */
export function isReadBeside(config: Partial<Pick<NodeConfig, 'rpcCallWorkers' | 'rpcListenerThreads'>>): boolean {
  return (config.rpcCallWorkers ?? 0) > 0 || (config.rpcListenerThreads ?? 0) > 0
}

/**
 * Opens the database of a data path, creating the directory, and locks it for this process: a
 * second node on the same data path would seal blocks of its own and fork the chain. With
 * `isShared` it opens in normal locking mode, for the node's readers on connections of their own.
 */
export async function openDataPath(dataPath: string, { isShared = false } = {}): Promise<SqlDatabase> {
  if (existsSync(dataPath) && !statSync(dataPath).isDirectory()) {
    throw new Error(`--data-path ${dataPath} is a file, not a directory`)
  }
  try {
    mkdirSync(dataPath, { recursive: true })
  } catch (e) {
    throw new Error(`cannot create the data path ${dataPath}: ${(e as Error).message}`)
  }
  // The lock first: a second process must fail before it touches the database.
  const lock = await openSqlite(join(dataPath, LOCK_FILE))
  try {
    lockExclusively(lock)
  } catch (e) {
    lock.close()
    if (!(e instanceof DatabaseInUseError)) throw e
    throw new Error(
      `the data path ${dataPath} is in use by another basalt process; stop it or choose another --data-path`,
    )
  }
  rmSync(join(dataPath, OLD_KZG_CACHE_FILE), { force: true })
  let db: SqlDatabase
  try {
    db = await openSqlite(databaseFile(dataPath))
    // Before anything reads the file: only then does WAL keep its index in this process's memory.
    if (!isShared) db.exec('PRAGMA locking_mode = EXCLUSIVE')
    // Readers never block the writer in WAL mode, but a reader recovering the WAL index may hold it briefly.
    db.exec('PRAGMA busy_timeout = 1000')
  } catch (e) {
    lock.close()
    throw e
  }
  // The lock goes with the database: closing it releases the data path.
  return {
    ...db,
    close: () => {
      db.close()
      lock.close()
    },
  }
}

/** The SQLite database inside a data path (the call workers open it read-only). */
export function databaseFile(dataPath: string): string {
  return join(dataPath, DB_FILE)
}
