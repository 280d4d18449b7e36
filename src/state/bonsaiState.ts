/**
 * BONSAI state storage (Besu's name; see docs/state-storage.md): the head state kept flat (one row
 * per account and per storage slot, keyed by hashed address / slot, so a read is one lookup), a
 * trie log per block to move that flat state back and forth, and trie nodes kept only while a state
 * inside the history window (`--bonsai-historical-block-limit` blocks below the head) needs them.
 *
 * Owns the flat tables and the trie logs; does not decide which block is the head (the chain
 * does, and calls `move` inside the transaction that changes it). Every method that writes must run
 * inside the caller's SQLite transaction, so the flat state, the trie logs and the block that moved
 * them commit together.
 */
import { KECCAK256_RLP } from '@ethereumjs/util'
import { bytesToBareHex, bytesToHex, equalBytes, hexToBytes } from '../primitives/hex.ts'
import type { ChainStore } from '../storage/chainStore.ts'
import { type FlatRow, FlatStore } from '../storage/flatStore.ts'
import { StateHistory } from './stateHistory.ts'
import { DEFAULT_HISTORICAL_BLOCK_LIMIT } from './storageFormat.ts'
import type { TrieDb } from './trieDb.ts'
import { computeTrieLog, decodeTrieLog, encodeTrieLog, nodesOnLogPaths, type TrieLog } from './trieLog.ts'

const META_FLAT_ROOT = 'flatRoot'
/** The lowest block whose state is kept, after a head reset rebuilt the state of a block below the window. */
const META_RETAINED_FROM = 'retainedFrom'
/**
 * The canonical block up to which the flat rows, stale-node records and state history rows are
 * written (the flat tables then hold the state `flatRoot` names); those of the blocks above it are
 * held in memory until the next flush and, after a crash, replayed from their trie logs.
 */
const META_DEFERRED_THROUGH = 'deferredThrough'
/**
 * What left the window is deleted every this many blocks (or every window, if shorter). One delete
 * of a long run touches each page of `trie_nodes` and `stale_nodes` once for many rows, and the
 * pending trie nodes are written at the same time: 128 rather than 32 cut the pages a one-transfer
 * block's commit writes from about 96 to 71, and 256 (then the chain's own flush bound, so a prune no
 * longer forced a flush of its own) from about 43 to 36 when blocks came faster than the flush
 * timer's bound (bench/walPages.ts, docs/performance.md); it follows the chain's flush bound (512).
 */
const PRUNE_EVERY_BLOCKS = 512

/** The state of a block outside the history window (its trie nodes and trie logs are gone). */
export class StateUnavailableError extends Error {
  readonly blockNumber: bigint

  constructor(blockNumber: bigint) {
    super(`World state unavailable for block ${blockNumber}`)
    this.blockNumber = blockNumber
    this.name = 'StateUnavailableError'
  }
}

/** A block as far as moving the flat state is concerned. */
export interface LogBlock {
  hash: Uint8Array
  number: bigint
  /**
   * All of the block's trie logs, when the caller holds them (a block just executed, its log
   * recorded in the same transaction, no edit after it): `move` then neither reads nor decodes them.
   */
  logs?: TrieLog[]
}

export class BonsaiState {
  readonly flat: FlatStore
  /**
   * Keys of the trie nodes the states recorded since the last flush created: the nodes worth
   * writing. Block building also writes the nodes of states between its transactions, which no
   * block's state holds; written, they would never be pruned.
   */
  readonly referenced = new Set<string>()
  private flatRoot?: Uint8Array
  private readonly pruneEveryBlocks: bigint
  /** Blocks whose state the dev chain's snapshots hold (block → holders): none of it is pruned. */
  private readonly pins = new Map<bigint, number>()
  /** No state below this block is kept (set when a head reset rebuilt a state below the window). */
  private retainedFrom: bigint
  /**
   * Stale-node records of the blocks the head moved forward over since the last flush, not written
   * yet: node key (hex) → the block from which it is stale, or null when a block created it again
   * (its record is deleted). About 23 records a one-transfer block, each at a random key of
   * `stale_nodes`, were a third of the pages a block's commit wrote; held until the flush (with the
   * trie nodes, at most 2 s or 512 blocks later, and before every prune) they share pages.
   */
  private readonly pendingStale = new Map<string, { key: Uint8Array; at: bigint | null }>()
  /**
   * The state history rows of the same blocks, held back likewise (about 12 pages a commit at
   * random ids). No read misses them: the history serves states below the window only, and a
   * prune (which writes them) comes at least once per window.
   */
  private readonly pendingHistory: { log: TrieLog; n: bigint }[] = []
  /** Whether `applyForward` holds its rows and records back (a forward move of the head). */
  private isDeferring = false
  /** The head block of the flat state as far as the held-back records go (what `writeDeferred` records). */
  private deferredHead?: bigint
  /** A transaction that moved the head failed: the held-back records are to be replayed from the trie logs. */
  private isDeferredLost = false

