/**
 * State storage formats side by side (docs/performance.md, "State storage"): a dev chain sealed
 * block by block, one transfer per block (to one of 1,000 recipients, so the state stops growing and
 * only history grows), then head reads. Prints, per format: sealing µs/block, database bytes per
 * block over the second half of the run (pages in use; the file keeps freed pages for reuse), RSS,
 * and µs per head balance / storage read, per balance read 100 blocks back and half the chain back
 * (below BONSAI's window: served by the state history with X_BONSAI_ARCHIVE, unavailable without).
 * Run: node_modules/.bin/bun bench/stateStorage.ts [blocks] [FOREST|BONSAI|X_BONSAI_ARCHIVE ...]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Address, hexToBytes } from '@ethereumjs/util'
import type { Chain } from '../src/chain/chain.ts'
import { setLogLevel } from '../src/primitives/logger.ts'
import { BONSAI_ARCHIVE, type StorageFormat } from '../src/state/storageFormat.ts'
import { recipient, transferChain } from './transfers.ts'

const BLOCKS = Number(process.argv[2] ?? 5000)
type Format = StorageFormat | typeof BONSAI_ARCHIVE
const FORMATS = (process.argv.length > 3 ? process.argv.slice(3) : ['FOREST', 'BONSAI', BONSAI_ARCHIVE]) as Format[]
const READS = 20_000

setLogLevel('WARN')

async function run(format: Format): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-state-bench-'))
  try {
    const isBonsaiArchive = format === BONSAI_ARCHIVE
    const dataStorageFormat = isBonsaiArchive ? 'BONSAI' : format
    const { chain, close, sealNext } = await transferChain({ dataPath: dir, dataStorageFormat, isBonsaiArchive })
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
    const deepUs = await deepReadUs(chain, BigInt(Math.floor(BLOCKS / 2)))
    const rssMiB = process.memoryUsage().rss / 2 ** 20
    console.log(
      `${format}: ${BLOCKS} blocks, seal ${((sealMs * 1000) / BLOCKS).toFixed(0)} µs/block, ` +
        `disk ${(perBlock / 1024).toFixed(2)} KB/block (second half), db ${(usedBytes / 2 ** 20).toFixed(1)} MiB, ` +
        `RSS ${rssMiB.toFixed(0)} MiB, head balance ${balanceUs.toFixed(1)} µs, head storage ${storageUs.toFixed(1)} µs, ` +
        `balance 100 blocks back ${oldUs.toFixed(1)} µs, ` +
        `balance ${Math.floor(BLOCKS / 2)} blocks back ${deepUs === undefined ? 'unavailable' : `${deepUs.toFixed(1)} µs`}`,
    )
    close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** µs per balance read `back` blocks below the head; undefined when that state is not kept. */
async function deepReadUs(chain: Chain, back: bigint): Promise<number | undefined> {
  const block = (await chain.getBlockByNumber(chain.head.header.number - back))!
  let state: ReturnType<Chain['stateAt']>
  try {
    state = chain.stateAt(block)
  } catch {
    return undefined
  }
  const t0 = performance.now()
  for (let i = 0; i < READS; i++) {
    // A fresh history view every 1,000 reads: each read below is a lookup, not a cache hit.
    if (i % 1000 === 0) state = chain.openHistoricalState(block, chain.trieDb) ?? state
    await state.getAccount(recipient(i * 7))
  }
  return ((performance.now() - t0) * 1000) / READS
}

for (const f of FORMATS) await run(f)
