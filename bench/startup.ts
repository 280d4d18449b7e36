/**
 * Start-up time and idle memory of a basalt command: the time from spawn to the first eth_chainId
 * answer (and the process's CPU time then), to the first eth_blockNumber answer (the chain is open),
 * and the resident memory 1 s later. Usage: `bun bench/startup.ts [runs] -- <command…>`
 * (e.g. `-- dist/basalt` or `-- test/runtime/basalt-deno`). Prints the medians as JSON.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const sep = process.argv.indexOf('--')
const runs = Number(process.argv[2] === '--' ? 5 : (process.argv[2] ?? 5))
const command = process.argv.slice(sep + 1)
const PORT = 18900 + (process.pid % 500)
const POLL_LIMIT_MS = 60_000

const rssKib = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)

/** User and system CPU time of a process so far, in ms (clock ticks of 10 ms). */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

const ask = (method: string) =>
  fetch(`http://127.0.0.1:${PORT}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: `{"jsonrpc":"2.0","id":1,"method":"${method}"}`,
  }).then(
    (r) => r.ok,
    () => false,
  )

async function once(): Promise<{ startMs: number; cpuMs: number; readyMs: number; rssMib: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-startup-'))
  const startedAt = performance.now()
  const proc = Bun.spawn(
    [...command, 'run', '--data-path', join(dir, 'data'), '--rpc-http-port', String(PORT), '--rpc-ws-enabled=false'],
    { stdout: 'ignore', stderr: 'ignore' },
  )
  try {
    while (performance.now() - startedAt < POLL_LIMIT_MS) {
      if (await ask('eth_chainId')) break
      await Bun.sleep(2)
    }
    const startMs = performance.now() - startedAt
    const cpu = cpuMs(proc.pid)
    // Waits for the chain: answered once the node has opened it.
    await ask('eth_blockNumber')
    const readyMs = performance.now() - startedAt
    await Bun.sleep(1000)
    return { startMs, cpuMs: cpu, readyMs, rssMib: rssKib(proc.pid) / 1024 }
  } finally {
    proc.kill('SIGKILL')
    await proc.exited
    rmSync(dir, { recursive: true, force: true })
  }
}

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const results = []
for (let i = 0; i < runs; i++) results.push(await once())
console.log(
  JSON.stringify({
    command: command.join(' '),
    runs,
    startMs: Math.round(median(results.map((r) => r.startMs))),
    cpuMs: median(results.map((r) => r.cpuMs)),
    readyMs: Math.round(median(results.map((r) => r.readyMs))),
    rssMib: Math.round(median(results.map((r) => r.rssMib))),
  }),
)
