/** Block parameters to blocks, with Besu's answers for unknown ones. */
import type { Block } from '@ethereumjs/block'
import type { BlockParam } from '../../jsonrpc/codecs.ts'
import { besuError } from '../../jsonrpc/errors.ts'
import type { RpcContext } from '../context.ts'

/** The block a parameter names, or undefined (for methods whose answer is then `null`). */
export function findBlock(ctx: RpcContext, ref: BlockParam): Promise<Block | undefined> {
  return ctx.chain.resolve(ref)
}

/**
 * The block a state method reads at; a block that does not exist is an error, as in Besu's
 * AbstractBlockParameterOrBlockHashMethod: a number past the head or an unknown hash is -32000
 * `Block not found`, a known hash off the canonical chain with `requireCanonical` -32000
 * `Invalid input`, and no safe or finalized block yet -39001 `Unknown block`.
 */
export async function requireBlock(ctx: RpcContext, ref: BlockParam): Promise<Block> {
  const block = await ctx.chain.resolve(ref)
  if (block) return block
  if (typeof ref === 'object' && ref.requireCanonical && (await ctx.chain.getBlockByHash(ref.hash)))
    throw besuError('notCanonical')
  if (ref === 'safe' || ref === 'finalized') throw besuError('unknownBlock', `Unknown block: no ${ref} block yet`)
  throw besuError('blockNotFound')
}
