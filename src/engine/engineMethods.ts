/**
 * The ENGINE group: every Engine API method Basalt serves, plus the unversioned helpers
 * (engine_exchangeCapabilities, engine_exchangeTransitionConfigurationV1,
 * engine_getClientVersionV1) and blob lookups (engine_getBlobsV1/V2/V3).
 * Spec: execution-apis src/engine/common.md, identification.md, cancun.md, osaka.md.
 */
import { p } from '../jsonrpc/codecs.ts'
import { defineMethod, type RpcMethod } from '../jsonrpc/defineMethod.ts'
import type { MethodGroup } from '../jsonrpc/dispatcher.ts'
import { toQuantity } from '../primitives/hex.ts'
import type { RpcContext } from '../rpc/context.ts'
import { poolBlobs } from './blobs.ts'
import { engineOf } from './engineOf.ts'
import { engineError } from './errors.ts'
import { forkchoiceMethods } from './forkchoiceMethods.ts'
import { type EngineFork, requireFork } from './forkRules.ts'
import { getPayloadMethods } from './getPayloadMethods.ts'
import { newPayloadMethods } from './newPayloadMethods.ts'
import { payloadBodiesV2Methods } from './payloadBodiesV2.ts'
import { ep } from './payloadCodec.ts'

/** Most blobs one engine_getBlobs request may ask for. */
export const MAX_BLOB_REQUEST = 128
/** Two-letter client code of engine_getClientVersionV1. */
export const CLIENT_CODE = 'BA'

export const exchangeCapabilities = defineMethod({
  name: 'engine_exchangeCapabilities',
  params: [ep.strings],
  handler: (ctx: RpcContext, [consensusMethods]) => {
    engineOf(ctx).watchdog.capabilitiesExchanged(consensusMethods)
    return engineMethods.map((m) => m.name).filter((n) => n !== 'engine_exchangeCapabilities')
  },
})

function terminalTotalDifficulty(ctx: RpcContext): bigint {
  const paris = ctx.chain.common.hardforks().find((h) => h.name === 'paris') as { ttd?: bigint | string } | undefined
  return paris?.ttd === undefined ? 0n : BigInt(paris.ttd)
}

export const exchangeTransitionConfigurationV1 = defineMethod({
  name: 'engine_exchangeTransitionConfigurationV1',
  params: [p.named('transitionConfiguration', p.object)],
  handler: (ctx: RpcContext) => {
    engineOf(ctx).watchdog.transitionConfigurationExchanged()
    return {
      terminalTotalDifficulty: toQuantity(terminalTotalDifficulty(ctx)),
      terminalBlockHash: `0x${'00'.repeat(32)}`,
      terminalBlockNumber: '0x0',
    }
  },
})

export const getClientVersionV1 = defineMethod({
  name: 'engine_getClientVersionV1',
  params: [p.named('clientVersion', p.object)],
  handler: (ctx: RpcContext) => {
    engineOf(ctx)
    const version = ctx.settings.clientVersion.split('/').find((s) => /^v\d/.test(s)) ?? 'v0.0.0'
    return [{ code: CLIENT_CODE, name: 'Basalt', version, commit: '0x00000000' }]
  },
})

/** -38004 for too many hashes, then -38005 unless the head is in one of `forks` (Besu's order). */
function checkBlobRequest(ctx: RpcContext, hashes: Uint8Array[], forks: readonly EngineFork[]): void {
  engineOf(ctx)
  if (hashes.length > MAX_BLOB_REQUEST) throw engineError('tooLargeRequest')
  requireFork(ctx.chain.common, ctx.chain.head.header.timestamp, forks)
}

/** Served from Cancun until Osaka activates (osaka.md: then -38005). */
export const getBlobsV1 = defineMethod({
  name: 'engine_getBlobsV1',
  params: [ep.hashes],
  handler: async (ctx: RpcContext, [hashes]) => {
    checkBlobRequest(ctx, hashes, ['cancun', 'prague'])
    const found = await poolBlobs(ctx.chain, ctx.pool, hashes, false)
    return found.map((b) => (b ? { blob: b.blob, proof: b.proofs[0] } : null))
  },
})

/** All or nothing: null unless the pool holds every blob asked for; from Osaka on (osaka.md). */
export const getBlobsV2 = defineMethod({
  name: 'engine_getBlobsV2',
  params: [ep.hashes],
  handler: async (ctx: RpcContext, [hashes]) => {
    checkBlobRequest(ctx, hashes, ['osaka', 'amsterdam'])
    const found = await poolBlobs(ctx.chain, ctx.pool, hashes, true)
    return found.some((b) => b === null) ? null : found.map((b) => ({ blob: b!.blob, proofs: b!.proofs }))
  },
})

/** As V2, but a blob the pool lacks is null in its place instead of nulling the answer; from Osaka on. */
export const getBlobsV3 = defineMethod({
  name: 'engine_getBlobsV3',
  params: [ep.hashes],
  handler: async (ctx: RpcContext, [hashes]) => {
    checkBlobRequest(ctx, hashes, ['osaka', 'amsterdam'])
    const found = await poolBlobs(ctx.chain, ctx.pool, hashes, true)
    return found.map((b) => (b ? { blob: b.blob, proofs: b.proofs } : null))
  },
})

export const engineMethods: RpcMethod<RpcContext>[] = [
  exchangeCapabilities,
  exchangeTransitionConfigurationV1,
  getClientVersionV1,
  ...forkchoiceMethods,
  ...newPayloadMethods,
  ...getPayloadMethods,
  ...payloadBodiesV2Methods,
  getBlobsV1,
  getBlobsV2,
  getBlobsV3,
]

/** The ENGINE group, served on the Engine API port (and wherever `--rpc-http-api` lists ENGINE). */
export const engineGroup: MethodGroup<RpcContext> = { group: 'ENGINE', methods: engineMethods }
