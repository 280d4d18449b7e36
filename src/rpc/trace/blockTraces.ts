/** Flat (parity) traces of a block's or a transaction's calls, with their block and transaction fields. */
import { type Block, cliqueSigner } from '@ethereumjs/block'
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
 * The `reward` traces of a block, as Besu's reward trace generator gives them for every block but the
 * genesis: the block's beneficiary first (on proof of work the miner reward plus 1/32 of it per
 * ommer), then each ommer's miner ((8 + ommer number − block number) / 8 of the reward, or Ethereum
 * Classic's ECIP-1017 shares from Gotham on); on a BFT chain with a `blockreward`, its beneficiary.
 * A block that pays no reward (proof of stake, clique, a dev chain, BFT without a reward) still has
 * its `block` trace, of value 0, to its beneficiary: Besu's generator does not look at the amount,
 * and its beneficiary is the clique signer on clique, the coinbase elsewhere.
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
  if (common.consensusType() !== 'pow') return [trace(beneficiary(block), 'block', 0n)]
  const reward = minerReward(common)
  const ommers = block.uncleHeaders
  // Ethereum Classic from Gotham on: Besu's ClassicBlockProcessor's shares (the coinbase's extra first).
  const classic = reward > 0n ? classicOmmerRewards(common, number, block.header.coinbase.bytes, ommers) : undefined
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

/** Besu's mining beneficiary of a block without a reward: the signer on clique (its proposer), else the coinbase. */
function beneficiary(block: Block): Uint8Array {
  if (block.common.consensusAlgorithm() === 'clique') {
    try {
      return cliqueSigner(block.header).bytes
    } catch {
      // A header without a valid seal: fall back to its coinbase.
    }
  }
  return block.header.coinbase.bytes
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
