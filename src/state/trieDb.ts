/**
 * The key-value store the Merkle Patricia trie and the contract code live in. Writes made while a
 * block is built stay in memory (`pending`) until the chain commits that block, so that a block and
 * its state land in one SQLite transaction. Reads see pending writes first, then a bounded cache of
 * recently read nodes, then SQLite. Nodes are content-addressed and never deleted (archive state).
 */
import type { BatchDBOp, DB, EncodingOpts } from '@ethereumjs/util'
import { bytesToHex } from '../primitives/hex.ts'
import type { ChainStore } from '../storage/chainStore.ts'
import type { ForkSource } from './forkSource.ts'
import { PreimageTable } from './preimages.ts'
import type { StorageFormat } from './storageFormat.ts'
import { composeTrieLogs, type TrieLog } from './trieLog.ts'

type Value = string | Uint8Array

const HEX_DIGIT: Record<string, number> = {}
for (let i = 0; i < 16; i++) HEX_DIGIT[i.toString(16)] = i

/** The runtime's native hex decoder where there is one (Bun, Deno): about 70 times faster. */
const nativeFromHex = (Uint8Array as unknown as { fromHex?: (hex: string) => Uint8Array }).fromHex

/** Unprefixed lower-case hex (the trie's key form) to bytes, without validation: keys are ours. */
function keyBytes(hex: string): Uint8Array {
  if (nativeFromHex) return nativeFromHex.call(Uint8Array, hex)
  const out = new Uint8Array(hex.length >> 1)
  for (let i = 0; i < out.length; i++) out[i] = (HEX_DIGIT[hex[2 * i]] << 4) | HEX_DIGIT[hex[2 * i + 1]]
  return out
}

/** Longer than any block takes to build, so a block in the making never loses a node. */
const UNREFERENCED_TTL_MS = 10_000

/** State transitions kept for the chain's trie logs (a few per block: the builder's, a payload's). */
const TRANSITIONS_KEPT = 64

/** Transitions chained to make one trie log, at most (a block is one flush, or a few). */
const TRANSITIONS_CHAINED = 4

export class TrieDb implements DB<string, Value> {
  /** Writes since the last flush. */
  private pending = new Map<string, Uint8Array>()
  /**
   * Nodes no committed state held at a flush (the states between a block's transactions), with the
   * flush's time; dropped UNREFERENCED_TTL_MS later. Kept apart from `pending` so that a flush goes
   * over the new writes only, and in insertion order, so that expiry stops at the first young one:
   * at about 200 blocks a second they were a third of what each flush went through.
   */
  private unreferenced = new Map<string, { value: Uint8Array; sinceMs: number }>()
  private readCache = new Map<string, Uint8Array>()
  /**
   * Trie logs of recent flushes of the writer states over this store (state root before → the
   * logs from it), in the order they came, so that the trie log of a block comes from what its
   * flush did instead of a diff of the two roots.
   */
  private transitions = new Map<string, TrieLog[]>()
  private transitionCount = 0
  /** On a forked chain: where state the local trie never held comes from. */
  fork?: ForkSource
  /** Hashed trie keys back to addresses and slots, written with the pending nodes (none in an overlay without a store). */
  readonly preimages?: PreimageTable
  /**
   * BONSAI prefixes each storage trie's node keys with its account (so one contract's stale nodes
   * are never another's live ones); FOREST keeps the unprefixed keys its data paths were written with.
   */
  storageFormat: StorageFormat = 'FOREST'

  private readonly store: ChainStore
  private readonly readCacheSize: number

  constructor(store: ChainStore, readCacheSize = 8_192) {
    this.store = store
    this.readCacheSize = readCacheSize
    if (store) this.preimages = new PreimageTable(store.db)
  }

  async get(key: string, _opts?: EncodingOpts): Promise<Value | undefined> {
    return this.getSync(key)
  }

  getSync(key: string): Uint8Array | undefined {
    const p = this.pending.get(key) ?? this.unreferenced.get(key)?.value ?? this.readCache.get(key)
    if (p !== undefined) return p
    const v = this.store.readTrieNode(keyBytes(key))
    if (v !== undefined) this.remember(key, v)
    return v
  }

  async put(key: string, val: Value, _opts?: EncodingOpts): Promise<void> {
    this.pending.set(key, typeof val === 'string' ? keyBytes(val) : val)
    this.unreferenced.delete(key)
  }

