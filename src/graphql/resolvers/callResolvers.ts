/**
 * CallResult: `call` and `estimateGas` on a block's state (Block, and Pending at the head), through
 * the call service, with eth_call's and eth_estimateGas's rules and Besu's error messages.
 */
import type { Block } from '@ethereumjs/block'
import { Address } from '@ethereumjs/util'
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

/** The call request of `d`, its fees zero (see FEE_FREE below). */
function toRequest(d: CallData): CallRequest {
  const req: CallRequest = {}
  for (const [k, v] of Object.entries(d)) if (v !== null && v !== undefined) (req as Record<string, unknown>)[k] = v
  for (const fee of ['gasPrice', 'maxFeePerGas', 'maxPriorityFeePerGas'] as const)
    if (req[fee] !== undefined) req[fee] = 0n
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

/**
 * Besu's GraphQL runs `call` and `estimateGas` allowing the sender's balance to be exceeded
 * (`isAllowExceedingBalance`): every fee is zero (gas price, fee caps, the block's base fee and blob
 * base fee) and the balance is not checked, so a sender that cannot pay for gas gets the answer a
 * funded one gets. A value above the sender's balance fails inside Besu's transaction processor (the
 * transfer cannot debit it): an invalid result, status 0 and a gas estimate of -1, which its Long
 * scalar writes as 0xffffffffffffffff.
 */
const FEE_FREE = { isBalanceChecked: false }
/** Besu's gas estimate of an invalid simulation (-1) as its Long scalar gives it. */
const INVALID_GAS_ESTIMATE = (1n << 64n) - 1n
const ZERO_ADDRESS = new Uint8Array(20)

/** True when the value sent exceeds the sender's balance in `block`'s state (Besu: an invalid run). */
async function isValueUnpayable(ctx: GraphqlContext, block: Block, d: CallData): Promise<boolean> {
  if (!d.value) return false
  const account = await ctx.chain.stateAt(block).getAccount(new Address(d.from ?? ZERO_ADDRESS))
  return d.value > (account?.balance ?? 0n)
}

/** A reverted or halted call is a result with status 0, not an error (EIP-1767). */
export async function callAt(ctx: GraphqlContext, block: Block, data: CallData): Promise<CallResult> {
  if (await isValueUnpayable(ctx, block, data))
    return { data: new Uint8Array(0), gasUsed: INVALID_GAS_ESTIMATE, status: 0 }
  const opts = { gasCap: ctx.settings.rpcGasCap, ...FEE_FREE }
  const r = await asFetchError(ctx, () => call(ctx.chain, block, toRequest(data), opts))
  return { data: r.returnData, gasUsed: r.gasUsed, status: r.exceptionError === undefined ? 1 : 0 }
}

/** As eth_estimateGas, without fees (above); a message that fails even with all the gas is an error. */
export async function estimateGasAt(ctx: GraphqlContext, block: Block, data: CallData): Promise<bigint> {
  if (await isValueUnpayable(ctx, block, data)) return INVALID_GAS_ESTIMATE
  const opts = { gasCap: ctx.settings.rpcGasCap, ...FEE_FREE }
  const r = await asFetchError(ctx, () => estimateGas(ctx.chain, block, toRequest(data), opts))
  if (r.failure) throw new GraphqlFetchError(failedCallError(r.failure).message)
  return r.gas
}
