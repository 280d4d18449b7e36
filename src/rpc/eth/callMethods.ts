/** Message execution: eth_call, eth_estimateGas, eth_createAccessList. Spec: execution-apis src/eth/execute.yaml */
import { call } from '../../evm/callService.ts'
import { createAccessList, estimateGas } from '../../evm/gasEstimator.ts'
import { p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { bytesToHex, toQuantity } from '../../primitives/hex.ts'
import type { RpcContext } from '../context.ts'
import { failedCallError, failureText, mapCallErrors } from './callErrors.ts'
import { callParams } from './callRequest.ts'
import { requireBlock } from './resolveBlock.ts'

const latest = p.block.optional('latest' as const)

/** Executes a message at a block without creating a transaction. Spec: execution-apis src/eth/execute.yaml */
export const ethCall = defineMethod({
  name: 'eth_call',
  params: [callParams.call, latest, callParams.stateOverrides.optional(), callParams.blockOverrides.optional()],
  handler: async (ctx: RpcContext, [req, ref, stateOverrides, blockOverrides]) => {
    const block = await requireBlock(ctx, ref)
    const opts = { gasCap: ctx.settings.rpcGasCap, stateOverrides, blockOverrides, isBalanceChecked: req.strict }
    const r = await mapCallErrors(ctx.chain.common, () => call(ctx.chain, block, req, opts))
    if (r.exceptionError !== undefined) throw failedCallError(r)
    return bytesToHex(r.returnData)
  },
})

/** The least gas a message needs to succeed. Spec: execution-apis src/eth/execute.yaml */
export const ethEstimateGas = defineMethod({
  name: 'eth_estimateGas',
  params: [callParams.call, latest, callParams.stateOverrides.optional()],
  handler: async (ctx: RpcContext, [req, ref, stateOverrides]) => {
    const block = await requireBlock(ctx, ref)
    const opts = { gasCap: ctx.settings.rpcGasCap, stateOverrides, isBalanceChecked: req.strict }
    const r = await mapCallErrors(ctx.chain.common, () => estimateGas(ctx.chain, block, req, opts))
    if (r.failure) throw failedCallError(r.failure)
    return toQuantity(r.gas)
  },
})

/** The access list a message would use, and its gas with that list. Spec: execution-apis src/eth/execute.yaml */
export const ethCreateAccessList = defineMethod({
  name: 'eth_createAccessList',
  params: [callParams.call, latest, callParams.stateOverrides.optional()],
  handler: async (ctx: RpcContext, [req, ref, stateOverrides]) => {
    const block = await requireBlock(ctx, ref)
    const opts = { gasCap: ctx.settings.rpcGasCap, stateOverrides, isBalanceChecked: req.strict }
    const { accessList, result } = await mapCallErrors(ctx.chain.common, () =>
      createAccessList(ctx.chain, block, req, opts),
    )
    const out: Record<string, unknown> = {
      accessList: accessList.map((e) => ({
        address: bytesToHex(e.address),
        storageKeys: e.storageKeys.map(bytesToHex),
      })),
      gasUsed: toQuantity(result.gasUsed),
    }
    if (result.exceptionError !== undefined) out.error = failureText(result)
    return out
  },
})

export const callMethods = [ethCall, ethEstimateGas, ethCreateAccessList]
