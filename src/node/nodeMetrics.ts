/**
 * The figures `/metrics` shows, read from the node's services when scraped: chain head, peers,
 * sync, transaction pool and JSON-RPC calls per method. Names follow Besu's where it has one
 * (`ethereum_*`); the rest are `basalt_*`.
 */
import type { RpcServices } from '../rpc/context.ts'
import type { Metric } from '../server/metricsListener.ts'

export class NodeMetrics {
  private readonly rpcCalls = new Map<string, { ok: number; error: number }>()

  constructor(
    private readonly services: RpcServices,
    private readonly maxPeers: number,
  ) {}

  /** Counts one answered JSON-RPC call. */
  recordCall(method: string, isError: boolean): void {
    let c = this.rpcCalls.get(method)
    if (!c) {
      c = { ok: 0, error: 0 }
      this.rpcCalls.set(method, c)
    }
    if (isError) c.error++
    else c.ok++
  }

  collect(): Metric[] {
    const { chain, pool, network } = this.services
    const head = chain.head.header.number
    const sync = network?.syncStatus()
    const gauge = (name: string, help: string, value: number | bigint): Metric => ({
      name,
      help,
      type: 'gauge',
      samples: [{ value }],
    })
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
      gauge('basalt_transaction_pool_transactions', 'Transactions held in the pool', pool.size),
      {
        name: 'basalt_rpc_requests_total',
        help: 'JSON-RPC calls answered, by method and outcome',
        type: 'counter',
        samples: [...this.rpcCalls].flatMap(([method, c]) => [
          { labels: { method, outcome: 'ok' }, value: c.ok },
          { labels: { method, outcome: 'error' }, value: c.error },
        ]),
      },
    ]
  }
}
