/**
 * Many rows in few statements. A block writes some 30 trie nodes and 20-30 stale-node records, and
 * the periodic flush hundreds; one statement a row pays SQLite's per-statement work (bind, step,
 * reset) and the driver's call each time. Here the rows go in chunks of at most 64 (sizes powers of
 * two, so that each table needs at most seven statement texts in the connection's cache). Rows in
 * one statement are applied in order, as separate statements would be: an `OR IGNORE` keeps the
 * first of two equal keys, an `OR REPLACE` the last.
 */
import type { SqlDatabase, SqlValue } from './sqlite.ts'

const MAX_ROWS = 64

/** The statement's text for `n` rows; built once per size. */
type SqlForRows = (n: number) => string

/** `head VALUES (?, ...), (?, ...)` with `width` values a row. */
export function valuesSql(head: string, width: number): SqlForRows {
  const row = `(${new Array(width).fill('?').join(', ')})`
  const texts: string[] = []
  return (n) => {
    texts[n] ??= `${head} VALUES ${new Array(n).fill(row).join(', ')}`
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
  const rows = values.length / width
  let at = 0
  while (at < rows) {
    let n = MAX_ROWS
    while (n > rows - at) n >>= 1
    db.prepare(sqlFor(n)).run(...values.slice(at * width, (at + n) * width))
    at += n
  }
}
