/** A trie store that reads through to the chain's `TrieDb` but keeps its own writes in memory. */
import type { BatchDBOp } from '@ethereumjs/util'
import { hexToBytes } from '../../primitives/hex.ts'
import { TrieDb } from '../../state/trieDb.ts'

type Value = string | Uint8Array

/**
 * Replays write trie nodes (each committed transaction flushes); they must not reach the chain's
 * pending writes, which the next committed block would persist.
 */
export class OverlayTrieDb extends TrieDb {
  private readonly local = new Map<string, Uint8Array>()

  private readonly base: TrieDb

  constructor(base: TrieDb) {
    super(undefined as never, 0)
    this.base = base
    this.fork = base.fork
    this.storageFormat = base.storageFormat
  }

  override getSync(key: string): Uint8Array | undefined {
    return this.local.get(key) ?? this.base.getSync(key)
  }

  override async put(key: string, val: Value): Promise<void> {
    this.local.set(key, typeof val === 'string' ? hexToBytes(val) : val)
  }

  override async batch(ops: BatchDBOp<string, Value>[]): Promise<void> {
    for (const op of ops) if (op.type === 'put') await this.put(op.key, op.value)
  }

  /** Drops every write (once no trie refers to them any more). */
  clear(): void {
    this.local.clear()
  }

  override takePending(): [Uint8Array, Uint8Array][] {
    return []
  }
}
