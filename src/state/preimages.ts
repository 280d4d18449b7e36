/**
 * The preimages of the state trie's hashed keys: keccak(address) → address and keccak(slot) → slot,
 * so that debug_accountRange and debug_storageRangeAt can show real keys (the trie stores only the
 * hashes). Preimages are noted as a writing state manager writes an account or a slot (genesis
 * alloc, every block built or imported, dev-tool state edits) and written to the `preimages` table
 * when the trie's pending nodes are (TrieDb.takePending), inside the same transaction.
 * A preimage is a fact about hashing, not about a block, so a noted key that no block kept costs a
 * row and nothing else. States written before the table existed have no preimages.
 */

import type { Address } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { runRows, valuesSql } from '../storage/multiRow.ts'
import type { SqlDatabase, SqlValue } from '../storage/sqlite.ts'
import type { StateManager } from './worldState.ts'

/** Preimages known to be stored, to skip rewriting them; cleared when it grows past this. */
const MAX_REMEMBERED = 200_000
/** Distinct preimages have distinct hashes, so the rows of one flush go in multi-row statements. */
const INSERT_PREIMAGES = valuesSql('INSERT OR IGNORE INTO preimages (hash, preimage)', 2)

function hexKey(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
}

export class PreimageTable {
  /** Noted and not yet stored, by their own hex. */
  private readonly pending = new Map<string, Uint8Array>()
  private readonly stored = new Set<string>()
  /** keccak-256 of a preimage; the node hands in its faster one (primitives/keccak.ts). */
  hash: (data: Uint8Array) => Uint8Array = keccak_256

  private readonly db: SqlDatabase

  constructor(db: SqlDatabase) {
    this.db = db
  }

  /** Makes `state` note the address of every account and the key of every slot it writes. */
  record(state: StateManager): void {
    const putAccount = state.putAccount.bind(state)
    const putStorage = state.putStorage.bind(state)
    state.putAccount = (address: Address, account) => {
      this.note(address.bytes)
      return putAccount(address, account)
    }
    state.putStorage = (address: Address, key: Uint8Array, value: Uint8Array) => {
      this.note(address.bytes)
      this.note(key)
      return putStorage(address, key, value)
    }
  }

  note(preimage: Uint8Array): void {
    const key = hexKey(preimage)
    if (!this.stored.has(key) && !this.pending.has(key)) this.pending.set(key, preimage.slice())
  }

  /** Writes what was noted; call it inside the transaction that writes the state's trie nodes. */
  flush(): void {
    if (this.pending.size === 0) return
    if (this.stored.size + this.pending.size > MAX_REMEMBERED) this.stored.clear()
    const rows: SqlValue[] = []
    for (const [key, preimage] of this.pending) {
      rows.push(this.hash(preimage), preimage)
      this.stored.add(key)
    }
    runRows(this.db, INSERT_PREIMAGES, 2, rows)
    this.pending.clear()
  }

  /** The preimage of a hashed trie key (noted ones included), or undefined when none is known. */
  lookup(hash: Uint8Array): Uint8Array | undefined {
    if (this.pending.size > 0) this.db.transaction(() => this.flush())
    const row = this.db.prepare('SELECT preimage FROM preimages WHERE hash = ?').get(hash)
    return (row?.preimage as Uint8Array | undefined) ?? undefined
  }
}
