/**
 * The log bloom cache methods of the ADMIN group: index the cache files (segments of 100,000
 * blocks), remove them, and rewrite the ones below a block. The files themselves are
 * chain/logBloomCache.ts's. Besu reference: AdminGenerateLogBloomCache, AdminLogsRemoveCache,
 * AdminLogsRepairCache (whose result shapes these are).
 */
import type { CachingStatus, LogBloomCache } from '../../chain/logBloomCache.ts'
import { type BlockTagName, p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { besuError, InvalidParamsError } from '../../jsonrpc/errors.ts'
import { toQuantity } from '../../primitives/hex.ts'
import type { RpcContext } from '../context.ts'

const bound = (label: string) => p.named(label, p.blockNumberOrTag).optional()

function cacheOf(ctx: RpcContext): LogBloomCache {
  if (!ctx.logBloomCache) throw besuError('logBloomCacheDisabled')
  return ctx.logBloomCache
}

/** A bound as a block number: `earliest` is 0, the other tags the head. */
function numberOf(ctx: RpcContext, ref: BlockTagName | bigint): bigint {
  if (typeof ref === 'bigint') return ref
  return ref === 'earliest' ? 0n : ctx.chain.head.header.number
}

function requireStored(ctx: RpcContext, n: bigint): bigint {
  if (n > ctx.chain.head.header.number) throw besuError('blockNotFound', `Block not found, ${n}`)
  return n
}

function statusJson(s: CachingStatus) {
  return {
    startBlock: toQuantity(s.startBlock),
    endBlock: s.endBlock === undefined ? 'latest' : toQuantity(s.endBlock),
    currentBlock: toQuantity(s.currentBlock),
    indexing: s.indexing,
    requestAccepted: s.requestAccepted,
  }
}

/** A bound Besu reads as "no end": latest, pending, safe, finalized (earliest is block 0). */
function isOpenBound(ref: BlockTagName | bigint): boolean {
  return typeof ref === 'string' && ref !== 'earliest'
}

/**
 * Starts indexing the complete segments of `[startBlock, stopBlock]` in the background; answers the
 * indexing status. Besu's bounds (AdminGenerateLogBloomCache): a missing start is block 0, a tag
 * other than `earliest` means "no end", and a missing stop is "no end" after a start but -1 without
 * one, so a call without arguments is refused (`requestAccepted: false`) and starts nothing, as is a
 * start that is not below the stop and any call while indexing runs.
 */
export const generateLogBloomCache = defineMethod({
  name: 'admin_generateLogBloomCache',
  besu: { kinds: ['block', 'block'] },
  params: [bound('startBlock'), bound('stopBlock')],
  handler: (ctx: RpcContext, [start, stop]) => {
    const cache = cacheOf(ctx)
    // undefined: Besu's Long.MAX_VALUE ("latest").
    const from = start === undefined ? 0n : isOpenBound(start) ? undefined : numberOf(ctx, start)
    const noStop = start === undefined ? -1n : undefined
    const to = stop === undefined ? noStop : isOpenBound(stop) ? undefined : numberOf(ctx, stop)
    const isAccepted = from !== undefined && (to === undefined || from < to)
    return statusJson(isAccepted ? cache.requestCaching(from, to) : cache.requestCaching(0n, -1n))
  },
})

/** Deletes the cache files of the segments holding `[startBlock, stopBlock]` (default: all). */
export const logsRemoveCache = defineMethod({
  name: 'admin_logsRemoveCache',
  besu: { kinds: ['block', 'block'] },
  params: [bound('startBlock'), bound('stopBlock')],
  handler: (ctx: RpcContext, [start, stop]) => {
    const head = ctx.chain.head.header.number
    const from = start === undefined ? 0n : requireStored(ctx, numberOf(ctx, start))
    const to = stop === undefined ? (start === undefined ? head : from) : requireStored(ctx, numberOf(ctx, stop))
    if (to < from) throw new InvalidParamsError('Invalid params')
    cacheOf(ctx).removeSegments(from, to)
    return { Status: 'Cache Removed' }
  },
})

/** Rewrites every segment below the one holding `blockNumber` (default: the head). */
export const logsRepairCache = defineMethod({
  name: 'admin_logsRepairCache',
  besu: { kinds: ['block'] },
  params: [p.named('blockNumber', p.index).optional()],
  handler: (ctx: RpcContext, [n]) => {
    const block = n === undefined ? ctx.chain.head.header.number : requireStored(ctx, n)
    return { Status: cacheOf(ctx).repair(block) ? 'Started' : 'Already running' }
  },
})

export const logCacheMethods = [generateLogBloomCache, logsRemoveCache, logsRepairCache]