  private readonly store: ChainStore
  private readonly trieDb: TrieDb
  readonly historicalBlockLimit: number
  /** Every canonical state beyond the window, when the data path keeps it (see stateHistory.ts). */
  readonly history?: StateHistory
  /**
   * Writes the genesis state's trie nodes again (pending) and resolves to its root: the window
   * prunes them, and debug_resyncWorldstate replays the chain from them. Set by the node.
   */
  genesisState?: () => Promise<Uint8Array>

  constructor(
    store: ChainStore,
    trieDb: TrieDb,
    historicalBlockLimit = DEFAULT_HISTORICAL_BLOCK_LIMIT,
    isHistoryKept = false,
  ) {
    this.store = store
    this.trieDb = trieDb
    this.historicalBlockLimit = historicalBlockLimit
    if (isHistoryKept) this.history = new StateHistory(store)
    this.flat = new FlatStore(store.db)
    this.pruneEveryBlocks = BigInt(Math.min(PRUNE_EVERY_BLOCKS, historicalBlockLimit))
    this.flatRoot = store.readMeta(META_FLAT_ROOT)
    const from = store.readMeta(META_RETAINED_FROM)
    this.retainedFrom = from ? BigInt(bytesToHex(from)) : 0n
  }

  /** The state root the flat tables hold; undefined before the genesis state was written. */
  get root(): Uint8Array | undefined {
    return this.flatRoot
  }

  /** Whether flat rows are held back until the next flush (the tables are behind `root`). */
  get isFlatHeld(): boolean {
    return this.flat.isHolding
  }

  /** Whether the flat tables hold the state with this root (so a reader of it may use them). */
  isAt(root: Uint8Array): boolean {
    return this.flatRoot !== undefined && equalBytes(this.flatRoot, root)
  }

  /** Fills the empty flat tables with the state at `root` (the genesis state). Inside a transaction. */
  initialize(root: Uint8Array, emptyRoot: Uint8Array): void {
    if (this.flatRoot) return
    this.flatRoot = emptyRoot
    this.applyForward(this.computeLog(emptyRoot, root), 0n)
    this.store.writeMeta(META_FLAT_ROOT, root)
    this.setDeferredThrough(0n)
    this.history?.start(0n)
  }

  /**
   * Writes the stale-node records and history rows held back since the last flush (the chain calls
   * it with every flush of pending trie nodes, inside that transaction).
   */
  writeDeferred(): void {
    if (this.isDeferredLost) this.recoverDeferred(0n)
    if (!this.flat.isHolding && this.pendingStale.size === 0 && this.pendingHistory.length === 0) return
    // Held rows are the only way the flat root moves away from the stored one (a log without rows
    // changes no account, so no root).
    if (this.flat.isHolding) {
      this.flat.writeHeld()
      if (this.flatRoot) this.store.writeMeta(META_FLAT_ROOT, this.flatRoot)
    }
    this.flat.writeStaleRecords(this.pendingStale.values())
    this.pendingStale.clear()
    this.history?.recordAll(this.pendingHistory)
    this.pendingHistory.length = 0
    if (this.deferredHead !== undefined) this.setDeferredThrough(this.deferredHead)
  }

