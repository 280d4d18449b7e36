/**
 * SQLite for storage: opening with this data path's pragmas, the exclusive lock and the dev chain's
 * sync setting. The driver itself (bun:sqlite, node:sqlite or better-sqlite3) is the runtime
 * layer's choice; everything above sees only `SqlDatabase`.
 */
import { openDriver, type SqlDatabase } from '../runtime/sqliteDriver.ts'

export type { SqlDatabase, SqlValue } from '../runtime/sqliteDriver.ts'

/** Opens (creating when absent) the database at `file`; `:memory:` gives a throw-away one. */
export async function openSqlite(file: string): Promise<SqlDatabase> {
  const db = await openDriver(file)
  if (file !== ':memory:') {
    // Every block is one commit that dirties ~40 random trie-node pages; checkpointing (and its
    // fsyncs) every 1,000 WAL pages, SQLite's default, cost more than the commit itself. A 64 MiB
    // WAL checkpoints ~15x less often and rewrites each hot page once per checkpoint.
    db.exec('PRAGMA wal_autocheckpoint = 16384')
    db.exec('PRAGMA journal_size_limit = 67108864')
  }
  return db
}

/** Another process holds the database (see `lockExclusively`). */
export class DatabaseInUseError extends Error {
  constructor() {
    super('the database is locked by another process')
    this.name = 'DatabaseInUseError'
  }
}

/**
 * Takes SQLite's exclusive lock for the lifetime of the connection, so that a second process on
 * the same file fails at once instead of writing blocks of its own beside ours. The lock is the
 * operating system's file lock: a killed process (even kill -9) leaves nothing behind to clean up.
 * Throws DatabaseInUseError when another process holds it.
 */
export function lockExclusively(db: SqlDatabase): void {
  db.exec('PRAGMA busy_timeout = 0')
  db.exec('PRAGMA locking_mode = EXCLUSIVE')
  try {
    // The lock's transaction writes at most a new database's header, which needs none of the half a
    // dozen fsyncs of a rollback-journal commit; migrate sets the level the data path runs with.
    db.exec('PRAGMA synchronous = OFF')
    db.exec('BEGIN EXCLUSIVE')
    db.exec('COMMIT')
  } catch (e) {
    const code = (e as { code?: unknown }).code
    if (code === 'SQLITE_BUSY' || /database is locked/.test(String((e as Error).message)))
      throw new DatabaseInUseError()
    throw e
  }
}

/**
 * For the dev chain: `synchronous = OFF` leaves out the fsyncs of the WAL and the database at each
 * checkpoint, which cost about 0.5 ms per block on average. Commits still reach the OS before a
 * receipt is visible, so a killed process (kill -9) loses nothing; an OS crash or a power loss can
 * leave the database unusable, which a throw-away dev chain accepts. Other chains keep NORMAL.
 */
export function skipCheckpointSyncs(db: SqlDatabase): void {
  db.exec('PRAGMA synchronous = OFF')
}
