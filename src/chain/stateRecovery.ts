/**
 * Start-up recovery of state that had not been flushed when the process stopped (`kill -9`, power
 * loss). Blocks, receipts and indexes are committed block by block, but their state nodes are
 * flushed later (see `Chain.commitBlock`), so the newest canonical blocks may lack their state.
 * Re-executing them from the newest ancestor whose state is stored rebuilds it exactly: execution
 * is deterministic and every root is checked against the stored header.
 */
import type { Block } from '@ethereumjs/block'
import { KECCAK256_RLP } from '@ethereumjs/util'
import { bytesToHex, equalBytes } from '../primitives/hex.ts'
import { createLogger } from '../primitives/logger.ts'
import { executeBlock } from './blockImporter.ts'
import type { Chain } from './chain.ts'

const log = createLogger('chain')

/** Rebuilds the state of the canonical blocks above the newest stored state; resolves to their count. */
export async function recoverHeadState(chain: Chain): Promise<number> {
  const missing: Block[] = []
  let cur = chain.head
  while (!hasState(chain, cur)) {
    missing.unshift(cur)
    const parent = await chain.getBlockByHash(cur.header.parentHash)
    if (!parent) throw new Error(`the state of block ${cur.header.number} is missing and so is its parent`)
    cur = parent
  }
  if (missing.length === 0) return 0
  const startedMs = Date.now()
  let parent = cur
  for (const block of missing) {
    try {
      await executeBlock(chain, block, parent, true)
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e)
      throw new Error(
        `cannot rebuild the state of block ${block.header.number} (${bytesToHex(block.hash())}): ${reason}`,
      )
    }
    parent = block
  }
  chain.flushState()
  log.info('rebuilt unflushed state', {
    blocks: missing.length,
    from: missing[0].header.number,
    ms: Date.now() - startedMs,
  })
  return missing.length
}

function hasState(chain: Chain, block: Block): boolean {
  const root = chain.postStateRoot(block)
  return equalBytes(root, KECCAK256_RLP) || chain.trieDb.getSync(bytesToHex(root).slice(2)) !== undefined
}