  /**
   * Makes the stored flat rows, stale-node records and history rows whole for the canonical chain
   * (at start-up, with the head `headNumber`, and after a transaction that moved the head failed):
   * what was held back when the process died, or rolled back, is replayed from the trie logs of the
   * canonical blocks above `deferredThrough`, which every block writes in its own transaction.
   * Replaying records already written changes nothing: each key ends with its last record, in block
   * order. A log's flat rows are written when the tables hold the state it starts from (a root names
   * one state, so its rows are right there wherever the log sits); a data path of a version that
   * wrote the flat rows with every block has its tables at the head, and none of them is. A data
   * path without `deferredThrough` was written by a version that stored every record with its block
   * (so it is whole up to its head). Inside a transaction.
   */
  recoverDeferred(headNumber: bigint): void {
    this.pendingStale.clear()
    this.pendingHistory.length = 0
    this.flat.dropHeld()
    this.flatRoot = this.store.readMeta(META_FLAT_ROOT)
    this.isDeferredLost = false
    const stored = this.store.readMeta(META_DEFERRED_THROUGH)
    let last = stored ? BigInt(bytesToHex(stored)) : headNumber
    const rootBefore = this.flatRoot
    for (let n = last + 1n; ; n++) {
      const hash = this.store.readCanonicalHash(n)
      if (!hash) break
      for (const bytes of this.flat.readTrieLogs(n, hash)) {
        const log = decodeTrieLog(bytes)
        if (this.isAt(log.rootBefore)) {
          this.flat.writeRows(flatRows(log, 'after'))
          this.flatRoot = log.rootAfter
        }
        this.flat.markStale(log.staled, n)
        this.flat.markLive(log.created)
        this.history?.record(log, n)
      }
      last = n
    }
    if (this.flatRoot && rootBefore && !equalBytes(this.flatRoot, rootBefore))
      this.store.writeMeta(META_FLAT_ROOT, this.flatRoot)
    this.setDeferredThrough(last)
  }

  /**
   * Called when a transaction that may have moved the head failed: the records held back may
   * include some of its rolled-back blocks, so they are dropped and replayed from the stored trie
   * logs before the next write (inside that write's transaction).
   */
  forgetDeferred(): void {
    this.pendingStale.clear()
    this.pendingHistory.length = 0
    // The tables hold the stored root again; readers use them once the replay brought them to the head.
    this.flat.dropHeld()
    this.flatRoot = this.store.readMeta(META_FLAT_ROOT)
    this.isDeferredLost = true
  }

  /**
   * Brings the state history in line with the choice to keep it, the flat tables at the head
   * `headNumber`: a data path that kept none starts it at the head (older states stay unavailable
   * below the window); one that no longer keeps it deletes it. Inside a transaction.
   */
  settleHistory(headNumber: bigint): void {
    if (this.history) {
      if (this.history.from === undefined) this.history.start(headNumber)
      return
    }
    const stored = new StateHistory(this.store)
    if (stored.from !== undefined) stored.stop()
  }

  /** Whether the state history holds the state of canonical block `n`, below the window. */
  isInHistory(n: bigint, headNumber: bigint): boolean {
    return this.history?.covers(n) === true && n <= headNumber && !this.isRetained(n, headNumber)
  }

  /**
   * Fills the flat tables again from the trie of `root` (the head's state, its nodes stored or
   * pending): every row is deleted, then the diff from `emptyRoot` to `root` writes one row per
   * account and slot and marks the head's nodes live. Those nodes, and the pending ones a state
   * inside the window still holds (a block recorded it left them behind), are referenced, so the
   * next flush writes them and nothing else. Inside the caller's transaction.
   */
  rebuildFlat(root: Uint8Array, emptyRoot: Uint8Array, pendingKeys: Iterable<string>, headNumber: bigint): void {
    this.writeDeferred()
    const log = this.computeLog(emptyRoot, root)
    for (const key of pendingKeys) {
      if (!this.referenced.has(key) && this.flat.isStale(hexToBytes(`0x${key}`))) this.referenced.add(key)
    }
    const rootBefore = this.flatRoot
    try {
      this.flat.clearState()
      this.flatRoot = emptyRoot
      this.applyForward(log, 0n)
      this.store.writeMeta(META_FLAT_ROOT, root)
      this.setDeferredThrough(headNumber)
    } catch (e) {
      this.flatRoot = rootBefore
      throw e
    }
  }

  /** Whether the trie nodes of the state at `root` are stored or pending (its root node at least). */
  hasState(root: Uint8Array): boolean {
    return equalBytes(root, KECCAK256_RLP) || this.trieDb.getSync(bytesToBareHex(root)) !== undefined
  }

  /**
   * The change from the state at `before` to the state at `after`: from the flushes that made it
   * when the trie store kept them, else a diff of the two tries (the nodes of both must be stored
   * or pending).
   */
  computeLog(before: Uint8Array, after: Uint8Array): TrieLog {
    const log =
      this.trieDb.transitionLog(before, after) ?? computeTrieLog((hex) => this.trieDb.getSync(hex), before, after)
    for (const key of log.created) this.referenced.add(bytesToBareHex(key))
    return log
  }

