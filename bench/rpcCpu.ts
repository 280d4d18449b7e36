/**
 * Node CPU per JSON-RPC request: starts a basalt binary on a fresh data path, sends each read
 * (eth_blockNumber, eth_getBalance, eth_call of the history-storage system contract) at 32
 * concurrent keep-alive connections, and divides the CPU time the node's process used (utime +
 * stime from /proc/<pid>/stat) by the number of requests. On a shared machine whose load swings the
 * wall-clock req/s by a factor of two or three between runs, this figure moves by 10-15 %; compare
 * binaries back to back. Also prints the start-up time and the idle RSS of that start.
 * Usage: `bun bench/rpcCpu.ts <binary> [requests]` (default 20,000; eth_call gets a quarter).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const binary = process.argv[2]
if (!binary) throw new Error('usage: bun bench/rpcCpu.ts <binary> [requests]')
const REQUESTS = Number(process.argv[3] ?? 20_000)
const CONCURRENCY = 32
const WARMUP = 2_000
const START_LIMIT_MS = 30_000
const PORT = 19400 + (process.pid % 500)
const OWNER = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'
/** EIP-2935's history contract: a call that runs code and reads storage, present in every dev chain. */
const HISTORY = '0x0000f90827f1c53a10cb7a02335b175320002935'

const url = `http://127.0.0.1:${PORT}`
const dir = mkdtempSync(join(tmpdir(), 'basalt-rpccpu-'))
const startedAt = performance.now()
const proc = Bun.spawn(
  [binary, 'run', '--data-path', join(dir, 'data'), '--rpc-http-port', String(PORT), '--rpc-ws-enabled=false'],
  { stdout: 'ignore', stderr: 'ignore' },
)

async function rpc(method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await res.json()) as { result?: unknown; error?: unknown }
  if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`)
  return body.result
}

/** CPU milliseconds the node has used so far (clock ticks of 10 ms). */
function nodeCpuMs(): number {
  const fields = readFileSync(`/proc/${proc.pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

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
  const isUp = () =>
    rpc('eth_chainId', []).then(
      () => true,
      () => false,
    )
  while (!(await isUp())) {
    if (performance.now() - startedAt > START_LIMIT_MS) throw new Error('the node did not answer')
    await Bun.sleep(5)
  }
  const startMs = performance.now() - startedAt
  await Bun.sleep(300)
  const rssMib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024
  const out: Record<string, unknown> = { startMs: Math.round(startMs), idleRssMib: Math.round(rssMib * 10) / 10 }
  const reads: [string, unknown[], number][] = [
    ['eth_blockNumber', [], REQUESTS],
    ['eth_getBalance', [OWNER, 'latest'], REQUESTS],
    ['eth_call', [{ from: OWNER, to: HISTORY, data: `0x${'00'.repeat(32)}` }, 'latest'], REQUESTS / 4],
  ]
  for (const [method, params, count] of reads) {
    await load(method, params, WARMUP)
    const cpu0 = nodeCpuMs()
    await load(method, params, count)
    out[`${method}_cpu_us_per_request`] = Math.round(((nodeCpuMs() - cpu0) * 10_000) / count) / 10
  }
  console.log(JSON.stringify(out))
} finally {
  proc.kill('SIGINT')
  await proc.exited
  rmSync(dir, { recursive: true, force: true })
}
