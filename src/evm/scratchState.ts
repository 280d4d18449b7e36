/**
 * Throw-away world state for simulations (eth_call, estimates, eth_simulateV1): reads fall through
 * to the chain's trie store (or, for the BONSAI head state, to the flat tables), writes stay in an
 * overlay and vanish with the object, so a simulation can never leak trie nodes into the next
 * committed block nor rows into the flat tables.
 */
import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { type Address, unpadBytes } from '@ethereumjs/util'
import { bytesToHex } from '../primitives/hex.ts'
import type { TrieDb } from '../state/trieDb.ts'
import { type FlatHead, openFlatView, openState, type StateManager } from '../state/worldState.ts'
import { OverlayTrieDb } from './tracers/overlayTrieDb.ts'

/** Where scratch state reads from. */
export interface StateSource {
  readonly common: Common
  readonly trieDb: TrieDb
  /** The BONSAI flat head state, when the chain keeps one. */
  readonly bonsai?: FlatHead
  /** The state after `block` when only a state history holds it (its trie is not kept); else undefined. */
  openHistoricalState?(block: Block, code: TrieDb): StateManager | undefined
}

/**
 * A writable state rooted at `root` that never writes to `source`. When `root` is the BONSAI flat
 * head state, accounts and slots are read from the flat tables (one lookup instead of a trie walk)
 * until a write is flushed into the overlay trie or the head moves on; then from the trie.
 */
export function openScratchState(source: StateSource, root: Uint8Array, block?: Block): StateManager {
  const db = new OverlayTrieDb(source.trieDb)
  // A state below a BONSAI window, read from the state history (its writes stay in its caches).
  const historical = block && source.openHistoricalState?.(block, db)
  if (historical) return historical
  const state =
    source.bonsai?.isAt(root) && !db.fork
      ? openFlatView(db, source.common, root, source.bonsai)
      : openState(db, source.common, root, true)
  cacheStorageWrites(state)
  return state
}

interface StorageCache {
  put(address: Address, key: Uint8Array, value: Uint8Array): void
}

/**
 * Keeps storage writes in the state's cache until it is flushed. `MerkleStateManager.putStorage`
 * (10.1.3) also writes each one straight through to the storage trie (`cache.put(…) ?? write`
 * always takes the right side, `put` returning nothing), hashing trie nodes on every SSTORE that
 * the flush then writes again; a simulation that is thrown away never needs them.
 */
export function cacheStorageWrites(state: StateManager): void {
  const storage = (state as unknown as { _caches?: { storage?: StorageCache } })._caches?.storage
  if (!storage) return
  state.putStorage = async (address, key, value) => {
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long')
    if (value.length > 32) throw new Error('Storage value cannot be longer than 32 bytes')
    if (!(await state.getAccount(address))) throw new Error('putStorage() called on non-existing account')
    storage.put(address, key, RLP.encode(unpadBytes(value)))
  }
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
