/**
 * Throw-away world state for simulations (eth_call, estimates, eth_simulateV1): reads fall through
 * to the chain's trie store, writes stay in memory and vanish with the object, so a simulation can
 * never leak trie nodes into the next committed block.
 */
import type { Common } from '@ethereumjs/common'
import { hexToBytes } from '../primitives/hex.ts'
import { TrieDb } from '../state/trieDb.ts'
import { openState, type StateManager } from '../state/worldState.ts'
import type { ChainStore } from '../storage/chainStore.ts'

type Value = string | Uint8Array

/** A TrieDb whose writes land in a private map on top of a read-only base. */
class ScratchTrieDb extends TrieDb {
  private readonly writes = new Map<string, Uint8Array>()

  constructor(
    private readonly base: TrieDb,
    store: ChainStore,
  ) {
    super(store, 0)
  }

  override async get(key: string): Promise<Value | undefined> {
    return this.getSync(key)
  }

  override getSync(key: string): Uint8Array | undefined {
    return this.writes.get(key) ?? this.base.getSync(key)
  }

  override async put(key: string, val: Value): Promise<void> {
    this.writes.set(key, typeof val === 'string' ? hexToBytes(val) : val)
  }

  override takePending(): [Uint8Array, Uint8Array][] {
    return []
  }
}

/** Where scratch state reads from. */
export interface StateSource {
  readonly common: Common
  readonly trieDb: TrieDb
  readonly store: ChainStore
}

/** A writable state rooted at `root` that never writes to `source`. */
export function openScratchState(source: StateSource, root: Uint8Array): StateManager {
  return openState(new ScratchTrieDb(source.trieDb, source.store), source.common, root, true)
}
