/**
 * engine_forkchoiceUpdatedV1…V4: the attribute checks of each version, then
 * EngineService.forkchoiceUpdated. V1/V2 attribute shapes are parameter checks (-32602, before the
 * update); V3's and V4's follow cancun.md and amsterdam.md: -38003 / -38005 after the update, which
 * is not rolled back. Spec: execution-apis src/engine/paris.md, shanghai.md, cancun.md,
 * amsterdam.md (#engine_forkchoiceupdatedvN).
 */
import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { defineMethod } from '../jsonrpc/defineMethod.ts'
import { InvalidParamsError } from '../jsonrpc/errors.ts'
import { bytesToHex } from '../primitives/hex.ts'
import type { RpcContext } from '../rpc/context.ts'
import { engineOf } from './engineOf.ts'
import type { ForkchoiceResult } from './engineService.ts'
import { engineError, engineParamsError } from './errors.ts'
import { engineForkAt, requireFork } from './forkRules.ts'
import { payloadStatusJson } from './newPayloadMethods.ts'
import { ep, type ForkchoiceState, type PayloadAttributes } from './payloadCodec.ts'

function resultJson(r: ForkchoiceResult) {
  return { payloadStatus: payloadStatusJson(r.payloadStatus), payloadId: r.payloadId ? bytesToHex(r.payloadId) : null }
}

function disallow(a: PayloadAttributes, field: 'withdrawals' | 'parentBeaconBlockRoot'): void {
  if (a[field] !== undefined)
    throw new InvalidParamsError(`Invalid params: payloadAttributes.${field} is not allowed in this version`)
}

async function run(
  ctx: RpcContext,
  state: ForkchoiceState,
  attributes: PayloadAttributes | undefined,
  check: (a: PayloadAttributes, head: Block, common: Common) => void = () => {},
) {
  const engine = engineOf(ctx)
  return resultJson(await engine.forkchoiceUpdated(state, attributes, (a, head) => check(a, head, ctx.chain.common)))
}

export const forkchoiceUpdatedV1 = defineMethod({
  name: 'engine_forkchoiceUpdatedV1',
  params: [ep.forkchoiceState, ep.payloadAttributes.optional()],
  handler: async (ctx: RpcContext, [state, attributes]) => {
    if (attributes) {
      disallow(attributes, 'withdrawals')
      disallow(attributes, 'parentBeaconBlockRoot')
    }
    return run(ctx, state, attributes, (a, _head, common) => requireFork(common, a.timestamp, ['paris']))
  },
})

export const forkchoiceUpdatedV2 = defineMethod({
  name: 'engine_forkchoiceUpdatedV2',
  params: [ep.forkchoiceState, ep.payloadAttributes.optional()],
  handler: async (ctx: RpcContext, [state, attributes]) => {
    if (attributes) {
      disallow(attributes, 'parentBeaconBlockRoot')
      requireFork(ctx.chain.common, attributes.timestamp, ['paris', 'shanghai'])
      const fork = engineForkAt(ctx.chain.common, attributes.timestamp)
      if (fork === 'paris') disallow(attributes, 'withdrawals')
      else if (attributes.withdrawals === undefined)
        throw new InvalidParamsError('Invalid params: payloadAttributes.withdrawals is required after Shanghai')
    }
    return run(ctx, state, attributes)
  },
})

/** Cancun's attribute checks (withdrawals and the beacon root), shared by V3 and V4. */
function checkCancunFields(a: PayloadAttributes): void {
  if (a.withdrawals === undefined || a.parentBeaconBlockRoot === undefined) {
    throw engineError('invalidPayloadAttributes', 'withdrawals and parentBeaconBlockRoot are required')
  }
}

/** Cancun to Osaka; an Amsterdam timestamp is -38005 (amsterdam.md, "Update the methods of previous forks"). */
export const forkchoiceUpdatedV3 = defineMethod({
  name: 'engine_forkchoiceUpdatedV3',
  params: [ep.forkchoiceState, ep.payloadAttributes.optional()],
  handler: async (ctx: RpcContext, [state, attributes]) =>
    run(ctx, state, attributes, (a, _head, common) => {
      checkCancunFields(a)
      requireFork(common, a.timestamp, ['cancun', 'prague', 'osaka'])
    }),
})

/**
 * Amsterdam's, as the latest Besu's EngineForkchoiceUpdatedV4: V3's attributes with the payload's
 * slot number (EIP-7843) and `targetGasLimit`, both required (-32602 `Invalid slotNumber`, `Missing
 * target gas limit field`), and an optional third parameter `custodyColumns` (EIP-8070, 16 bytes,
 * checked before the update; Basalt keeps no blob custody, so it is only validated).
 */
export const forkchoiceUpdatedV4 = defineMethod({
  name: 'engine_forkchoiceUpdatedV4',
  params: [ep.forkchoiceState, ep.payloadAttributes.optional(), ep.custodyColumns.optional()],
  handler: async (ctx: RpcContext, [state, attributes]) =>
    run(ctx, state, attributes, (a, _head, common) => {
      // Besu checks every field of the attributes before the fork of their timestamp.
      checkCancunFields(a)
      if (a.slotNumber === undefined) throw engineParamsError('slotNumber', 'Invalid slotNumber')
      if (a.targetGasLimit === undefined) throw engineParamsError('targetGasLimit', 'Missing target gas limit field')
      requireFork(common, a.timestamp, ['amsterdam'])
    }),
})

export const forkchoiceMethods = [forkchoiceUpdatedV1, forkchoiceUpdatedV2, forkchoiceUpdatedV3, forkchoiceUpdatedV4]
