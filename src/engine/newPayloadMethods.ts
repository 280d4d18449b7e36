/**
 * engine_newPayloadV1…V5: the version checks of each (payload fields, extra parameters, fork of the
 * payload's timestamp), then EngineService.newPayload. Spec: execution-apis src/engine/paris.md,
 * shanghai.md, cancun.md, prague.md, amsterdam.md (#engine_newpayloadvN).
 */
import { defineMethod } from '../jsonrpc/defineMethod.ts'
import { InvalidParamsError, RpcError } from '../jsonrpc/errors.ts'
import { bytesToHex } from '../primitives/hex.ts'
import type { RpcContext } from '../rpc/context.ts'
import { engineOf } from './engineOf.ts'
import type { NewPayloadOptions, PayloadStatus } from './engineService.ts'
import { engineParamsError } from './errors.ts'
import { type EngineFork, engineForkAt, requireFork } from './forkRules.ts'
import { type ExecutionPayload, ep } from './payloadCodec.ts'

/** PayloadStatusV1 as JSON. */
export function payloadStatusJson(s: PayloadStatus) {
  return {
    status: s.status,
    latestValidHash: s.latestValidHash ? bytesToHex(s.latestValidHash) : null,
    validationError: s.validationError,
  }
}

/** Besu's answer to withdrawals or execution requests a version cannot take: -32602 with the reason in `data`. */
function invalidParamsData(data: string): RpcError {
  return new RpcError(InvalidParamsError.code, 'Invalid params', data)
}

function requireFields(payload: ExecutionPayload, fields: (keyof ExecutionPayload)[], isPresent: boolean): void {
  for (const f of fields) {
    if ((payload[f] !== undefined) !== isPresent) {
      if (f === 'withdrawals') throw invalidParamsData('Invalid withdrawals')
      throw new InvalidParamsError(
        `Invalid params: ${f} ${isPresent ? 'is required' : 'is not allowed'} in this payload version`,
      )
    }
  }
}

/** Execution requests must each carry data and come in strictly ascending type order (EIP-7685). */
function checkRequests(requests: Uint8Array[]): void {
  requests.forEach((r, i) => {
    // Empty, or not in strictly ascending type order.
    if (r.length < 2 || (i > 0 && r[0] <= requests[i - 1][0])) throw invalidParamsData('Invalid execution requests')
  })
}

async function run(ctx: RpcContext, payload: ExecutionPayload, opts: NewPayloadOptions) {
  return payloadStatusJson(await engineOf(ctx).newPayload(payload, opts))
}

export const newPayloadV1 = defineMethod({
  name: 'engine_newPayloadV1',
  params: [ep.payload],
  handler: async (ctx: RpcContext, [payload]) => {
    requireFields(payload, ['withdrawals', 'blobGasUsed', 'excessBlobGas'], false)
    requireFork(ctx.chain.common, payload.timestamp, ['paris'])
    return run(ctx, payload, { hasInvalidBlockHashStatus: true })
  },
})

export const newPayloadV2 = defineMethod({
  name: 'engine_newPayloadV2',
  params: [ep.payload],
  handler: async (ctx: RpcContext, [payload]) => {
    requireFields(payload, ['blobGasUsed', 'excessBlobGas'], false)
    const fork = engineForkAt(ctx.chain.common, payload.timestamp)
    if (fork !== 'paris' && fork !== 'shanghai') requireFork(ctx.chain.common, payload.timestamp, ['paris', 'shanghai'])
    requireFields(payload, ['withdrawals'], fork === 'shanghai')
    return run(ctx, payload, { hasInvalidBlockHashStatus: false })
  },
})

export const newPayloadV3 = defineMethod({
  name: 'engine_newPayloadV3',
  params: [ep.payload, ep.hashes, ep.beaconRoot],
  handler: async (ctx: RpcContext, [payload, expectedBlobHashes, parentBeaconBlockRoot]) => {
    requireFields(payload, ['withdrawals', 'blobGasUsed', 'excessBlobGas'], true)
    requireFork(ctx.chain.common, payload.timestamp, ['cancun'])
    return run(ctx, payload, { expectedBlobHashes, parentBeaconBlockRoot, hasInvalidBlockHashStatus: false })
  },
})

/**
 * newPayloadV4 and V5 (Prague's shape; V5's payload adds the block access list and the slot number)
 * on the forks given.
 */
function withRequests(forks: readonly EngineFork[]) {
  return async (
    ctx: RpcContext,
    [payload, expectedBlobHashes, parentBeaconBlockRoot, executionRequests]: readonly [
      ExecutionPayload,
      Uint8Array[],
      Uint8Array,
      Uint8Array[],
    ],
  ) => {
    requireFields(payload, ['withdrawals', 'blobGasUsed', 'excessBlobGas'], true)
    checkRequests(executionRequests)
    requireFork(ctx.chain.common, payload.timestamp, forks)
    // Besu's EngineNewPayloadV5, after the fork check: an absent or null field is a -32602 of its
    // own (access list first), answered with the error type alone (its reason, `Missing block
    // access list field` / `Missing slot number field`, is not sent: no `data`).
    if (forks.includes('amsterdam')) {
      if (payload.blockAccessList === undefined) throw engineParamsError('blockAccessList')
      if (payload.slotNumber === undefined) throw engineParamsError('slotNumber')
    }
    return run(ctx, payload, {
      expectedBlobHashes,
      parentBeaconBlockRoot,
      executionRequests,
      hasInvalidBlockHashStatus: false,
    })
  }
}

export const newPayloadV4 = defineMethod({
  name: 'engine_newPayloadV4',
  params: [ep.payload, ep.hashes, ep.beaconRoot, ep.requests],
  handler: withRequests(['prague', 'osaka']),
})

/** Amsterdam's (Besu: from `amsterdamTime`; FutureEips and ExperimentalEips too): V4 with the access list and slot number. */
export const newPayloadV5 = defineMethod({
  name: 'engine_newPayloadV5',
  params: [ep.payload, ep.hashes, ep.beaconRoot, ep.requests],
  handler: withRequests(['amsterdam']),
})

export const newPayloadMethods = [newPayloadV1, newPayloadV2, newPayloadV3, newPayloadV4, newPayloadV5]