  /** Deletes are ignored: other blocks' states may share the node (archive mode). */
  async del(_key: string, _opts?: EncodingOpts): Promise<void> {}

  async batch(ops: BatchDBOp<string, Value>[]): Promise<void> {
    for (const op of ops) if (op.type === 'put') await this.put(op.key, op.value)
  }

  shallowCopy(): DB<string, Value> {
    return this
  }

  async open(): Promise<void> {}

  /**
   * Hands the buffered writes to the caller (who writes them inside its transaction): all of them,
   * or only the `referenced` ones. The others stay readable for a while (a block may be being built
   * on them) and are dropped once they have gone unreferenced for UNREFERENCED_TTL_MS.
   */
  takePending(referenced?: Set<string>, nowMs = performance.now()): [Uint8Array, Uint8Array][] {
    this.preimages?.flush()
    const out: [Uint8Array, Uint8Array][] = []
    for (const [k, v] of this.pending) {
      // Contract code (keyed `63` + code hash, not a trie node) is content-addressed and kept for good.
      if (referenced && !referenced.has(k) && !(k.length === 66 && k.startsWith('63'))) {
        this.unreferenced.set(k, { value: v, sinceMs: nowMs })
        continue
      }
      out.push([keyBytes(k), v])
      this.remember(k, v)
    }
    this.pending.clear()
    // A node written before an earlier flush may be held by a state committed since (the flush
    // timer can run between two trie writes of a block being built).
    if (referenced && this.unreferenced.size > 0) {
      for (const k of referenced) {
        const held = this.unreferenced.get(k)
        if (held === undefined) continue
        out.push([keyBytes(k), held.value])
        this.remember(k, held.value)
        this.unreferenced.delete(k)
      }
    }
    if (!referenced) {
      for (const [k, { value }] of this.unreferenced) {
        out.push([keyBytes(k), value])
        this.remember(k, value)
      }
      this.unreferenced.clear()
    }
    for (const [k, { sinceMs }] of this.unreferenced) {
      if (nowMs - sinceMs < UNREFERENCED_TTL_MS) break
      this.unreferenced.delete(k)
    }
    return out
  }

  /** Keeps a writer state's flush (`BatchedStateManager`): the change from one state root to the next. */
  noteTransition(log: TrieLog): void {
    const key = bytesToHex(log.rootBefore)
    const list = this.transitions.get(key)
    if (list) list.push(log)
    else this.transitions.set(key, [log])
    if (++this.transitionCount <= TRANSITIONS_KEPT) return
    // Drop the oldest root's transitions; Map iterates in insertion order.
    for (const [k, logs] of this.transitions) {
      this.transitions.delete(k)
      this.transitionCount -= logs.length
      if (this.transitionCount <= TRANSITIONS_KEPT) break
    }
  }

  /**
   * The trie log from the state at `before` to the state at `after`, composed from kept
   * transitions that chain from one to the other; undefined when none do.
   */
  transitionLog(before: Uint8Array, after: Uint8Array): TrieLog | undefined {
    const path = this.chain(bytesToHex(before), bytesToHex(after), TRANSITIONS_CHAINED)
    return path ? composeTrieLogs(path) : undefined
  }

  private chain(from: string, to: string, depth: number): TrieLog[] | undefined {
    if (depth === 0) return undefined
    for (const log of this.transitions.get(from) ?? []) {
      const next = bytesToHex(log.rootAfter)
      if (next === to) return [log]
      if (next === from) continue
      const rest = this.chain(next, to, depth - 1)
      if (rest) return [log, ...rest]
    }
    return undefined
  }

  /** The keys of the buffered writes (unprefixed hex), those no committed state held included. */
  *pendingKeys(): IterableIterator<string> {
    yield* this.pending.keys()
    yield* this.unreferenced.keys()
  }

  get pendingCount(): number {
    return this.pending.size + this.unreferenced.size
  }

  private remember(key: string, v: Uint8Array): void {
    if (this.readCache.size >= this.readCacheSize) {
      // Drop the oldest tenth; Map iterates in insertion order.
      let n = this.readCacheSize / 10
      for (const k of this.readCache.keys()) {
        this.readCache.delete(k)
        if (--n <= 0) break
      }
    }
    this.readCache.set(key, v)
  }
}
