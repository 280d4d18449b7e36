/** What every resolver is given: the node's services, read through their narrow surfaces. */
import type { Chain } from '../chain/chain.ts'
import type { RpcContext, RpcSettings } from '../rpc/context.ts'
import type { TxPool } from '../txpool/txPool.ts'

export interface GraphqlContext {
  chain: Chain
  pool: TxPool
  settings: RpcSettings
  /** The JSON-RPC view of the same services, for the paths both surfaces share (sending, gas price). */
  rpc: RpcContext
}

/** A resolver failure shown to the client as a GraphQL error on its field (Besu's wording). */
export class GraphqlFetchError extends Error {
  override readonly name = 'GraphqlFetchError'
}

/** Besu's answer to arguments that make no sense together (a range backwards, number and hash). */
export const invalidParams = () => new GraphqlFetchError('Invalid params')
