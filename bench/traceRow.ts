/**
 * The shared harness's trace row against two basalt binaries, in interleaved pairs: each run starts
 * one binary on a fresh data path, deploys the harness's token, seals `[blocks]` one-transfer
 * blocks (so the process's EVM is warm and its tracing code cold, as after the harness's write
 * phases), then traces the first transfer (below the 512-block BONSAI window once `[blocks]` passes
 * it: its parent state comes from the state history) or a recent one (inside the window) `[traces]`
 * times with `debug_traceTransaction(hash, {})`, then the other one as many times. Each trace's wall
 * time and the node's main-thread CPU (`/proc/<pid>/task/<pid>/schedstat`, ns) are recorded; the
 * summary gives, per binary and per case, the harness's figure (the median of the first five
 * traces of a process) over all runs, and the CPU of traces 2 to 5.
 * Usage: `bun bench/traceRow.ts <binary A> <binary B> [blocks] [traces] [pairs]` (defaults 700, 5, 3).
 */
import { readFileSync } from 'node:fs'
import { startBenchNode } from './benchNode.ts'
import { pad32, TOKEN_INITCODE } from './harnessToken.ts'

const [binaryA, binaryB] = process.argv.slice(2, 4)
if (!binaryA || !binaryB)
  throw new Error('usage: bun bench/traceRow.ts <binary A> <binary B> [blocks] [traces] [pairs]')
const BLOCKS = Number(process.argv[4] ?? 700)
const TRACES = Math.max(5, Number(process.argv[5] ?? 5))
const PAIRS = Number(process.argv[6] ?? 3)
const OWNER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const RECEIPT_POLLS = 500
const STRUCT_LOGS = 231

type Case = 'early' | 'recent'
interface Run {
  wallMs: number[]
  cpuMs: number[]
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
const round = (x: number) => Math.round(x * 100) / 100

async function runOnce(binary: string, first: Case): Promise<Record<Case, Run>> {
  const node = await startBenchNode(binary, 21000, [
    '--dev-accounts-unlocked',
    '--rpc-http-api',
    'ETH,NET,WEB3,DEBUG,HARDHAT',
  ])
  const mainThreadNs = () => Number(readFileSync(`/proc/${node.pid}/task/${node.pid}/schedstat`, 'utf8').split(' ')[0])
  const send = async (tx: Record<string, string>) => {
    const hash = await node.rpc('eth_sendTransaction', [{ from: OWNER, ...tx }])
    for (let i = 0; i < RECEIPT_POLLS; i++) {
      const r = (await node.rpc('eth_getTransactionReceipt', [hash])) as {
        transactionHash: string
        contractAddress: string | null
      } | null
      if (r) return r
      await Bun.sleep(1)
    }
    throw new Error('no receipt')
  }
  try {
    const token = (await send({ data: TOKEN_INITCODE + pad32((10n ** 30n).toString(16)), gas: '0xf4240' }))
      .contractAddress as string
    const hashes: string[] = []
    for (let i = 0; i < BLOCKS; i++) {
      const to = `0x${(0x1000 + i).toString(16).padStart(40, '0')}`
      hashes.push(
        (await send({ to: token, data: `0xa9059cbb${pad32(to)}${pad32('1')}`, gas: '0x186a0' })).transactionHash,
      )
    }
    const target: Record<Case, string> = { early: hashes[0], recent: hashes[hashes.length - 3] }
    const out = {} as Record<Case, Run>
    for (const c of first === 'early' ? (['early', 'recent'] as const) : (['recent', 'early'] as const)) {
      const run: Run = { wallMs: [], cpuMs: [] }
      for (let i = 0; i < TRACES; i++) {
        const cpu0 = mainThreadNs()
        const t0 = performance.now()
        const r = (await node.rpc('debug_traceTransaction', [target[c], {}])) as { structLogs: unknown[] }
        run.wallMs.push(round(performance.now() - t0))
        run.cpuMs.push(round((mainThreadNs() - cpu0) / 1e6))
        if (r.structLogs.length !== STRUCT_LOGS) throw new Error(`${r.structLogs.length} struct logs`)
      }
      out[c] = run
    }
    return out
  } finally {
    await node.stop()
  }
}

const runs: Record<string, Record<Case, Run>[]> = { A: [], B: [] }
for (let p = 0; p < PAIRS; p++) {
  const first: Case = p % 2 === 0 ? 'early' : 'recent'
  for (const [label, binary] of p % 2 === 0
    ? [
        ['A', binaryA],
        ['B', binaryB],
      ]
    : [
        ['B', binaryB],
        ['A', binaryA],
      ]) {
    const r = await runOnce(binary, first)
    runs[label].push(r)
    console.log(JSON.stringify({ binary: label, pair: p, first, ...r }))
  }
}
for (const label of ['A', 'B']) {
  for (const c of ['early', 'recent'] as const) {
    const rows = runs[label].map((r) => r[c])
    const harness = rows.map((r) => round(median(r.wallMs.slice(0, 5))))
    const cpu25 = rows.map((r) => round(r.cpuMs.slice(1, 5).reduce((a, b) => a + b, 0) / 4))
    console.log(
      `${label} ${c}: median of first five (ms) ${harness.join(' ')}; main-thread CPU of traces 2-5, mean (ms) ${cpu25.join(' ')}; first trace CPU ${rows.map((r) => r.cpuMs[0]).join(' ')}`,
    )
  }
}