  /**
   * Stores a block's trie log as its `seq`-th (0: its execution, the same each time the block is
   * executed; then the dev tools' edits after it); inside a transaction.
   */
  recordLog(block: LogBlock, log: TrieLog, seq: number): void {
    this.flat.writeTrieLog(block.hash, seq, block.number, encodeTrieLog(log))
  }

  /** How many trie logs `block` has (the seq of the next edit). */
  logCount(block: LogBlock): number {
    return this.flat.readTrieLogs(block.number, block.hash).length
  }

  /**
   * Moves the flat state: undoes `undo` (newest first), then applies `redo` (oldest first); prunes
   * what left the window below `headNumber`. Throws StateUnavailableError when a block's trie logs
   * are gone; the caller's transaction then rolls the rows back and the flat root is restored here.
   */
  move(undo: LogBlock[], redo: LogBlock[], headNumber: bigint): void {
    const rootBefore = this.flatRoot
    // Only a move forward holds its records back: a start-up replays exactly those (the trie logs
    // of the canonical blocks above the last flush). Any other move writes them at once.
    if (this.isDeferredLost || undo.length > 0) this.writeDeferred()
    this.isDeferring = undo.length === 0
    try {
      for (const b of undo) {
        for (const log of this.logsOf(b).reverse()) {
          this.applyBackward(log, b.number)
          this.history?.undo(log, b.number)
        }
      }
      for (const b of redo) {
        for (const log of this.logsOf(b)) {
          this.applyForward(log, b.number)
          if (!this.history) continue
          if (this.isDeferring) this.pendingHistory.push({ log, n: b.number })
          else this.history.record(log, b.number)
        }
      }
      if (this.flatRoot && !this.flat.isHolding) this.store.writeMeta(META_FLAT_ROOT, this.flatRoot)
      this.deferredHead = headNumber
      if (this.isDeferring) {
        // A block created again a node an older block left behind: its record must go before the prune.
        if (this.isPruneDue(headNumber)) this.writeDeferred()
      } else {
        this.setDeferredThrough(headNumber)
      }
      if (this.isPruneDue(headNumber)) this.prune(this.pruneLimit(headNumber))
    } catch (e) {
      this.flatRoot = rootBefore
      throw e
    } finally {
      this.isDeferring = false
    }
  }

  /** Applies an edit of the head's state (already recorded with `recordLog`) to the flat tables. */
  applyEdit(log: TrieLog, head: LogBlock): void {
    const rootBefore = this.flatRoot
    this.writeDeferred()
    try {
      this.applyForward(log, head.number)
      this.history?.record(log, head.number)
      this.store.writeMeta(META_FLAT_ROOT, log.rootAfter)
      this.setDeferredThrough(head.number)
    } catch (e) {
      this.flatRoot = rootBefore
      throw e
    }
  }

  /**
   * Whether moving the head to `headNumber` deletes what left the window. In batches: one delete of
   * a run of blocks touches fewer pages than one per block. The trie nodes still pending in memory
   * must be written first (the chain flushes them), or a stale one would be written after its delete.
   */
  isPruneDue(headNumber: bigint): boolean {
    const cutoff = headNumber - BigInt(this.historicalBlockLimit)
    return cutoff > 0n && cutoff % this.pruneEveryBlocks === 0n
  }

  /** Whether the state of block `n` is inside the window below the head `headNumber`, or pinned. */
  isRetained(n: bigint, headNumber: bigint): boolean {
    if (n < this.retainedFrom) return false
    if (n + BigInt(this.historicalBlockLimit) >= headNumber) return true
    const lowestPin = this.lowestPin()
    return lowestPin !== undefined && n >= lowestPin
  }

  /**
   * Keeps the state of block `n`, and so of every later block, out of pruning until the returned
   * function is called (a dev chain snapshot: `evm_revert` must reach it however many blocks follow).
   */
  pin(n: bigint): () => void {
    this.pins.set(n, (this.pins.get(n) ?? 0) + 1)
    let isReleased = false
    return () => {
      if (isReleased) return
      isReleased = true
      const count = (this.pins.get(n) ?? 1) - 1
      if (count > 0) this.pins.set(n, count)
      else this.pins.delete(n)
    }
  }

