/** Why the pool refused a transaction; rpc/ maps each kind to Besu's code and message. */
export type TxPoolErrorKind =
  | 'nonceTooLow'
  | 'invalidSignature'
  | 'intrinsicGasExceedsLimit'
  | 'upfrontCostExceedsBalance'
  | 'exceedsBlockGasLimit'
  | 'gasPriceTooLow'
  | 'gasPriceBelowBaseFee'
  | 'wrongChainId'
  | 'replayProtectionNotSupported'
  | 'knownTransaction'
  | 'replacementUnderpriced'
  | 'priorityFeeExceedsMaxFee'
  | 'nonceTooFarInFuture'
  | 'txPoolFull'
  | 'txFeeCapExceeded'
  | 'txSenderNotAuthorized'
  | 'replayProtectionRequired'

export class TxPoolError extends Error {
  readonly kind: TxPoolErrorKind

  constructor(kind: TxPoolErrorKind, message: string) {
    super(message)
    this.kind = kind
    this.name = 'TxPoolError'
  }
}
