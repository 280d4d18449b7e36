/** Gas price oracle and fee history. Spec: execution-apis src/eth/fee_market.yaml */
import type { Block } from '@ethereumjs/block'
import { ParamError, p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { toQuantity } from '../../primitives/hex.ts'
import { effectiveTip } from '../../txpool/txPool.ts'
import type { RpcContext } from '../context.ts'
import { suggestGasPrice, suggestPriorityFee } from './gasOracle.ts'
import { requireBlock } from './resolveBlock.ts'

const MAX_FEE_HISTORY_BLOCKS = 1024n

/** Besu's oracle (see gasOracle.ts). */
export const gasPrice = defineMethod({
  name: 'eth_gasPrice',
  besu: { kinds: [] },
  params: [],
  handler: async (ctx: RpcContext) => toQuantity(await suggestGasPrice(ctx)),
})

export const maxPriorityFeePerGas = defineMethod({
  name: 'eth_maxPriorityFeePerGas',
  besu: { kinds: [] },
  params: [],
  handler: async (ctx: RpcContext) => toQuantity(await suggestPriorityFee(ctx)),
})

export const blobBaseFee = defineMethod({
  name: 'eth_blobBaseFee',
  besu: { kinds: [] },
  params: [],
  handler: (ctx: RpcContext) => {
    const h = ctx.chain.head.header
    if (h.excessBlobGas === undefined) return toQuantity(0n)
    // The head header's rules carry the block parameters (blobGasPerBlob) that the chain's own lack.
    const common = h.common.copy()
    common.setHardfork(ctx.chain.commonForNextBlock().hardfork())
    return toQuantity(h.calcNextBlobGasPrice(common))
  },
})

/** Rewards at the requested percentiles, weighted by gas used, as EIP-1559 clients expect. */
function rewardsOf(ctx: RpcContext, block: Block, percentiles: number[]): string[] {
  const baseFee = block.header.baseFeePerGas ?? 0n
  const receipts = ctx.chain.getReceipts(block)
  let prev = 0n
  const items = block.transactions.map((tx, i) => {
    const gasUsed = (receipts[i]?.cumulativeGasUsed ?? prev) - prev
    prev = receipts[i]?.cumulativeGasUsed ?? prev
    return { tip: effectiveTip(tx, baseFee), gasUsed }
  })
  if (items.length === 0) return percentiles.map(() => '0x0')
  items.sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0))
  const total = items.reduce((s, x) => s + x.gasUsed, 0n)
  return percentiles.map((pc) => {
    const threshold = (total * BigInt(Math.round(pc * 1000))) / 100_000n
    let sum = 0n
    for (const x of items) {
      sum += x.gasUsed
      if (sum >= threshold) return toQuantity(x.tip)
    }
    return toQuantity(items[items.length - 1].tip)
  })
}

export const feeHistory = defineMethod({
  name: 'eth_feeHistory',
  besu: { kinds: ['blockCount', 'block', 'rewardPercentiles'] },
  params: [p.named('blockCount', p.index), p.blockNumberOrTag, p.array(p.any, 'rewardPercentiles').optional()],
  handler: async (ctx: RpcContext, [count, ref, rawPercentiles]) => {
    if (count < 1n || count > MAX_FEE_HISTORY_BLOCKS) throw new ParamError(0, `must be 1..${MAX_FEE_HISTORY_BLOCKS}`)
    const percentiles = (rawPercentiles ?? []).map((x) => {
      if (typeof x !== 'number' || x < 0 || x > 100) throw new ParamError(2, `not a percentile: ${x}`)
      return x
    })
    for (let i = 1; i < percentiles.length; i++) {
      if (percentiles[i] < percentiles[i - 1]) throw new ParamError(2, 'not ascending')
    }
    const newest = await requireBlock(ctx, ref)
    const last = newest.header.number
    // The chain's first block: 0, or a forked chain's fork block (the remote's blocks are not ours).
    const start = ctx.chain.genesis.header.number
    const first = last - count + 1n < start ? start : last - count + 1n
    const baseFees: string[] = []
    const ratios: number[] = []
    const blobFees: string[] = []
    const blobRatios: number[] = []
    const rewards: string[][] = []
    for (let n = first; n <= last; n++) {
      const b = (await ctx.chain.getBlockByNumber(n))!
      const h = b.header
      baseFees.push(toQuantity(h.baseFeePerGas ?? 0n))
      ratios.push(Number(h.gasUsed) / Number(h.gasLimit))
      blobFees.push(toQuantity(h.excessBlobGas === undefined ? 0n : h.getBlobGasPrice()))
      const maxBlob = h.excessBlobGas === undefined ? 0n : BigInt(h.common.getBlobGasSchedule().maxBlobGasPerBlock)
      blobRatios.push(maxBlob === 0n ? 0 : Number(h.blobGasUsed ?? 0n) / Number(maxBlob))
      if (rawPercentiles) rewards.push(rewardsOf(ctx, b, percentiles))
    }
    const nh = newest.header
    const isHead = nh.number === ctx.chain.head.header.number
    const nextFee = isHead
      ? ctx.chain.pendingBaseFee()
      : nh.baseFeePerGas === undefined
        ? 0n
        : ctx.chain.nextBaseFee(nh)
    baseFees.push(toQuantity(nextFee ?? 0n))
    blobFees.push(toQuantity(nh.excessBlobGas === undefined ? 0n : nh.calcNextBlobGasPrice(nh.common)))
    const out: Record<string, unknown> = {
      oldestBlock: toQuantity(first),
      baseFeePerGas: baseFees,
      gasUsedRatio: ratios,
      baseFeePerBlobGas: blobFees,
      blobGasUsedRatio: blobRatios,
    }
    if (rawPercentiles) out.reward = rewards
    return out
  },
})

export const feeMethods = [gasPrice, maxPriorityFeePerGas, blobBaseFee, feeHistory]
