/**
 * One class per JSON-RPC error code, with Besu's codes and messages. Domain layers throw their own
 * errors; `toRpcError` (in rpc/) maps them here, once.
 */
export class RpcError extends Error {
  readonly code: number
  readonly data?: unknown

  constructor(code: number, message: string, data?: unknown) {
    super(message)
    this.code = code
    this.data = data
    this.name = 'RpcError'
  }
}

export class ParseError extends RpcError {
  static readonly code = -32700
  constructor(message = 'Parse error') {
    super(ParseError.code, message)
  }
}

export class InvalidRequestError extends RpcError {
  static readonly code = -32600
  constructor(message = 'Invalid Request') {
    super(InvalidRequestError.code, message)
  }
}

export class MethodNotFoundError extends RpcError {
  static readonly code = -32601
  constructor(message = 'Method not found') {
    super(MethodNotFoundError.code, message)
  }
}

export class InvalidParamsError extends RpcError {
  static readonly code = -32602
  constructor(message = 'Invalid params') {
    super(InvalidParamsError.code, message)
  }
}

/**
 * Besu's texts for a parameter it could not read (`RpcErrorType`, all -32602), keyed by the kind of
 * parameter. Each method names the kind of each of its parameters (`defineMethod`'s `besu`); Besu
 * answers the text alone, without `data`, whatever was wrong with the value.
 */
export const BESU_PARAM_ERRORS = {
  params: 'Invalid params',
  paramCount: 'Invalid number of params',
  account: 'Invalid account params',
  address: 'Invalid address params',
  addressHash: 'Invalid address hash params',
  block: 'Invalid block, unable to parse RLP',
  blockCount: 'Invalid block count params',
  blockHash: 'Invalid block hash params',
  blockIndex: 'Invalid block index params',
  blockNumber: 'Invalid block number params',
  call: 'Invalid call params',
  data: 'Invalid data params',
  dataHash: 'Invalid data hash params',
  enode: 'Invalid enode params',
  extraData: 'Invalid extra data params',
  filter: 'Invalid filter params',
  logFilter: 'Invalid log filter params',
  logLevel: 'Invalid log level params (missing or incorrect)',
  maxResults: 'Invalid max results params',
  minGasPrice: 'Invalid min gas price params',
  minPriorityFee: 'Invalid min priority fee params',
  nonce: 'Invalid nonce params',
  pendingTransactions: 'Invalid pending transactions params',
  // Besu's spelling.
  pluginName: 'Invalid plug in name params',
  position: 'Invalid position params',
  proposal: 'Invalid proposal params',
  returnCompleteTransaction: 'Invalid return complete transaction params',
  rewardPercentiles: 'Invalid reward percentiles params',
  storageKeys: 'Invalid storage keys params',
  subscription: 'Invalid subscription params',
  targetGasLimit: 'Invalid target gas limit params',
  traceCallMany: 'Invalid trace call many params',
  traceNumbers: 'Invalid trace numbers params',
  traceType: 'Invalid trace type params',
  transaction: 'Invalid transaction params (missing or incorrect)',
  transactionHash: 'Invalid transaction hash params',
  transactionIndex: 'Invalid transaction index params',
  transactionLimit: 'Invalid transaction limit params',
  transactionTrace: 'Invalid transaction trace params',
} as const satisfies Record<string, string>

export type BesuParamKind = keyof typeof BESU_PARAM_ERRORS

export class InternalError extends RpcError {
  static readonly code = -32603
  constructor(message = 'Internal error') {
    super(InternalError.code, message)
  }
}

export class MethodNotEnabledError extends RpcError {
  static readonly code = -32604
  constructor(message = 'Method not enabled') {
    super(MethodNotEnabledError.code, message)
  }
}

/** Code 3: the call reverted; `data` holds the revert bytes, the message the decoded reason. */
export class ExecutionRevertedError extends RpcError {
  static readonly code = 3
  constructor(message: string, data: string) {
    super(ExecutionRevertedError.code, message, data)
  }
}

