/**
 * Throw-away world state for simulations (eth_call, estimates, eth_simulateV1): reads fall through
 * to the chain's trie store, writes stay in an overlay and vanish with the object, so a simulation
 * can never leak trie nodes into the next committed block.
 */
import type { Common } from '@ethereumjs/common'
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
