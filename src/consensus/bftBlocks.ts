/**
 * Rewrites of a BFT block's header: a prepared block re-proposed in a later round by another
 * proposer, and a proposal sealed with the commit seals of the round that committed it.
 */
import { type Block, createBlockFromBytesArray } from '@ethereumjs/block'
import { type BftExtraData, type BftKind, decodeBftExtraData, encodeBftExtraData } from './bftExtraData.ts'

const COINBASE_INDEX = 2
const EXTRA_DATA_INDEX = 12

function rebuild(block: Block, coinbase: Uint8Array, extra: Uint8Array): Block {
  const raw = block.raw()
  const header = [...raw[0]] as Uint8Array[]
  header[COINBASE_INDEX] = coinbase
  header[EXTRA_DATA_INDEX] = extra
  return createBlockFromBytesArray([header, ...raw.slice(1)] as never, { common: block.common })
}

/** The extraData of a BFT block. */
export function extraDataOf(kind: BftKind, block: Block): BftExtraData {
  return decodeBftExtraData(kind, block.header.extraData)
}

/** `block` with `round` in its extraData and `proposer` as its coinbase, without seals. */
export function withRoundAndProposer(kind: BftKind, block: Block, round: number, proposer: Uint8Array): Block {
  const extra = { ...extraDataOf(kind, block), round, seals: [] }
  return rebuild(block, proposer, encodeBftExtraData(kind, extra))
}

/** `block` carrying `seals` as the commit seals of `round`. */
export function sealBlock(kind: BftKind, block: Block, round: number, seals: Uint8Array[]): Block {
  const extra = { ...extraDataOf(kind, block), round, seals }
  return rebuild(block, block.header.coinbase.bytes, encodeBftExtraData(kind, extra))
}