/** Besu's -32000…-32011 family: transaction validation, filters, limits, missing resources. */
export const BESU_ERRORS = {
  nonceTooLow: [-32001, 'Nonce too low'],
  invalidSignature: [-32002, 'Invalid signature'],
  intrinsicGasExceedsLimit: [-32003, 'Intrinsic gas exceeds gas limit'],
  upfrontCostExceedsBalance: [-32004, 'Upfront cost exceeds account balance'],
  exceedsBlockGasLimit: [-32005, 'Transaction gas limit exceeds block gas limit'],
  exceedsTransactionGasLimit: [-32005, 'Transaction gas limit cap exceeded'],
  exceedsMaxBatchSize: [-32005, 'Number of requests exceeds max batch size'],
  exceedsMaxActiveFilters: [-32005, 'Maximum number of active filters exceeded'],
  // Besu sets no bound on subscriptions; ours follows the filters' wording.
  exceedsMaxSubscriptions: [-32005, 'Maximum number of active subscriptions exceeded'],
  exceedsMaxBlockRange: [-32005, 'Requested range exceeds maximum RPC range limit'],
  exceedsMaxLogResults: [-32005, 'query returned more than 10000 results'],
  nonceTooHigh: [-32006, 'Nonce too high'],
  gasPriceTooLow: [-32009, 'Gas price below configured minimum gas price'],
  gasPriceBelowBaseFee: [-32009, 'Gas price below current base fee'],
  blobGasPriceBelowBlobBaseFee: [-32009, 'blob gas price below current blob base fee'],
  wrongChainId: [-32000, 'Wrong chainId'],
  replayProtectionRequired: [-32000, 'ChainId is required'],
  // A chain whose genesis has no chain id (Besu's REPLAY_PROTECTED_SIGNATURES_NOT_SUPPORTED).
  replayProtectionNotSupported: [-32000, 'ChainId not supported'],
  knownTransaction: [-32000, 'Known transaction'],
  replacementUnderpriced: [-32000, 'Replacement transaction underpriced'],
  txFeeCapExceeded: [-32000, 'Transaction fee cap exceeded'],
  priorityFeeExceedsMaxFee: [-32000, 'Max priority fee per gas exceeds max fee per gas'],
  nonceTooFarInFuture: [-32000, 'Transaction nonce is too distant from current sender nonce'],
  txPoolFull: [-32000, 'Transaction pool is full'],
  p2pDisabled: [-32000, 'P2P has been disabled. This functionality is not available'],
  enodeIdInvalid: [
    -32000,
    "Invalid node ID: node ID must have exactly 128 hexadecimal characters and should not include any '0x' hex prefix.",
  ],
  cantConnectToLocalPeer: [-32100, 'Cannot add local node as peer.'],
  filterNotFound: [-32000, 'Filter not found'],
  subscriptionNotFound: [-32000, 'Subscription not found'],
  transactionNotFound: [-32000, 'Transaction not found'],
  blockNotFound: [-32000, 'Block not found'],
  // A `{blockHash, requireCanonical: true}` naming a block off the canonical chain (Besu's JSON_RPC_NOT_CANONICAL_ERROR).
  notCanonical: [-32000, 'Invalid input'],
  executionHalted: [-32000, 'Transaction processing could not be completed due to an exception'],
  sendTxNotAvailable: [
    -32604,
    'The method eth_sendTransaction is not supported. Use eth_sendRawTransaction to send a signed transaction to Basalt.',
  ],
  unknownBlock: [-39001, 'Unknown block'],
  prunedHistoryUnavailable: [4444, 'Pruned history unavailable'],
  blockAccessListBeforeAmsterdam: [4445, 'Block access list not available for pre-Amsterdam blocks'],
  // What debug_getRawBlockAccessList answers for an unknown block or one before Amsterdam (execution-apis, Besu).
  resourceNotFound: [-32001, 'Resource not found'],
  invalidBlobs: [-32603, 'blobs failed kzg validation'],
  // A transaction type the fork does not accept (Besu's INVALID_TRANSACTION_FORMAT).
  invalidTransactionType: [-32602, 'Invalid transaction type'],
  totalBlobGasTooHigh: [-32000, 'Total blob gas too high'],
  logBloomCacheDisabled: [-32000, 'The log bloom cache is not enabled'],
  worldStateUnavailable: [-32000, 'World state unavailable'],
  // Local permissioning (Besu's allowlist errors).
  txSenderNotAuthorized: [-32007, 'Sender account not authorized to send transactions'],
  accountAllowlistNotEnabled: [-32000, 'Account allowlist has not been enabled'],
  accountAllowlistEmptyEntry: [-32000, 'Request contains an empty list of accounts'],
  accountAllowlistInvalidEntry: [-32000, 'Request contains an invalid account'],
  accountAllowlistDuplicatedEntry: [-32000, 'Request contains duplicate accounts'],
  accountAllowlistExistingEntry: [-32000, 'Cannot add an existing account to allowlist'],
  accountAllowlistAbsentEntry: [-32000, 'Cannot remove an absent account from allowlist'],
  nodeAllowlistNotEnabled: [-32000, 'Node allowlist has not been enabled'],
  nodeAllowlistEmptyEntry: [-32000, 'Request contains an empty list of nodes'],
  nodeAllowlistInvalidEntry: [-32000, 'Request contains an invalid node'],
  nodeAllowlistDuplicatedEntry: [-32000, 'Request contains duplicate nodes'],
  nodeAllowlistExistingEntry: [-32000, 'Cannot add an existing node to allowlist'],
  nodeAllowlistMissingEntry: [-32000, 'Cannot remove an absent node from allowlist'],
  nodeAllowlistFixedNode: [-32000, 'Cannot remove a fixed node (bootnode or static node) from allowlist'],
  allowlistPersistFailure: [-32000, 'Unable to persist changes to allowlist configuration file. Changes reverted'],
  allowlistFileSync: [
    -32000,
    'The permissioning allowlist configuration file is out of sync.  The changes have been applied, but not persisted to disk',
  ],
  allowlistReloadError: [
    -32000,
    'Error reloading permissions file. Please use perm_getAccountsAllowlist and perm_getNodesAllowlist to review the current state of the allowlists',
  ],
  permissioningNotEnabled: [-32000, 'Node/Account allowlist has not been enabled'],
  nonPermittedNode: [-32000, 'Cannot add a non-permitted node as a peer'],
  // The MINER group (Besu's miner failures).
  targetGasLimitUnsupported: [
    -32011,
    "The node is not attempting to target a gas limit so the target can't be changed",
  ],
} as const satisfies Record<string, readonly [number, string]>

export type BesuErrorKind = keyof typeof BESU_ERRORS

/** A Besu-family error, optionally with a more precise message than the table's. */
export function besuError(kind: BesuErrorKind, message?: string, data?: unknown): RpcError {
  const [code, text] = BESU_ERRORS[kind]
  return new RpcError(code, message ?? text, data)
}
