/**
 * The base fee of the next block, by the chain's fee market (Besu's names):
 * - EIP-1559 (`LondonFeeMarket`): up or down by up to 12.5% a block. A quiet dev chain would decay
 *   from 1 gwei to 7 wei within a few hundred blocks, and the fees clients compute by default (about
 *   2 x base fee + a tip from recent blocks) fall below the pool's minimum gas price, so the dev
 *   network keeps the base fee at or above a floor;
 * - fixed (`FixedBaseFeeMarket`, genesis `config.fixedBaseFee: true`): every London block's base fee
 *   is the node's `--min-gas-price`;
 * - zero (`ZeroBaseFeeMarket`, `config.zeroBaseFee: true`, Besu's free-gas networks): every London
 *   block's base fee is 0.
 * In the fixed and zero markets Besu does not check an imported block's base fee (its validation
 * mode NONE): a block is accepted whatever base fee its header carries, and its transactions pay that.
 * The genesis block keeps the base fee its file gives (1 gwei when absent, as in every market).
 */
import type { BlockHeader } from '@ethereumjs/block'
import { Common } from '@ethereumjs/common'

/** Besu's default `--min-gas-price` (wei). */
export const DEFAULT_MIN_GAS_PRICE = 1000n

/**
 * Floor of the dev network's base fee: the default minimum gas price (above), so a transaction that
 * pays the base fee always clears the default minimum, whatever its tip.
 */
export const DEV_BASE_FEE_FLOOR = 1000n

/** How a chain sets its blocks' base fee. */
export type BaseFeeMarket =
  /** EIP-1559's rule, raised to `floor` (0: EIP-1559 alone). */
  | { kind: 'eip1559'; floor: bigint }
  /** Every block after the genesis has `fee`; imported blocks' base fees are not checked. */
  | { kind: 'fixed'; fee: bigint }

/** EIP-1559 without a floor: any chain from a genesis file without a fee market switch. */
export const EIP1559_MARKET: BaseFeeMarket = { kind: 'eip1559', floor: 0n }

/**
 * The market a genesis `config` asks for: `zeroBaseFee` wins over `fixedBaseFee` (Besu checks it
 * first); the fixed market's fee is the node's minimum gas price, as Besu's.
 */
export function baseFeeMarketOf(config: Record<string, unknown>, minGasPrice: bigint): BaseFeeMarket {
  if (config.zeroBaseFee === true) return { kind: 'fixed', fee: 0n }
  if (config.fixedBaseFee === true) return { kind: 'fixed', fee: minGasPrice }
  return EIP1559_MARKET
}

/**
 * The base fee of the block after `parent`: the fixed market's fee, or EIP-1559's (0 after a header
 * without one, before London, e.g. Besu's dev.json genesis, where transactions pay no base fee).
 */
export function nextBaseFee(parent: BlockHeader, market: BaseFeeMarket): bigint {
  if (market.kind === 'fixed') return market.fee
  if (!hasLondonBaseFee(parent)) return 0n
  const next = parent.calcNextBaseFee()
  return next < market.floor ? market.floor : next
}

/**
 * True when `header` carries a base fee under London's rules: not a genesis header before London
 * that carries one only because its file gives it (as Besu writes it; genesis.ts).
 */
export function hasLondonBaseFee(header: BlockHeader): boolean {
  return header.baseFeePerGas !== undefined && Common.prototype.isActivatedEIP.call(header.common, 1559)
}

/** EIP-1559's initial base fee (1 gwei): London's first block, and Besu's genesis with `londonBlock: 0`. */
export const INITIAL_BASE_FEE = 1_000_000_000n

/**
 * The base fee a producer writes in the block after `parent` when `isLondon` holds for that block;
 * undefined before London. On the first London block of an EIP-1559 chain, EIP-1559's initial base
 * fee: after a parent without a base fee (also a London genesis without one, as Besu writes
 * `future.json`'s), or on London's fork block (left to the block builder, which sets it).
 */
export function producedBaseFee(
  parent: BlockHeader,
  market: BaseFeeMarket,
  isLondon: boolean,
  isLondonForkBlock = false,
): bigint | undefined {
  if (!isLondon) return undefined
  if (market.kind === 'eip1559' && parent.baseFeePerGas === undefined) return INITIAL_BASE_FEE
  if (market.kind === 'eip1559' && isLondonForkBlock) return undefined
  return nextBaseFee(parent, market)
}
