/**
 * The block environment a simulated message runs in: a stored block's header, optionally with
 * block overrides (number, time, gas limit, fee recipient, prevRandao, base fee, blob base fee),
 * and with zero fees when the simulation does not charge the sender.
 */
import { type Block, createBlock, type HeaderData } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'

export interface BlockOverrides {
  number?: bigint
  time?: bigint
  gasLimit?: bigint
  feeRecipient?: Uint8Array
  prevRandao?: Uint8Array
  baseFeePerGas?: bigint
  blobBaseFee?: bigint
}

export interface SimulationBlockOptions {
  overrides?: BlockOverrides
  /** Base fee and blob base fee read as zero (Besu's and geth's zero-priced calls). */
  isFeeFree?: boolean
  /** Replace the header wholesale (eth_simulateV1 builds its own headers). */
  header?: HeaderData
}

function hasOverrides(o: BlockOverrides | undefined): boolean {
  return o !== undefined && Object.values(o).some((v) => v !== undefined)
}

/** `base` itself when nothing changes; otherwise a copy of its header with the changes applied. */
export function simulationBlock(base: Block, common: Common, opts: SimulationBlockOptions = {}): Block {
  const o = opts.overrides ?? {}
  if (!hasOverrides(o) && !opts.isFeeFree && !opts.header) return base
  const h = base.header
  const data: HeaderData = opts.header ?? {
    ...h.toJSON(),
    number: o.number ?? h.number,
    timestamp: o.time ?? h.timestamp,
    gasLimit: o.gasLimit ?? h.gasLimit,
    coinbase: o.feeRecipient ?? h.coinbase,
    mixHash: o.prevRandao ?? h.mixHash,
    baseFeePerGas: o.baseFeePerGas ?? h.baseFeePerGas,
  }
  if (opts.isFeeFree && data.baseFeePerGas !== undefined) data.baseFeePerGas = 0n
  const c = common.copy()
  c.setHardforkBy({ blockNumber: BigInt(data.number as bigint), timestamp: BigInt(data.timestamp as bigint) })
  const block = createBlock(
    { header: data, withdrawals: c.isActivatedEIP(4895) ? [] : undefined },
    { common: c, freeze: false, skipConsensusFormatValidation: true },
  )
  const blobBaseFee = opts.isFeeFree ? 0n : o.blobBaseFee
  if (blobBaseFee !== undefined && c.isActivatedEIP(4844))
    Object.assign(block.header, { getBlobGasPrice: () => blobBaseFee })
  return block
}
