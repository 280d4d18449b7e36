/**
 * State storage formats side by side (docs/performance.md, "State storage"): a dev chain sealed
 * block by block, one transfer per block (to one of 1,000 recipients, so the state stops growing and
 * only history grows), then head reads. Prints, per format: sealing µs/block, database bytes per
 * block over the second half of the run (pages in use; the file keeps freed pages for reuse), RSS,
 * and µs per head balance / storage read and per balance read 100 blocks back.
 * Run: node_modules/.bin/bun bench/stateStorage.ts [blocks] [FOREST|BONSAI ...]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Address, hexToBytes } from '@ethereumjs/util'
import { setLogLevel } from '../src/primitives/logger.ts'
import type { StorageFormat } from '../src/state/storageFormat.ts'
import { recipient, transferChain } from './transfers.ts'

const BLOCKS = Number(process.argv[2] ?? 5000)
const FORMATS = (process.argv.length > 3 ? process.argv.slice(3) : ['FOREST', 'BONSAI']) as StorageFormat[]
const READS = 20_000

setLogLevel('WARN')

async function run(format: StorageFormat): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-state-bench-'))
  try {
    const { chain, close, sealNext } = await transferChain({ dataPath: dir, dataStorageFormat: format })
    let sealMs = 0
    let halfwayBytes = 0
    for (let i = 0; i < BLOCKS; i++) {
      sealMs += await sealNext(i)
      if (i === Math.floor(BLOCKS / 2)) {
        chain.flushState()
        halfwayBytes = chain.store.sizeBytes().usedBytes
      }
    }
    chain.flushState()
    const { usedBytes } = chain.store.sizeBytes()
    const perBlock = (usedBytes - halfwayBytes) / (BLOCKS - Math.floor(BLOCKS / 2) - 1)
    const head = chain.stateAt(chain.head)
    const t1 = performance.now()
    for (let i = 0; i < READS; i++) await head.getAccount(recipient(i * 7))
    const balanceUs = ((performance.now() - t1) * 1000) / READS
    const beaconRoots = new Address(hexToBytes('0x000F3df6D732807Ef1319fB7B8bB8522d0Beac02'))
    const t2 = performance.now()
    for (let i = 0; i < READS; i++) {
      const slot = new Uint8Array(32)
      new DataView(slot.buffer).setUint32(28, i % 8191)
      await head.getStorage(beaconRoots, slot)
    }
    const storageUs = ((performance.now() - t2) * 1000) / READS
    const old = chain.stateAt((await chain.getBlockByNumber(chain.head.header.number - 100n))!)
    const t3 = performance.now()
    for (let i = 0; i < READS; i++) await old.getAccount(recipient(i * 7))
    const oldUs = ((performance.now() - t3) * 1000) / READS
    const rssMiB = process.memoryUsage().rss / 2 ** 20
    console.log(
      `${format}: ${BLOCKS} blocks, seal ${((sealMs * 1000) / BLOCKS).toFixed(0)} µs/block, ` +
        `disk ${(perBlock / 1024).toFixed(2)} KB/block (second half), db ${(usedBytes / 2 ** 20).toFixed(1)} MiB, ` +
        `RSS ${rssMiB.toFixed(0)} MiB, head balance ${balanceUs.toFixed(1)} µs, head storage ${storageUs.toFixed(1)} µs, ` +
        `balance 100 blocks back ${oldUs.toFixed(1)} µs`,
    )
    close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

for (const f of FORMATS) await run(f)
