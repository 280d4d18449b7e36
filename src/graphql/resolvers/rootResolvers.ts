/** Query, Mutation and Pending: the entry points, resolved over the chain, the pool and the oracle. */
import type { Block } from '@ethereumjs/block'
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts'
import { suggestGasPrice, suggestPriorityFee } from '../../rpc/eth/gasOracle.ts'
import { decodeRawTransaction, submitTransaction } from '../../rpc/eth/txMethods.ts'
import { type GraphqlContext, GraphqlFetchError, invalidParams, transactionError } from '../context.ts'
import { type AccountAdapter, accountIn } from './accountAdapter.ts'
import { BlockAdapter } from './blockAdapter.ts'
import { type CallData, type CallResult, callAt, estimateGasAt } from './callResolvers.ts'
import { LogAdapter, type LogFilter } from './logAdapter.ts'
import { TransactionAdapter } from './transactionAdapter.ts'

/** Most blocks one `blocks` query returns, and most blocks one `logs` query searches. */
const MAX_BLOCKS_RANGE = 1000n
const MAX_LOGS_RANGE = 5000n

const minOf = (a: bigint, b: bigint) => (a < b ? a : b)

type Args<T> = { [K in keyof T]?: T[K] | null }

/** Pending transactions are not executed (as in Besu): account, call and estimateGas read the head. */
class PendingAdapter {
  transactionCount(_args: unknown, ctx: GraphqlContext): number {
    return ctx.pool.size
  }

  transactions(_args: unknown, ctx: GraphqlContext): TransactionAdapter[] {
    return ctx.pool.all().map((p) => new TransactionAdapter(p.tx, p.sender))
  }

  account({ address }: { address: Uint8Array }, ctx: GraphqlContext): AccountAdapter {
    return accountIn(ctx, ctx.chain.head, address)
  }

  call({ data }: { data: CallData }, ctx: GraphqlContext): Promise<CallResult> {
    return callAt(ctx, ctx.chain.head, data)
  }

  estimateGas({ data }: { data: CallData }, ctx: GraphqlContext): Promise<bigint> {
    return estimateGasAt(ctx, ctx.chain.head, data)
  }
}

async function block({ number, hash }: Args<{ number: bigint; hash: Uint8Array }>, ctx: GraphqlContext) {
  if (number != null && hash != null) throw invalidParams()
  if (number != null) {
    const found = await ctx.chain.resolve(number)
    if (!found) throw new GraphqlFetchError(`Block number ${number} was not found`)
    return new BlockAdapter(found)
  }
  if (hash != null) {
    const found = await ctx.chain.getBlockByHash(hash)
    if (!found) throw new GraphqlFetchError(`Block hash ${bytesToHex(hash)} was not found`)
    return new BlockAdapter(found)
  }
  return new BlockAdapter(ctx.chain.head)
}

/** An account at a block by number (the head when none is given). */
async function account(
  { address, blockNumber }: { address: Uint8Array; blockNumber?: bigint | null },
  ctx: GraphqlContext,
) {
  if (blockNumber == null) return accountIn(ctx, ctx.chain.head, address)
  const found = await ctx.chain.resolve(blockNumber)
  if (!found) throw new GraphqlFetchError(`Block number ${blockNumber} was not found`)
  return accountIn(ctx, found, address)
}

/** Blocks past the head are left out, as Besu does; a range past the limit is refused. */
async function blocks({ from, to }: Args<{ from: bigint; to: bigint }>, ctx: GraphqlContext) {
  const head = ctx.chain.head.header.number
  const last = to == null ? head : minOf(to, head)
  if (from == null || from > (to ?? head)) throw invalidParams()
  if (last - from + 1n > MAX_BLOCKS_RANGE)
    throw new GraphqlFetchError(`Requested range exceeds ${MAX_BLOCKS_RANGE} blocks`)
  const out: BlockAdapter[] = []
  for (let n = from; n <= last; n++) {
    const b = await ctx.chain.getBlockByNumber(n)
    if (b) out.push(new BlockAdapter(b))
  }
  return out
}

async function transaction({ hash }: { hash: Uint8Array }, ctx: GraphqlContext) {
  const found = await ctx.chain.findTransaction(hash)
  if (found) return TransactionAdapter.inBlock(ctx, found.block, found.index)
  const pooled = ctx.pool.get(bytesToHex(hash))
  return pooled ? new TransactionAdapter(pooled.tx, pooled.sender) : null
}

interface FilterCriteria extends LogFilter {
  fromBlock?: bigint | null
  toBlock?: bigint | null
}

async function logs({ filter }: { filter: FilterCriteria }, ctx: GraphqlContext) {
  const head = ctx.chain.head.header.number
  const from = filter.fromBlock ?? head
  const to = filter.toBlock ?? head
  if (from > to) throw invalidParams()
  const last = minOf(to, head)
  if (last - from + 1n > MAX_LOGS_RANGE) throw new GraphqlFetchError(`Requested range exceeds ${MAX_LOGS_RANGE} blocks`)
  const stored = ctx.chain.store.queryLogs({
    fromBlock: Number(from),
    toBlock: Number(last),
    addresses: filter.addresses ?? [],
    topics: (filter.topics ?? []).map((alts) => (alts.length === 0 ? null : alts)),
  })
  const blocksByHash = new Map<string, Block | undefined>()
  const out: LogAdapter[] = []
  for (const l of stored) {
    const key = bytesToHex(l.blockHash)
    if (!blocksByHash.has(key)) blocksByHash.set(key, await ctx.chain.getBlockByHash(l.blockHash))
    const b = blocksByHash.get(key)
    if (b) out.push(new LogAdapter({ ...l, block: b }))
  }
  return out
}

/** The root value of queries. */
export const queryRoot = {
  account,
  block,
  blocks,
  pending: () => new PendingAdapter(),
  transaction,
  logs,
  gasPrice: (_args: unknown, ctx: GraphqlContext) => suggestGasPrice(ctx),
  maxPriorityFeePerGas: (_args: unknown, ctx: GraphqlContext) => suggestPriorityFee(ctx),
  /** The sync from peers in progress, as eth_syncing shows it; null when none runs. */
  syncing: (_args: unknown, ctx: GraphqlContext) => ctx.rpc.network?.syncStatus() ?? null,
  chainID: (_args: unknown, ctx: GraphqlContext) => ctx.settings.chainId,
}

/** The root value of mutations; the pool's refusals come back with Besu's messages. */
export const mutationRoot = {
  async sendRawTransaction({ data }: { data: Uint8Array }, ctx: GraphqlContext): Promise<Uint8Array> {
    try {
      return hexToBytes(await submitTransaction(ctx.rpc, await decodeRawTransaction(ctx.rpc, data)))
    } catch (e) {
      throw transactionError(e)
    }
  },
}
