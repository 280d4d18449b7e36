/**
 * Block access lists (EIP-7928) of stored blocks, under every name Besu has served them:
 * `eth_getBlockAccessList` (execution-apis src/eth/block.yaml), `eth_getBlockAccessListByBlockNumber`,
 * `eth_getBlockAccessListByBlockHash` and the earlier `eth_getBlockAccessListByNumber`. A block of a
 * fork without access lists answers 4445, a block of such a fork whose list is not stored (the
 * genesis, blocks stored before lists were kept) 4444, as Besu's.
 */
import type { Block } from '@ethereumjs/block'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { type BlockParam, p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { type BesuErrorKind, besuError } from '../../jsonrpc/errors.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { blockAccessListJson, legacyBlockAccessListJson } from '../blockAccessListJson.ts'
import type { RpcContext } from '../context.ts'

/**
 * The stored list of `block`, or Besu's error: `beforeAmsterdam` for a block of a fork without
 * access lists (the eth methods' 4445, debug_getRawBlockAccessList's -32001), 4444 for one without it.
 */
function requireList(
  ctx: RpcContext,
  block: Block,
  beforeAmsterdam: BesuErrorKind = 'blockAccessListBeforeAmsterdam',
): Uint8Array {
  if (!block.common.isActivatedEIP(7928)) throw besuError(beforeAmsterdam)
  const rlp = ctx.chain.store.readBlockAccessList(block.hash())
  if (rlp === undefined) throw besuError('prunedHistoryUnavailable')
  return rlp
}

/** A number, tag or hash to its block; an unset safe or finalized block is -39001, as Besu's block-parameter methods. */
async function blockOfTag(ctx: RpcContext, ref: BlockParam): Promise<Block | undefined> {
  const block = await ctx.chain.resolve(ref)
  if (!block && (ref === 'safe' || ref === 'finalized')) throw besuError('unknownBlock')
  return block
}

/**
 * execution-apis' method: a number, tag or hash. Besu's block-or-hash methods refuse a number past
 * the head and an unknown hash with -32000 `Block not found` (execution-apis: `null`), and a
 * `requireCanonical` hash off the canonical chain with -32000 `Invalid input`.
 */
export const getBlockAccessList = defineMethod({
  name: 'eth_getBlockAccessList',
  besu: { kinds: ['block'] },
  params: [p.block],
  handler: async (ctx: RpcContext, [ref]) => {
    if (typeof ref !== 'object') {
      const block = await blockOfTag(ctx, ref)
      if (!block) throw besuError('blockNotFound')
      return blockAccessListJson(requireList(ctx, block))
    }
    const block = await ctx.chain.getBlockByHash(ref.hash)
    if (!block) throw besuError('blockNotFound')
    if (ref.requireCanonical && !ctx.chain.isCanonical(block)) throw besuError('notCanonical')
    return blockAccessListJson(requireList(ctx, block))
  },
})

/** By number or tag; an unknown number is -32000 `Block not found` (Besu's). */
export const getBlockAccessListByBlockNumber = defineMethod({
  name: 'eth_getBlockAccessListByBlockNumber',
  besu: { kinds: ['block'] },
  params: [p.blockNumberOrTag],
  handler: async (ctx: RpcContext, [ref]) => {
    const block = await blockOfTag(ctx, ref)
    if (!block) throw besuError('blockNotFound')
    return blockAccessListJson(requireList(ctx, block))
  },
})

/** By hash; an unknown hash is -32000 `Block not found` (Besu's). */
export const getBlockAccessListByBlockHash = defineMethod({
  name: 'eth_getBlockAccessListByBlockHash',
  besu: { kinds: ['blockHash'] },
  params: [p.hash],
  handler: async (ctx: RpcContext, [hash]) => {
    const block = await ctx.chain.getBlockByHash(hash)
    if (!block) throw besuError('blockNotFound')
    return blockAccessListJson(requireList(ctx, block))
  },
})

/**
 * Besu's first method: `{balHash, blockAccessList}` in its first shape; `null` for an unknown block
 * and for a block without a stored list (it had no errors).
 */
export const getBlockAccessListByNumber = defineMethod({
  name: 'eth_getBlockAccessListByNumber',
  besu: { kinds: ['block'] },
  params: [p.blockNumberOrTag],
  handler: async (ctx: RpcContext, [ref]) => {
    const block = await blockOfTag(ctx, ref)
    const rlp = block && ctx.chain.store.readBlockAccessList(block.hash())
    if (!rlp) return null
    return { balHash: bytesToHex(keccak_256(rlp)), blockAccessList: legacyBlockAccessListJson(rlp) }
  },
})

/**
 * The RLP of a block's access list, the bytes its header's `blockAccessListHash` commits to, by
 * number, tag or hash (a DEBUG method; execution-apis src/debug/getters.yaml). As Besu's newest:
 * -32001 `Resource not found` for an unknown block and for a block of a fork without access lists,
 * 4444 for such a block whose list is not stored, -39001 for an unset safe or finalized block, `null`
 * for `pending`.
 */
export const getRawBlockAccessList = defineMethod({
  name: 'debug_getRawBlockAccessList',
  besu: { kinds: ['block'] },
  params: [p.named('block', p.block)],
  handler: async (ctx: RpcContext, [ref]) => {
    if (ref === 'pending') return null
    const block = await blockOfTag(ctx, ref)
    if (!block) throw besuError('resourceNotFound')
    return bytesToHex(requireList(ctx, block, 'resourceNotFound'))
  },
})

export const blockAccessListMethods = [
  getBlockAccessList,
  getBlockAccessListByBlockNumber,
  getBlockAccessListByBlockHash,
  getBlockAccessListByNumber,
]
