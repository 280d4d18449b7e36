/**
 * World state over the trie store: a MerkleStateManager whose trie reads and writes go to `TrieDb`.
 * Any retained block's state is one `stateAt(root)` away, because trie nodes are never deleted.
 * On a forked chain (`TrieDb.fork` set) the state falls through to the remote (see forkState.ts).
 */
import type { Common } from '@ethereumjs/common'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager'
import { ValueEncoding } from '@ethereumjs/util'
import { openForkState } from './forkState.ts'
import type { TrieDb } from './trieDb.ts'

export type StateManager = MerkleStateManager

/**
 * A state manager rooted at `root`. `isWriter` adds the account/storage/code caches that make
 * block building fast; readers go without, so that they cost nothing to create.
 */
export function openState(db: TrieDb, common: Common, root: Uint8Array, isWriter = false): StateManager {
  const caches = isWriter ? new Caches() : undefined
  const state = db.fork
    ? openForkState(db, db.fork, common, root, caches)
    : new MerkleStateManager({
        common,
        trie: new MerklePatriciaTrie({ db, root, useKeyHashing: true, valueEncoding: ValueEncoding.Bytes, common }),
        caches,
      })
  if (isWriter) db.preimages?.record(state)
  return state
}
