/** Flat (parity) traces of a block's or a transaction's calls, with their block and transaction fields. */
import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { paramsVM } from '@ethereumjs/vm'
import { classicOmmerRewards } from '../../chain/classicForks.ts'
import { replayBlock } from '../../evm/tracers/blockReplayer.ts'
import { CallTracer } from '../../evm/tracers/callTracer.ts'
import {
  flattenCallFrames,
  precompileAddresses,
  revertReasonOf,
  withoutNestedPrecompileCalls,
} from '../../evm/tracers/parityTrace.ts'
import type { TxTracer } from '../../evm/tracers/txTracer.ts'
import { bytesToHex, toQuantity } from '../../primitives/hex.ts'
import type { RpcContext } from '../context.ts'
import { mapTracingErrors } from '../debug/traceRunner.ts'

type Json = Record<string, unknown>

/** A tracer giving the flat traces of one transaction of `block`. */
export function flatTracer(block: Block): TxTracer<Json[]> {
  const tracer = new CallTracer({ withSelfdestructs: true })
  return {
    start: tracer.start.bind(tracer),
    finish: (ctx, r) =>
      flattenCallFrames(
        withoutNestedPrecompileCalls(tracer.finish(ctx, r), precompileAddresses(ctx)),
        {
          blockHash: block.hash(),
          blockNumber: block.header.number,
          transactionHash: ctx.tx.hash(),
          transactionPosition: ctx.index ?? 0,
        },
        { revertReason: revertReasonOf(r) },
      ),
  }
}

/** Every flat trace of a block's transactions, in order. */
export async function blockTraces(ctx: RpcContext, block: Block): Promise<Json[]> {
  if (block.header.number === 0n || block.transactions.length === 0) return []
  const out = await mapTracingErrors(() => replayBlock(ctx.chain, block, () => flatTracer(block)))
  return block.transactions.flatMap((_tx, i) => out.get(i) ?? [])
}

/**
 * The `reward` traces of a block that paid one, as Besu's reward trace generator: the block's
 * beneficiary first (on proof of work the miner reward plus 1/32 of it per ommer), then each ommer's
 * miner ((8 + ommer number − block number) / 8 of the reward, or Ethereum Classic's ECIP-1017 shares
 * from Gotham on); on a BFT chain with a `blockreward`, its
 * beneficiary. Blocks that pay none (proof of stake, clique, a dev chain, BFT without a reward) give none.
 */
export function rewardTraces(ctx: RpcContext, block: Block): Json[] {
  const number = block.header.number
  if (number === 0n) return []
  const trace = (author: Uint8Array, rewardType: 'block' | 'uncle', value: bigint): Json => ({
    action: { author: bytesToHex(author), rewardType, value: toQuantity(value) },
    blockHash: bytesToHex(block.hash()),
    blockNumber: Number(number),
    result: null,
    subtraces: 0,
    traceAddress: [],
    transactionHash: null,
    transactionPosition: null,
    type: 'reward',
  })
  const bft = ctx.chain.blockReward?.(number, block.header.coinbase.bytes)
  if (bft) return [trace(bft.beneficiary, 'block', bft.amount)]
  const common = block.common
  if (common.consensusType() !== 'pow') return []
  const reward = minerReward(common)
  if (reward === 0n) return []
  const ommers = block.uncleHeaders
  // Ethereum Classic from Gotham on: Besu's ClassicBlockProcessor's shares (the coinbase's extra first).
  const classic = classicOmmerRewards(common, number, block.header.coinbase.bytes, ommers)
  if (classic?.length === ommers.length + 1) {
    const [extra, ...uncles] = classic
    return [
      trace(extra.beneficiary, 'block', reward + extra.amount),
      ...uncles.map((u) => trace(u.beneficiary, 'uncle', u.amount)),
    ]
  }
  return [
    trace(block.header.coinbase.bytes, 'block', reward + (reward / 32n) * BigInt(ommers.length)),
    ...ommers.map((o) => trace(o.coinbase.bytes, 'uncle', ((o.number + 8n - number) * reward) / 8n)),
  ]
}

/** The fork's miner reward: from the VM's parameters, which a block's rules may not carry yet. */
function minerReward(common: Common): bigint {
  try {
    return common.param('minerReward')
  } catch {
    const withVm = common.copy()
    withVm.updateParams(paramsVM)
    return withVm.param('minerReward')
  }
}
