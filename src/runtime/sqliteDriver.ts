/**
 * The SQLite drivers: `bun:sqlite` under Bun, `node:sqlite` under Deno 2.2+ and Node 22.5+, and
 * `better-sqlite3` (optional dependency) where neither loads (Node before 22.5). All three write
 * the same file format, so a data path moves between runtimes. Storage sees only `SqlDatabase`.
 */
import { runtimeName } from './runtime.ts'

export type SqlValue = string | number | bigint | Uint8Array | null

export interface SqlStatement {
  run(...params: SqlValue[]): void
  get(...params: SqlValue[]): Record<string, SqlValue> | null
  all(...params: SqlValue[]): Record<string, SqlValue>[]
}

export interface SqlDatabase {
  exec(sql: string): void
  prepare(sql: string): SqlStatement
  /**
   * Runs `fn` inside one transaction; nested calls join the outer one. Inside a `batch`, it is a
   * savepoint of the batch's transaction: a throw undoes its own writes only.
   */
  transaction<T>(fn: () => T): T
  /**
   * Runs async `fn` inside one transaction that every `transaction` call meanwhile joins as a
   * savepoint, committed once when `fn` settles, also when it throws (what it wrote before stays,
   * each `transaction` in it being whole). A crash before that commit leaves the database as it was
   * before the batch. A batch inside a batch joins it.
   */
  batch<T>(fn: () => Promise<T>): Promise<T>
  close(): void
}

/** Opens (creating when absent) the database at `file` with this runtime's driver. */
export async function openDriver(file: string): Promise<SqlDatabase> {
  if (runtimeName() === 'bun') return openBunSqlite(file)
  const nodeSqlite = await importNodeSqlite()
  return nodeSqlite ? openNodeSqlite(nodeSqlite, file) : openBetterSqlite(file)
}

interface RawStatement {
  run(...p: never[]): unknown
  get(...p: never[]): unknown
  all(...p: never[]): unknown[]
}

/** One statement cache per connection: each SQL text is compiled once. */
function cachedPrepare(
  prepare: (sql: string) => RawStatement,
  bind: (p: SqlValue[]) => unknown[] = (p) => p,
  row: (r: unknown) => Record<string, SqlValue> | null = (r) => (r as Record<string, SqlValue>) ?? null,
): (sql: string) => SqlStatement {
  const cache = new Map<string, SqlStatement>()
  return (sql) => {
    let st = cache.get(sql)
    if (!st) {
      const q = prepare(sql)
      st = {
        run: (...p) => void q.run(...(bind(p) as never[])),
        get: (...p) => row(q.get(...(bind(p) as never[]))),
        all: (...p) => q.all(...(bind(p) as never[])).map((r) => row(r) as Record<string, SqlValue>),
      }
      cache.set(sql, st)
    }
    return st
  }
}

async function openBunSqlite(file: string): Promise<SqlDatabase> {
  const { Database } = await import('bun:sqlite')
  const db = new Database(file, { create: true, strict: true })
  // Closing with statements alive only marks the connection for closing, keeping its file lock.
  const prepared: { finalize(): void }[] = []
  const prepare = (sql: string) => {
    const q = db.prepare(sql)
    prepared.push(q)
    return q as unknown as RawStatement
  }
  return {
    exec: (sql) => db.exec(sql),
    prepare: cachedPrepare(prepare),
    ...transactionRunner(preparedExec(prepare)),
    close: () => {
      for (const q of prepared.splice(0)) q.finalize()
      db.close()
    },
  }
}

interface NodeSqliteModule {
  DatabaseSync: new (file: string) => { exec(sql: string): void; prepare(sql: string): RawStatement; close(): void }
}

/** `node:sqlite`, or undefined where the runtime lacks it (Node before 22.5). */
async function importNodeSqlite(): Promise<NodeSqliteModule | undefined> {
  // A computed specifier keeps the Bun bundle from resolving a module it never loads.
  const specifier = ['node', 'sqlite'].join(':')
  try {
    return (await import(specifier)) as NodeSqliteModule
  } catch {
    return undefined
  }
}

function openNodeSqlite(mod: NodeSqliteModule, file: string): SqlDatabase {
  const db = new mod.DatabaseSync(file)
  // node:sqlite returns a missing row as undefined and rows as objects without a prototype.
  const row = (r: unknown) => (r === undefined ? null : { ...(r as Record<string, SqlValue>) })
  return {
    exec: (sql) => db.exec(sql),
    prepare: cachedPrepare((sql) => db.prepare(sql), undefined, row),
    ...transactionRunner(preparedExec((sql) => db.prepare(sql))),
    close: () => db.close(),
  }
}

async function openBetterSqlite(file: string): Promise<SqlDatabase> {
  const mod = 'better-sqlite3'
  const { default: Database } = (await import(mod)) as {
    default: new (f: string) => { exec(sql: string): void; prepare(sql: string): RawStatement; close(): void }
  }
  const db = new Database(file)
  const bind = (p: SqlValue[]) => p.map((v) => (v instanceof Uint8Array ? Buffer.from(v) : v))
  const row = (r: unknown) => (r ? fromBuffers(r as Record<string, SqlValue>) : null)
  return {
    exec: (sql) => db.exec(sql),
    prepare: cachedPrepare((sql) => db.prepare(sql), bind, row),
    ...transactionRunner(preparedExec((sql) => db.prepare(sql))),
    close: () => db.close(),
  }
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

/**
 * BEGIN/COMMIT around `fn`, ROLLBACK on a throw; nested calls join the outer transaction. Inside a
 * batch (BEGIN … COMMIT around async work) each outermost call is a SAVEPOINT instead.
 */
function transactionRunner(exec: (sql: string) => void): Pick<SqlDatabase, 'transaction' | 'batch'> {
  let depth = 0
  let isBatchOpen = false
  const transaction = <T>(fn: () => T): T => {
    if (depth > 0) return fn()
    depth++
    const [begin, commit, rollback] = isBatchOpen
      ? ['SAVEPOINT batch_step', 'RELEASE batch_step', 'ROLLBACK TO batch_step']
      : ['BEGIN IMMEDIATE', 'COMMIT', 'ROLLBACK']
    exec(begin)
    try {
      const out = fn()
      exec(commit)
      return out
    } catch (err) {
      exec(rollback)
      if (isBatchOpen) exec(commit)
      throw err
    } finally {
      depth--
    }
  }
  const batch = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (isBatchOpen || depth > 0) return fn()
    exec('BEGIN IMMEDIATE')
    isBatchOpen = true
    try {
      return await fn()
    } finally {
      isBatchOpen = false
      exec('COMMIT')
    }
  }
  return { transaction, batch }
}
