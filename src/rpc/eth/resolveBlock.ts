/** Block parameters to blocks, with Besu's answers for unknown ones. */
import type { Block } from '@ethereumjs/block'
import type { BlockParam } from '../../jsonrpc/codecs.ts'
import { besuError, InvalidParamsError } from '../../jsonrpc/errors.ts'
import type { RpcContext } from '../context.ts'

/** The block a parameter names, or undefined (for methods whose answer is then `null`). */
export function findBlock(ctx: RpcContext, ref: BlockParam): Promise<Block | undefined> {
  return ctx.chain.resolve(ref)
}

/** The block a state method reads at; a block that does not exist is an error, as in Besu. */
export async function requireBlock(ctx: RpcContext, ref: BlockParam): Promise<Block> {
  const block = await ctx.chain.resolve(ref)
  if (block) return block
  if (typeof ref === 'object')
    throw besuError('blockNotFound', `Block not found: ${ref.requireCanonical ? 'not canonical or ' : ''}unknown hash`)
  if (ref === 'safe' || ref === 'finalized') throw besuError('unknownBlock', `Unknown block: no ${ref} block yet`)
  throw new InvalidParamsError('Invalid block param (block not found)')
}
