/**
 * The base fee of the next block. EIP-1559 lowers it by up to 12.5% a block when blocks are less
 * than half full, so a quiet dev chain decays from 1 gwei to 7 wei within a few hundred blocks, and
 * the fees clients compute by default (about 2 x base fee + a tip from recent blocks) fall below
 * the pool's minimum gas price. The dev network therefore keeps the base fee at or above a floor.
 */
import type { BlockHeader } from '@ethereumjs/block'

/**
 * Floor of the dev network's base fee: Besu's default `--min-gas-price` (1000 wei), so a
 * transaction that pays the base fee always clears the default minimum, whatever its tip.
 */
export const DEV_BASE_FEE_FLOOR = 1000n

/**
 * EIP-1559's next base fee after `parent`, raised to `floor`; 0 after a header without one (before
 * London, e.g. Besu's dev.json genesis), where transactions pay no base fee.
 */
export function nextBaseFee(parent: BlockHeader, floor: bigint): bigint {
  if (parent.baseFeePerGas === undefined) return 0n
  const next = parent.calcNextBaseFee()
  return next < floor ? floor : next
}
