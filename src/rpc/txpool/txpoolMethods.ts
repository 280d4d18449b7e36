/**
 * The TXPOOL group: the pool's content and counts in geth's shapes (txpool_content, _inspect,
 * _contentFrom, _status) and Besu's (txpool_besuTransactions, txpool_besuStatistics). Reads the pool only.
 * Spec: execution-apis src/txpool/txpool.yaml
 */
import { toChecksumAddress } from '@ethereumjs/util'
import { p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { bytesToHex, toQuantity } from '../../primitives/hex.ts'
import type { PoolTx } from '../../txpool/txPool.ts'
import type { RpcContext } from '../context.ts'
import { formatTransaction } from '../format.ts'
import { pendingTransactionsMethods } from './pendingTransactions.ts'

type Show = (t: PoolTx) => unknown

const full: Show = (t) => formatTransaction(t.tx, t.sender)

/** geth's one-line summary: `to: value wei + gas gas × price wei`, the price a 1559 fee cap. */
const summary: Show = ({ tx }) => {
  const to = tx.to ? toChecksumAddress(bytesToHex(tx.to.bytes)) : 'contract creation'
  const price = 'maxFeePerGas' in tx ? (tx.maxFeePerGas as bigint) : (tx as { gasPrice: bigint }).gasPrice
  return `${to}: ${tx.value} wei + ${tx.gasLimit} gas × ${price} wei`
}

function byNonce(txs: PoolTx[] = [], show: Show = full): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const t of txs) out[t.nonce.toString()] = show(t)
  return out
}

function bySender(groups: Map<string, PoolTx[]>, show: Show = full): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [sender, txs] of groups) out[toChecksumAddress(sender)] = byNonce(txs, show)
  return out
}

function count(groups: Map<string, PoolTx[]>): number {
  let n = 0
  for (const txs of groups.values()) n += txs.length
  return n
}

/** Pending and queued transactions, by sender and nonce. Spec: execution-apis src/txpool/txpool.yaml */
export const content = defineMethod({
  name: 'txpool_content',
  params: [],
  handler: (ctx: RpcContext) => {
    const { pending, queued } = ctx.pool.content()
    return { pending: bySender(pending), queued: bySender(queued) }
  },
})

/** Pending and queued transactions, by sender and nonce, each as one line of text (geth's and Anvil's). */
export const inspect = defineMethod({
  name: 'txpool_inspect',
  params: [],
  handler: (ctx: RpcContext) => {
    const { pending, queued } = ctx.pool.content()
    return { pending: bySender(pending, summary), queued: bySender(queued, summary) }
  },
})

/** One sender's pending and queued transactions, by nonce. Spec: execution-apis src/txpool/txpool.yaml */
export const contentFrom = defineMethod({
  name: 'txpool_contentFrom',
  besu: { kinds: ['address'] },
  params: [p.address],
  handler: (ctx: RpcContext, [address]) => {
    const { pending, queued } = ctx.pool.content()
    const key = bytesToHex(address)
    return { pending: byNonce(pending.get(key)), queued: byNonce(queued.get(key)) }
  },
})

/** Numbers of pending and queued transactions. Spec: execution-apis src/txpool/txpool.yaml */
export const status = defineMethod({
  name: 'txpool_status',
  params: [],
  handler: (ctx: RpcContext) => {
    const { pending, queued } = ctx.pool.content()
    return { pending: toQuantity(count(pending)), queued: toQuantity(count(queued)) }
  },
})

/** Besu's list of pooled transactions with when they arrived; every one came over RPC (local). */
function transactions(ctx: RpcContext) {
  return ctx.pool.all().map((t) => ({
    hash: t.hash,
    isReceivedFromLocalSource: true,
    addedToPoolAt: new Date(t.addedAtMs).toISOString(),
  }))
}

/** Pooled transactions with their arrival time. Besu reference: TxPoolBesuTransactions */
export const besuTransactions = defineMethod({
  name: 'txpool_besuTransactions',
  besu: { kinds: [] },
  params: [],
  handler: transactions,
})
/** `txpool_besuTransactions` under this client's name. */
export const basaltTransactions = defineMethod({ name: 'txpool_basaltTransactions', params: [], handler: transactions })
/** `txpool_besuTransactions` under a client-neutral name. */
export const clientTransactions = defineMethod({ name: 'txpool_clientTransactions', params: [], handler: transactions })

function statistics(ctx: RpcContext) {
  return { maxSize: ctx.pool.maxSize, localCount: ctx.pool.size, remoteCount: 0 }
}

/** Besu's pool size limit and counts of local and remote transactions. */
export const besuStatistics = defineMethod({
  name: 'txpool_besuStatistics',
  besu: { kinds: [] },
  params: [],
  handler: statistics,
})
/** `txpool_besuStatistics` under this client's name. */
export const basaltStatistics = defineMethod({ name: 'txpool_basaltStatistics', params: [], handler: statistics })
/** `txpool_besuStatistics` under a client-neutral name. */
export const clientStatistics = defineMethod({ name: 'txpool_clientStatistics', params: [], handler: statistics })

export const txpoolMethods = [
  content,
  inspect,
  contentFrom,
  status,
  besuTransactions,
  basaltTransactions,
  clientTransactions,
  ...pendingTransactionsMethods,
  besuStatistics,
  basaltStatistics,
  clientStatistics,
]
