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
import type { Common } from '@ethereumjs/common'
import { Address, KECCAK256_RLP } from '@ethereumjs/util'
import { createVm } from '../evm/vmFactory.ts'
import { bytesToHex, equalBytes } from '../primitives/hex.ts'
import { createLogger } from '../primitives/logger.ts'
import type { BonsaiState } from '../state/bonsaiState.ts'
import type { TrieDb } from '../state/trieDb.ts'
import { openState } from '../state/worldState.ts'
import { runChainBlock } from './blockImporter.ts'
import type { Chain } from './chain.ts'
import { type GenesisJson, genesisState } from './genesis.ts'

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
  let vm = await createVm(chain.common, state, chain, { isSenderCodeAllowed: true })
  let prev = parent
  for await (const block of blocks) {
    // A block the dev tools edited the state after: the next one ran on the edited state.
    const root = chain.postStateRoot(prev)
    if (!equalBytes(root, prev.header.stateRoot)) {
      if (chain.bonsai && !chain.bonsai.isRetained(prev.header.number, chain.head.header.number))
        throw new Error(editedStateGone(prev))
      await vm.stateManager.setStateRoot(root)
    }
    prev = block
    // Blocks sealed under an earlier chain id (anvil_setChainId) run under it.
    if (vm.common.chainId() !== block.common.chainId())
      vm = await createVm(block.common, state, chain, { isSenderCodeAllowed: true })
    try {
      const opts = { block: withStoredSenders(chain, block), skipBlockValidation: true, setHardfork: true }
      await runChainBlock(chain, vm, opts)
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
    common: block.common,
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
 *
 * BONSAI: the genesis state is written again when the window has pruned it, and only the nodes a
 * state inside the window holds are written (not those of the older states the replay went
 * through); the flat tables are rebuilt from the head's trie in the same transaction. The trie logs
 * stay: every replayed root matched, so they still describe the window's blocks.
 */
export async function rebuildHeadState(chain: Chain): Promise<number> {
  const head = chain.head
  const bonsai = chain.bonsai
  if (bonsai) await rewriteGenesisState(chain, bonsai)
  await replayBlocks(chain, chain.genesis, canonicalBlocks(chain, head.header.number))
  if (bonsai) {
    chain.store.db.transaction(() => {
      bonsai.rebuildFlat(chain.postStateRoot(head), KECCAK256_RLP, chain.trieDb.pendingKeys(), head.header.number)
      chain.flushState()
    })
    chain.dropStateViews()
  } else {
    chain.flushState(true)
  }
  const count = head.header.number - chain.genesis.header.number
  log.info('rebuilt head state', { blocks: count })
  return Number(count)
}

/** How many head moves below the window each path rebuilt the state of (tests tell the paths apart by it). */
export const stateRebuilds = { fromHistory: 0, byReplay: 0 }

/**
 * Makes the canonical `target`, below the head, the head when its state has left the BONSAI history
 * window (the trie logs that would move the flat state back are pruned). When the state history
 * holds `target`'s state, its trie is written from the history rows (a cost that follows the
 * state's size); otherwise, or when that trie's root is not `target`'s, the genesis state is written
 * again and the canonical blocks up to `target` are replayed on it (every root checked against its
 * header; a cost that follows the chain's length). The chain then takes `target` with the state so
 * rebuilt. The blocks above stay stored. Call inside `Chain.exclusive`.
 */
export async function rebuildStateAt(chain: Chain, target: Block): Promise<void> {
  const bonsai = chain.bonsai
  if (!bonsai) throw new Error('only BONSAI state storage prunes states')
  const startedMs = Date.now()
  const isFromHistory = await writeStateFromHistory(chain, bonsai, target)
  if (!isFromHistory) {
    await rewriteGenesisState(chain, bonsai)
    await replayBlocks(chain, chain.genesis, canonicalBlocks(chain, target.header.number))
  }
  stateRebuilds[isFromHistory ? 'fromHistory' : 'byReplay']++
  await chain.resetHeadRebuilt(target)
  log.info('rebuilt the state of a block below the history window', {
    block: target.header.number,
    from: isFromHistory ? 'state history' : 'replay from the genesis',
    ms: Date.now() - startedMs,
  })
}

/**
 * Writes `target`'s state trie (pending) from the state history when it holds that state; resolves
 * to whether the trie's root is the one the chain recorded after `target` (the header's, or the
 * dev tools' edit of it). Anything else is logged as an error and left to the replay.
 */
async function writeStateFromHistory(chain: Chain, bonsai: BonsaiState, target: Block): Promise<boolean> {
  const n = target.header.number
  if (!bonsai.history?.covers(n)) return false
  const expected = chain.postStateRoot(target)
  try {
    const root = await bonsai.history.writeTrie(chain.trieDb, chain.common, n)
    if (equalBytes(root, expected)) return true
    log.error('the state history gives a wrong state root; replaying from the genesis instead', {
      block: n,
      root: bytesToHex(root),
      expected: bytesToHex(expected),
    })
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e)
    log.error('cannot write the state from the state history; replaying from the genesis instead', {
      block: n,
      reason,
    })
  }
  return false
}

async function* canonicalBlocks(chain: Chain, upTo: bigint): AsyncGenerator<Block> {
  for (let n = chain.genesis.header.number + 1n; n <= upTo; n++) {
    const block = await chain.getBlockByNumber(n)
    if (!block) throw new Error(`canonical block ${n} is missing`)
    yield block
  }
}

/**
 * Writes the genesis state again (pending; its root must be the genesis header's): the window
 * prunes it, and a node cached from before the prune must not pass for a stored one. A genesis
 * state the dev tools edited cannot be written again: it is used while inside the window, refused after.
 */
async function rewriteGenesisState(chain: Chain, bonsai: BonsaiState): Promise<void> {
  const genesis = chain.genesis
  if (!equalBytes(chain.postStateRoot(genesis), genesis.header.stateRoot)) {
    if (bonsai.isRetained(genesis.header.number, chain.head.header.number)) return
    throw new Error(editedStateGone(genesis))
  }
  if (!bonsai.genesisState) throw new Error('the genesis state is no longer stored and cannot be written again')
  const root = await bonsai.genesisState()
  if (!equalBytes(root, genesis.header.stateRoot)) {
    throw new Error(
      `the genesis state written again has root ${bytesToHex(root)}, not the genesis header's ${bytesToHex(genesis.header.stateRoot)}`,
    )
  }
}

function editedStateGone(block: Block): string {
  return `the state the dev tools left after block ${block.header.number} has left the history window and cannot be re-created`
}

/** Writes the genesis alloc's state into `trieDb` (pending until the next flush); resolves to its root. */
export async function writeGenesisState(trieDb: TrieDb, common: Common, genesis: GenesisJson): Promise<Uint8Array> {
  const state = openState(trieDb, common, KECCAK256_RLP, true)
  await state.generateCanonicalGenesis(genesisState(genesis))
  return state.getStateRoot()
}
