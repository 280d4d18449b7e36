/**
 * Start-up time and idle memory of a basalt command: the time from spawn to the first eth_chainId
 * answer, and the resident memory 1 s later. Usage: `bun bench/startup.ts [runs] -- <command…>`
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

async function once(): Promise<{ startMs: number; rssMib: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-startup-'))
  const startedAt = performance.now()
  const proc = Bun.spawn(
    [...command, 'run', '--data-path', join(dir, 'data'), '--rpc-http-port', String(PORT), '--rpc-ws-enabled=false'],
    { stdout: 'ignore', stderr: 'ignore' },
  )
  try {
    while (performance.now() - startedAt < POLL_LIMIT_MS) {
      const ok = await fetch(`http://127.0.0.1:${PORT}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}',
      }).then(
        (r) => r.ok,
        () => false,
      )
      if (ok) break
      await Bun.sleep(2)
    }
    const startMs = performance.now() - startedAt
    await Bun.sleep(1000)
    return { startMs, rssMib: rssKib(proc.pid) / 1024 }
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
    rssMib: Math.round(median(results.map((r) => r.rssMib))),
  }),
)
