/** Blocks, their transaction counts, uncles and receipts. Spec: execution-apis src/eth/block.yaml */
import type { Block } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { toQuantity } from '../../primitives/hex.ts'
import type { RpcContext } from '../context.ts'
import { remoteBlockReceipts } from '../forkHistory.ts'
import { formatBlock, formatHeader, formatReceipt } from '../format.ts'
import { findBlock } from './resolveBlock.ts'

function blockJson(ctx: RpcContext, block: Block | undefined, isFull: boolean) {
  if (!block) return null
  return formatBlock(block, isFull, isFull ? ctx.chain.getSenders(block) : [])
}

// On a forked chain, the blocks up to the fork block are the remote's, as the remote answers them.
export const getBlockByHash = defineMethod({
  name: 'eth_getBlockByHash',
  besu: { kinds: ['blockHash', 'returnCompleteTransaction'] },
  params: [p.hash, p.bool.optional(false)],
  handler: async (ctx: RpcContext, [hash, isFull]) => {
    const block = await ctx.chain.getBlockByHash(hash)
    if (ctx.forkHistory && (!block || block.header.number <= ctx.forkHistory.number))
      return ctx.forkHistory.block(hash, isFull)
    return blockJson(ctx, block, isFull)
  },
})

export const getBlockByNumber = defineMethod({
  name: 'eth_getBlockByNumber',
  besu: { kinds: ['block', 'returnCompleteTransaction'] },
  params: [p.blockNumberOrTag, p.bool.optional(false)],
  handler: async (ctx: RpcContext, [ref, isFull]) => {
    if (ctx.forkHistory && typeof ref === 'bigint' && ref <= ctx.forkHistory.number)
      return ctx.forkHistory.block(ref, isFull)
    return blockJson(ctx, await ctx.chain.resolve(ref), isFull)
  },
})

export const getBlockTransactionCountByHash = defineMethod({
  name: 'eth_getBlockTransactionCountByHash',
  besu: { kinds: ['blockHash'] },
  params: [p.hash],
  handler: async (ctx: RpcContext, [hash]) => {
    const block = await ctx.chain.getBlockByHash(hash)
    return block ? toQuantity(block.transactions.length) : null
  },
})

export const getBlockTransactionCountByNumber = defineMethod({
  name: 'eth_getBlockTransactionCountByNumber',
  besu: { kinds: ['block'] },
  params: [p.blockNumberOrTag],
  handler: async (ctx: RpcContext, [ref]) => {
    const block = await ctx.chain.resolve(ref)
    return block ? toQuantity(block.transactions.length) : null
  },
})

export const getUncleCountByBlockHash = defineMethod({
  name: 'eth_getUncleCountByBlockHash',
  besu: { kinds: ['blockHash'] },
  params: [p.hash],
  handler: async (ctx: RpcContext, [hash]) => {
    const block = await ctx.chain.getBlockByHash(hash)
    return block ? toQuantity(block.uncleHeaders.length) : null
  },
})

export const getUncleCountByBlockNumber = defineMethod({
  name: 'eth_getUncleCountByBlockNumber',
  besu: { kinds: ['block'] },
  params: [p.blockNumberOrTag],
  handler: async (ctx: RpcContext, [ref]) => {
    const block = await ctx.chain.resolve(ref)
    return block ? toQuantity(block.uncleHeaders.length) : null
  },
})

function uncleJson(block: Block | undefined, index: bigint) {
  const uncle = block?.uncleHeaders[Number(index)]
  if (!uncle || index >= BigInt(block!.uncleHeaders.length)) return null
  // Its size is that of a block of this header with no transactions and no ommers, as Besu's
  // UncleBlockResult (and geth) compute it: RLP([header, [], []]).
  const size = RLP.encode([uncle.raw(), [], []]).length
  return { ...formatHeader(uncle, uncle.hash(), size), transactions: [], uncles: [] }
}

export const getUncleByBlockHashAndIndex = defineMethod({
  name: 'eth_getUncleByBlockHashAndIndex',
  besu: { kinds: ['blockHash', 'blockIndex'] },
  params: [p.hash, p.index],
  handler: async (ctx: RpcContext, [hash, index]) => uncleJson(await ctx.chain.getBlockByHash(hash), index),
})

export const getUncleByBlockNumberAndIndex = defineMethod({
  name: 'eth_getUncleByBlockNumberAndIndex',
  besu: { kinds: ['block', 'blockIndex'] },
  params: [p.blockNumberOrTag, p.index],
  handler: async (ctx: RpcContext, [ref, index]) => uncleJson(await ctx.chain.resolve(ref), index),
})

/** Every receipt of a block, formatted. */
export function blockReceipts(ctx: RpcContext, block: Block): Record<string, unknown>[] {
  const receipts = ctx.chain.getReceipts(block)
  const senders = ctx.chain.getSenders(block)
  const blobGasPrice = block.header.excessBlobGas === undefined ? undefined : block.header.getBlobGasPrice()
  let prev = 0n
  let firstLogIndex = 0
  return receipts.map((receipt, index) => {
    const out = formatReceipt({
      block,
      index,
      sender: senders[index],
      receipt,
      previousCumulativeGas: prev,
      firstLogIndex,
      blobGasPrice,
    })
    prev = receipt.cumulativeGasUsed
    firstLogIndex += receipt.logs.length
    return out
  })
}

/**
 * The receipt of the transaction at `index` in `block`, as `blockReceipts` formats it, without
 * formatting the others (a client polling for its receipt in a block of many transactions).
 */
export function blockReceipt(ctx: RpcContext, block: Block, index: number): Record<string, unknown> {
  const receipts = ctx.chain.getReceipts(block)
  let firstLogIndex = 0
  for (let i = 0; i < index; i++) firstLogIndex += receipts[i].logs.length
  return formatReceipt({
    block,
    index,
    sender: ctx.chain.getSenders(block)[index],
    receipt: receipts[index],
    previousCumulativeGas: index > 0 ? receipts[index - 1].cumulativeGasUsed : 0n,
    firstLogIndex,
    blobGasPrice: block.header.excessBlobGas === undefined ? undefined : block.header.getBlobGasPrice(),
  })
}

export const getBlockReceipts = defineMethod({
  name: 'eth_getBlockReceipts',
  besu: { kinds: ['block'] },
  params: [p.block],
  handler: async (ctx: RpcContext, [ref]) => {
    const block = await findBlock(ctx, ref)
    if (ctx.forkHistory) {
      const id = typeof ref === 'object' ? ref.hash : ref
      const isRemote = block ? block.header.number <= ctx.forkHistory.number : typeof id !== 'string'
      if (isRemote && typeof id !== 'string') return remoteBlockReceipts(ctx, id)
    }
    return block ? blockReceipts(ctx, block) : null
  },
})

export const blockMethods = [
  getBlockByHash,
  getBlockByNumber,
  getBlockTransactionCountByHash,
  getBlockTransactionCountByNumber,
  getUncleCountByBlockHash,
  getUncleCountByBlockNumber,
  getUncleByBlockHashAndIndex,
  getUncleByBlockNumberAndIndex,
  getBlockReceipts,
]
