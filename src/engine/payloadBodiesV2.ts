/**
 * engine_getPayloadBodiesByHashV2 / ByRangeV2: V1's bodies with the block's access list (EIP-7928),
 * the RLP stored with the block as bytes, `null` where none is stored (a block before Amsterdam).
 * Limits and refusals are V1's. Spec: execution-apis src/engine/amsterdam.md; Besu's
 * EngineGetPayloadBodiesByHashV2 / ByRangeV2.
 */
import type { Block } from '@ethereumjs/block'
import { p } from '../jsonrpc/codecs.ts'
import { defineMethod } from '../jsonrpc/defineMethod.ts'
import { InvalidParamsError } from '../jsonrpc/errors.ts'
import { bytesToHex } from '../primitives/hex.ts'
import type { RpcContext } from '../rpc/context.ts'
import { blockToBodyJson } from '../rpc/payloadJson.ts'
import { engineOf } from './engineOf.ts'
import { engineError } from './errors.ts'
import { MAX_PAYLOAD_BODIES } from './getPayloadMethods.ts'
import { ep } from './payloadCodec.ts'

function bodyV2(ctx: RpcContext, block: Block | undefined) {
  if (!block) return null
  const rlp = ctx.chain.store.readBlockAccessList(block.hash())
  return { ...blockToBodyJson(block), blockAccessList: rlp === undefined ? null : bytesToHex(rlp) }
}

export const getPayloadBodiesByHashV2 = defineMethod({
  name: 'engine_getPayloadBodiesByHashV2',
  params: [ep.hashes],
  handler: async (ctx: RpcContext, [hashes]) => {
    engineOf(ctx)
    if (BigInt(hashes.length) > MAX_PAYLOAD_BODIES) throw engineError('tooLargeRequest')
    const out = []
    for (const h of hashes) out.push(bodyV2(ctx, await ctx.chain.getBlockByHash(h)))
    return out
  },
})

export const getPayloadBodiesByRangeV2 = defineMethod({
  name: 'engine_getPayloadBodiesByRangeV2',
  params: [p.named('start', p.quantity), p.named('count', p.quantity)],
  handler: async (ctx: RpcContext, [start, count]) => {
    engineOf(ctx)
    if (start < 1n || count < 1n) throw new InvalidParamsError('Invalid params: start and count must be at least 1')
    if (count > MAX_PAYLOAD_BODIES) throw engineError('tooLargeRequest')
    const last = ctx.chain.head.header.number
    const out = []
    for (let n = start; n < start + count && n <= last; n++) out.push(bodyV2(ctx, await ctx.chain.getBlockByNumber(n)))
    return out
  },
})

export const payloadBodiesV2Methods = [getPayloadBodiesByHashV2, getPayloadBodiesByRangeV2]
