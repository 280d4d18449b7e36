/** Block: a stored block, or an ommer (a header without a body of its own). */
import type { Block, BlockHeader } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import type { GraphqlContext } from '../context.ts'
import { type AccountAdapter, accountAtArg, accountIn } from './accountAdapter.ts'
import { type CallData, type CallResult, callAt, estimateGasAt } from './callResolvers.ts'
import { blockLogs, LogAdapter, type LogFilter, matchesFilter } from './logAdapter.ts'
import { TransactionAdapter } from './transactionAdapter.ts'

export class BlockAdapter {
  private readonly h: BlockHeader

  private readonly block: Block | undefined

  /** `block` is the stored block; an ommer passes its header and no block. */
  constructor(block: Block | undefined, header?: BlockHeader) {
    this.block = block
    this.h = header ?? block!.header
  }

  /** The block whose state `account`, `call` and `estimateGas` read (an ommer's own header). */
  private stateBlock(): Block {
    return this.block ?? ({ header: this.h } as Block)
  }

  number(): bigint {
    return this.h.number
  }

  hash(): Uint8Array {
    return this.h.hash()
  }

  async parent(_args: unknown, ctx: GraphqlContext): Promise<BlockAdapter | undefined> {
    if (this.h.number === 0n) return undefined
    const parent = await ctx.chain.getBlockByHash(this.h.parentHash)
    return parent ? new BlockAdapter(parent) : undefined
  }

  nonce(): Uint8Array {
    return this.h.nonce
  }

  transactionsRoot(): Uint8Array {
    return this.h.transactionsTrie
  }

  transactionCount(): number | undefined {
    return this.block?.transactions.length
  }

  stateRoot(): Uint8Array {
    return this.h.stateRoot
  }

  receiptsRoot(): Uint8Array {
    return this.h.receiptTrie
  }

  miner(args: { block?: bigint | null }, ctx: GraphqlContext): Promise<AccountAdapter> {
    return accountAtArg(ctx, args.block, this.stateBlock(), this.h.coinbase.bytes)
  }

  extraData(): Uint8Array {
    return this.h.extraData
  }

  gasLimit(): bigint {
    return this.h.gasLimit
  }

  gasUsed(): bigint {
    return this.h.gasUsed
  }

  baseFeePerGas(): bigint | undefined {
    return this.h.baseFeePerGas
  }

  nextBaseFeePerGas(_args: unknown, ctx: GraphqlContext): bigint | undefined {
    return this.h.baseFeePerGas === undefined ? undefined : ctx.chain.nextBaseFee(this.h)
  }

  timestamp(): bigint {
    return this.h.timestamp
  }

  logsBloom(): Uint8Array {
    return this.h.logsBloom
  }

  mixHash(): Uint8Array {
    return this.h.mixHash
  }

  difficulty(): bigint {
    return this.h.difficulty
  }

  totalDifficulty(_args: unknown, ctx: GraphqlContext): bigint {
    return ctx.chain.getTotalDifficulty(this.h.hash()) ?? this.h.difficulty
  }

  ommerCount(): number | undefined {
    return this.block?.uncleHeaders.length
  }

  ommers(): BlockAdapter[] | undefined {
    return this.block?.uncleHeaders.map((u) => new BlockAdapter(undefined, u))
  }

  ommerAt({ index }: { index: bigint }): BlockAdapter | undefined {
    const uncle = this.block?.uncleHeaders[Number(index)]
    return uncle ? new BlockAdapter(undefined, uncle) : undefined
  }

  ommerHash(): Uint8Array {
    return this.h.uncleHash
  }

  transactions(_args: unknown, ctx: GraphqlContext): TransactionAdapter[] | undefined {
    const block = this.block
    return block?.transactions.map((_, i) => TransactionAdapter.inBlock(ctx, block, i))
  }

  transactionAt({ index }: { index: bigint }, ctx: GraphqlContext): TransactionAdapter | undefined {
    if (!this.block || index >= BigInt(this.block.transactions.length)) return undefined
    return TransactionAdapter.inBlock(ctx, this.block, Number(index))
  }

  logs({ filter }: { filter: LogFilter }, ctx: GraphqlContext): LogAdapter[] {
    if (!this.block) return []
    return blockLogs(ctx, this.block)
      .filter((l) => matchesFilter(l, filter))
      .map((l) => new LogAdapter(l))
  }

  account({ address }: { address: Uint8Array }, ctx: GraphqlContext): AccountAdapter {
    return accountIn(ctx, this.stateBlock(), address)
  }

  call({ data }: { data: CallData }, ctx: GraphqlContext): Promise<CallResult> {
    return callAt(ctx, this.stateBlock(), data)
  }

  estimateGas({ data }: { data: CallData }, ctx: GraphqlContext): Promise<bigint> {
    return estimateGasAt(ctx, this.stateBlock(), data)
  }

  rawHeader(): Uint8Array {
    return this.h.serialize()
  }

  /** An ommer encodes as a block with empty bodies. */
  raw(): Uint8Array {
    return this.block ? this.block.serialize() : RLP.encode([this.h.raw(), [], []])
  }

  withdrawalsRoot(): Uint8Array | undefined {
    return this.h.withdrawalsRoot
  }

  withdrawals() {
    return this.block?.withdrawals?.map((w) => ({
      index: w.index,
      validator: w.validatorIndex,
      address: w.address.bytes,
      amount: w.amount,
    }))
  }

  blobGasUsed(): bigint | undefined {
    return this.h.blobGasUsed
  }

  excessBlobGas(): bigint | undefined {
    return this.h.excessBlobGas
  }
}
