/**
 * txpool_besuPendingTransactions (also `basalt`/`client` spellings): pooled transactions, at most
 * `numResults`, that pass every field filter of the second argument. Each field (`from`, `to`,
 * `gas`, `gasPrice`, `value`, `nonce`) takes exactly one operator: `eq`, `gt`, `lt`, or for `to`
 * `action: "contract_creation"`. Besu reference: TxPoolBesuPendingTransactions,
 * PendingTransactionsParams (whose refusal texts these are). Besu throws them as plain invalid
 * params, and its processor answers only that type's text: -32602 `Invalid params`, the refusal
 * itself going to the debug log, as here.
 */
import { CodecError, codec, decoders, p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { equalBytes } from '../../primitives/hex.ts'
import { fees, type PoolTx } from '../../txpool/txPool.ts'
import type { RpcContext } from '../context.ts'
import { formatTransaction } from '../format.ts'

type Field = 'from' | 'to' | 'gas' | 'gasPrice' | 'value' | 'nonce'
type Operator = 'eq' | 'gt' | 'lt' | 'action'
const FIELDS: readonly Field[] = ['from', 'to', 'gas', 'gasPrice', 'value', 'nonce']
const OPERATORS: readonly Operator[] = ['eq', 'gt', 'lt', 'action']

interface Condition {
  field: Field
  op: Operator
  /** An address for from/to, a number otherwise; unused by `action`. */
  value: Uint8Array | bigint
}

/** A filter Besu reads but refuses: its plain `Invalid params`, whatever the argument's own text. */
function refuse(message: string): never {
  throw new CodecError(message, 'params')
}

function condition(field: Field, spec: unknown): Condition | undefined {
  if (spec === undefined || spec === null) return undefined
  if (typeof spec !== 'object' || Array.isArray(spec)) return decoders.fail(`${field}: expected an object`)
  const entries = Object.entries(spec as Record<string, unknown>)
  if (entries.length === 0) return undefined
  if (entries.length > 1) refuse('Only one operator per filter type allowed')
  const [name, raw] = entries[0]
  const op = name.toLowerCase() as Operator
  if (!OPERATORS.includes(op)) refuse('Unknown field expected one of `eq`, `gt`, `lt`, `action`')
  if (field === 'from' && op !== 'eq') refuse('The `from` filter only supports the `eq` operator')
  if (field === 'to' && op !== 'eq' && op !== 'action')
    refuse('The `to` filter only supports the `eq` or `action` operator')
  if (field !== 'to' && op === 'action') refuse('The operator `action` is only supported by the `to` filter')
  if (op === 'action') {
    if (raw !== 'contract_creation')
      refuse('The `action` operator of the `to` filter only supports the value `contract_creation`')
    return { field, op, value: 0n }
  }
  const isAddress = field === 'from' || field === 'to'
  return {
    field,
    op,
    value: isAddress ? decoders.fixed(20, 'an address')(raw) : decoders.lenientQuantity(raw),
  }
}

const filterParam = codec('filter', (v): Condition[] => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return decoders.fail('expected a filter object')
  const o = v as Record<string, unknown>
  for (const k of Object.keys(o)) if (!FIELDS.includes(k as Field)) decoders.fail(`unknown filter field ${k}`)
  return FIELDS.flatMap((f) => condition(f, o[f]) ?? [])
}).optional([])

function fieldValue(t: PoolTx, field: Field): Uint8Array | bigint | undefined {
  switch (field) {
    case 'from':
      return t.sender
    case 'to':
      return t.tx.to?.bytes
    case 'gas':
      return t.tx.gasLimit
    case 'gasPrice':
      return fees(t.tx).maxFee
    case 'value':
      return t.tx.value
    case 'nonce':
      return t.nonce
  }
}

function holds(t: PoolTx, c: Condition): boolean {
  const v = fieldValue(t, c.field)
  if (c.op === 'action') return v === undefined
  if (v === undefined) return false
  if (v instanceof Uint8Array) return equalBytes(v, c.value as Uint8Array)
  const want = c.value as bigint
  return c.op === 'eq' ? v === want : c.op === 'gt' ? v > want : v < want
}

function pendingTransactions(ctx: RpcContext, [limit, conditions]: readonly [bigint | undefined, Condition[]]) {
  const max = limit === undefined ? Number.POSITIVE_INFINITY : Number(limit)
  const out: unknown[] = []
  for (const t of ctx.pool.all()) {
    if (out.length >= max) break
    if (conditions.every((c) => holds(t, c))) out.push(formatTransaction(t.tx, t.sender))
  }
  return out
}

const params = [p.named('numResults', p.index).optional(), filterParam] as const
/** Besu's TxPoolBesuPendingTransactions: the limit, then the filters, each with its own text. */
const besu = { kinds: ['transactionLimit', 'pendingTransactions'] } as const

/** Pooled transactions matching a filter. Besu reference: TxPoolBesuPendingTransactions */
export const besuPendingTransactions = defineMethod({
  name: 'txpool_besuPendingTransactions',
  besu,
  params,
  handler: pendingTransactions,
})
/** `txpool_besuPendingTransactions` under this client's name. */
export const basaltPendingTransactions = defineMethod({
  name: 'txpool_basaltPendingTransactions',
  besu,
  params,
  handler: pendingTransactions,
})
/** `txpool_besuPendingTransactions` under a client-neutral name. */
export const clientPendingTransactions = defineMethod({
  name: 'txpool_clientPendingTransactions',
  besu,
  params,
  handler: pendingTransactions,
})

export const pendingTransactionsMethods = [
  besuPendingTransactions,
  basaltPendingTransactions,
  clientPendingTransactions,
]
