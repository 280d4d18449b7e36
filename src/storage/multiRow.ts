/**
 * Many rows in few statements. A block writes some 30 trie nodes and 20-30 stale-node records, and
 * the periodic flush hundreds; one statement a row pays SQLite's per-statement work (bind, step,
 * reset) and the driver's call each time. Here the rows go in chunks of at most 64: a run of up to
 * eight rows in one statement of its size (a block's few flat rows in one), a longer one in chunks
 * of sizes powers of two, so that each table needs at most eleven statement texts in the
 * connection's cache. Rows in
 * one statement are applied in order, as separate statements would be: an `OR IGNORE` keeps the
 * first of two equal keys, an `OR REPLACE` the last.
 */
import type { SqlDatabase, SqlValue } from './sqlite.ts'

const MAX_ROWS = 64
/** Up to this many rows left, they go in one statement of their own size. */
const EXACT_ROWS = 8

/** The statement's text for `n` rows; built once per size. */
export type SqlForRows = (n: number) => string

/** `head VALUES (?, ...), (?, ...) tail` with `width` values a row. */
export function valuesSql(head: string, width: number, tail = ''): SqlForRows {
  const row = `(${new Array(width).fill('?').join(', ')})`
  const texts: string[] = []
  return (n) => {
    texts[n] ??= `${head} VALUES ${new Array(n).fill(row).join(', ')}${tail}`
    return texts[n]
  }
}

/** `head IN (?, ?, ...)`: one value a row. */
export function inListSql(head: string): SqlForRows {
  const texts: string[] = []
  return (n) => {
    texts[n] ??= `${head} IN (${new Array(n).fill('?').join(', ')})`
    return texts[n]
  }
}

/** Runs the statement over `values` (rows of `width` values laid end to end), in chunks. */
export function runRows(db: SqlDatabase, sqlFor: SqlForRows, width: number, values: SqlValue[]): void {
  forChunks(values.length / width, (at, n) => db.prepare(sqlFor(n)).run(...values.slice(at * width, (at + n) * width)))
}

/** Runs the query over `values` in chunks, as `runRows`, and returns every chunk's result rows. */
export function allRows(
  db: SqlDatabase,
  sqlFor: SqlForRows,
  width: number,
  values: SqlValue[],
): Record<string, SqlValue>[] {
  const rows: Record<string, SqlValue>[] = []
  forChunks(values.length / width, (at, n) => {
    for (const r of db.prepare(sqlFor(n)).all(...values.slice(at * width, (at + n) * width))) rows.push(r)
  })
  return rows
}

/** Calls `fn(at, n)` for consecutive chunks of `rows` (see the top of the file for their sizes). */
function forChunks(rows: number, fn: (at: number, n: number) => void): void {
  let at = 0
  while (at < rows) {
    let n = rows - at
    if (n > EXACT_ROWS) {
      n = MAX_ROWS
      while (n > rows - at) n >>= 1
    }
    fn(at, n)
    at += n
  }
}
