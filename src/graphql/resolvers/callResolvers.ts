/**
 * CallResult: `call` and `estimateGas` on a block's state (Block, and Pending at the head), through
 * the call service, with eth_call's and eth_estimateGas's rules and Besu's error messages.
 */
import type { Block } from '@ethereumjs/block'
import { type CallRequest, call } from '../../evm/callService.ts'
import { estimateGas } from '../../evm/gasEstimator.ts'
import { failedCallError, mapCallErrors } from '../../rpc/eth/callErrors.ts'
import { type GraphqlContext, GraphqlFetchError } from '../context.ts'

/** The CallData input, decoded by the scalars (absent fields may come as null). */
export interface CallData {
  from?: Uint8Array | null
  to?: Uint8Array | null
  gas?: bigint | null
  gasPrice?: bigint | null
  maxFeePerGas?: bigint | null
  maxPriorityFeePerGas?: bigint | null
  value?: bigint | null
  data?: Uint8Array | null
}

export interface CallResult {
  data: Uint8Array
  gasUsed: bigint
  status: number
}

function toRequest(d: CallData): CallRequest {
  const req: CallRequest = {}
  for (const [k, v] of Object.entries(d)) if (v !== null && v !== undefined) (req as Record<string, unknown>)[k] = v
  return req
}

/** Runs `fn`, turning the call service's refusals into field errors with Besu's messages. */
async function asFetchError<T>(ctx: GraphqlContext, fn: () => Promise<T>): Promise<T> {
  try {
    return await mapCallErrors(ctx.chain.common, fn)
  } catch (e) {
    throw new GraphqlFetchError((e as Error).message)
  }
}

/** A reverted or halted call is a result with status 0, not an error (EIP-1767). */
export async function callAt(ctx: GraphqlContext, block: Block, data: CallData): Promise<CallResult> {
  const r = await asFetchError(ctx, () => call(ctx.chain, block, toRequest(data), { gasCap: ctx.settings.rpcGasCap }))
  return { data: r.returnData, gasUsed: r.gasUsed, status: r.exceptionError === undefined ? 1 : 0 }
}

/** As eth_estimateGas; a message that fails even with all the gas is an error. */
export async function estimateGasAt(ctx: GraphqlContext, block: Block, data: CallData): Promise<bigint> {
  const r = await asFetchError(ctx, () =>
    estimateGas(ctx.chain, block, toRequest(data), { gasCap: ctx.settings.rpcGasCap }),
  )
  if (r.failure) throw new GraphqlFetchError(failedCallError(r.failure).message)
  return r.gas
}
