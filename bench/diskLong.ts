/**
 * Disk and memory over a long dev chain (docs/performance.md, "Disk and memory over 50,000 /
 * 100,000 blocks"): a fresh data path sealed block by block, one transfer per block to one of 1,000
 * recipients (the account state stops growing, only history grows), in this process. Every
 * `every` blocks it prints the bytes of the SQLite file and its WAL, the pages in use, the rows of
 * the BONSAI tables, the RSS and the JS heap (after a forced collection), and µs per sealed block.
 * Run: node_modules/.bin/bun bench/diskLong.ts [blocks=50000] [every=10000] [FOREST|BONSAI] [window=512]
 * BENCH_SQLITE_CACHE_MIB sets SQLite's page cache (the node's own setting otherwise), to tell its
 * share of the RSS from the rest.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setLogLevel } from '../src/primitives/logger.ts'
import type { StorageFormat } from '../src/state/storageFormat.ts'
import { transferChain } from './transfers.ts'

const BLOCKS = Number(process.argv[2] ?? 50_000)
const EVERY = Number(process.argv[3] ?? 10_000)
const FORMAT = (process.argv[4] ?? 'BONSAI') as StorageFormat
const WINDOW = Number(process.argv[5] ?? 512)
const MiB = 2 ** 20

setLogLevel('WARN')

function fileBytes(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return 0
  }
}

function collectGarbage(): void {
  const g = globalThis as { Bun?: { gc(force: boolean): void }; gc?: () => void }
  if (g.Bun) g.Bun.gc(true)
  else g.gc?.()
}

const dir = mkdtempSync(join(tmpdir(), 'basalt-disk-long-'))
const dbFile = join(dir, 'basalt.sqlite')
try {
  const { chain, close, sealNext } = await transferChain({
    dataPath: dir,
    dataStorageFormat: FORMAT,
    bonsaiHistoricalBlockLimit: WINDOW,
  })
  const cacheMiB = process.env.BENCH_SQLITE_CACHE_MIB
  if (cacheMiB) chain.store.db.exec(`PRAGMA cache_size = -${Number(cacheMiB) * 1024}`)
  const count = (table: string) => Number(chain.store.db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get()?.n ?? 0)
  console.log(`${FORMAT}, window ${WINDOW}: ${BLOCKS} one-transfer blocks, a sample every ${EVERY}`)
  console.log(
    'block\tfile+wal MiB\twal MiB\tused MiB\tKB/block used\ttrie_nodes\tstale\tlogs\tRSS MiB\theap MiB\tbuffers MiB\tseal µs',
  )
  let lastUsed = 0
  let lastBlock = 0
  let sealMs = 0
  for (let i = 0; i < BLOCKS; i++) {
    sealMs += await sealNext(i)
    const n = i + 1
    if (n % EVERY !== 0 && n !== BLOCKS) continue
    chain.flushState()
    collectGarbage()
    const used = chain.store.sizeBytes().usedBytes
    const wal = fileBytes(`${dbFile}-wal`)
    const bonsai = FORMAT === 'BONSAI'
    console.log(
      [
        n,
        ((fileBytes(dbFile) + wal) / MiB).toFixed(1),
        (wal / MiB).toFixed(1),
        (used / MiB).toFixed(1),
        ((used - lastUsed) / (n - lastBlock) / 1024).toFixed(2),
        count('trie_nodes'),
        bonsai ? count('stale_nodes') : '-',
        bonsai ? count('trie_logs') : '-',
        (process.memoryUsage().rss / MiB).toFixed(0),
        (process.memoryUsage().heapUsed / MiB).toFixed(0),
        (process.memoryUsage().arrayBuffers / MiB).toFixed(0),
        ((sealMs * 1000) / (n - lastBlock)).toFixed(0),
      ].join('\t'),
    )
    lastUsed = used
    lastBlock = n
    sealMs = 0
  }
  close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
