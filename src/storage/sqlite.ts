/**
 * The one place that knows which SQLite driver runs: `bun:sqlite` under Bun, `better-sqlite3`
 * (optional dependency) under Node or Deno. Everything above sees only `SqlDatabase`.
 */

export type SqlValue = string | number | bigint | Uint8Array | null

export interface SqlStatement {
  run(...params: SqlValue[]): void
  get(...params: SqlValue[]): Record<string, SqlValue> | null
  all(...params: SqlValue[]): Record<string, SqlValue>[]
}

export interface SqlDatabase {
  exec(sql: string): void
  prepare(sql: string): SqlStatement
  /** Runs `fn` inside one transaction; nested calls join the outer one. */
  transaction<T>(fn: () => T): T
  close(): void
}

/** Opens (creating when absent) the database at `file`; `:memory:` gives a throw-away one. */
export async function openSqlite(file: string): Promise<SqlDatabase> {
  const db = typeof Bun !== 'undefined' ? await openBunSqlite(file) : await openBetterSqlite(file)
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

async function openBunSqlite(file: string): Promise<SqlDatabase> {
  const { Database } = await import('bun:sqlite')
  const db = new Database(file, { create: true, strict: true })
  const cache = new Map<string, SqlStatement>()
  // Closing with statements alive only marks the connection for closing, keeping its file lock.
  const prepared: { finalize(): void }[] = []
  const prepare = (sql: string) => {
    const q = db.prepare(sql)
    prepared.push(q)
    return q
  }
  return {
    exec: (sql) => db.exec(sql),
    prepare(sql) {
      let st = cache.get(sql)
      if (!st) {
        const q = prepare(sql)
        st = {
          run: (...p) => void q.run(...(p as never[])),
          get: (...p) => (q.get(...(p as never[])) as Record<string, SqlValue> | null) ?? null,
          all: (...p) => q.all(...(p as never[])) as Record<string, SqlValue>[],
        }
        cache.set(sql, st)
      }
      return st
    },
    transaction: transactionRunner(preparedExec(prepare)),
    close: () => {
      for (const q of prepared.splice(0)) q.finalize()
      db.close()
    },
  }
}

async function openBetterSqlite(file: string): Promise<SqlDatabase> {
  const mod = 'better-sqlite3'
  const { default: Database } = (await import(mod)) as { default: new (f: string) => BetterDb }
  const db = new Database(file)
  const cache = new Map<string, SqlStatement>()
  const fix = (p: SqlValue[]) => p.map((v) => (v instanceof Uint8Array ? Buffer.from(v) : v))
  const row = (r: unknown) => (r ? (fromBuffers(r as Record<string, SqlValue>) as Record<string, SqlValue>) : null)
  return {
    exec: (sql) => db.exec(sql),
    prepare(sql) {
      let st = cache.get(sql)
      if (!st) {
        const q = db.prepare(sql)
        st = {
          run: (...p) => void q.run(...fix(p)),
          get: (...p) => row(q.get(...fix(p))),
          all: (...p) => q.all(...fix(p)).map((r) => row(r) as Record<string, SqlValue>),
        }
        cache.set(sql, st)
      }
      return st
    },
    transaction: transactionRunner(preparedExec((sql) => db.prepare(sql))),
    close: () => db.close(),
  }
}

interface BetterDb {
  exec(sql: string): void
  prepare(sql: string): { run(...p: unknown[]): void; get(...p: unknown[]): unknown; all(...p: unknown[]): unknown[] }
  close(): void
}

function fromBuffers(r: Record<string, SqlValue>): Record<string, SqlValue> {
  for (const k of Object.keys(r)) {
    const v = r[k]
    if (v instanceof Uint8Array) r[k] = new Uint8Array(v.buffer, v.byteOffset, v.byteLength)
  }
  return r
}

/** Runs BEGIN/COMMIT/ROLLBACK as statements compiled once rather than parsed per block. */
function preparedExec(prepare: (sql: string) => { run(): unknown }): (sql: string) => void {
  const statements = new Map<string, { run(): unknown }>()
  return (sql) => {
    let st = statements.get(sql)
    if (!st) {
      st = prepare(sql)
      statements.set(sql, st)
    }
    st.run()
  }
}

/** BEGIN/COMMIT around `fn`, ROLLBACK on a throw; nested calls join the outer transaction. */
function transactionRunner(exec: (sql: string) => void): <T>(fn: () => T) => T {
  let depth = 0
  return (fn) => {
    if (depth > 0) return fn()
    depth++
    exec('BEGIN IMMEDIATE')
    try {
      const out = fn()
      exec('COMMIT')
      return out
    } catch (err) {
      exec('ROLLBACK')
      throw err
    } finally {
      depth--
    }
  }
}
