/**
 * Besu's gas price oracle, shared by eth_gasPrice, eth_maxPriorityFeePerGas and GraphQL: the priority
 * fees paid over the last `--api-gas-price-blocks` blocks at `--api-gas-price-percentile`.
 */
import type { Chain } from '../../chain/chain.ts'
import { effectiveTip, type TxPool } from '../../txpool/txPool.ts'
import type { RpcSettings } from '../context.ts'

export interface GasOracleDeps {
  chain: Chain
  /** The pool's minimums as they stand (`--min-gas-price`, `--min-priority-fee` and their miner_ setters). */
  pool: Pick<TxPool, 'minGasPrice' | 'minPriorityFee'>
  settings: Pick<RpcSettings, 'gasPriceBlocks' | 'gasPricePercentile' | 'gasPriceMax'>
}

/** Priority fees paid in the last `count` blocks, per transaction, ascending. */
async function recentTips(chain: Chain, count: number): Promise<bigint[]> {
  const tips: bigint[] = []
  const head = chain.head.header.number
  for (let n = head; n >= 0n && n > head - BigInt(count); n--) {
    const block = await chain.getBlockByNumber(n)
    const baseFee = block?.header.baseFeePerGas ?? 0n
    for (const tx of block?.transactions ?? []) tips.push(effectiveTip(tx, baseFee))
  }
  return tips.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
}

function percentileOf(sorted: bigint[], percentile: number): bigint {
  if (sorted.length === 0) return 0n
  const i = Math.min(sorted.length - 1, Math.floor(((sorted.length - 1) * percentile) / 100))
  return sorted[i]
}

/**
 * The priority fee at the configured percentile of recent blocks, at least `--min-priority-fee` (as
 * Besu's), raised so that the next base fee plus the tip reaches `--min-gas-price`: clients add this
 * answer to a multiple of the base fee for their default max fee, which then always clears the
 * pool's minimum, however far the base fee fell.
 */
export async function suggestPriorityFee({ chain, pool, settings }: GasOracleDeps): Promise<bigint> {
  const recent = percentileOf(await recentTips(chain, settings.gasPriceBlocks), settings.gasPricePercentile)
  const tip = recent < pool.minPriorityFee ? pool.minPriorityFee : recent
  const baseFee = chain.pendingBaseFee() ?? 0n
  const needed = pool.minGasPrice - baseFee
  return tip < needed ? needed : tip
}

/**
 * The suggested tip plus, on a London chain, the next base fee (so that a legacy transaction priced
 * with the answer is always includable), bounded below by `--min-gas-price` and above by
 * `--api-gas-price-max`.
 */
export async function suggestGasPrice(deps: GasOracleDeps): Promise<bigint> {
  const s = deps.settings
  const baseFee = deps.chain.pendingBaseFee() ?? 0n
  let price = baseFee + (await suggestPriorityFee(deps))
  if (price < deps.pool.minGasPrice) price = deps.pool.minGasPrice
  if (price > s.gasPriceMax && s.gasPriceMax >= baseFee) price = s.gasPriceMax
  return price
}
