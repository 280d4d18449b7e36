/**
 * eth_getLogs cost over a wide range: 8,000 canonical blocks, 4,000 matching logs (one every other
 * block) among `NOISE` other logs per block; times the log reader's query, formatting and the JSON
 * text of the answer. Run: node_modules/.bin/bun bench/getLogs.ts [noise logs per block]
 */
import { createBlockHeader } from '@ethereumjs/block'
import type { Chain } from '../src/chain/chain.ts'
import { LogReader } from '../src/rpc/eth/logReader.ts'
import { ChainStore, type StoredLog } from '../src/storage/chainStore.ts'
import { migrate } from '../src/storage/schema.ts'
import { openSqlite } from '../src/storage/sqlite.ts'

const BLOCKS = 8000
const NOISE = Number(process.argv[2] ?? 3)
const RUNS = 15

const db = await openSqlite(':memory:')
migrate(db, true)
const store = new ChainStore(db)
const target = new Uint8Array(20).fill(0xaa)
const other = new Uint8Array(20).fill(0xbb)
const topic = new Uint8Array(32).fill(1)
const random = (n: number) => crypto.getRandomValues(new Uint8Array(n))

db.transaction(() => {
  for (let i = 1; i <= BLOCKS; i++) {
    const header = createBlockHeader({
      number: BigInt(i),
      timestamp: BigInt(1_700_000_000 + i * 12),
      gasLimit: 30_000_000n,
    })
    const hash = header.hash()
    const txHash = random(32)
    const logs: StoredLog[] = []
    const add = (address: Uint8Array, topics: Uint8Array[], data: Uint8Array) =>
      logs.push({
        blockNumber: i,
        logIndex: logs.length,
        blockHash: hash,
        txHash,
        txIndex: 0,
        address,
        topics,
        data,
        blockTimestamp: Number(header.timestamp),
      })
    if (i % 2 === 0) add(target, [topic, random(32)], random(64))
    for (let k = 0; k < NOISE; k++) add(other, [random(32), random(32)], random(96))
    store.writeBlock({
      hash,
      number: BigInt(i),
      totalDifficulty: 0n,
      headerRlp: header.serialize(),
      bodyRlp: new Uint8Array([0xc0]),
      senders: new Uint8Array(0),
      receiptsRlp: new Uint8Array([0xc0]),
    })
    store.writeCanonical({ number: BigInt(i), hash, txHashes: [txHash], logs })
  }
})

const chain = { store, head: { header: { number: BigInt(BLOCKS) } } } as unknown as Chain
const cpu: number[] = []
const wall: number[] = []
let count = 0
for (let r = 0; r < RUNS; r++) {
  const reader = new LogReader(chain)
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  const logs = reader.inRange(0n, BigInt(BLOCKS), { addresses: [target], topics: [[topic]] })
  JSON.stringify({ jsonrpc: '2.0', id: 1, result: logs })
  wall.push(performance.now() - t0)
  const c1 = process.cpuUsage(c0)
  cpu.push((c1.user + c1.system) / 1000)
  count = logs.length
}
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)].toFixed(1)
console.log(
  `eth_getLogs, ${BLOCKS} blocks, ${count} logs (+${NOISE}/block other): cpu ${median(cpu)} ms, wall ${median(wall)} ms (median of ${RUNS})`,
)
