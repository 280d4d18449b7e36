/**
 * Start-up recovery of state that had not been flushed when the process stopped (`kill -9`, power
 * loss). Blocks, receipts and indexes are committed block by block, but their state nodes are
 * flushed later (see `Chain.commitBlock`), so the newest canonical blocks may lack their state.
 * Re-executing them from the newest ancestor whose state is stored rebuilds it exactly: execution
 * is deterministic and every root is checked against the stored header.
 *
 * The replay is cheaper than an import: the blocks were validated before they were committed, so
 * their signatures are not checked again and their senders come from the stored bodies (sender
 * recovery was a sixth of the time), and one VM runs them all, its caches warm from block to block
 * (a VM per block was another eighth).
 */
import { type Block, createBlockFromBytesArray } from '@ethereumjs/block'
import { Address, KECCAK256_RLP } from '@ethereumjs/util'
import { runBlockWithReward } from '../evm/blockReward.ts'
import { createVm } from '../evm/vmFactory.ts'
import { bytesToHex, equalBytes } from '../primitives/hex.ts'
import { createLogger } from '../primitives/logger.ts'
import { openState } from '../state/worldState.ts'
import { rewardOf } from './blockImporter.ts'
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
  await replayBlocks(chain, cur, missing)
  chain.flushState(true)
  log.info('rebuilt unflushed state', {
    blocks: missing.length,
    from: missing[0].header.number,
    ms: Date.now() - startedMs,
  })
  return missing.length
}

/** Runs `blocks` (children of `parent`, in order) on one VM over `parent`'s state, checking each root. */
async function replayBlocks(
  chain: Chain,
  parent: Block,
  blocks: Iterable<Block> | AsyncIterable<Block>,
): Promise<void> {
  const state = openState(chain.trieDb, chain.common, chain.postStateRoot(parent), true)
  // Our own blocks may hold transactions from impersonated accounts with code (the dev tools).
  const vm = await createVm(chain.common, state, chain, { isSenderCodeAllowed: true })
  let prev = parent
  for await (const block of blocks) {
    // A block the dev tools edited the state after: the next one ran on the edited state.
    const root = chain.postStateRoot(prev)
    if (!equalBytes(root, prev.header.stateRoot)) await vm.stateManager.setStateRoot(root)
    prev = block
    try {
      const opts = { block: withStoredSenders(chain, block), skipBlockValidation: true, setHardfork: true }
      await runBlockWithReward(vm, opts, rewardOf(chain, block))
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e)
      throw new Error(
        `cannot rebuild the state of block ${block.header.number} (${bytesToHex(block.hash())}): ${reason}`,
      )
    }
  }
}

/** A copy of `block` whose transactions answer their stored senders instead of recovering them. */
function withStoredSenders(chain: Chain, block: Block): Block {
  const senders = chain.getSenders(block)
  const copy = createBlockFromBytesArray(block.raw() as never, {
    common: chain.common,
    setHardfork: true,
    freeze: false,
  })
  copy.transactions.forEach((tx, i) => {
    const sender = new Address(senders[i])
    Object.assign(tx, { getSenderAddress: () => sender })
  })
  return copy
}

function hasState(chain: Chain, block: Block): boolean {
  const root = chain.postStateRoot(block)
  return equalBytes(root, KECCAK256_RLP) || chain.trieDb.getSync(bytesToHex(root).slice(2)) !== undefined
}

/**
 * Re-executes every canonical block from the genesis to the head, checking each state root against
 * its header, and writes the state nodes they produce (debug_resyncWorldstate). The blocks stay as
 * they are; state nodes that went missing are written again. Resolves to the number of blocks run.
 */
export async function rebuildHeadState(chain: Chain): Promise<number> {
  const head = chain.head
  async function* canonical(): AsyncGenerator<Block> {
    for (let n = chain.genesis.header.number + 1n; n <= head.header.number; n++) {
      const block = await chain.getBlockByNumber(n)
      if (!block) throw new Error(`canonical block ${n} is missing`)
      yield block
    }
  }
  await replayBlocks(chain, chain.genesis, canonical())
  chain.flushState(true)
  const count = head.header.number - chain.genesis.header.number
  log.info('rebuilt head state', { blocks: count })
  return Number(count)
}
