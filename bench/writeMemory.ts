/**
 * Where the write path's memory goes: seals one transfer per block (as automine does for a client
 * that awaits each receipt) and prints the process's RSS, its high-water mark and the JavaScript
 * heap every 1,000 blocks, then, after a full collection, how much of the live heap each cache of
 * the chain holds (each is emptied in turn and the heap collected again).
 * Run: node_modules/.bin/bun bench/writeMemory.ts [transactions] [trie node read cache size]
 */
import { heapStats } from 'bun:jsc'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createFeeMarket1559Tx, createTxFromRLP } from '@ethereumjs/tx'
import { hexToBytes } from '@ethereumjs/util'
import { openChain, poolChainView } from '../src/node/node.ts'
import { systemClock } from '../src/primitives/clock.ts'
import { setLogLevel } from '../src/primitives/logger.ts'
import { DevSealer } from '../src/producer/devSealer.ts'
import { TxPool } from '../src/txpool/txPool.ts'

const COUNT = Number(process.argv[2] ?? 2000)
const READ_CACHE = process.argv[3]
const KEY = hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
const MIB = 2 ** 20

function memory(): string {
  const status = readFileSync('/proc/self/status', 'utf8')
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024
  const heap = heapStats()
  const m = process.memoryUsage()
  return [
    `RSS ${kib('VmRSS').toFixed(0)} MiB (peak ${kib('VmHWM').toFixed(0)}, anonymous ${kib('RssAnon').toFixed(0)}, file ${kib('RssFile').toFixed(0)})`,
    `heap used ${(m.heapUsed / MIB).toFixed(0)} of ${(m.heapTotal / MIB).toFixed(0)} MiB, extra ${(heap.extraMemorySize / MIB).toFixed(0)} MiB`,
  ].join(', ')
}

const mostNumerous = () =>
  Object.entries(heapStats().objectTypeCounts)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 12)
    .map(([type, n]) => `${type} ${n}`)
    .join(', ')

setLogLevel('WARN')
const dir = mkdtempSync(join(tmpdir(), 'basalt-writemem-'))
try {
  const { chain, close } = await openChain({ dataPath: dir })
  // The caches are private: reached here by name, to measure them.
  const caches = chain as unknown as Record<string, Map<unknown, unknown>>
  const trieDb = chain.trieDb as unknown as { readCache: Map<string, Uint8Array>; readCacheSize: number }
  if (READ_CACHE) trieDb.readCacheSize = Number(READ_CACHE)
  Bun.gc(true)
  console.log('opened:', memory())
  console.log('most numerous live objects:', mostNumerous())
  const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 1_000_000, priceBumpPercent: 10 })
  const sealer = new DevSealer(chain, pool, { coinbase: new Uint8Array(20), clock: systemClock })
  const common = chain.commonForNextBlock()
  const cpu0 = process.cpuUsage()
  for (let i = 0; i < COUNT; i++) {
    const to = new Uint8Array(20)
    new DataView(to.buffer).setUint32(16, i + 1)
    to[0] = 0x42
    const tx = createFeeMarket1559Tx(
      { nonce: i, to, value: 1n, gasLimit: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n },
      { common },
    ).sign(KEY)
    await pool.add(createTxFromRLP(tx.serialize(), { common }))
    await sealer.sealBlock(false)
    if ((i + 1) % 1000 === 0) console.log(`${i + 1} blocks:`, memory())
  }
  const cpu = process.cpuUsage(cpu0)
  console.log(`CPU ${((cpu.user + cpu.system) / COUNT).toFixed(0)} µs per transaction`)
  Bun.gc(true)
  console.log('after a full collection:', memory())
  console.log('most numerous live objects:', mostNumerous())
  const drop = (name: string, clear: () => void) => {
    const before = process.memoryUsage().heapUsed + heapStats().extraMemorySize
    clear()
    Bun.gc(true)
    const after = process.memoryUsage().heapUsed + heapStats().extraMemorySize
    console.log(`  ${name}: ${((before - after) / MIB).toFixed(1)} MiB`)
  }
  console.log('live memory held by each cache:')
  drop('trie node reads (TrieDb)', () => trieDb.readCache.clear())
  drop('blocks', () => caches.blockCache.clear())
  drop('receipts', () => caches.receiptCache.clear())
  drop('state views', () => caches.stateCache.clear())
  console.log('caches emptied:', memory())
  console.log('most numerous live objects:', mostNumerous())
  close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
