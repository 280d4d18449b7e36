/**
 * A basalt binary started for a benchmark on a fresh data path: JSON-RPC over keep-alive HTTP, the
 * CPU time its process has used (utime + stime from /proc/<pid>/stat) and its RSS. Shared by
 * `rpcCpu.ts` and `writeCpu.ts`.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const START_LIMIT_MS = 30_000

/** A `kB` field of /proc/<pid>/status. */
const statusKib = (pid: number, field: string) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)

export interface BenchNode {
  rpc(method: string, params: unknown[]): Promise<unknown>
  /** Its JSON-RPC address. */
  url: string
  /** CPU milliseconds the node has used so far (clock ticks of 10 ms). */
  cpuMs(): number
  /** The same for its main thread alone (the JavaScript thread: the JIT and GC threads left out). */
  mainThreadCpuMs(): number
  rssMib(): number
  /** Its peak RSS so far (VmHWM, what the shared harness's peak row reads). */
  peakRssMib(): number
  /** The node's process id (its threads are under /proc/<pid>/task). */
  pid: number
  /** Milliseconds from the spawn to the first answer. */
  startMs: number
  stop(): Promise<void>
}

/** Where and how a bench node runs beyond its arguments. */
export interface BenchNodeOptions {
  /** The node runs on `<dataDir>/data`, which outlives it (a later start opens the same chain). */
  dataDir?: string
  /** Extra environment variables (e.g. BUN_OPTIONS for a CPU profile). */
  env?: Record<string, string>
}

/**
 * Starts `binary` (with `extraArgs`) on a free-ish port above `portBase` and resolves once it answers;
 * without `options.dataDir` on a fresh directory deleted when it stops.
 */
export async function startBenchNode(
  binary: string,
  portBase: number,
  extraArgs: string[] = [],
  { dataDir, env }: BenchNodeOptions = {},
): Promise<BenchNode> {
  const port = portBase + (process.pid % 500)
  const url = `http://127.0.0.1:${port}`
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'basalt-bench-node-'))
  const startedAt = performance.now()
  const proc = Bun.spawn(
    [
      binary,
      'run',
      '--data-path',
      join(dir, 'data'),
      '--rpc-http-port',
      String(port),
      '--rpc-ws-enabled=false',
      ...extraArgs,
    ],
    { stdout: 'ignore', stderr: 'ignore', env: { ...process.env, ...env } },
  )
  const stop = async () => {
    proc.kill('SIGINT')
    await proc.exited
    if (dataDir === undefined) rmSync(dir, { recursive: true, force: true })
  }
  const rpc = async (method: string, params: unknown[]): Promise<unknown> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    const body = (await res.json()) as { result?: unknown; error?: unknown }
    if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`)
    return body.result
  }
  const isUp = () =>
    rpc('eth_chainId', []).then(
      () => true,
      () => false,
    )
  try {
    while (!(await isUp())) {
      if (performance.now() - startedAt > START_LIMIT_MS) throw new Error('the node did not answer')
      await Bun.sleep(5)
    }
  } catch (e) {
    await stop()
    throw e
  }
  const ticksMs = (statFile: string) => {
    const fields = readFileSync(statFile, 'utf8').split(') ')[1].split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  }
  return {
    rpc,
    url,
    cpuMs: () => ticksMs(`/proc/${proc.pid}/stat`),
    mainThreadCpuMs: () => ticksMs(`/proc/${proc.pid}/task/${proc.pid}/stat`),
    rssMib: () => statusKib(proc.pid, 'VmRSS') / 1024,
    peakRssMib: () => statusKib(proc.pid, 'VmHWM') / 1024,
    pid: proc.pid,
    startMs: performance.now() - startedAt,
    stop,
  }
}
