/**
 * WebSocket subscriptions (eth_subscribe): newHeads, logs, newPendingTransactions and syncing.
 * Notifications go out on the subscribing connection as `eth_subscription` messages; a
 * subscription ends with eth_unsubscribe or when its connection closes. Ids are Besu's: a counter
 * as a hex quantity. Subscriptions are bounded per connection and in total: each costs a message
 * per event, and ten thousand on one socket slowed every block's notifications tenfold.
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import type { Chain } from '../../chain/chain.ts'
import type { LogCriteria } from '../../chain/logFilter.ts'
import { besuError } from '../../jsonrpc/errors.ts'
import { bytesToHex, toQuantity } from '../../primitives/hex.ts'
import { createLogger } from '../../primitives/logger.ts'
import type { PoolTx } from '../../txpool/txPool.ts'
import type { Connection } from '../context.ts'
import { formatBlock } from '../format.ts'
import type { ChainUpdate } from './headTracker.ts'
import type { LogReader } from './logReader.ts'

const log = createLogger('rpc')

export type SubscriptionKind = 'newHeads' | 'logs' | 'newPendingTransactions' | 'syncing'

export interface SubscriptionOptions {
  /** newHeads: full transactions in the block; newPendingTransactions: transactions, not hashes. */
  isFull?: boolean
  /** logs: what to match. */
  criteria?: LogCriteria
}

export interface SubscriptionLimits {
  perConnection: number
  total: number
}

export const SUBSCRIPTION_LIMITS: SubscriptionLimits = { perConnection: 1000, total: 10_000 }

interface Subscription extends SubscriptionOptions {
  id: string
  kind: SubscriptionKind
  connection: Connection
}

export class SubscriptionManager {
  private nextId = 1n
  private readonly subs = new Map<string, Subscription>()
  /** Live subscriptions per connection id. */
  private readonly perConnection = new Map<number, number>()

  private readonly chain: Chain
  private readonly logs: LogReader
  private readonly limits: SubscriptionLimits

  constructor(chain: Chain, logs: LogReader, limits: SubscriptionLimits = SUBSCRIPTION_LIMITS) {
    this.chain = chain
    this.logs = logs
    this.limits = limits
  }

  get size(): number {
    return this.subs.size
  }

  /** Throws -32005 past the connection's or the node's limit. */
  subscribe(connection: Connection, kind: SubscriptionKind, opts: SubscriptionOptions = {}): string {
    const count = this.perConnection.get(connection.id)
    if ((count ?? 0) >= this.limits.perConnection || this.subs.size >= this.limits.total)
      throw besuError('exceedsMaxSubscriptions')
    const id = toQuantity(this.nextId++)
    this.subs.set(id, { id, kind, connection, ...opts })
    if (count === undefined) connection.onClose(() => this.dropConnection(connection.id))
    this.perConnection.set(connection.id, (count ?? 0) + 1)
    return id
  }

  /** Ends a subscription of `connection`; another connection's id is not found, as in Besu. */
  unsubscribe(connection: Connection, id: string): boolean {
    const key = normalizeId(id)
    const sub = key === undefined ? undefined : this.subs.get(key)
    if (!sub || sub.connection.id !== connection.id) throw besuError('subscriptionNotFound')
    this.subs.delete(sub.id)
    this.perConnection.set(connection.id, (this.perConnection.get(connection.id) ?? 1) - 1)
    return true
  }

  onChainUpdate(u: ChainUpdate): void {
    if (this.subs.size === 0) return
    const heads = this.ofKind('newHeads')
    for (const { block } of u.added) {
      let hashesOnly: unknown
      let full: unknown
      for (const s of heads) {
        if (s.isFull) full ??= formatBlock(block, true, this.chain.getSenders(block))
        else hashesOnly ??= formatBlock(block, false)
        this.notify(s, s.isFull ? full : hashesOnly)
      }
    }
    for (const s of this.ofKind('logs')) {
      const criteria = s.criteria ?? { addresses: [], topics: [] }
      for (const { block, logs } of u.removed)
        for (const l of this.logs.ofBlock(block, criteria, true, logs)) this.notify(s, l)
      for (const { block, logs } of u.added)
        for (const l of this.logs.ofBlock(block, criteria, false, logs)) this.notify(s, l)
    }
  }

  onPendingTransaction(t: PoolTx): void {
    for (const s of this.ofKind('newPendingTransactions'))
      this.notify(s, s.isFull ? formatPendingTransaction(t.tx, t.sender) : t.hash)
  }

  stop(): void {
    this.subs.clear()
    this.perConnection.clear()
  }

  private ofKind(kind: SubscriptionKind): Subscription[] {
    return [...this.subs.values()].filter((s) => s.kind === kind)
  }

  private notify(s: Subscription, result: unknown): void {
    try {
      s.connection.send(
        JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: s.id, result } }),
      )
    } catch (err) {
      log.warn('dropping subscription of a failed connection', {
        id: s.id,
        error: err instanceof Error ? err.message : String(err),
      })
      this.dropConnection(s.connection.id)
    }
  }

  private dropConnection(connectionId: number): void {
    if (!this.perConnection.delete(connectionId)) return
    for (const [id, s] of this.subs) if (s.connection.id === connectionId) this.subs.delete(id)
  }
}

/** Ids are quantities; `0x01` and `0x1` name the same subscription. */
function normalizeId(id: string): string | undefined {
  return /^0x[0-9a-fA-F]{1,64}$/.test(id) ? toQuantity(BigInt(id)) : undefined
}

/** Besu's pending-transaction detail: gasPrice only for legacy and access-list transactions. */
function formatPendingTransaction(tx: TypedTransaction, sender: Uint8Array): Record<string, unknown> {
  const t = tx as TypedTransaction & { gasPrice?: bigint }
  const out: Record<string, unknown> = {
    from: bytesToHex(sender),
    gas: toQuantity(tx.gasLimit),
    gasPrice: tx.type < 2 && t.gasPrice !== undefined ? toQuantity(t.gasPrice) : null,
    hash: bytesToHex(tx.hash()),
    input: bytesToHex(tx.data),
    nonce: toQuantity(tx.nonce),
    to: tx.to ? bytesToHex(tx.to.bytes) : null,
    type: toQuantity(tx.type),
    value: toQuantity(tx.value),
  }
  if (tx.type === 0) out.v = toQuantity(tx.v ?? 0n)
  else out.yParity = toQuantity(tx.v ?? 0n)
  out.r = toQuantity(tx.r ?? 0n)
  out.s = toQuantity(tx.s ?? 0n)
  return out
}
