/**
 * Throw-away world state for simulations (eth_call, estimates, eth_simulateV1): reads fall through
 * to the chain's trie store, writes stay in an overlay and vanish with the object, so a simulation
 * can never leak trie nodes into the next committed block.
 */
import type { Common } from '@ethereumjs/common'
import { bytesToHex } from '../primitives/hex.ts'
import type { TrieDb } from '../state/trieDb.ts'
import { openState, type StateManager } from '../state/worldState.ts'
import { OverlayTrieDb } from './tracers/overlayTrieDb.ts'

/** Where scratch state reads from. */
export interface StateSource {
  readonly common: Common
  readonly trieDb: TrieDb
}

/** A writable state rooted at `root` that never writes to `source`. */
export function openScratchState(source: StateSource, root: Uint8Array): StateManager {
  return openState(new OverlayTrieDb(source.trieDb), source.common, root, true)
}

interface ReadableTrie {
  root(): Uint8Array
  get(key: Uint8Array, throwIfMissing?: boolean): Promise<Uint8Array | null>
}

interface StateInternals {
  _trie: ReadableTrie
  _getStorageTrie(address: unknown, account?: unknown): ReadableTrie
}

const MEMO_ENTRIES = 1 << 16

/**
 * Memoizes the account and storage trie reads of `state` by (trie root, key). A trie's content is
 * fixed by its root, so a memoized value can never be stale, even for a trie written in between;
 * the state's own caches still answer first. For a state that runs many simulations on one root,
 * where each run's checkpoint revert throws away what the caches learned.
 */
export function memoizeTrieReads(state: StateManager): void {
  const memo = new Map<string, Uint8Array | null>()
  const internals = state as unknown as StateInternals
  const memoized = (trie: ReadableTrie): ReadableTrie => {
    const get = trie.get.bind(trie)
    trie.get = async (key, throwIfMissing) => {
      const k = bytesToHex(trie.root()) + bytesToHex(key)
      const hit = memo.get(k)
      if (hit !== undefined) return hit
      const value = await get(key, throwIfMissing)
      if (memo.size >= MEMO_ENTRIES) memo.clear()
      memo.set(k, value)
      return value
    }
    return trie
  }
  memoized(internals._trie)
  const getStorageTrie = internals._getStorageTrie.bind(state)
  const wrapped = new WeakSet<ReadableTrie>()
  internals._getStorageTrie = (address, account) => {
    const trie = getStorageTrie(address, account)
    if (!wrapped.has(trie)) {
      wrapped.add(trie)
      memoized(trie)
    }
    return trie
  }
}
