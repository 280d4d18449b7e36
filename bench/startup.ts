/**
 * Start-up time and idle memory of a basalt command: the time from spawn to the first eth_chainId
 * answer (and the process's CPU time and minor page faults then), to the first eth_blockNumber
 * answer (the chain is open; CPU time then too), and the resident memory 1 s later. Usage:
 * `bun bench/startup.ts [runs] -- <command…> [-- <command…>]…` (e.g. `-- dist/basalt` or
 * `-- test/runtime/basalt-deno`); several commands are started in turn, round after round, so that
 * they share the machine's load. Prints the medians of each command as JSON, one line each.
 * `--existing [data path]` measures restarts instead: each command gets a data path of its own (a
 * copy of the one given, or a new one), started once and stopped with SIGTERM before the measured
 * runs, each of which is stopped with SIGTERM too (a clean restart, as a dev chain is restarted).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const options = process.argv.slice(2, process.argv.indexOf('--'))
const runs = Number(/^\d+$/.test(options[0] ?? '') ? options[0] : 5)
const existingAt = options.indexOf('--existing')
const isRestart = existingAt >= 0
const sourceDataPath = isRestart ? options[existingAt + 1] : undefined
const commands: string[][] = []
for (const arg of process.argv.slice(process.argv.indexOf('--'))) {
  if (arg === '--') commands.push([])
  else commands[commands.length - 1].push(arg)
}
const PORT = 18900 + (process.pid % 500)
const POLL_LIMIT_MS = 60_000

const rssKib = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)

const statFields = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')

/** User and system CPU time of a process so far, in ms (clock ticks of 10 ms). */
const cpuMs = (fields: string[]) => (Number(fields[11]) + Number(fields[12])) * 10

const ask = (method: string) =>
  fetch(`http://127.0.0.1:${PORT}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: `{"jsonrpc":"2.0","id":1,"method":"${method}"}`,
  }).then(
    (r) => r.ok,
    () => false,
  )

type Run = { startMs: number; cpuMs: number; faults: number; readyMs: number; readyCpuMs: number; rssMib: number }

/** Stops a node with SIGTERM (a clean stop), with SIGKILL if it has not exited within 30 s. */
async function stop(proc: ReturnType<typeof Bun.spawn>): Promise<void> {
  proc.kill('SIGTERM')
  const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000)
  await proc.exited
  clearTimeout(timer)
}

const spawnNode = (command: string[], dataPath: string) =>
  Bun.spawn([...command, 'run', '--data-path', dataPath, '--rpc-http-port', String(PORT), '--rpc-ws-enabled=false'], {
    stdout: 'ignore',
    stderr: 'ignore',
  })

/** Each command's data path for restarts: a copy of the given one (or a new one), opened once by the command. */
async function restartDataPath(command: string[]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'basalt-startup-'))
  const dataPath = join(dir, 'data')
  if (sourceDataPath) cpSync(sourceDataPath, dataPath, { recursive: true })
  const proc = spawnNode(command, dataPath)
  const startedAt = performance.now()
  while (performance.now() - startedAt < POLL_LIMIT_MS && !(await ask('eth_blockNumber'))) await Bun.sleep(10)
  await stop(proc)
  return dataPath
}

async function once(command: string[], restartPath?: string): Promise<Run> {
  const dir = restartPath ?? mkdtempSync(join(tmpdir(), 'basalt-startup-'))
  const startedAt = performance.now()
  const proc = spawnNode(command, restartPath ?? join(dir, 'data'))
  try {
    while (performance.now() - startedAt < POLL_LIMIT_MS) {
      if (await ask('eth_chainId')) break
      await Bun.sleep(2)
    }
    const startMs = performance.now() - startedAt
    const first = statFields(proc.pid)
    // Waits for the chain: answered once the node has opened it.
    await ask('eth_blockNumber')
    const readyMs = performance.now() - startedAt
    const readyCpuMs = cpuMs(statFields(proc.pid))
    await Bun.sleep(1000)
    const rssMib = rssKib(proc.pid) / 1024
    return { startMs, cpuMs: cpuMs(first), faults: Number(first[7]), readyMs, readyCpuMs, rssMib }
  } finally {
    if (restartPath) await stop(proc)
    else {
      proc.kill('SIGKILL')
      await proc.exited
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const results: Run[][] = commands.map(() => [])
const restartPaths: (string | undefined)[] = []
for (const command of commands) restartPaths.push(isRestart ? await restartDataPath(command) : undefined)
try {
  for (let i = 0; i < runs; i++)
    for (const [c, command] of commands.entries()) results[c].push(await once(command, restartPaths[c]))
} finally {
  for (const path of restartPaths) if (path) rmSync(join(path, '..'), { recursive: true, force: true })
}
for (const [c, command] of commands.entries()) {
  const of = (key: keyof Run) => median(results[c].map((r) => r[key]))
  console.log(
    JSON.stringify({
      command: command.join(' '),
      runs,
      ...(isRestart ? { restart: sourceDataPath ?? 'new data path' } : {}),
      startMs: Math.round(of('startMs')),
      cpuMs: of('cpuMs'),
      faults: of('faults'),
      readyMs: Math.round(of('readyMs')),
      readyCpuMs: of('readyCpuMs'),
      rssMib: Math.round(of('rssMib') * 10) / 10,
    }),
  )
}
