/**
 * Prometheus metrics (Besu's --metrics-*): `GET /metrics` answers the text exposition format
 * (version 0.0.4) of whatever the node's `collect` returns at that moment. Owns the format and the
 * HTTP side (host allowlist, 404 elsewhere); the figures come from the node.
 */
import { Hono } from 'hono'
import { createLogger } from '../primitives/logger.ts'
import { createServerRuntime } from '../runtime/httpServer.ts'
import { hostAndCorsGuard } from './httpGuard.ts'
import type { RunningListener } from './rpcListener.ts'

const log = createLogger('server')

export interface Metric {
  name: string
  help: string
  type: 'gauge' | 'counter'
  samples: { labels?: Record<string, string>; value: number | bigint }[]
}

const escapeLabel = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')

/** The text exposition format of `metrics`. */
export function formatPrometheus(metrics: Metric[]): string {
  const lines: string[] = []
  for (const m of metrics) {
    lines.push(`# HELP ${m.name} ${m.help}`, `# TYPE ${m.name} ${m.type}`)
    for (const s of m.samples) {
      const labels = Object.entries(s.labels ?? {})
      const text = labels.length ? `{${labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}` : ''
      lines.push(`${m.name}${text} ${s.value.toString()}`)
    }
  }
  return `${lines.join('\n')}\n`
}

export interface MetricsListenerOptions {
  host: string
  port: number
  hostAllowlist: string[]
}

/** Serves `collect()` at `/metrics` on `opts.host:opts.port` (0 picks a free port). */
export async function startMetricsListener(
  collect: () => Metric[],
  opts: MetricsListenerOptions,
): Promise<RunningListener> {
  const app = new Hono()
  app.use('*', hostAndCorsGuard(opts.hostAllowlist, []))
  app.get('/metrics', (c) =>
    c.text(formatPrometheus(collect()), 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }),
  )
  // Scrapes are small GETs; 10 s idle is what Bun gives a listener that names no limit.
  const runtime = await createServerRuntime({
    maxRequestBodyBytes: 64 * 1024,
    maxWsFrameBytes: 64 * 1024,
    idleTimeoutS: 10,
  })
  const server = await runtime.serve(opts.host, opts.port, app.fetch)
  log.info('listening', { url: `http://${opts.host}:${server.port}/metrics`, api: 'metrics' })
  return server
}
