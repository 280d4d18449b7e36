/**
 * engine_getPayloadBodiesByHashV2 / ByRangeV2: V1's bodies with the block's access list (EIP-7928),
 * the RLP stored with the block as bytes, `null` where none is stored (a block before Amsterdam).
 * Limits and refusals are V1's. Spec: execution-apis src/engine/amsterdam.md; Besu's
 * EngineGetPayloadBodiesByHashV2 / ByRangeV2.
 */
import { bytesToHex } from '../primitives/hex.ts'
import { blockToBodyJson } from '../rpc/payloadJson.ts'
import { type PayloadBody, payloadBodiesByHash, payloadBodiesByRange } from './getPayloadMethods.ts'

const bodyV2: PayloadBody = (ctx, block) => {
  const rlp = ctx.chain.store.readBlockAccessList(block.hash())
  return { ...blockToBodyJson(block), blockAccessList: rlp === undefined ? null : bytesToHex(rlp) }
}

export const getPayloadBodiesByHashV2 = payloadBodiesByHash('engine_getPayloadBodiesByHashV2', bodyV2)
export const getPayloadBodiesByRangeV2 = payloadBodiesByRange('engine_getPayloadBodiesByRangeV2', bodyV2)

export const payloadBodiesV2Methods = [getPayloadBodiesByHashV2, getPayloadBodiesByRangeV2]
