/**
 * engine_getPayloadV1…V6 (the best payload built so far for a payload id, in each version's
 * envelope) and engine_getPayloadBodiesByHashV1 / ByRangeV1. Spec: execution-apis src/engine/
 * paris.md, shanghai.md, cancun.md, prague.md, osaka.md, amsterdam.md (#engine_getpayloadvN).
 */
import type { Block } from '@ethereumjs/block'
import { p } from '../jsonrpc/codecs.ts'
import { defineMethod } from '../jsonrpc/defineMethod.ts'
import { InvalidParamsError } from '../jsonrpc/errors.ts'
import { bytesToHex, toQuantity } from '../primitives/hex.ts'
import type { BuiltPayload } from '../producer/payloadBuilder.ts'
import type { RpcContext } from '../rpc/context.ts'
import { blockToBodyJson, blockToPayloadJson } from '../rpc/payloadJson.ts'
import { blobsBundle } from './blobs.ts'
import { engineOf } from './engineOf.ts'
import { engineError } from './errors.ts'
import { type EngineFork, requireFork } from './forkRules.ts'
import { ep } from './payloadCodec.ts'

/** Most payload bodies one request may ask for (execution-apis shanghai.md). */
const MAX_PAYLOAD_BODIES = 1024n

async function built(ctx: RpcContext, payloadId: Uint8Array, forks: readonly EngineFork[]): Promise<BuiltPayload> {
  const job = engineOf(ctx).getPayloadJob(payloadId)
  const payload = await job.best()
  job.stop()
  requireFork(ctx.chain.common, payload.block.header.timestamp, forks)
  return payload
}

async function envelope(ctx: RpcContext, b: BuiltPayload, isCellProofs: boolean) {
  return {
    executionPayload: blockToPayloadJson(b.block),
    blockValue: toQuantity(b.blockValue),
    blobsBundle: await blobsBundle(ctx.chain, b.blobTxs, isCellProofs),
    shouldOverrideBuilder: false,
  }
}

export const getPayloadV1 = defineMethod({
  name: 'engine_getPayloadV1',
  params: [ep.payloadId],
  handler: async (ctx: RpcContext, [id]) => blockToPayloadJson((await built(ctx, id, ['paris'])).block),
})

export const getPayloadV2 = defineMethod({
  name: 'engine_getPayloadV2',
  params: [ep.payloadId],
  handler: async (ctx: RpcContext, [id]) => {
    const b = await built(ctx, id, ['paris', 'shanghai'])
    return { executionPayload: blockToPayloadJson(b.block), blockValue: toQuantity(b.blockValue) }
  },
})

export const getPayloadV3 = defineMethod({
  name: 'engine_getPayloadV3',
  params: [ep.payloadId],
  handler: async (ctx: RpcContext, [id]) => envelope(ctx, await built(ctx, id, ['cancun']), false),
})

export const getPayloadV4 = defineMethod({
  name: 'engine_getPayloadV4',
  params: [ep.payloadId],
  handler: async (ctx: RpcContext, [id]) => {
    const b = await built(ctx, id, ['prague'])
    return { ...(await envelope(ctx, b, false)), executionRequests: (b.executionRequests ?? []).map(bytesToHex) }
  },
})

export const getPayloadV5 = defineMethod({
  name: 'engine_getPayloadV5',
  params: [ep.payloadId],
  handler: async (ctx: RpcContext, [id]) => {
    const b = await built(ctx, id, ['osaka'])
    return { ...(await envelope(ctx, b, true)), executionRequests: (b.executionRequests ?? []).map(bytesToHex) }
  },
})

/** Amsterdam's: V5 with the block access list in the payload (Besu's EngineGetPayloadV6). */
export const getPayloadV6 = defineMethod({
  name: 'engine_getPayloadV6',
  params: [ep.payloadId],
  handler: async (ctx: RpcContext, [id]) => {
    const b = await built(ctx, id, ['amsterdam'])
    const out = await envelope(ctx, b, true)
    const blockAccessList = bytesToHex(b.blockAccessList ?? new Uint8Array(0))
    return {
      ...out,
      executionPayload: { ...out.executionPayload, blockAccessList },
      executionRequests: (b.executionRequests ?? []).map(bytesToHex),
    }
  },
})

/** The payload body of a known `block` in one version of getPayloadBodies (an unknown block is `null`). */
export type PayloadBody = (ctx: RpcContext, block: Block) => object

/** engine_getPayloadBodiesByHash of one version: the bodies of the blocks asked for, `null` where unknown. */
export function payloadBodiesByHash(name: string, body: PayloadBody) {
  return defineMethod({
    name,
    params: [ep.hashes],
    handler: async (ctx: RpcContext, [hashes]) => {
      engineOf(ctx)
      if (BigInt(hashes.length) > MAX_PAYLOAD_BODIES) throw engineError('tooLargeRequest')
      const out = []
      for (const h of hashes) {
        const block = await ctx.chain.getBlockByHash(h)
        out.push(block ? body(ctx, block) : null)
      }
      return out
    },
  })
}

/** engine_getPayloadBodiesByRange of one version: `count` bodies from `start`, none past the head. */
export function payloadBodiesByRange(name: string, body: PayloadBody) {
  return defineMethod({
    name,
    params: [p.named('start', p.quantity), p.named('count', p.quantity)],
    handler: async (ctx: RpcContext, [start, count]) => {
      engineOf(ctx)
      if (start < 1n || count < 1n) throw new InvalidParamsError('Invalid params: start and count must be at least 1')
      if (count > MAX_PAYLOAD_BODIES) throw engineError('tooLargeRequest')
      const head = ctx.chain.head.header.number
      const out = []
      for (let n = start; n < start + count && n <= head; n++) {
        const block = await ctx.chain.getBlockByNumber(n)
        out.push(block ? body(ctx, block) : null)
      }
      return out
    },
  })
}

const bodyV1: PayloadBody = (_ctx, block) => blockToBodyJson(block)

export const getPayloadMethods = [
  getPayloadV1,
  getPayloadV2,
  getPayloadV3,
  getPayloadV4,
  getPayloadV5,
  getPayloadV6,
  payloadBodiesByHash('engine_getPayloadBodiesByHashV1', bodyV1),
  payloadBodiesByRange('engine_getPayloadBodiesByRangeV1', bodyV1),
]
