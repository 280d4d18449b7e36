/** Transaction: a mined transaction (with its block, position and receipt) or a pending one. */
import type { Block } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import type { TypedTransaction } from '@ethereumjs/tx'
import { computeContractAddress } from '../../chain/addresses.ts'
import type { Receipt } from '../../chain/receipts.ts'
import { hexToBytes } from '../../primitives/hex.ts'
import { effectivePrice } from '../../rpc/format.ts'
import { effectiveTip, fees } from '../../txpool/txPool.ts'
import type { GraphqlContext } from '../context.ts'
import { type AccountAdapter, accountAtArg } from './accountAdapter.ts'
import { BlockAdapter } from './blockAdapter.ts'
import { blockLogs, LogAdapter } from './logAdapter.ts'

const BLOB_GAS_PER_BLOB = 131072n

interface Mined {
  block: Block
  index: number
}

type TxFields = TypedTransaction & {
  accessList?: [Uint8Array, Uint8Array[]][]
  maxFeePerBlobGas?: bigint
  blobVersionedHashes?: (string | Uint8Array)[]
}

export class TransactionAdapter {
  private readonly t: TxFields

  private readonly sender: Uint8Array
  private readonly at?: Mined

  constructor(tx: TypedTransaction, sender: Uint8Array, at?: Mined) {
    this.sender = sender
    this.at = at
    this.t = tx as TxFields
  }

  /** The transaction at `index` of a stored block. */
  static inBlock(ctx: GraphqlContext, block: Block, index: number): TransactionAdapter {
    return new TransactionAdapter(block.transactions[index], ctx.chain.getSenders(block)[index], { block, index })
  }

  private receipt(ctx: GraphqlContext): { receipt: Receipt; gasUsed: bigint } | undefined {
    if (!this.at) return undefined
    const receipts = ctx.chain.getReceipts(this.at.block)
    const receipt = receipts[this.at.index]
    if (!receipt) return undefined
    const previous = this.at.index === 0 ? 0n : receipts[this.at.index - 1].cumulativeGasUsed
    return { receipt, gasUsed: receipt.cumulativeGasUsed - previous }
  }

  /** The account state read when no `block` argument is given: the transaction's block, else the head. */
  private stateBlock(ctx: GraphqlContext): Block {
    return this.at?.block ?? ctx.chain.head
  }

  hash(): Uint8Array {
    return this.t.hash()
  }

  nonce(): bigint {
    return this.t.nonce
  }

  index(): number | undefined {
    return this.at?.index
  }

  from(args: { block?: bigint | null }, ctx: GraphqlContext): Promise<AccountAdapter> {
    return accountAtArg(ctx, args.block, this.stateBlock(ctx), this.sender)
  }

  to(args: { block?: bigint | null }, ctx: GraphqlContext): Promise<AccountAdapter> | null {
    return this.t.to ? accountAtArg(ctx, args.block, this.stateBlock(ctx), this.t.to.bytes) : null
  }

  value(): bigint {
    return this.t.value
  }

  /** As eth_getTransactionByHash: the price paid once mined, the fee cap while pending. */
  gasPrice(): bigint {
    const { maxFee, priorityFee } = fees(this.t)
    const baseFee = this.at?.block.header.baseFeePerGas
    return this.t.type >= 2 && baseFee !== undefined ? effectivePrice(maxFee, priorityFee, baseFee) : maxFee
  }

  maxFeePerGas(): bigint | undefined {
    return this.t.type >= 2 ? fees(this.t).maxFee : undefined
  }

  maxPriorityFeePerGas(): bigint | undefined {
    return this.t.type >= 2 ? fees(this.t).priorityFee : undefined
  }

  maxFeePerBlobGas(): bigint | undefined {
    return this.t.maxFeePerBlobGas
  }

  effectiveTip(): bigint | undefined {
    return this.at ? effectiveTip(this.t, this.at.block.header.baseFeePerGas ?? 0n) : undefined
  }

  gas(): bigint {
    return this.t.gasLimit
  }

