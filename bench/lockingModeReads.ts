/**
 * What a one-row read outside a transaction costs in each locking mode of the data path's database
 * (src/node/dataPath.ts): a fresh data path opened alone (exclusive) or shared (normal, as with call
 * workers), 50,000 rows in `flat_accounts`, 50,000 reads of warm-up, then 200,000 point reads, CPU µs
 * a read. Four rounds, the two modes in turn.
 * Run: node_modules/.bin/bun bench/lockingModeReads.ts (pin it with `taskset -c 1` for steadier figures).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openDataPath } from '../src/node/dataPath.ts'
import { migrate } from '../src/storage/schema.ts'

const ROWS = 50_000
const READS = 200_000

async function cpuPerRead(isShared: boolean): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-locking-reads-'))
  try {
    const db = await openDataPath(join(dir, 'data'), { isShared })
    migrate(db, false)
    const keys: Uint8Array[] = []
    db.transaction(() => {
      const insert = db.prepare('INSERT INTO flat_accounts (key, value) VALUES (?, ?)')
      for (let i = 0; i < ROWS; i++) {
        const key = crypto.getRandomValues(new Uint8Array(32))
        keys.push(key)
        insert.run(key, crypto.getRandomValues(new Uint8Array(70)))
      }
    })
    const read = db.prepare('SELECT value FROM flat_accounts WHERE key = ?')
    for (let i = 0; i < ROWS; i++) read.get(keys[i])
    const start = process.cpuUsage()
    for (let i = 0; i < READS; i++) read.get(keys[(i * 7919) % ROWS])
    const used = process.cpuUsage(start)
    db.close()
    return (used.user + used.system) / READS
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

for (let round = 0; round < 4; round++) {
  const exclusive = await cpuPerRead(false)
  const shared = await cpuPerRead(true)
  console.log(`exclusive ${exclusive.toFixed(2)} µs a read, shared ${shared.toFixed(2)} µs a read`)
}
