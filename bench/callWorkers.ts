/**
 * eth_call throughput and node CPU per call at concurrency 1 and 32, for `--rpc-call-workers`:
 * starts `binary` on a fresh data path (with any further arguments, e.g. `--rpc-call-workers 0`),
 * warms up, then sends `calls` calls of the EIP-2935 history contract (code and a storage read) on
 * keep-alive connections at each concurrency. Prints calls/s (wall clock) and the node's CPU µs per
 * call (all its threads). Compare settings and binaries back to back, and note the load average.
 * Usage: `bun bench/callWorkers.ts <binary> [calls] [-- node args…]`.
 */
import { loadavg } from 'node:os'
import { startBenchNode } from './benchNode.ts'

const [binary, callsArg, ...rest] = process.argv.slice(2)
if (!binary) throw new Error('usage: bun bench/callWorkers.ts <binary> [calls] [-- node args…]')
const CALLS = Number(callsArg ?? 10_000)
const WARMUP = 5_000
const nodeArgs = rest[0] === '--' ? rest.slice(1) : rest
const OWNER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
const HISTORY = '0x0000f90827f1c53a10cb7a02335b175320002935'
const params = [{ from: OWNER, to: HISTORY, data: `0x${'00'.repeat(32)}` }, 'latest']

const node = await startBenchNode(binary, 19900, ['--rpc-http-api', 'ETH,NET,WEB3,DEBUG', ...nodeArgs])

async function load(count: number, concurrency: number): Promise<void> {
  let sent = 0
  const worker = async () => {
    while (sent < count) {
      sent++
      await node.rpc('eth_call', params)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
}

try {
  const out: Record<string, unknown> = { args: nodeArgs.join(' '), loadBefore: loadavg()[0].toFixed(2) }
  await load(WARMUP, 32)
  for (const c of [1, 32]) {
    const cpu0 = node.cpuMs()
    const t0 = performance.now()
    await load(CALLS, c)
    const ms = performance.now() - t0
    out[`c${c}_calls_per_s`] = Math.round((CALLS * 1000) / ms)
    out[`c${c}_cpu_us_per_call`] = Math.round(((node.cpuMs() - cpu0) * 10_000) / CALLS) / 10
  }
  out.rssMib = Math.round(node.rssMib())
  const gauges = await node.rpc('debug_metrics', []).catch(() => undefined)
  if (gauges) out.answers = (gauges as Record<string, unknown>).rpc_calls
  out.loadAfter = loadavg()[0].toFixed(2)
  console.log(JSON.stringify(out))
} finally {
  await node.stop()
}
