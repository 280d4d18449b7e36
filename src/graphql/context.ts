/** What every resolver is given: the node's services, read through their narrow surfaces. */
import type { Chain } from '../chain/chain.ts'
import { CodecError } from '../jsonrpc/codecs.ts'
import { BESU_ERRORS, type BesuErrorKind, RpcError } from '../jsonrpc/errors.ts'
import type { RpcContext, RpcSettings } from '../rpc/context.ts'
import type { TxPool } from '../txpool/txPool.ts'

export interface GraphqlContext {
  chain: Chain
  pool: TxPool
  settings: RpcSettings
  /** The JSON-RPC view of the same services, for the paths both surfaces share (sending, gas price). */
  rpc: RpcContext
}

/**
 * A resolver failure shown to the client as a GraphQL error on its field (Besu's wording); with a
 * `code`, one of Besu's GraphQLError kinds, which the answer carries as `errorCode`.
 */
export class GraphqlFetchError extends Error {
  override readonly name = 'GraphqlFetchError'
  readonly code?: number
  constructor(message: string, code?: number) {
    super(message)
    this.code = code
  }
}

/** Besu's answer to arguments that make no sense together (a range backwards, number and hash). */
export const invalidParams = () => new GraphqlFetchError('Invalid params', -32602)

/**
 * Besu's GraphQLError for each pool refusal it names (GraphQLError.of); every other refusal is its
 * INTERNAL_ERROR. The texts are GraphQL's own where they differ from JSON-RPC's ("Wrong chainId").
 */
const TRANSACTION_ERRORS: [BesuErrorKind, number, string][] = [
  ['nonceTooLow', -32001, 'Nonce too low'],
  ['invalidSignature', -32002, 'Invalid signature'],
  ['intrinsicGasExceedsLimit', -32003, 'Intrinsic gas exceeds gas limit'],
  ['upfrontCostExceedsBalance', -32004, 'Upfront cost exceeds account balance'],
  ['exceedsBlockGasLimit', -32005, 'Transaction gas limit exceeds block gas limit'],
  ['gasPriceTooLow', -32009, 'Gas price below configured minimum gas price'],
  ['wrongChainId', -32000, 'Wrong Chain ID in transaction signature'],
  ['replayProtectionNotSupported', -32000, 'Signatures with replay protection are not supported'],
  ['txFeeCapExceeded', -32000, 'Transaction fee cap exceeded'],
]

/**
 * A refused `sendRawTransaction` as Besu's GraphQL answers it: bytes that do not decode are Invalid
 * params, a pool refusal its GraphQLError kind.
 */
export function transactionError(e: unknown): GraphqlFetchError {
  // Bytes the decoder refuses (the JSON-RPC path answers them with the parameter's Besu text).
  if (e instanceof CodecError) return invalidParams()
  if (!(e instanceof RpcError)) return new GraphqlFetchError((e as Error).message)
  if (e.code === -32602) return invalidParams()
  const known = TRANSACTION_ERRORS.find(([kind]) => {
    const [code, text] = BESU_ERRORS[kind]
    return code === e.code && e.message === text
  })
  return known ? new GraphqlFetchError(known[2], known[1]) : new GraphqlFetchError('Internal error', -32603)
}
