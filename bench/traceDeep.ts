/**
 * The shared harness's long-run trace row: a token transfer traced thousands of blocks below the
 * head, far below the 512-block BONSAI window (its parent state comes from the state history).
 * Each run starts a binary on a new data path, deploys the harness's token, sends `[transfers]`
 * token transfers one at a time (one per block, as the harness's c=1 phase) and as many again from
 * eight senders at once (blocks of several transfers, as its c=8 phase), then traces in the same
 * process (the EVM warm from the writes, the tracing path cold: what the harness measures) and,
 * after a restart on the same data path, in a fresh process:
 *   - the first c=1 transfer five times (the harness's row: their median), then its neighbour (the
 *     next block's transfer) five times;
 *   - in the first process only, `[warm]` more traces of the first transfer (a warm trace's median),
 *     then a sweep: each of the next `SWEEP` c=1 transfers traced once (every trace on another
 *     parent state, as a test suite tracing its transactions one by one), medians reported.
 * Each trace's wall time, the node's main-thread CPU and its CPU over all threads
 * (`/proc/<pid>/task/<tid>/schedstat`) are printed, with a digest of each answer so that two
 * binaries' answers can be compared. Binaries run in interleaved pairs (A B, then B A, ...).
 * Usage: `node_modules/.bin/bun bench/traceDeep.ts <binary A> [binary B] [transfers] [pairs] [warm]`
 * (defaults: B = A, 2000, 1, 100). With `PROFILE_DIR=<dir>` every node process writes a CPU profile
 * there (`--cpu-prof`, sampled every `PROFILE_INTERVAL_US` µs, default 1000).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BenchNode, startBenchNode } from './benchNode.ts'
import { pad32, TOKEN_INITCODE } from './harnessToken.ts'

const [binaryA, binaryB = binaryA] = process.argv.slice(2, 4)
if (!binaryA) throw new Error('usage: bun bench/traceDeep.ts <binary A> [binary B] [transfers] [pairs] [warm]')
const TRANSFERS = Number(process.argv[4] ?? 2000)
const PAIRS = Number(process.argv[5] ?? 1)
const WARM = Number(process.argv[6] ?? 100)
const SENDERS = 8
const SWEEP = 100
const TRACES = 5
const RECEIPT_POLLS = 2000
const ARGS = ['--dev-accounts-unlocked', '--rpc-http-api', 'ETH,NET,WEB3,DEBUG']

interface Traces {
  wallMs: number[]
  mainCpuMs: number[]
  allCpuMs: number[]
  /** CPU ms of the other threads by name, summed over the traces. */
  otherCpuMs: Record<string, number>
  digests: Set<string>
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const round = (x: number) => Math.round(x * 100) / 100
const schedNs = (path: string) => Number(readFileSync(path, 'utf8').split(' ')[0])
const mainNs = (pid: number) => schedNs(`/proc/${pid}/task/${pid}/schedstat`)
/** CPU ns of the node's threads by name (the main thread, the JIT's and the collector's). */
function byThread(pid: number): Map<string, number> {
  const out = new Map<string, number>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = Number(tid) === pid ? 'main' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()
      out.set(name, (out.get(name) ?? 0) + schedNs(`/proc/${pid}/task/${tid}/schedstat`))
    } catch {
      // a thread that ended meanwhile
    }
  }
  return out
}

async function send(node: BenchNode, tx: Record<string, string>): Promise<string> {
  const hash = (await node.rpc('eth_sendTransaction', [tx])) as string
  for (let i = 0; i < RECEIPT_POLLS; i++) {
    if (await node.rpc('eth_getTransactionReceipt', [hash])) return hash
    await Bun.sleep(1)
  }
  throw new Error(`no receipt for ${hash}`)
}

const transfer = (from: string, token: string, to: string) => ({
  from,
  to: token,
  data: `0xa9059cbb${pad32(to)}${pad32('1')}`,
  gas: '0x186a0',
})

/** Builds the chain; returns the c=1 transfers, in order. */
async function buildChain(node: BenchNode): Promise<string[]> {
  const accounts = (await node.rpc('eth_accounts', [])) as string[]
  const [owner, ...others] = accounts
  const senders = others.slice(0, SENDERS - 1)
  const deploy = await send(node, {
    from: owner,
    data: TOKEN_INITCODE + pad32((10n ** 30n).toString(16)),
    gas: '0xf4240',
  })
  const token = ((await node.rpc('eth_getTransactionReceipt', [deploy])) as { contractAddress: string }).contractAddress
  for (const s of senders)
    await send(node, { ...transfer(owner, token, s), data: `0xa9059cbb${pad32(s)}${pad32('ffffffffff')}` })
  const recipient = (i: number) => `0x${(0x1000 + i).toString(16).padStart(40, '0')}`
  const hashes: string[] = []
  for (let i = 0; i < TRANSFERS; i++) hashes.push(await send(node, transfer(owner, token, recipient(i))))
  const each = Math.ceil(TRANSFERS / SENDERS)
  await Promise.all(
    [owner, ...senders].map(async (from, k) => {
      for (let i = 0; i < each; i++) await send(node, transfer(from, token, recipient(TRANSFERS + k * each + i)))
    }),
  )
  return hashes
}

