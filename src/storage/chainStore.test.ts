import { describe, expect, it } from '../runtime/testing.ts'
import { type CanonicalEntry, ChainStore, type StoredLog } from './chainStore.ts'
import { migrate } from './schema.ts'
import { openSqlite, type SqlDatabase } from './sqlite.ts'

async function database(): Promise<SqlDatabase> {
  const db = await openSqlite(':memory:')
  migrate(db, true)
  return db
}

const bytes = (n: number, length = 32) => new Uint8Array(length).fill(n & 0xff)

/** A block with `count` transactions and as many logs, with zero to four topics each. */
function entry(number: number, count: number, hash = bytes(number)): CanonicalEntry {
  const txHashes = Array.from({ length: count }, (_, i) => bytes(i + 1000 * number + 1))
  const logs: StoredLog[] = txHashes.map((txHash, i) => ({
    blockNumber: number,
    logIndex: i,
    blockHash: hash,
    txHash,
    txIndex: i,
    address: bytes(i, 20),
    topics: Array.from({ length: i % 5 }, (_, t) => bytes(t + i)),
    data: bytes(i, i % 3),
    blockTimestamp: i % 2 === 0 ? 1_700_000_000 + number : undefined,
  }))
  return { number: BigInt(number), hash, txHashes, logs }
}

/** One statement a row: how the index rows were written before batching. */
function writeOneByOne(db: SqlDatabase, e: CanonicalEntry): void {
  db.prepare('INSERT OR REPLACE INTO canonical (number, hash) VALUES (?, ?)').run(e.number, e.hash)
  for (const [i, h] of e.txHashes.entries())
    db.prepare('INSERT OR REPLACE INTO txs (hash, block_hash, idx) VALUES (?, ?, ?)').run(h, e.hash, i)
  for (const l of e.logs) {
    const [t0, t1, t2, t3] = l.topics
    db.prepare(
      `INSERT OR REPLACE INTO logs (block_number, log_index, block_hash, tx_hash, tx_index, address,
       topic0, topic1, topic2, topic3, data, block_timestamp) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      l.blockNumber,
      l.logIndex,
      l.blockHash,
      l.txHash,
      l.txIndex,
      l.address,
      t0 ?? null,
      t1 ?? null,
      t2 ?? null,
      t3 ?? null,
      l.data,
      l.blockTimestamp ?? null,
    )
  }
}

function contents(db: SqlDatabase) {
  return {
    canonical: db.prepare('SELECT * FROM canonical ORDER BY number').all(),
    txs: db.prepare('SELECT * FROM txs ORDER BY hash').all(),
    logs: db.prepare('SELECT * FROM logs ORDER BY block_number, log_index').all(),
  }
}

describe('ChainStore.writeCanonical', () => {
  it('writes the index rows one statement a row wrote, for counts around each chunk size', async () => {
    for (const count of [0, 1, 5, 8, 9, 64, 65, 130]) {
      const [one, batched] = [await database(), await database()]
      // The same height written twice: the second block's rows replace the first's where they meet.
      for (const e of [entry(7, count), entry(8, count), entry(7, Math.floor(count / 2), bytes(99))]) {
        writeOneByOne(one, e)
        new ChainStore(batched).writeCanonical(e)
      }
      expect(contents(batched)).toEqual(contents(one))
      expect(contents(batched).logs.length).toBe(2 * count)
      one.close()
      batched.close()
    }
  })
})
