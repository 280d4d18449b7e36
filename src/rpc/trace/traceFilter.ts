/** trace_filter: flat traces of a block range, filtered by sender and recipient, paged. */
import { codec, decoders } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { besuError } from '../../jsonrpc/errors.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import type { RpcContext } from '../context.ts'
import { blockTraces, rewardTraces } from './blockTraces.ts'

/** Besu's default cap on the blocks one trace_filter may replay. */
/** Besu's --rpc-max-trace-filter-range default. */
const MAX_BLOCK_RANGE = 1000n

interface TraceFilter {
  fromBlock: ReturnType<typeof decoders.blockNumberOrTag>
  toBlock: ReturnType<typeof decoders.blockNumberOrTag>
  fromAddress?: Set<string>
  toAddress?: Set<string>
  after: number
  count?: number
}

function addresses(v: unknown): Set<string> | undefined {
  if (v === undefined || v === null) return undefined
  if (!Array.isArray(v)) return decoders.fail('expected an array of addresses')
  return new Set(v.map((a) => bytesToHex(decoders.fixed(20, 'an address')(a))))
}

const filter = codec('filter', (v): TraceFilter => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return decoders.fail('expected a filter object')
  const o = v as Record<string, unknown>
  return {
    fromBlock: o.fromBlock === undefined ? 'latest' : decoders.blockNumberOrTag(o.fromBlock),
    toBlock: o.toBlock === undefined ? 'latest' : decoders.blockNumberOrTag(o.toBlock),
    fromAddress: addresses(o.fromAddress),
    toAddress: addresses(o.toAddress),
    after: o.after === undefined ? 0 : Number(decoders.lenientQuantity(o.after)),
    count: o.count === undefined ? undefined : Number(decoders.lenientQuantity(o.count)),
  }
})

function matches(t: Record<string, unknown>, f: TraceFilter): boolean {
  const action = t.action as Record<string, string>
  const result = t.result as Record<string, string> | null | undefined
  const from = action.from ?? action.address
  const to = action.to ?? action.refundAddress ?? action.author ?? result?.address
  if (f.fromAddress && !f.fromAddress.has(from)) return false
  if (f.toAddress && !(to && f.toAddress.has(to))) return false
  return true
}

/** A bound of the range: a number as given (held or not, as Besu), a tag as the block it names. */
async function blockNumberOf(ctx: RpcContext, ref: TraceFilter['fromBlock']): Promise<bigint> {
  if (typeof ref === 'bigint') return ref
  const block = await ctx.chain.resolve(ref)
  if (!block) throw besuError('blockNotFound')
  return block.header.number
}

/** Flat traces of a block range matching a filter. */
export const traceFilter = defineMethod({
  name: 'trace_filter',
  besu: { kinds: ['filter'] },
  params: [filter],
  handler: async (ctx: RpcContext, [f]) => {
    const from = await blockNumberOf(ctx, f.fromBlock)
    const to = await blockNumberOf(ctx, f.toBlock)
    // Besu: a span (to − from) above the limit is refused; 0 sets none.
    const limit = ctx.settings.maxTraceFilterRange ?? MAX_BLOCK_RANGE
    if (limit > 0n && to - from > limit) throw besuError('exceedsMaxBlockRange')
    const out: Record<string, unknown>[] = []
    let skipped = 0
    // As Besu: blocks of the range the chain does not hold (past its head) are passed over, and a
    // range that ends before it starts is empty.
    for (let n = from; n <= to; n++) {
      const block = await ctx.chain.getBlockByNumber(n)
      if (!block) break
      // Besu: a block's reward traces follow its transactions' when no `fromAddress` is given, kept
      // when `toAddress` is absent or names their author.
      const rewards = f.fromAddress ? [] : rewardTraces(ctx, block)
      for (const t of [...(await blockTraces(ctx, block)), ...rewards]) {
        if (!matches(t, f)) continue
        if (skipped++ < f.after) continue
        out.push(t)
        if (f.count !== undefined && out.length >= f.count) return out
      }
    }
    return out
  },
})
