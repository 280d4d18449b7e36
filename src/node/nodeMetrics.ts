/**
 * The figures `/metrics` shows, read when scraped: chain head, peers and sync from the node's
 * services, and every figure of the metrics registry `debug_metrics` reads (JSON-RPC calls per
 * method, seal and import times, pool and database sizes), so the two never disagree. Names follow Besu's where it has one
 * (`ethereum_*`); the rest are `basalt_*`.
 */
import { type MetricsSnapshot, metrics } from '../primitives/metrics.ts'
import type { RpcServices } from '../rpc/context.ts'
import type { Metric } from '../server/metricsListener.ts'

export class NodeMetrics {
  private readonly services: RpcServices
  private readonly maxPeers: number

  constructor(services: RpcServices, maxPeers: number) {
    this.services = services
    this.maxPeers = maxPeers
  }

  collect(): Metric[] {
    const { chain, network } = this.services
    const head = chain.head.header.number
    const sync = network?.syncStatus()
    return [
      gauge('ethereum_blockchain_height', 'Number of the head block', head),
      gauge(
        'ethereum_best_known_block_number',
        'Highest block number known from peers or our own chain',
        sync?.highestBlock ?? head,
      ),
      gauge('ethereum_peer_count', 'Connected peers', network?.peers().length ?? 0),
      gauge('ethereum_peer_limit', 'Most peers allowed (--max-peers)', network ? this.maxPeers : 0),
      gauge('basalt_sync_active', '1 while a sync from peers runs, else 0', sync ? 1 : 0),
      ...registryMetrics(metrics.snapshot()),
    ]
  }
}

function gauge(name: string, help: string, value: number | bigint): Metric {
  return { name, help, type: 'gauge', samples: [{ value }] }
}

/**
 * The figures `debug_metrics` shows, as Prometheus metrics: `basalt_<category>_<name>`; a labelled
 * counter keeps its label, a timer becomes `_count` and `_sum` (ms) and a `_max` gauge. JSON-RPC calls
 * are `basalt_rpc_requests_total{method,outcome}`.
 */
function registryMetrics(snapshot: MetricsSnapshot): Metric[] {
  const out: Metric[] = []
  const rpc = snapshot.rpc ?? {}
  const requests = (rpc.requests ?? {}) as Record<string, number>
  const errors = (rpc.errors ?? {}) as Record<string, number>
  out.push({
    name: 'basalt_rpc_requests_total',
    help: 'JSON-RPC calls answered, by method and outcome',
    type: 'counter',
    samples: Object.entries(requests).flatMap(([method, n]) => [
      { labels: { method, outcome: 'ok' }, value: n - (errors[method] ?? 0) },
      { labels: { method, outcome: 'error' }, value: errors[method] ?? 0 },
    ]),
  })
  for (const [category, figures] of Object.entries(snapshot)) {
    for (const [name, value] of Object.entries(figures)) {
      if (category === 'rpc' && (name === 'requests' || name === 'errors')) continue
      const base = `basalt_${category}_${name}`
      const help = `${category} ${name.replaceAll('_', ' ')} (debug_metrics)`
      if (typeof value === 'number') {
        out.push(gauge(base, help, value))
      } else if ('count' in value && 'sumMs' in value && 'maxMs' in value) {
        out.push({ name: `${base}_count`, help, type: 'counter', samples: [{ value: value.count }] })
        out.push({ name: `${base}_sum`, help, type: 'counter', samples: [{ value: value.sumMs }] })
        out.push(gauge(`${base}_max`, help, value.maxMs))
      } else {
        const samples = Object.entries(value).map(([label, n]) => ({ labels: { label }, value: n }))
        out.push({ name: `${base}_total`, help, type: 'counter', samples })
      }
    }
  }
  return out
}
