/**
 * The data path: one directory per node holding its SQLite database (and its node key, JWT
 * secret). Only one process may use it at a time.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseInUseError, lockExclusively, openSqlite, type SqlDatabase } from '../storage/sqlite.ts'

/** The database file inside a data path. */
const DB_FILE = 'basalt.sqlite'
/** The loaded KZG trusted setup (chain/kzgCache.ts), written on its first use. */
const KZG_CACHE_FILE = 'kzg-setup.mem'

/**
 * Opens the database of a data path, creating the directory, and locks it for this process: a
 * second node on the same data path would seal blocks of its own and fork the chain.
 */
export async function openDataPath(dataPath: string): Promise<SqlDatabase> {
  if (existsSync(dataPath) && !statSync(dataPath).isDirectory()) {
    throw new Error(`--data-path ${dataPath} is a file, not a directory`)
  }
  try {
    mkdirSync(dataPath, { recursive: true })
  } catch (e) {
    throw new Error(`cannot create the data path ${dataPath}: ${(e as Error).message}`)
  }
  const db = await openSqlite(join(dataPath, DB_FILE))
  try {
    lockExclusively(db)
  } catch (e) {
    db.close()
    if (!(e instanceof DatabaseInUseError)) throw e
    throw new Error(
      `the data path ${dataPath} is in use by another basalt process; stop it or choose another --data-path`,
    )
  }
  return db
}

/** Where the data path keeps the loaded KZG trusted setup. */
export function kzgCacheFile(dataPath: string): string {
  return join(dataPath, KZG_CACHE_FILE)
}
