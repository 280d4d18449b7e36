/**
 * eth_getLogs over a wide range: the SQLite log index against the log bloom cache files, on a
 * synthetic chain of 200,000 blocks (two complete segments) with four token-transfer-like logs per
 * block (50 token addresses, topic0 the Transfer signature, topic1/topic2 among 1,000 accounts).
 * Prints the median of five runs of each query shape. Run: bun bench/logBloomCache.ts
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Chain } from '../src/chain/chain.ts'
import { BLOCKS_PER_SEGMENT, BLOOM_BYTES, bloomBits, LogBloomCache } from '../src/chain/logBloomCache.ts'
import type { LogCriteria } from '../src/chain/logFilter.ts'
import { ChainStore } from '../src/storage/chainStore.ts'
import { migrate } from '../src/storage/schema.ts'
import { openSqlite } from '../src/storage/sqlite.ts'

const BLOCKS = 2 * BLOCKS_PER_SEGMENT
const LOGS_PER_BLOCK = 4
const word = (n: number) => {
  const b = new Uint8Array(32)
  new DataView(b.buffer).setUint32(28, n)
  return b
}
const address = (n: number) => word(n).slice(12)
const TRANSFER = word(0xddf252ad)

function setBit(bloom: Uint8Array, offset: number, value: Uint8Array): void {
  for (const b of bloomBits(value)) bloom[offset + BLOOM_BYTES - 1 - (b >> 3)] |= 1 << (b & 7)
}

const dir = mkdtempSync(join(tmpdir(), 'basalt-bloom-bench-'))
try {
  const db = await openSqlite(join(dir, 'bench.sqlite'))
  migrate(db, false)
  const store = new ChainStore(db)
  const blooms = new Uint8Array(BLOCKS * BLOOM_BYTES)
  let seed = 1
  const rand = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff
    return (seed >>> 8) % n
  }
  const started = performance.now()
  for (let start = 0; start < BLOCKS; start += 10_000) {
    db.transaction(() => {
      for (let n = start; n < start + 10_000; n++) {
        const logs = []
        for (let i = 0; i < LOGS_PER_BLOCK; i++) {
          const l = {
            blockNumber: n,
            logIndex: i,
            blockHash: word(n),
            txHash: word(n * 10 + i),
            txIndex: i,
            address: address(1 + rand(50)),
            topics: [TRANSFER, word(10_000 + rand(1000)), word(10_000 + rand(1000))],
            data: word(i),
            blockTimestamp: n,
          }
          setBit(blooms, n * BLOOM_BYTES, l.address)
          for (const t of l.topics) setBit(blooms, n * BLOOM_BYTES, t)
          logs.push(l)
        }
        store.writeCanonical({ number: BigInt(n), hash: word(n), txHashes: [], logs })
      }
    })
  }
  console.log(
    `built ${BLOCKS} blocks, ${BLOCKS * LOGS_PER_BLOCK} logs in ${Math.round(performance.now() - started)} ms`,
  )
  const chain = { store, head: { header: { number: BigInt(BLOCKS - 1) } } } as unknown as Chain
  const cache = new LogBloomCache(chain, dir)
  for (let s = 0; s < BLOCKS / BLOCKS_PER_SEGMENT; s++) {
    const bytes = blooms.subarray(s * BLOCKS_PER_SEGMENT * BLOOM_BYTES, (s + 1) * BLOCKS_PER_SEGMENT * BLOOM_BYTES)
    writeFileSync(cache.segmentFile(s), bytes)
    writeFileSync(`${cache.segmentFile(s)}.last`, word((s + 1) * BLOCKS_PER_SEGMENT - 1))
  }

  const median = (fn: () => number): { ms: number; n: number } => {
    const times: number[] = []
    let n = 0
    for (let i = 0; i < 5; i++) {
      const t = performance.now()
      n = fn()
      times.push(performance.now() - t)
    }
    return { ms: Math.round(times.sort((a, b) => a - b)[2] * 10) / 10, n }
  }
  const shapes: [string, LogCriteria][] = [
    ['address (1 of 50 tokens)', { addresses: [address(7)], topics: [] }],
    ['topic0 + topic1 (one sender)', { addresses: [], topics: [[TRANSFER], [word(10_500)]] }],
    ['topic1 only (one sender)', { addresses: [], topics: [null, [word(10_500)]] }],
    ['topic2 only (one recipient)', { addresses: [], topics: [null, null, [word(10_123)]] }],
    ['address + topic2', { addresses: [address(7)], topics: [null, null, [word(10_123)]] }],
  ]
  console.log('| filter over 200,000 blocks | matches | SQLite log index | bloom cache + log index |')
  console.log('|---|---|---|---|')
  for (const [name, c] of shapes) {
    const q = { fromBlock: 0, toBlock: BLOCKS - 1, addresses: c.addresses, topics: c.topics }
    const sql = median(() => store.queryLogs(q).length)
    const bloom = median(() => {
      const { blocks } = cache.candidates(0, BLOCKS - 1, c)
      return store.queryLogsOfBlocks(blocks, q).length
    })
    if (sql.n !== bloom.n) throw new Error(`${name}: ${sql.n} logs from SQLite, ${bloom.n} with the bloom cache`)
    console.log(`| ${name} | ${sql.n} | ${sql.ms} ms | ${bloom.ms} ms |`)
  }
  db.close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
