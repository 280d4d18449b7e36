/**
 * Head resets by hand, on the one primitive `Chain.resetHead`: moving the head to a stored block
 * (debug_setHead) and executing a stored block again on its parent (debug_replayBlock). Each runs
 * inside `Chain.exclusive`, so the dev sealer never builds on a head that moves under it, and the
 * reset's listeners (the pool's revalidation) have run when it resolves.
 */
import type { Block } from '@ethereumjs/block'
import { executeBlock } from './blockImporter.ts'
import type { Chain } from './chain.ts'
import { rebuildStateAt } from './stateRecovery.ts'

/** Makes the stored `block` the head; blocks above it stay stored and can be imported again. */
export function rewindTo(chain: Chain, block: Block): Promise<void> {
  return chain.exclusive(() => moveHead(chain, block))
}

/**
 * The head-reset primitive (call inside `Chain.exclusive`): moves the head to the stored `block`.
 * A canonical block whose state has left the BONSAI history window gets it rebuilt (`rebuildStateAt`:
 * from the state history when it holds the block, else by replaying from the genesis) instead of
 * failing, so a dev chain can always go back to any of its blocks.
 */
export function moveHead(chain: Chain, block: Block): Promise<void> {
  const isPruned = chain.bonsai && !chain.bonsai.isRetained(block.header.number, chain.head.header.number)
  if (isPruned && chain.isCanonical(block) && block.header.number < chain.head.header.number) {
    return rebuildStateAt(chain, block)
  }
  return chain.resetHead(block)
}

/**
 * Rolls the head back to the parent of the stored `block`, executes the block again (every root
 * checked against its header) and makes it the head. Throws when the block no longer executes to
 * its roots; the head then stays at the parent.
 */
export function reexecuteBlock(chain: Chain, block: Block): Promise<void> {
  return chain.exclusive(async () => {
    const parent = await chain.getBlockByHash(block.header.parentHash)
    if (!parent) throw new Error(`parent of block ${block.header.number} not found`)
    await moveHead(chain, parent)
    await executeBlock(chain, block, parent)
    await chain.resetHead(block)
  })
}
