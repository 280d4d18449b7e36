/**
 * The better-sqlite3 side of `openSqlite`: one scenario (migrations, WAL, a block with its indexes,
 * a rolled-back transaction, a reopen) bundled for Node and run by `node` against better-sqlite3,
 * then by Bun against bun:sqlite. Both runtimes must store and read back the same rows.
 */

import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it, needsBun } from '../runtime/testing.ts'

const here = import.meta.dirname
const work = mkdtempSync(join(tmpdir(), 'basalt-sqlite-node-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const SCENARIO = `
import { ChainStore } from ${JSON.stringify(join(here, 'chainStore.ts'))}
import { SCHEMA_VERSION, migrate } from ${JSON.stringify(join(here, 'schema.ts'))}
import { openSqlite } from ${JSON.stringify(join(here, 'sqlite.ts'))}

const hex = (b) => (b === undefined ? null : Buffer.from(b).toString('hex'))
const bytes = (n, fill) => new Uint8Array(n).fill(fill)
const file = process.argv[2]
const out = { driver: typeof Bun === 'undefined' ? 'better-sqlite3' : 'bun:sqlite' }

let db = await openSqlite(file)
migrate(db, false)
out.journalMode = db.prepare('PRAGMA journal_mode').get().journal_mode
out.versionIsCurrent = db.prepare('PRAGMA user_version').get().user_version === SCHEMA_VERSION
let store = new ChainStore(db)
const hash = bytes(32, 0xaa)
const txHash = bytes(32, 0xbb)
const topic = bytes(32, 0xcc)
db.transaction(() => {
  store.writeBlock({ hash, number: 7n, totalDifficulty: 2n ** 70n, headerRlp: bytes(3, 1), bodyRlp: bytes(2, 2), senders: bytes(20, 3), receiptsRlp: bytes(4, 4) })
  store.writeCanonical({ number: 7n, hash, txHashes: [txHash], logs: [{ blockNumber: 7, logIndex: 0, blockHash: hash, txHash, txIndex: 0, address: bytes(20, 5), topics: [topic], data: bytes(5, 6), blockTimestamp: 1700000000 }] })
  store.writeTrieNodes([[bytes(32, 7), bytes(9, 8)]])
  store.writeMeta('genesis', bytes(32, 9))
})
try {
  db.transaction(() => {
    store.writeMeta('genesis', bytes(32, 1))
    throw new Error('abort')
  })
} catch {}
db.close()

db = await openSqlite(file)
migrate(db, false)
store = new ChainStore(db)
out.header = hex(store.readHeaderRlp(hash))
out.totalDifficulty = String(store.readTotalDifficulty(hash))
out.number = String(store.readBlockNumber(hash))
out.canonical = hex(store.readCanonicalHash(7n))
out.tx = store.readTxLocation(txHash)?.index ?? null
out.logs = store.queryLogs({ fromBlock: 0, toBlock: 10, addresses: [bytes(20, 5)], topics: [[topic]] }).map((l) => [l.blockNumber, hex(l.data), l.blockTimestamp])
out.trieNode = hex(store.readTrieNode(bytes(32, 7)))
out.genesis = hex(store.readMeta('genesis'))
out.isUint8Array = store.readHeaderRlp(hash)?.constructor === Uint8Array
db.close()
process.stdout.write(JSON.stringify(out))
`

function bundleScenario(): string {
  writeFileSync(join(work, 'scenario.ts'), SCENARIO)
  const out = join(work, 'scenario.mjs')
  // Node resolves better-sqlite3 from the bundle's folder.
  symlinkSync(resolve(here, '../../node_modules'), join(work, 'node_modules'))
  const built = spawnSync(
    process.execPath,
    [
      'build',
      join(work, 'scenario.ts'),
      '--target=node',
      '--format=esm',
      '--external',
      'better-sqlite3',
      '--outfile',
      out,
    ],
    { encoding: 'utf8' },
  )
  if (built.status !== 0) throw new Error(`bundling the scenario failed: ${built.stderr}`)
  return out
}

function runScenario(runtime: string, bundle: string, db: string): Record<string, unknown> {
  const run = spawnSync(runtime, [bundle, db], { encoding: 'utf8', timeout: 30_000 })
  if (run.status !== 0) throw new Error(`${runtime} failed: ${run.stderr}`)
  return JSON.parse(run.stdout)
}

describe.skipIf(needsBun('bundles the scenario with `bun build` and reads it back through bun:sqlite'))(
  'openSqlite under Node (better-sqlite3)',
  () => {
    it('migrates, commits, rolls back and reads back the rows bun:sqlite reads', () => {
      const bundle = bundleScenario()
      const underNode = runScenario('node', bundle, join(work, 'node.sqlite'))
      const underBun = runScenario(process.execPath, bundle, join(work, 'bun.sqlite'))
      expect(underNode.driver).toBe('better-sqlite3')
      expect(underBun.driver).toBe('bun:sqlite')
      const expected = {
        journalMode: 'wal',
        versionIsCurrent: true,
        header: '010101',
        totalDifficulty: String(2n ** 70n),
        number: '7',
        canonical: 'aa'.repeat(32),
        tx: 0,
        logs: [[7, '0606060606', 1700000000]],
        trieNode: '08'.repeat(9),
        genesis: '09'.repeat(32),
        isUint8Array: true,
      }
      expect(underNode).toEqual({ driver: 'better-sqlite3', ...expected })
      expect(underBun).toEqual({ driver: 'bun:sqlite', ...expected })
    })
  },
)
