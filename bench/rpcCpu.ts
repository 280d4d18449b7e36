/**
 * Node CPU per JSON-RPC request: starts a basalt binary on a fresh data path, sends each read
 * (eth_blockNumber, eth_getBalance, eth_call of the history-storage system contract) at 32
 * concurrent keep-alive connections, and divides the CPU time the node's process used (utime +
 * stime from /proc/<pid>/stat) by the number of requests. On a shared machine whose load swings the
 * wall-clock req/s by a factor of two or three between runs, this figure moves by 10-15 %; compare
 * binaries back to back. Also prints the start-up time and the idle RSS of that start.
 * Usage: `bun bench/rpcCpu.ts <binary> [requests]` (default 20,000; eth_call gets a quarter).
 */
import { startBenchNode } from './benchNode.ts'

const binary = process.argv[2]
if (!binary) throw new Error('usage: bun bench/rpcCpu.ts <binary> [requests]')
const REQUESTS = Number(process.argv[3] ?? 20_000)
const CONCURRENCY = 32
const WARMUP = 2_000
const OWNER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
/** EIP-2935's history contract: a call that runs code and reads storage, present in every dev chain. */
const HISTORY = '0x0000f90827f1c53a10cb7a02335b175320002935'

const node = await startBenchNode(binary, 19400)
const rpc = node.rpc

async function load(method: string, params: unknown[], count: number): Promise<void> {
  let sent = 0
  const worker = async () => {
    while (sent < count) {
      sent++
      await rpc(method, params)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
}

try {
  const startMs = node.startMs
  await Bun.sleep(300)
  const rssMib = node.rssMib()
  const out: Record<string, unknown> = { startMs: Math.round(startMs), idleRssMib: Math.round(rssMib * 10) / 10 }
  const reads: [string, unknown[], number][] = [
    ['eth_blockNumber', [], REQUESTS],
    ['eth_getBalance', [OWNER, 'latest'], REQUESTS],
    ['eth_call', [{ from: OWNER, to: HISTORY, data: `0x${'00'.repeat(32)}` }, 'latest'], REQUESTS / 4],
  ]
  for (const [method, params, count] of reads) {
    await load(method, params, WARMUP)
    const cpu0 = node.cpuMs()
    await load(method, params, count)
    out[`${method}_cpu_us_per_request`] = Math.round(((node.cpuMs() - cpu0) * 10_000) / count) / 10
  }
  console.log(JSON.stringify(out))
} finally {
  await node.stop()
}