  /**
   * Records that the states below block `n` are gone: a head reset rebuilt the state of `n` from the
   * genesis after the window had pruned the trie logs that lead to it. Inside a transaction.
   */
  retainFrom(n: bigint): void {
    this.retainedFrom = n
    this.store.writeMeta(META_RETAINED_FROM, blockNumberBytes(n))
  }

  private setDeferredThrough(n: bigint): void {
    this.deferredHead = n
    this.store.writeMeta(META_DEFERRED_THROUGH, blockNumberBytes(n))
  }

  private lowestPin(): bigint | undefined {
    let lowest: bigint | undefined
    for (const n of this.pins.keys()) if (lowest === undefined || n < lowest) lowest = n
    return lowest
  }

  /** The last block whose trie logs and left-behind nodes may go when the head is at `headNumber`. */
  private pruneLimit(headNumber: bigint): bigint {
    const cutoff = headNumber - BigInt(this.historicalBlockLimit)
    const lowestPin = this.lowestPin()
    return lowestPin !== undefined && lowestPin - 1n < cutoff ? lowestPin - 1n : cutoff
  }

  /**
   * Deletes what left the window with block `upTo`: the nodes canonical blocks left behind, the
   * trie logs, and the nodes created by blocks off the canonical chain (imported without becoming
   * the head) that no one marked stale. Such a node is kept when a canonical block marked it stale
   * (it goes with that block), when the head state holds it (it would sit on the path of a key that
   * side block changed, or beside it: only those paths of the head's trie are read), or when a
   * block still inside the window created it too.
   */
  private prune(upTo: bigint): void {
    const side = this.flat.readSideTrieLogs(upTo)
    this.flat.prune(upTo)
    const head = this.flatRoot
    if (side.length === 0 || !head) return
    const read = (hex: string) => this.trieDb.getSync(hex)
    const orphans = new Map<string, Uint8Array>()
    for (const bytes of side) {
      const log = decodeTrieLog(bytes)
      const live = nodesOnLogPaths(read, head, log)
      for (const key of log.created) {
        const hex = bytesToBareHex(key)
        if (!live.has(hex) && !this.flat.isStale(key) && this.flat.hasTrieNode(key)) orphans.set(hex, key)
      }
    }
    if (orphans.size === 0) return
    // A block still inside the window (another branch) may have created the same node.
    for (const bytes of this.flat.readTrieLogsAbove(upTo)) {
      for (const key of decodeTrieLog(bytes).created) orphans.delete(bytesToBareHex(key))
    }
    this.flat.deleteTrieNodes(orphans.values())
  }

  private logsOf(b: LogBlock): TrieLog[] {
    if (b.logs) return b.logs.slice()
    const logs = this.flat.readTrieLogs(b.number, b.hash)
    if (logs.length === 0) throw new StateUnavailableError(b.number)
    return logs.map(decodeTrieLog)
  }

  private applyForward(log: TrieLog, n: bigint): void {
    this.expectRoot(log.rootBefore)
    if (this.isDeferring) {
      this.flat.hold(flatRows(log, 'after'))
      for (const key of log.staled) this.pendingStale.set(bytesToBareHex(key), { key, at: n })
      for (const key of log.created) this.pendingStale.set(bytesToBareHex(key), { key, at: null })
    } else {
      this.flat.writeRows(flatRows(log, 'after'))
      this.flat.markStale(log.staled, n)
      this.flat.markLive(log.created)
    }
    this.flatRoot = log.rootAfter
  }

  private applyBackward(log: TrieLog, n: bigint): void {
    this.expectRoot(log.rootAfter)
    this.flat.writeRows(flatRows(log, 'before'))
    this.flat.markLive(log.staled)
    this.flat.markStale(log.created, n)
    this.flatRoot = log.rootBefore
  }

  private expectRoot(root: Uint8Array): void {
    if (!this.isAt(root)) throw new Error('the flat state is not at the state this trie log starts from')
  }
}

/** The flat rows of the accounts and slots `log` changed, with their values before or after it. */
function* flatRows(log: TrieLog, side: 'before' | 'after'): Generator<FlatRow> {
  for (const a of log.accounts) yield { key: a.key, value: a[side] }
  for (const s of log.slots) yield { key: s.account, slot: s.slot, value: s[side] }
}

function blockNumberBytes(n: bigint): Uint8Array {
  return hexToBytes(`0x${n.toString(16).padStart(16, '0')}`)
}
