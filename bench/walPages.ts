/**
 * Pages a one-transfer block's commit writes, by table: seals warm-up blocks, checkpoints, seals
 * more with the WAL's automatic checkpoint off, then reads the WAL's frames (one per page a commit
 * wrote) and names each page's table or index through `dbstat`. Prints frames per commit and the
 * share of each table.
 * Run: node_modules/.bin/bun bench/walPages.ts [warm-up blocks] [measured blocks]
 * `WORKLOAD=token` seals the shared harness's token transfers instead (the token deployed in the
 * first warm-up block).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTxFromRLP } from '@ethereumjs/tx'
import { openChain, poolChainView } from '../src/node/node.ts'
import { systemClock } from '../src/primitives/clock.ts'
import { setLogLevel } from '../src/primitives/logger.ts'
import { DevSealer } from '../src/producer/devSealer.ts'
import { migrate } from '../src/storage/schema.ts'
import { openSqlite } from '../src/storage/sqlite.ts'
import { TxPool } from '../src/txpool/txPool.ts'
import { tokenDeploy, tokenTransfer, transfer } from './transfers.ts'

const WARM = Number(process.argv[2] ?? 1000)
const MEASURED = Number(process.argv[3] ?? 200)

setLogLevel('WARN')
const dir = mkdtempSync(join(tmpdir(), 'basalt-wal-'))
try {
  const file = join(dir, 'chain.db')
  const db = await openSqlite(file)
  migrate(db, false)
  db.exec('PRAGMA wal_autocheckpoint = 0')
  const { chain, close } = await openChain({ dataPath: dir }, db)
  const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 1_000_000, priceBumpPercent: 10 })
  const sealer = new DevSealer(chain, pool, { coinbase: new Uint8Array(20), clock: systemClock })
  const common = chain.commonForNextBlock()
  const deploy = process.env.WORKLOAD === 'token' ? tokenDeploy(common) : undefined
  if (deploy) {
    await pool.add(createTxFromRLP(deploy.tx.serialize(), { common }))
    await sealer.sealBlock(false)
  }
  for (let i = 0; i < WARM + MEASURED; i++) {
    if (i === WARM) db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
    const tx = deploy ? tokenTransfer(i, common, deploy.token) : transfer(i, common)
    await pool.add(createTxFromRLP(tx.serialize(), { common }))
    await sealer.sealBlock(false)
  }
  const wal = readFileSync(`${file}-wal`)
  const pageSize = wal.readUInt32BE(8)
  const owner = new Map<number, string>()
  for (const r of db.prepare('SELECT name, pageno FROM dbstat').all()) owner.set(Number(r.pageno), String(r.name))
  const byTable = new Map<string, number>()
  let frames = 0
  let commits = 0
  for (let off = 32; off + 24 + pageSize <= wal.length; off += 24 + pageSize) {
    const page = wal.readUInt32BE(off)
    const name = owner.get(page) ?? (page === 1 ? 'header page' : 'free or new')
    byTable.set(name, (byTable.get(name) ?? 0) + 1)
    frames++
    if (wal.readUInt32BE(off + 4) !== 0) commits++
  }
  console.log(
    `${commits} commits, ${frames} frames: ${(frames / commits).toFixed(1)} pages a commit (${pageSize} B pages)`,
  )
  for (const [name, n] of [...byTable].sort((a, b) => b[1] - a[1])) {
    console.log(`  ${name.padEnd(28)} ${(n / commits).toFixed(2)} a commit`)
  }
  close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
