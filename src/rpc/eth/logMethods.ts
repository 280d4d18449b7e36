/** Log queries. Spec: execution-apis src/eth/filter.yaml (eth_getLogs) */
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { besuError } from '../../jsonrpc/errors.ts'
import type { RpcContext } from '../context.ts'
import { remoteBlockLogs, remoteLogs } from '../forkHistory.ts'
import { filterParam } from './logFilterParam.ts'

/** Logs matching a filter over a canonical block range, or in one block (EIP-234). */
export const getLogs = defineMethod({
  name: 'eth_getLogs',
  besu: { kinds: ['filter'] },
  params: [filterParam],
  handler: async (ctx: RpcContext, [f]) => {
    const { logs } = ctx.filters
    if (f.blockHash) {
      const remote = await remoteBlockLogs(ctx, f.blockHash, f.criteria)
      if (remote) return remote
      // A hash this node does not know is -32000 Block not found, as Besu's EthGetLogs (and geth's
      // 'unknown block') answer; an installed filter on it simply matches nothing.
      if (!(await ctx.chain.getBlockByHash(f.blockHash))) throw besuError('blockNotFound')
      return logs.inBlock(f.blockHash, f.criteria)
    }
    const { from, to } = logs.range(f.fromBlock, f.toBlock)
    // Besu's --rpc-max-logs-range: a span (to − from) above it is refused.
    const limit = ctx.settings.maxLogsRange ?? 0n
    if (limit > 0n && to - from > limit) throw besuError('exceedsMaxBlockRange')
    // On a forked chain, the blocks up to the fork block are the remote's (it holds their logs).
    const fork = ctx.forkHistory?.number
    if (fork === undefined || from > fork) return logs.inRangeText(from, to, f.criteria)
    const remote = await remoteLogs(ctx, from, to, f.criteria)
    return to > fork ? [...remote, ...logs.inRange(fork + 1n, to, f.criteria)] : remote
  },
})

export const logMethods = [getLogs]