  inputData(): Uint8Array {
    return this.t.data
  }

  block(): BlockAdapter | undefined {
    return this.at ? new BlockAdapter(this.at.block) : undefined
  }

  status(_args: unknown, ctx: GraphqlContext): number | undefined {
    const status = this.receipt(ctx)?.receipt.status
    return status === undefined ? undefined : status
  }

  gasUsed(_args: unknown, ctx: GraphqlContext): bigint | undefined {
    return this.receipt(ctx)?.gasUsed
  }

  cumulativeGasUsed(_args: unknown, ctx: GraphqlContext): bigint | undefined {
    return this.receipt(ctx)?.receipt.cumulativeGasUsed
  }

  effectiveGasPrice(): bigint | undefined {
    if (!this.at) return undefined
    const { maxFee, priorityFee } = fees(this.t)
    const baseFee = this.at.block.header.baseFeePerGas
    return baseFee === undefined ? maxFee : effectivePrice(maxFee, priorityFee, baseFee)
  }

  blobGasUsed(): bigint | undefined {
    const hashes = this.t.blobVersionedHashes
    return this.at && hashes ? BigInt(hashes.length) * BLOB_GAS_PER_BLOB : undefined
  }

  blobGasPrice(): bigint | undefined {
    const header = this.at?.block.header
    return header && this.t.blobVersionedHashes && header.excessBlobGas !== undefined
      ? header.getBlobGasPrice()
      : undefined
  }

  async createdContract(args: { block?: bigint | null }, ctx: GraphqlContext): Promise<AccountAdapter | undefined> {
    if (this.t.to || (!this.at && (args.block === undefined || args.block === null))) return undefined
    return accountAtArg(ctx, args.block, this.stateBlock(ctx), computeContractAddress(this.sender, this.t.nonce))
  }

  logs(_args: unknown, ctx: GraphqlContext): LogAdapter[] | undefined {
    if (!this.at) return undefined
    const index = this.at.index
    return blockLogs(ctx, this.at.block)
      .filter((l) => l.txIndex === index)
      .map((l) => new LogAdapter(l))
  }

  r(): bigint {
    return this.t.r ?? 0n
  }

  s(): bigint {
    return this.t.s ?? 0n
  }

  /** Besu leaves `v` out of blob (and later) transactions, whose signature carries only the parity. */
  v(): bigint | undefined {
    return this.t.type >= 3 ? undefined : (this.t.v ?? 0n)
  }

  /** The signature's parity of a typed transaction; Besu gives none for a legacy one (its `v` says it). */
  yParity(): bigint | undefined {
    return this.t.type === 0 ? undefined : this.t.v
  }

  type(): number {
    return this.t.type
  }

  accessList(): { address: Uint8Array; storageKeys: Uint8Array[] }[] {
    return (this.t.accessList ?? []).map(([address, storageKeys]) => ({ address, storageKeys }))
  }

  raw(): Uint8Array {
    return this.t.serialize()
  }

  /** The receipt's consensus encoding, as stored (type byte and payload for typed transactions). */
  rawReceipt(_args: unknown, ctx: GraphqlContext): Uint8Array | undefined {
    if (!this.at) return undefined
    const rlp = ctx.chain.store.readReceiptsRlp(this.at.block.hash())
    return rlp ? (RLP.decode(rlp) as Uint8Array[])[this.at.index] : undefined
  }

  /**
   * An empty list for transactions without blobs, as Besu answers. The library holds blob hashes as
   * hex strings; the Bytes32 scalar wants bytes.
   */
  blobVersionedHashes(): Uint8Array[] {
    return (this.t.blobVersionedHashes ?? []).map((h) => (typeof h === 'string' ? hexToBytes(h) : h))
  }

  /** What the transaction's top-level REVERT returned, when the node recorded it (`--revert-reason-enabled`). */
  revertReason(_args: unknown, ctx: GraphqlContext): Uint8Array | undefined {
    return this.receipt(ctx)?.receipt.revertReason
  }
}
