/**
 * Publish/subscribe over WebSocket (Besu's RPC pub/sub API; not in execution-apis). Over HTTP there
 * is no connection to notify, and Besu does not know these methods there: -32601.
 */
import { CodecError, p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { InvalidParamsError, InvalidRequestError, MethodNotFoundError } from '../../jsonrpc/errors.ts'
import type { Connection, RpcContext } from '../context.ts'
import { filterParam } from './logFilterParam.ts'
import type { SubscriptionKind, SubscriptionOptions } from './subscriptionManager.ts'

const KINDS = new Set<string>(['newHeads', 'logs', 'newPendingTransactions', 'syncing'])

function requireConnection(ctx: RpcContext): Connection {
  if (!ctx.connection) throw new MethodNotFoundError()
  return ctx.connection
}

/** `{includeTransactions: true}` as Besu takes it, or go-ethereum's bare `true`. */
function isFull(arg: unknown): boolean {
  if (arg === true) return true
  return (
    typeof arg === 'object' && arg !== null && (arg as { includeTransactions?: unknown }).includeTransactions === true
  )
}

/** Besu answers -32600 to a subscription request it cannot parse. */
function subscriptionOptions(kind: SubscriptionKind, arg: unknown): SubscriptionOptions {
  if (kind !== 'logs') return { isFull: isFull(arg) }
  try {
    return { criteria: arg === undefined ? { addresses: [], topics: [] } : filterParam.decode(arg).criteria }
  } catch (e) {
    if (e instanceof CodecError || e instanceof InvalidParamsError) throw new InvalidRequestError()
    throw e
  }
}

/** Starts a subscription on this WebSocket connection; answers its id. */
export const subscribe = defineMethod({
  name: 'eth_subscribe',
  params: [p.named('subscription type', p.any), p.any.optional()],
  handler: (ctx: RpcContext, [kind, arg]) => {
    const connection = requireConnection(ctx)
    if (typeof kind !== 'string' || !KINDS.has(kind)) throw new InvalidRequestError()
    const k = kind as SubscriptionKind
    return ctx.filters.subscriptions.subscribe(connection, k, subscriptionOptions(k, arg))
  },
})

/** Ends a subscription of this connection. */
export const unsubscribe = defineMethod({
  name: 'eth_unsubscribe',
  params: [p.named('subscription id', p.any)],
  handler: (ctx: RpcContext, [id]) => {
    const connection = requireConnection(ctx)
    if (typeof id !== 'string') throw new InvalidRequestError()
    return ctx.filters.subscriptions.unsubscribe(connection, id)
  },
})

export const subscriptionMethods = [subscribe, unsubscribe]
