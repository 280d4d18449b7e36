import { request } from 'node:http'
import { afterEach, describe, expect, it } from '../runtime/testing.ts'
import { formatPrometheus, type Metric, startMetricsListener } from './metricsListener.ts'
import type { RunningListener } from './rpcListener.ts'

const METRICS: Metric[] = [
  { name: 'ethereum_peer_count', help: 'Connected peers', type: 'gauge', samples: [{ value: 2 }] },
  {
    name: 'basalt_rpc_requests_total',
    help: 'JSON-RPC requests answered',
    type: 'counter',
    samples: [{ labels: { method: 'eth_call', outcome: 'error "x"' }, value: 3n }],
  },
]

let listener: RunningListener | undefined
afterEach(async () => {
  await listener?.stop()
  listener = undefined
})

describe('formatPrometheus', () => {
  it('writes HELP, TYPE and one line per sample with escaped labels', () => {
    expect(formatPrometheus(METRICS)).toBe(
      [
        '# HELP ethereum_peer_count Connected peers',
        '# TYPE ethereum_peer_count gauge',
        'ethereum_peer_count 2',
        '# HELP basalt_rpc_requests_total JSON-RPC requests answered',
        '# TYPE basalt_rpc_requests_total counter',
        'basalt_rpc_requests_total{method="eth_call",outcome="error \\"x\\""} 3',
        '',
      ].join('\n'),
    )
  })
})

describe('startMetricsListener', () => {
  it('serves /metrics as Prometheus text, 404 elsewhere, 403 for a foreign Host', async () => {
    let calls = 0
    listener = await startMetricsListener(
      () => {
        calls++
        return METRICS
      },
      { host: '127.0.0.1', port: 0, hostAllowlist: ['localhost', '127.0.0.1'] },
    )
    const base = `http://127.0.0.1:${listener.port}`
    const res = await fetch(`${base}/metrics`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4')
    expect(await res.text()).toContain('ethereum_peer_count 2')
    expect(calls).toBe(1)
    expect((await fetch(`${base}/other`)).status).toBe(404)
    expect(await statusWithHost(`${base}/metrics`, 'evil.example')).toBe(403)
  })
})

/** The status of a GET with its own Host header: fetch drops that header under Node and Deno, node:http keeps it. */
function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request(url, { headers: { host } }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
      .on('error', reject)
      .end()
  })
}
