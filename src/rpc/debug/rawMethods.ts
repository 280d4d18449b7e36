/** Raw RLP getters and bad blocks. Spec: execution-apis src/debug/getters.yaml */
import { type Block, createBlockFromRLP } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { besuError } from '../../jsonrpc/errors.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import type { RpcContext } from '../context.ts'
import { getRawBlockAccessList } from '../eth/blockAccessListMethods.ts'
import { formatBlock } from '../format.ts'

const block = p.named('block', p.block)

async function blockAt(ctx: RpcContext, ref: Parameters<RpcContext['chain']['resolve']>[0]): Promise<Block> {
  const found = await ctx.chain.resolve(ref)
  if (!found) throw besuError('blockNotFound')
  return found
}

/** The RLP of a block header. Spec: execution-apis src/debug/getters.yaml */
export const getRawHeader = defineMethod({
  name: 'debug_getRawHeader',
  besu: { kinds: ['block'] },
  params: [block],
  handler: async (ctx: RpcContext, [ref]) => {
    const b = await blockAt(ctx, ref)
    return bytesToHex(ctx.chain.store.readHeaderRlp(b.hash()) ?? b.header.serialize())
  },
})

/** The RLP of a whole block. Spec: execution-apis src/debug/getters.yaml */
export const getRawBlock = defineMethod({
  name: 'debug_getRawBlock',
  besu: { kinds: ['block'] },
  params: [block],
  handler: async (ctx: RpcContext, [ref]) => bytesToHex((await blockAt(ctx, ref)).serialize()),
})

/** The EIP-2718 encodings of a block's receipts. Spec: execution-apis src/debug/getters.yaml */
export const getRawReceipts = defineMethod({
  name: 'debug_getRawReceipts',
  besu: { kinds: ['block'] },
  params: [block],
  handler: async (ctx: RpcContext, [ref]) => {
    const rlp = ctx.chain.store.readReceiptsRlp((await blockAt(ctx, ref)).hash())
    return rlp ? (RLP.decode(rlp) as Uint8Array[]).map(bytesToHex) : []
  },
})

/** The EIP-2718 encoding of a mined transaction, or null. Spec: execution-apis src/debug/getters.yaml */
export const getRawTransaction = defineMethod({
  name: 'debug_getRawTransaction',
  besu: { kinds: ['transactionHash'] },
  params: [p.hash],
  handler: async (ctx: RpcContext, [hash]) => {
    const found = await ctx.chain.findTransaction(hash)
    return found ? bytesToHex(found.block.transactions[found.index].serialize()) : null
  },
})

/** Blocks that failed validation, newest last, as Besu lists them: `{block, hash, rlp}`. */
export const getBadBlocks = defineMethod({
  name: 'debug_getBadBlocks',
  besu: { kinds: [] },
  params: [],
  handler: async (ctx: RpcContext) =>
    ctx.chain.store.readBadBlocks().map((bad) => {
      let json: Record<string, unknown> | null = null
      try {
        const b = createBlockFromRLP(bad.rlp, { common: ctx.chain.common, setHardfork: true })
        json = formatBlock(
          b,
          true,
          b.transactions.map((tx) => tx.getSenderAddress().bytes),
        )
      } catch {
        // A block too malformed to decode is still listed, by hash and RLP.
      }
      return { block: json, hash: bytesToHex(bad.hash), rlp: bytesToHex(bad.rlp) }
    }),
})

export const rawMethods = [
  getRawHeader,
  getRawBlock,
  getRawReceipts,
  getRawTransaction,
  getRawBlockAccessList,
  getBadBlocks,
]
