/**
 * A forked chain's history up to the fork block is the remote's. The local chain holds the fork
 * block's header only, so what it is asked about those blocks (their transactions, receipts, logs,
 * traces) is asked of the remote, as Anvil and Hardhat do, and kept in the fork cache
 * (`CachedForkSource.history`): a second question, or the same one after a restart, asks nothing.
 * An answer about a block after the fork block (the remote went on) is not this chain's: absent.
 */
import type { LogCriteria } from '../chain/logFilter.ts'
import { bytesToHex, toQuantity } from '../primitives/hex.ts'
import { ForkRemoteError } from '../state/forkSource.ts'
import type { RpcContext } from './context.ts'

type Json = Record<string, unknown>

function isUpToFork(ctx: RpcContext, blockNumber: unknown): boolean {
  return ctx.forkHistory !== undefined && blockNumber != null && BigInt(String(blockNumber)) <= ctx.forkHistory.number
}

/**
 * The remote's transaction `hash`, when it is in a block up to the fork block. A remote that cannot
 * be reached counts as not having it: most unknown hashes asked about are the local chain's own
 * pending transactions, whose receipts a client polls for and must get `null` even after a restart
 * without the remote.
 */
export async function remoteTransaction(ctx: RpcContext, hash: Uint8Array): Promise<Json | undefined> {
  if (!ctx.forkHistory) return undefined
  const tx = (await ctx.forkHistory.history('eth_getTransactionByHash', [bytesToHex(hash)]).catch((e) => {
    if (e instanceof ForkRemoteError) return null
    throw e
  })) as Json | null
  return tx && isUpToFork(ctx, tx.blockNumber) ? tx : undefined
}

/**
 * The remote's answer to `method(hash, ...rest)` (a receipt, a trace) when transaction `hash` is in a
 * block up to the fork block; undefined otherwise.
 */
export async function askAboutRemoteTransaction(
  ctx: RpcContext,
  hash: Uint8Array,
  method: string,
  rest: unknown[] = [],
): Promise<unknown> {
  if (!(await remoteTransaction(ctx, hash))) return undefined
  return ctx.forkHistory?.history(method, [bytesToHex(hash), ...rest])
}

/** Transaction `index` of the remote's block `ref` (up to the fork block), or null. */
export async function remoteTransactionAt(ctx: RpcContext, ref: bigint | Uint8Array, index: bigint): Promise<unknown> {
  const block = await ctx.forkHistory?.block(ref, true)
  const txs = (block?.transactions ?? []) as unknown[]
  return index < BigInt(txs.length) ? txs[Number(index)] : null
}

/** The receipts of the remote's block `ref` (up to the fork block), or null. */
export async function remoteBlockReceipts(ctx: RpcContext, ref: bigint | Uint8Array): Promise<unknown> {
  const block = await ctx.forkHistory?.block(ref, false)
  if (!block) return null
  return ctx.forkHistory?.history('eth_getBlockReceipts', [block.hash])
}

/** The filter as the remote takes it. */
function filterJson(c: LogCriteria): Json {
  return {
    address: c.addresses.map(bytesToHex),
    topics: c.topics.map((alts) => (alts === null ? null : alts.map(bytesToHex))),
  }
}

/** Logs of the remote's blocks `from`..`to` (clamped to the fork block) matching `criteria`. */
export async function remoteLogs(ctx: RpcContext, from: bigint, to: bigint, criteria: LogCriteria): Promise<Json[]> {
  if (!ctx.forkHistory || from > ctx.forkHistory.number) return []
  const last = to < ctx.forkHistory.number ? to : ctx.forkHistory.number
  const range = { fromBlock: toQuantity(from), toBlock: toQuantity(last) }
  return (await ctx.forkHistory.history('eth_getLogs', [{ ...range, ...filterJson(criteria) }])) as Json[]
}

/**
 * Logs of the remote's block `hash` matching `criteria`, when it is a block up to the fork block;
 * undefined for a block after it (a local block is looked up locally first, without the remote).
 */
export async function remoteBlockLogs(
  ctx: RpcContext,
  hash: Uint8Array,
  criteria: LogCriteria,
): Promise<Json[] | undefined> {
  const history = ctx.forkHistory
  if (!history) return undefined
  const local = await ctx.chain.getBlockByHash(hash)
  if (local && local.header.number > history.number) return undefined
  if (!(await history.block(hash, false))) return undefined
  return (await history.history('eth_getLogs', [{ blockHash: bytesToHex(hash), ...filterJson(criteria) }])) as Json[]
}
