/**
 * Consensus receipts (EIP-2718 typed encoding) to bytes and back. What RPC shows beyond these
 * fields (gas used, effective gas price, contract address, sender) is derived from the block.
 */
import { RLP } from '@ethereumjs/rlp'
import { encodeReceipt, type TxReceipt } from '@ethereumjs/vm'
import { bytesToBigint } from '../primitives/hex.ts'

export type LogTuple = [address: Uint8Array, topics: Uint8Array[], data: Uint8Array]

export interface Receipt {
  txType: number
  /** 1 success, 0 failure; undefined before Byzantium, where `stateRoot` is set instead. */
  status?: number
  stateRoot?: Uint8Array
  cumulativeGasUsed: bigint
  bloom: Uint8Array
  logs: LogTuple[]
  /**
   * The bytes the transaction's top-level REVERT returned, when the node recorded them (Besu's
   * `--revert-reason-enabled`); not part of the consensus receipt.
   */
  revertReason?: Uint8Array
}

/** The block's receipts as one RLP list of their consensus encodings. */
export function encodeReceipts(receipts: TxReceipt[], txTypes: number[]): Uint8Array {
  return RLP.encode(receipts.map((r, i) => encodeReceipt(r, txTypes[i] as never)))
}

export function decodeReceipts(bytes: Uint8Array): Receipt[] {
  const items = RLP.decode(bytes) as Uint8Array[]
  return items.map(decodeReceipt)
}

function decodeReceipt(enc: Uint8Array): Receipt {
  const isTyped = enc[0] < 0x80
  const fields = RLP.decode(isTyped ? enc.subarray(1) : enc) as unknown as [
    Uint8Array,
    Uint8Array,
    Uint8Array,
    LogTuple[],
  ]
  const [statusOrRoot, cumulative, bloom, logs] = fields
  const r: Receipt = { txType: isTyped ? enc[0] : 0, cumulativeGasUsed: bytesToBigint(cumulative), bloom, logs }
  if (statusOrRoot.length === 32) r.stateRoot = statusOrRoot
  else r.status = statusOrRoot.length === 0 ? 0 : statusOrRoot[0]
  return r
}

/**
 * A block's revert reasons as stored beside its receipts: per transaction `[]` or `[reason]` (so an
 * empty reason differs from none); undefined when no transaction of the block reverted.
 */
export function encodeRevertReasons(reasons: (Uint8Array | undefined)[]): Uint8Array | undefined {
  if (reasons.every((r) => r === undefined)) return undefined
  return RLP.encode(reasons.map((r) => (r === undefined ? [] : [r])))
}

/** Sets each receipt's `revertReason` from the stored form `encodeRevertReasons` wrote. */
export function attachRevertReasons(receipts: Receipt[], rlp: Uint8Array): void {
  const items = RLP.decode(rlp) as unknown as Uint8Array[][]
  for (let i = 0; i < receipts.length && i < items.length; i++) {
    const reason = items[i][0]
    if (reason !== undefined) receipts[i].revertReason = reason
  }
}