async function trace(node: BenchNode, hash: string, n: number, into?: Traces): Promise<Traces> {
  const out = into ?? { wallMs: [], mainCpuMs: [], allCpuMs: [], otherCpuMs: {}, digests: new Set<string>() }
  for (let i = 0; i < n; i++) {
    const threads0 = byThread(node.pid)
    const main0 = mainNs(node.pid)
    const t0 = performance.now()
    const r = (await node.rpc('debug_traceTransaction', [hash, {}])) as { structLogs: unknown[] }
    out.wallMs.push(round(performance.now() - t0))
    out.mainCpuMs.push(round((mainNs(node.pid) - main0) / 1e6))
    let all = 0
    for (const [name, ns] of byThread(node.pid)) {
      const ms = (ns - (threads0.get(name) ?? 0)) / 1e6
      all += ms
      if (name !== 'main') out.otherCpuMs[name] = round((out.otherCpuMs[name] ?? 0) + ms)
    }
    out.allCpuMs.push(round(all))
    if (r.structLogs.length === 0) throw new Error(`empty trace of ${hash}`)
    out.digests.add(Bun.hash(JSON.stringify(r)).toString(16))
  }
  return out
}

const show = (t: Traces) => ({
  wallMs: t.wallMs,
  mainCpuMs: t.mainCpuMs,
  allCpuMs: t.allCpuMs,
  otherCpuMs: t.otherCpuMs,
  median5: round(median(t.wallMs.slice(0, TRACES))),
  digests: [...t.digests],
})

async function runOnce(label: string, binary: string, pair: number) {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-trace-deep-'))
  try {
    const profileDir = process.env.PROFILE_DIR
    const interval = process.env.PROFILE_INTERVAL_US ?? '1000'
    const env = profileDir
      ? { BUN_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir} --cpu-prof-interval=${interval}` }
      : undefined
    let node = await startBenchNode(binary, 22000, ARGS, { dataDir: dir, env })
    let target: string
    let neighbour: string
    const built = performance.now()
    try {
      const transfers = await buildChain(node)
      ;[target, neighbour] = transfers
      const head = Number(await node.rpc('eth_blockNumber', []))
      console.error(`${label}: ${head} blocks in ${Math.round(performance.now() - built)} ms`)
      const sameTarget = await trace(node, target, TRACES)
      const sameNeighbour = await trace(node, neighbour, TRACES)
      const warm = await trace(node, target, WARM)
      let sweep: Traces | undefined
      for (const hash of transfers.slice(2, 2 + SWEEP)) sweep = await trace(node, hash, 1, sweep)
      console.log(
        JSON.stringify({
          binary: label,
          pair,
          process: 'same',
          head,
          target: show(sameTarget),
          neighbour: show(sameNeighbour),
          warmMedianMs: round(median(warm.wallMs)),
          warmMainCpuMs: round(median(warm.mainCpuMs)),
          warmDigests: [...warm.digests],
          sweepMedianMs: sweep && round(median(sweep.wallMs)),
          sweepMainCpuMs: sweep && round(median(sweep.mainCpuMs)),
          sweepAllCpuMs: sweep && round(median(sweep.allCpuMs)),
          sweepDigest: sweep && Bun.hash([...sweep.digests].join()).toString(16),
        }),
      )
    } finally {
      await node.stop()
    }
    node = await startBenchNode(binary, 22000, ARGS, { dataDir: dir, env })
    try {
      const freshTarget = await trace(node, target, TRACES)
      const freshNeighbour = await trace(node, neighbour, TRACES)
      console.log(
        JSON.stringify({
          binary: label,
          pair,
          process: 'fresh',
          target: show(freshTarget),
          neighbour: show(freshNeighbour),
        }),
      )
    } finally {
      await node.stop()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

for (let p = 0; p < PAIRS; p++) {
  const order: [string, string][] = [
    ['A', binaryA],
    ['B', binaryB],
  ]
  if (p % 2 === 1) order.reverse()
  for (const [label, binary] of order) {
    if (label === 'B' && binaryB === binaryA && PAIRS === 1) continue
    await runOnce(label, binary, p)
  }
}
