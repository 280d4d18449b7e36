/** Message execution: eth_call, eth_estimateGas, eth_createAccessList. Spec: execution-apis src/eth/execute.yaml */
import type { Block } from '@ethereumjs/block'
import { type CallChain, type CallRequest, call } from '../../evm/callService.ts'
import { createAccessList, estimateGas } from '../../evm/gasEstimator.ts'
import type { BlockOverrides } from '../../evm/simulationBlock.ts'
import type { StateOverrides } from '../../evm/stateOverrides.ts'
import { p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { bytesToHex, toQuantity } from '../../primitives/hex.ts'
import type { RpcContext } from '../context.ts'
import { failedCallError, failureText, mapCallErrors } from './callErrors.ts'
import { callParams } from './callRequest.ts'
import { requireBlock } from './resolveBlock.ts'

const latest = p.block.optional('latest' as const)

/** The arguments of eth_call after its block: the call, state overrides, block overrides. */
export type EthCallArgs = [CallRequest, StateOverrides | undefined, BlockOverrides | undefined]
/** The arguments of eth_estimateGas after its block. */
export type EstimateArgs = [CallRequest, StateOverrides | undefined]

/** eth_call's answer at `block` (hex return data), or its RPC error; also what a call worker runs. */
export async function answerCall(chain: CallChain, block: Block, gasCap: bigint, args: EthCallArgs): Promise<string> {
  const [req, stateOverrides, blockOverrides] = args
  const opts = { gasCap, stateOverrides, blockOverrides, isBalanceChecked: req.strict }
  const r = await mapCallErrors(chain.common, () => call(chain, block, req, opts))
  if (r.exceptionError !== undefined) throw failedCallError(r)
  return bytesToHex(r.returnData)
}

/** eth_estimateGas's answer at `block` (a quantity), or its RPC error; also what a call worker runs. */
export async function answerEstimate(
  chain: CallChain,
  block: Block,
  gasCap: bigint,
  args: EstimateArgs,
): Promise<string> {
  const [req, stateOverrides] = args
  const opts = { gasCap, stateOverrides, isBalanceChecked: req.strict }
  const r = await mapCallErrors(chain.common, () => estimateGas(chain, block, req, opts))
  if (r.failure) throw failedCallError(r.failure)
  return toQuantity(r.gas)
}

/** Executes a message at a block without creating a transaction. Spec: execution-apis src/eth/execute.yaml */
export const ethCall = defineMethod({
  name: 'eth_call',
  besu: { kinds: ['call', 'block', 'call', 'call'], order: [1, 0, 2, 3], required: [1] },
  params: [callParams.call, latest, callParams.stateOverrides.optional(), callParams.blockOverrides.optional()],
  handler: async (ctx: RpcContext, [req, ref, stateOverrides, blockOverrides]) => {
    const block = await requireBlock(ctx, ref)
    const args: EthCallArgs = [req, stateOverrides, blockOverrides]
    const here = () => answerCall(ctx.chain, block, ctx.settings.rpcGasCap, args)
    return ctx.callWorkers ? ctx.callWorkers.run('eth_call', block, args, here) : here()
  },
})

/** The least gas a message needs to succeed. Spec: execution-apis src/eth/execute.yaml */
export const ethEstimateGas = defineMethod({
  name: 'eth_estimateGas',
  besu: { kinds: ['call', 'block', 'call'], order: [1, 0, 2] },
  params: [callParams.call, latest, callParams.stateOverrides.optional()],
  handler: async (ctx: RpcContext, [req, ref, stateOverrides]) => {
    const block = await requireBlock(ctx, ref)
    const args: EstimateArgs = [req, stateOverrides]
    const here = () => answerEstimate(ctx.chain, block, ctx.settings.rpcGasCap, args)
    return ctx.callWorkers ? ctx.callWorkers.run('eth_estimateGas', block, args, here) : here()
  },
})

/** The access list a message would use, and its gas with that list. Spec: execution-apis src/eth/execute.yaml */
export const ethCreateAccessList = defineMethod({
  name: 'eth_createAccessList',
  besu: { kinds: ['call', 'block', 'call'], order: [1, 0, 2] },
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
