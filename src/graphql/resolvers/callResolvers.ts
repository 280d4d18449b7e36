/** CallResult: `call` and `estimateGas` on a block's state (Block, and Pending at the head). */
import type { Block } from '@ethereumjs/block'
import type { GraphqlContext } from '../context.ts'
import { GraphqlFetchError } from '../context.ts'

/** The CallData input, decoded by the scalars. */
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

export async function callAt(_ctx: GraphqlContext, _block: Block, _data: CallData): Promise<CallResult> {
  throw new GraphqlFetchError('call is not available yet')
}

export async function estimateGasAt(_ctx: GraphqlContext, _block: Block, _data: CallData): Promise<bigint> {
  throw new GraphqlFetchError('estimateGas is not available yet')
}
