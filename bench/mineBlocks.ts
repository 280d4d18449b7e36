/**
 * CPU cost of `hardhat_mine` / `anvil_mine` without HTTP: the dev sealer mines empty blocks in one
 * call on a fresh data path. Prints the wall and CPU time per block, and the database's size.
 * Run: node_modules/.bin/bun bench/mineBlocks.ts [blocks] [calls]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openChain, poolChainView } from '../src/node/node.ts'
import { systemClock } from '../src/primitives/clock.ts'
import { setLogLevel } from '../src/primitives/logger.ts'
import { DevSealer } from '../src/producer/devSealer.ts'
import { TxPool } from '../src/txpool/txPool.ts'

const BLOCKS = BigInt(process.argv[2] ?? 10_000)
const CALLS = Number(process.argv[3] ?? 1)

setLogLevel('WARN')
const dir = mkdtempSync(join(tmpdir(), 'basalt-mine-'))
try {
  const { chain, close } = await openChain({ dataPath: dir })
  const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 1_000, priceBumpPercent: 10 })
  const sealer = new DevSealer(chain, pool, { coinbase: new Uint8Array(20), clock: systemClock })
  for (let c = 0; c < CALLS; c++) {
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    await sealer.mine(BLOCKS)
    const ms = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    const n = Number(BLOCKS)
    console.log(
      `mine ${n}: ${ms.toFixed(0)} ms, ${((ms * 1000) / n).toFixed(0)} µs/block wall, ${((cpu.user + cpu.system) / n).toFixed(0)} µs/block CPU, head ${chain.head.header.number}`,
    )
  }
  const size = (f: string) => {
    try {
      return statSync(join(dir, f)).size
    } catch {
      return 0
    }
  }
  console.log(
    `database ${(size('basalt.sqlite') / 2 ** 20).toFixed(1)} MiB, WAL ${(size('basalt.sqlite-wal') / 2 ** 20).toFixed(1)} MiB`,
  )
  close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
