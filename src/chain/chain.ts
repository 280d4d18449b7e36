/**
 * The chain: genesis, stored blocks and receipts, the canonical head (with safe and finalized), and
 * state at any block. Owns the one write path for blocks (`commitBlock`), which lands a block, its
 * receipts and its indexes in one SQLite transaction. The state nodes a block wrote are flushed
 * with a later commit (at most `STATE_FLUSH_INTERVAL_MS` or `STATE_FLUSH_BLOCKS` later, and on
 * close): writing ~40 random trie pages per block was half the cost of a commit. After a crash,
 * `stateRecovery.ts` re-executes the stored blocks whose state was not flushed yet. A BONSAI data
 * path (`bonsai` set; see docs/state-storage.md) also writes each block's trie log and flat-state
 * change in the block's own transaction, and moves the flat state whenever the head moves.
 * Does not execute blocks (see `blockImporter.ts`) or build them (producer/).
 */

import {
  type Block,
  type BlockHeader,
  createBlockFromBytesArray,
  createBlockHeaderFromBytesArray,
} from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import type { TypedTransaction } from '@ethereumjs/tx'
import { KECCAK256_RLP } from '@ethereumjs/util'
import type { TxReceipt } from '@ethereumjs/vm'
import type { BlockRewardRule } from '../evm/blockReward.ts'
import { decodeWithoutKzg } from '../evm/kzgPresence.ts'
import { keepTransactionHashes } from '../evm/txMemo.ts'
import { minBigInt } from '../primitives/bigintMath.ts'
import { bytesToBigint, bytesToHex, equalBytes } from '../primitives/hex.ts'
import { createLogger } from '../primitives/logger.ts'
import { weakMemo } from '../primitives/weakMemo.ts'
import { type BonsaiState, type LogBlock, StateUnavailableError } from '../state/bonsaiState.ts'
import { type CodeSource, openHistoricalState } from '../state/historicalState.ts'
import type { StorageFormat } from '../state/storageFormat.ts'
import type { TrieDb } from '../state/trieDb.ts'
import { openFlatView, openState, type StateManager } from '../state/worldState.ts'
import type { ChainStore, StoredLog } from '../storage/chainStore.ts'
import { type BaseFeeMarket, EIP1559_MARKET, INITIAL_BASE_FEE, nextBaseFee, producedBaseFee } from './baseFee.ts'
import { ChainIdSchedule } from './chainIds.ts'
import { isLondonForkBlock } from './gasLimit.ts'
import type { SealRules } from './headerValidation.ts'
import { findStoredMergeBlock, isMergePending, scheduleMerge, terminalTotalDifficulty } from './mergeSchedule.ts'
import { attachRevertReasons, decodeReceipts, encodeReceipts, encodeRevertReasons, type Receipt } from './receipts.ts'
import { keepHeaderHash, useStoredSenders } from './storedSenders.ts'

const log = createLogger('chain')

export type BlockTag = 'latest' | 'earliest' | 'pending' | 'safe' | 'finalized'
/** A block named by tag, number or hash (`requireCanonical` per EIP-1898). */
export type BlockRef = BlockTag | bigint | { hash: Uint8Array; requireCanonical?: boolean }

export interface NewBlockEvent {
  block: Block
  receipts: Receipt[]
  logs: StoredLog[]
}

export interface CommitOptions {
  /** Make this block the canonical head (reorganising when it is not on the current head's chain). */
  setHead: boolean
  /** The RLP of the block's access list (EIP-7928), stored in the block's own transaction. */
  blockAccessList?: Uint8Array
  /** Per transaction, the bytes its top-level REVERT returned; stored when `recordRevertReasons` is set. */
  revertReasons?: (Uint8Array | undefined)[]
}

const META_HEAD = 'head'
const META_SAFE = 'safe'
const META_FINALIZED = 'finalized'
const META_GENESIS = 'genesis'
/** The data path's state storage format; absent in data paths from before BONSAI, which are FOREST. */
const META_STORAGE_FORMAT = 'storageFormat'
/** Prefix of the meta rows that record a block's state as edited by the dev tools after it was sealed. */
const META_POST_STATE = 'postState:'
const BLOCK_CACHE_SIZE = 512
const STATE_CACHE_SIZE = 4
/**
 * Unflushed state waits at most this long after the first block that wrote it… A flush writes its
 * trie nodes at random keys of `trie_nodes`, whose pages many blocks' nodes share: 2 s and 512
 * blocks rather than 1 s and 256 cut the pages a one-transfer block costs by a sixth
 * (docs/performance.md); after a crash up to that many blocks are executed again at start-up.
 */
export const STATE_FLUSH_INTERVAL_MS = 2000
/** …or this many blocks, or this many trie nodes. */
const STATE_FLUSH_BLOCKS = 512
const STATE_FLUSH_NODES = 100_000

/** The format a data path's state was written in: FOREST for one from before the choice; undefined when new. */
export function storedStorageFormat(store: ChainStore): StorageFormat | undefined {
  const raw = store.readMeta(META_STORAGE_FORMAT)
  if (raw) return new TextDecoder().decode(raw) as StorageFormat
  return store.readMeta(META_GENESIS) ? 'FOREST' : undefined
}

export class Chain {
  head!: Block
  safe?: Block
  finalized?: Block
  genesis!: Block
  /** Header rules of a consensus the library does not know (BFT); set before any import. */
  sealRules?: SealRules
  /** Set on a BONSAI data path (before `open`): the flat head state, trie logs and history window. */
  bonsai?: BonsaiState
  /** The block reward the library does not pay (BFT's `blockreward`); set before any import. */
  blockReward?: BlockRewardRule
  /** Besu's `--revert-reason-enabled`: store what reverted transactions returned, shown in their receipts. */
  recordRevertReasons = false
  private readonly blockCache = new Map<string, Block>()
  private readonly receiptCache = new Map<string, Receipt[]>()
  private readonly stateCache = new Map<string, StateManager>()
  private readonly listeners = new Set<(e: NewBlockEvent) => void>()
  private readonly forkCommons = new Map<string, Common>()
  private readonly headResetListeners = new Set<(head: Block) => Promise<void> | void>()
  private headLock: Promise<unknown> = Promise.resolve()
  private readonly postStateRoots = new Map<string, Uint8Array | null>()
  /** The chain id in force at each block (set in `open`). */
  private chainIds?: ChainIdSchedule
  private blocksSinceFlush = 0
  /** The total difficulty of the last block committed (a block's never changes; headers are never deleted). */
  private lastCommittedTd?: { hash: Uint8Array; td: bigint }
  /** When the oldest unflushed block was committed (performance.now()); undefined when all is flushed. */
  private unflushedSinceMs?: number
  private flushTimer?: ReturnType<typeof setTimeout>

  readonly common: Common
  readonly store: ChainStore
  readonly trieDb: TrieDb
  /** How blocks' base fees are set and checked (EIP-1559, the dev floor, Besu's fixed and zero markets). */
  readonly baseFeeMarket: BaseFeeMarket

  constructor(common: Common, store: ChainStore, trieDb: TrieDb, baseFeeMarket: BaseFeeMarket = EIP1559_MARKET) {
    this.common = common
    this.store = store
    this.trieDb = trieDb
    this.baseFeeMarket = baseFeeMarket
  }

  /** The base fee of the block after `parent` (the head by default), by the chain's fee market. */
  nextBaseFee(parent: BlockHeader = this.head.header): bigint {
    return nextBaseFee(parent, this.baseFeeMarket)
  }

  /**
   * The base fee of a block built on the head now, as a producer writes it; undefined when that block
   * runs before London. Unlike `nextBaseFee(head)` it covers the first London block: after a genesis
   * without a base fee (Besu's rule for a London genesis without `londonBlock: 0`) or on London's
   * fork block, EIP-1559's initial base fee, so fee suggestions clear that block's base fee.
   */
  pendingBaseFee(): bigint | undefined {
    const c = this.commonForNextBlock()
    if (!c.isActivatedEIP(1559)) return undefined
    const number = this.head.header.number + 1n
    return producedBaseFee(this.head.header, this.baseFeeMarket, true, isLondonForkBlock(c, number)) ?? INITIAL_BASE_FEE
  }

  /**
   * Loads the chain from storage, or writes `genesis` into an empty store; refuses a foreign one.
   * A forked chain's first block is the remote's fork block, whose local state `localState` writes
   * (asked for once, when the store is empty).
   */
  async open(genesis: Block, localState?: () => Promise<Uint8Array>): Promise<void> {
    const stored = this.store.readMeta(META_GENESIS)
    if (stored && !equalBytes(stored, genesis.hash())) {
      throw new Error(
        `the data path holds the chain of genesis ${bytesToHex(stored)}, not of this genesis ${bytesToHex(genesis.hash())}; use another --data-path`,
      )
    }
    this.checkStorageFormat()
    this.genesis = genesis
    if (!stored) {
      const localStateRoot = await localState?.()
      this.store.db.transaction(() => {
        this.writeBlockRows(genesis, [], new Uint8Array(0), genesis.header.difficulty)
        this.store.writeCanonical({ number: genesis.header.number, hash: genesis.hash(), txHashes: [], logs: [] })
        this.bonsai?.initialize(genesis.header.stateRoot, KECCAK256_RLP)
        this.writePendingState()
        this.store.writeMeta(META_STORAGE_FORMAT, new TextEncoder().encode(this.trieDb.storageFormat))
        if (localStateRoot) this.store.writeMeta(META_POST_STATE + bytesToHex(genesis.hash()), localStateRoot)
        this.store.writeMeta(META_GENESIS, genesis.hash())
        this.store.writeMeta(META_HEAD, genesis.hash())
      })
    }
    this.scheduleStoredMerge()
    this.chainIds = new ChainIdSchedule(this.store, this.common)
    this.head = (await this.getBlockByHash(this.store.readMeta(META_HEAD)!))!
    const safe = this.store.readMeta(META_SAFE)
    const finalized = this.store.readMeta(META_FINALIZED)
    this.safe = safe ? await this.getBlockByHash(safe) : undefined
    this.finalized = finalized ? await this.getBlockByHash(finalized) : undefined
    log.info('chain opened', { genesis: bytesToHex(genesis.hash()), head: this.head.header.number })
  }

  /** Refuses a data path written in the other state storage format (as Besu does). */
  private checkStorageFormat(): void {
    const stored = storedStorageFormat(this.store)
    const wanted = this.trieDb.storageFormat
    if (stored !== undefined && stored !== wanted) {
      throw new Error(
        `the data path holds ${stored} state storage, not ${wanted}; start with --data-storage-format=${stored}, use another --data-path, ` +
          `or move the chain to a new ${wanted} data path with \`basalt blocks export\` and \`basalt blocks import --data-storage-format=${wanted}\` (docs/state-storage.md)`,
      )
    }
  }

  /** A chain stored past its TTD before this start: Paris goes back to the first proof-of-stake block. */
  private scheduleStoredMerge(): void {
    const ttd = terminalTotalDifficulty(this.common)
    if (ttd === undefined || !isMergePending(this.common)) return
    const first = findStoredMergeBlock(this.store, ttd)
    if (first !== undefined) scheduleMerge(this.common, first)
  }

  onNewBlock(fn: (e: NewBlockEvent) => void): () => void {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  async getBlockByHash(hash: Uint8Array): Promise<Block | undefined> {
    const key = bytesToHex(hash)
    const cached = this.blockCache.get(key)
    if (cached) return cached
    // The genesis block may have a header its fork's rules cannot decode (a base fee before London).
    if (this.genesis && equalBytes(hash, this.genesis.hash())) return this.genesis
    const headerRlp = this.store.readHeaderRlp(hash)
    const body = this.store.readBody(hash)
    if (!headerRlp || !body) return undefined
    const bodyValues = RLP.decode(body.rlp) as unknown as Uint8Array[][]
    const headerValues = RLP.decode(headerRlp) as Uint8Array[]
    const common = this.rulesAt(bytesToBigint(headerValues[8]))
    const block = decodeWithoutKzg(common, () =>
      createBlockFromBytesArray([headerValues as never, ...bodyValues] as never, {
        common,
        setHardfork: true,
        // Not frozen, so that the stored senders can be attached to the transactions.
        freeze: false,
      }),
    )
    useStoredSenders(block, body.senders)
    keepTransactionHashes(block)
    this.cacheBlock(key, block)
    return block
  }

  async getBlockByNumber(n: bigint): Promise<Block | undefined> {
    if (n === this.head.header.number) return this.head
    const hash = this.store.readCanonicalHash(n)
    return hash ? this.getBlockByHash(hash) : undefined
  }

  getHeaderByHash(hash: Uint8Array): BlockHeader | undefined {
    const cached = this.blockCache.get(bytesToHex(hash))
    if (cached) return cached.header
    if (this.genesis && equalBytes(hash, this.genesis.hash())) return this.genesis.header
    const rlp = this.store.readHeaderRlp(hash)
    if (!rlp) return undefined
    const values = RLP.decode(rlp) as Uint8Array[]
    return createBlockHeaderFromBytesArray(values as never, {
      common: this.rulesAt(bytesToBigint(values[8])),
      setHardfork: true,
    })
  }

  /**
   * The chain's rules under the chain id block `number` was sealed with (`chain.common` carries the
   * latest id; see `chainIds.ts`): stored blocks are decoded and replayed under these.
   */
  rulesAt(number: bigint): Common {
    return this.chainIds?.rulesAt(number) ?? this.common
  }

  /** Makes `chainId` the chain id from the block after the head on (kept in the database). */
  setChainId(chainId: bigint): void {
    this.chainIds!.set(this.head.header.number + 1n, chainId)
    this.forkCommons.clear()
  }

  /** The block a tag, number or hash names; undefined when there is none (or not canonical as required). */
  async resolve(ref: BlockRef): Promise<Block | undefined> {
    if (typeof ref === 'bigint') return ref > this.head.header.number ? undefined : this.getBlockByNumber(ref)
    if (typeof ref === 'object') {
      const block = await this.getBlockByHash(ref.hash)
      if (block && ref.requireCanonical && !this.isCanonical(block)) return undefined
      return block
    }
    switch (ref) {
      case 'latest':
      case 'pending':
        return this.head
      case 'earliest':
        return this.genesis
      case 'safe':
        return this.safe
      case 'finalized':
        return this.finalized
    }
  }

  /** The fork rules of a block built on the head now (for decoding and validating new transactions). */
  commonForNextBlock(): Common {
    const next = this.head.header.number + 1n
    const timestamp = BigInt(Math.max(Math.floor(Date.now() / 1000), Number(this.head.header.timestamp) + 1))
    const fork = this.common.getHardforkBy({ blockNumber: next, timestamp })
    let c = this.forkCommons.get(fork)
    if (!c) {
      c = this.common.copy()
      c.setHardfork(fork)
      this.forkCommons.set(fork, c)
    }
    return c
  }

  isCanonical(block: Block): boolean {
    const hash = this.store.readCanonicalHash(block.header.number)
    return hash !== undefined && equalBytes(hash, block.hash())
  }

  getTotalDifficulty(hash: Uint8Array): bigint | undefined {
    return this.store.readTotalDifficulty(hash)
  }

  /** The senders of a stored block's transactions, in order. */
  getSenders(block: Block): Uint8Array[] {
    const body = this.store.readBody(block.hash())
    if (!body) return block.transactions.map((tx) => tx.getSenderAddress().bytes)
    const out: Uint8Array[] = []
    for (let i = 0; i < body.senders.length; i += 20) out.push(body.senders.subarray(i, i + 20))
    return out
  }

  getReceipts(block: Block): Receipt[] {
    const key = bytesToHex(block.hash())
    let r = this.receiptCache.get(key)
    if (!r) {
      const rlp = this.store.readReceiptsRlp(block.hash())
      r = rlp ? decodeReceipts(rlp) : []
      const reasons = r.some((x) => x.status === 0) ? this.store.readRevertReasons(block.hash()) : undefined
      if (reasons) attachRevertReasons(r, reasons)
      this.cacheReceipts(key, r)
    }
    return r
  }

  /** Where a canonical transaction sits, or undefined. */
  async findTransaction(txHash: Uint8Array): Promise<{ block: Block; index: number } | undefined> {
    const loc = this.store.readTxLocation(txHash)
    if (!loc) return undefined
    const block = await this.getBlockByHash(loc.blockHash)
    return block ? { block, index: loc.index } : undefined
  }

  /**
   * Throws StateUnavailableError when the state after `block` has left the BONSAI history window
   * and the state history does not hold it either.
   */
  assertStateRetained(block: Block): void {
    if (this.bonsai && !this.bonsai.isRetained(block.header.number, this.head.header.number)) {
      if (!this.isInHistory(block)) throw new StateUnavailableError(block.header.number)
    }
  }

  /** Whether the state after `block` is served from the BONSAI state history (below the window). */
  private isInHistory(block: Block): boolean {
    return this.bonsai?.isInHistory(block.header.number, this.head.header.number) === true && this.isCanonical(block)
  }

  /** Whether `openHistoricalState` opens the state after `block` (without opening it). */
  isHistoricalState(block: Block): boolean {
    return this.bonsai?.history !== undefined && this.isInHistory(block)
  }

  /**
   * A writable view of the state after `block` when only the state history holds it (below the
   * window): its reads come from the history, code from `code` (the node store or an overlay of it),
   * its writes stay in its caches. Undefined when the block's trie is stored (open that instead).
   */
  openHistoricalState(block: Block, code: CodeSource): StateManager | undefined {
    const history = this.bonsai?.history
    if (!history || !this.isInHistory(block)) return undefined
    return openHistoricalState(this.common, this.postStateRoot(block), block.header.number, history, code)
  }

  /**
   * A read-only view of the state after `block`, shared between callers: never write to it. The
   * views of the last few state roots are kept, the head's with an account cache, so that repeated
   * reads at the head (balances, nonces for the pool) skip both the trie set-up and the trie walk.
   */
  stateAt(block: Block): StateManager {
    this.assertStateRetained(block)
    const root = this.postStateRoot(block)
    // A state below the window is read from the history, never from a view of its (pruned) trie.
    const isHistorical = block !== this.head && this.isInHistory(block)
    const key = (isHistorical ? 'history:' : '') + hexOf(root)
    let state = this.stateCache.get(key)
    if (!state) {
      if (this.bonsai && block === this.head) state = openFlatView(this.trieDb, this.common, root, this.bonsai)
      else if (isHistorical) state = this.openHistoricalState(block, this.trieDb)!
      else state = openState(this.trieDb, this.common, root, block === this.head)
      this.stateCache.set(key, state)
      if (this.stateCache.size > STATE_CACHE_SIZE) this.stateCache.delete(this.stateCache.keys().next().value!)
    }
    return state
  }

  /**
   * Stores an executed block with its receipts and the state it wrote (pending in the trie store),
   * in one transaction; with `setHead` it becomes the head, reorganising if needed.
   */
  async commitBlock(block: Block, receipts: TxReceipt[], senders: Uint8Array[], opts: CommitOptions): Promise<void> {
    keepHeaderHash(block)
    keepTransactionHashes(block)
    const last = this.lastCommittedTd
    const parentTd =
      last && equalBytes(last.hash, block.header.parentHash)
        ? last.td
        : (this.store.readTotalDifficulty(block.header.parentHash) ?? 0n)
    const td = parentTd + block.header.difficulty
    const ttd = terminalTotalDifficulty(this.common)
    if (ttd !== undefined && td >= ttd && isMergePending(this.common))
      scheduleMerge(this.common, block.header.number + 1n)
    const sendersBytes = new Uint8Array(senders.length * 20)
    for (let i = 0; i < senders.length; i++) sendersBytes.set(senders[i], i * 20)
    const receiptsRlp = encodeReceipts(
      receipts,
      block.transactions.map((t) => t.type),
    )
    const extendsHead = equalBytes(block.header.parentHash, this.head.hash())
    const decoded = decodeReceipts(receiptsRlp)
    const reasonsRlp =
      this.recordRevertReasons && opts.revertReasons ? encodeRevertReasons(opts.revertReasons) : undefined
    if (reasonsRlp) attachRevertReasons(decoded, reasonsRlp)
    let logs: StoredLog[] = []
    const newCanonical: Block[] = []
    if (opts.setHead && !extendsHead) newCanonical.push(...(await this.nonCanonicalAncestors(block)))
    useStoredSenders(block, sendersBytes)
    const bonsai = this.bonsai
    const parent = bonsai ? await this.getBlockByHash(block.header.parentHash) : undefined
    if (bonsai && !parent) throw new Error(`parent of block ${block.header.number} not found`)
    // A block stored without its state (never executed here) gets no trie log; a head move over it fails.
    const trieLog =
      parent && bonsai?.hasState(block.header.stateRoot)
        ? bonsai.computeLog(this.postStateRoot(parent), block.header.stateRoot)
        : undefined
    const undo =
      bonsai && opts.setHead && !extendsHead
        ? await this.canonicalAbove((newCanonical[0] ?? block).header.number - 1n)
        : []
    // The timer below flushes when the event loop turns; a run of commits that never lets it (an
    // import) is held to the same bound here, so a crash never leaves more than it to re-execute.
    const nowMs = performance.now()
    this.unflushedSinceMs ??= nowMs
    const isFlushDue =
      (opts.setHead && bonsai?.isPruneDue(block.header.number)) ||
      ++this.blocksSinceFlush >= STATE_FLUSH_BLOCKS ||
      this.trieDb.pendingCount >= STATE_FLUSH_NODES ||
      nowMs - this.unflushedSinceMs >= STATE_FLUSH_INTERVAL_MS
    this.stateTransaction(() => {
      this.writeBlockRows(block, [receiptsRlp], sendersBytes, td, opts.blockAccessList, reasonsRlp)
      if (isFlushDue) this.writePendingState()
      if (bonsai && trieLog) bonsai.recordLog(logBlock(block), trieLog, 0)
      if (!opts.setHead) return
      // The block's own log was computed above; a block with no edit recorded after it has no other.
      const head = trieLog && !this.hasPostStateEdit(block) ? { ...logBlock(block), logs: [trieLog] } : logBlock(block)
      bonsai?.move(undo.map(logBlock), [...newCanonical.map(logBlock), head], block.header.number)
      if (!extendsHead) this.store.deleteCanonicalFrom(newCanonical[0]?.header.number ?? block.header.number)
      for (const b of newCanonical) this.writeCanonicalRows(b, this.getReceipts(b))
      logs = this.writeCanonicalRows(block, decoded)
      this.store.writeMeta(META_HEAD, block.hash())
    })
    this.lastCommittedTd = { hash: block.hash(), td }
    if (!isFlushDue) this.scheduleFlush()
    this.cacheBlock(bytesToHex(block.hash()), block)
    this.cacheReceipts(bytesToHex(block.hash()), decoded)
    if (!opts.setHead) return
    this.head = block
    for (const fn of this.listeners) fn({ block, receipts: decoded, logs })
  }

  /** Starts the flush timer unless it runs. */
  private scheduleFlush(): void {
    if (this.flushTimer) return
    this.flushTimer = setTimeout(() => this.flushState(), STATE_FLUSH_INTERVAL_MS)
    this.flushTimer.unref?.()
  }

  /**
   * Whether the trie nodes and code of every committed state, and the flat rows of the head, are in
   * SQLite (none waits for the flush timer), so that another connection reading the head state
   * finds all of it.
   */
  get isStateWritten(): boolean {
    return this.unflushedSinceMs === undefined && this.bonsai?.isFlatHeld !== true
  }

  /**
   * Writes the state nodes held in memory (before close, and on the flush timer). On BONSAI only the
   * nodes a committed state holds are written (see TrieDb.takePending); `isEverything` writes all
   * (crash recovery, whose replayed blocks record no trie logs).
   */
  flushState(isEverything = false): void {
    this.store.db.transaction(() => this.writePendingState(isEverything))
  }

  private writePendingState(isEverything = false): void {
    const referenced = isEverything ? undefined : this.bonsai?.referenced
    this.store.writeTrieNodes(this.trieDb.takePending(referenced))
    referenced?.clear()
    this.bonsai?.writeDeferred()
    this.blocksSinceFlush = 0
    this.unflushedSinceMs = undefined
    clearTimeout(this.flushTimer)
    this.flushTimer = undefined
  }

  /** Moves the head to an already stored block (forkchoice), reorganising the canonical index. */
  async setHead(block: Block): Promise<void> {
    if (equalBytes(block.hash(), this.head.hash())) return
    const isOnChain = this.isCanonical(block)
    const branch = isOnChain ? [] : [...(await this.nonCanonicalAncestors(block)), block]
    const undo = this.bonsai
      ? await this.canonicalAbove(isOnChain ? block.header.number : branch[0].header.number - 1n)
      : []
    this.stateTransaction(() => {
      if (this.bonsai?.isPruneDue(block.header.number)) this.writePendingState()
      this.bonsai?.move(undo.map(logBlock), branch.map(logBlock), block.header.number)
      this.store.deleteCanonicalFrom(isOnChain ? block.header.number + 1n : branch[0].header.number)
      for (const b of branch) this.writeCanonicalRows(b, this.getReceipts(b))
      this.store.writeMeta(META_HEAD, block.hash())
      this.chainIds?.followHead(block.header.number)
    })
    // A move forward holds the flat rows it applied until the next flush (BonsaiState.move).
    if (this.bonsai?.isFlatHeld) {
      this.unflushedSinceMs ??= performance.now()
      this.scheduleFlush()
    }
    this.head = block
    for (const fn of this.listeners) fn({ block, receipts: this.getReceipts(block), logs: [] })
  }

  /**
   * Runs a run of commits (the blocks of one `hardhat_mine`) inside one SQLite transaction, each
   * block a savepoint of it, so that they share one commit: a crash before its end leaves the chain
   * at the head it had before (see SqlDatabase.batch).
   */
  commitTogether<T>(fn: () => Promise<T>): Promise<T> {
    return this.store.db.batch(fn)
  }

  /**
   * Runs `fn` with no other exclusive section in between: the dev sealer builds each block inside
   * one, and head resets (debug_setHead, debug_replayBlock, evm_revert) take one, so that a block is
   * never built on a head that moves under it.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.headLock.then(fn)
    this.headLock = run.catch(() => {})
    return run
  }

  /**
   * Moves the head by hand to any stored block (back, forward or to another branch), keeping every
   * block stored; safe and finalized never stay above it. Listeners (the pool's revalidation) run
   * before it resolves. Call inside `exclusive`.
   */
  async resetHead(block: Block): Promise<void> {
    await this.setHead(block)
    await this.afterHeadReset(block)
  }

  private async afterHeadReset(block: Block): Promise<void> {
    const n = block.header.number
    const safe = this.safe && this.safe.header.number > n ? block : undefined
    const finalized = this.finalized && this.finalized.header.number > n ? block : undefined
    if (safe || finalized) this.setSafeAndFinalized(safe, finalized)
    for (const fn of this.headResetListeners) await fn(block)
  }

  /**
   * Makes the canonical `block`, below the head and outside the history window, the head once its
   * state has been written again (pending trie nodes, see `rebuildStateAt`): the flat tables are
   * rebuilt from that state, since the trie logs that would move them back are gone, and the states
   * below it are no longer kept. The blocks above stay stored, off the canonical chain. Listeners
   * run as after `resetHead`. Call inside `exclusive`.
   */
  async resetHeadRebuilt(block: Block): Promise<void> {
    const bonsai = this.bonsai
    if (!bonsai) throw new Error('only BONSAI state storage rebuilds a state below its window')
    this.stateTransaction(() => {
      this.store.deleteCanonicalFrom(block.header.number + 1n)
      bonsai.rebuildFlat(this.postStateRoot(block), KECCAK256_RLP, this.trieDb.pendingKeys(), block.header.number)
      bonsai.retainFrom(block.header.number)
      bonsai.history?.truncate(block.header.number)
      this.writePendingState()
      this.store.writeMeta(META_HEAD, block.hash())
      this.chainIds?.followHead(block.header.number)
    })
    this.dropStateViews()
    this.head = block
    for (const fn of this.listeners) fn({ block, receipts: this.getReceipts(block), logs: [] })
    await this.afterHeadReset(block)
  }

  /**
   * Starts the chain over from another first block (a forked dev chain moved to another fork point
   * by `anvil_reset`): the earlier blocks stay stored but leave the canonical chain, and `block`,
   * with `localStateRoot` as the state after it, becomes genesis and head; `meta` rows are written
   * in the same transaction. Listeners run as after `resetHead`. Call inside `exclusive`.
   */
  async restartFrom(block: Block, localStateRoot: Uint8Array, meta: [string, Uint8Array][]): Promise<void> {
    const hash = block.hash()
    this.store.db.transaction(() => {
      this.store.deleteCanonicalFrom(0n)
      this.writeBlockRows(block, [], new Uint8Array(0), block.header.difficulty)
      this.store.writeCanonical({ number: block.header.number, hash, txHashes: [], logs: [] })
      this.writePendingState()
      this.store.writeMeta(META_POST_STATE + bytesToHex(hash), localStateRoot)
      for (const [key, value] of meta) this.store.writeMeta(key, value)
      this.store.writeMeta(META_GENESIS, hash)
      this.store.writeMeta(META_HEAD, hash)
      if (this.safe) this.store.writeMeta(META_SAFE, hash)
      if (this.finalized) this.store.writeMeta(META_FINALIZED, hash)
    })
    for (const cache of [this.blockCache, this.receiptCache, this.stateCache, this.postStateRoots]) cache.clear()
    this.genesis = block
    this.head = block
    this.safe = this.safe && block
    this.finalized = this.finalized && block
    for (const fn of this.listeners) fn({ block, receipts: [], logs: [] })
    for (const fn of this.headResetListeners) await fn(block)
  }

  /** Drops the cached state views (and the accounts they cached) after the stored state was rewritten under them. */
  dropStateViews(): void {
    this.stateCache.clear()
  }

  /**
   * Runs `fn` in one SQLite transaction that may move the BONSAI state; after a rollback the state
   * history forgets the key ids it holds in memory (some may be of rows that were rolled back), and
   * the records held back (stale nodes, history rows) are replayed from the stored trie logs before the next write.
   */
  private stateTransaction(fn: () => void): void {
    try {
      this.store.db.transaction(fn)
    } catch (e) {
      this.bonsai?.history?.forget()
      this.bonsai?.forgetDeferred()
      throw e
    }
  }

  /** Called after every `resetHead`, with the new head. */
  onHeadReset(fn: (head: Block) => Promise<void> | void): () => void {
    this.headResetListeners.add(fn)
    return () => this.headResetListeners.delete(fn)
  }

  /**
   * The state root after `block`: its header's, or the root the dev tools (`hardhat_setBalance`, …)
   * recorded for it when they edited the state on top of it. Every reader and re-execution that
   * starts from a block's state asks here, so a later block replays on the edited state.
   */
  postStateRoot(block: Block): Uint8Array {
    const key = blockHashHex(block)
    let root = this.postStateRoots.get(key)
    if (root === undefined) {
      root = this.store.readMeta(META_POST_STATE + key) ?? null
      this.postStateRoots.set(key, root)
      if (this.postStateRoots.size > BLOCK_CACHE_SIZE) {
        this.postStateRoots.delete(this.postStateRoots.keys().next().value!)
      }
    }
    return root ?? block.header.stateRoot
  }

  /** Whether the dev tools recorded an edited state after `block` (then it has edit trie logs too). */
  private hasPostStateEdit(block: Block): boolean {
    this.postStateRoot(block)
    return this.postStateRoots.get(blockHashHex(block)) != null
  }

  /** Records the edited state after `block` (its trie nodes written in the same transaction). */
  setPostStateRoot(block: Block, root: Uint8Array): void {
    const key = bytesToHex(block.hash())
    const bonsai = this.bonsai
    const edit = bonsai?.computeLog(this.postStateRoot(block), root)
    this.stateTransaction(() => {
      this.writePendingState()
      this.store.writeMeta(META_POST_STATE + key, root)
      if (!bonsai || !edit) return
      bonsai.recordLog(logBlock(block), edit, bonsai.logCount(logBlock(block)))
      if (equalBytes(block.hash(), this.head.hash())) bonsai.applyEdit(edit, logBlock(block))
    })
    this.postStateRoots.set(key, root)
  }

  setSafeAndFinalized(safe: Block | undefined, finalized: Block | undefined): void {
    this.store.db.transaction(() => {
      if (safe) this.store.writeMeta(META_SAFE, safe.hash())
      if (finalized) this.store.writeMeta(META_FINALIZED, finalized.hash())
    })
    if (safe) this.safe = safe
    if (finalized) this.finalized = finalized
  }

  /** The canonical blocks above number `n`, newest first (the head first). */
  private async canonicalAbove(n: bigint): Promise<Block[]> {
    const out: Block[] = []
    let cur: Block | undefined = this.head
    while (cur && cur.header.number > n) {
      out.push(cur)
      cur = await this.getBlockByHash(cur.header.parentHash)
    }
    return out
  }

  /**
   * What moving the head to `block` reorganises: Besu's reorg depth (the head's number minus that of
   * the newest block `block` shares with the canonical chain; 0 when `block` descends from the
   * head) and whether the head state can be moved there (on BONSAI, the trie logs that undo the
   * blocks above that common block are kept only inside the window). Undefined when `block`'s
   * ancestry leaves the stored blocks before meeting the canonical chain.
   */
  reorgTo(block: Block): { depth: bigint; isStateReachable: boolean } | undefined {
    let header: BlockHeader | undefined = block.header
    while (header) {
      const canonical = this.store.readCanonicalHash(header.number)
      if (canonical && equalBytes(canonical, header.hash())) break
      header = this.getHeaderByHash(header.parentHash)
    }
    if (!header) return undefined
    const headNumber = this.head.header.number
    const common = minBigInt(header.number, headNumber)
    return {
      depth: headNumber - common,
      isStateReachable: !this.bonsai || this.bonsai.isRetained(common, headNumber),
    }
  }

  /** The non-canonical ancestors of `tip` down to the fork point, oldest first (not `tip` itself). */
  private async nonCanonicalAncestors(tip: Block): Promise<Block[]> {
    const out: Block[] = []
    let cur = await this.getBlockByHash(tip.header.parentHash)
    while (cur && !this.isCanonical(cur)) {
      out.unshift(cur)
      cur = await this.getBlockByHash(cur.header.parentHash)
    }
    return out
  }

  private writeBlockRows(
    block: Block,
    receiptsRlp: Uint8Array[],
    senders: Uint8Array,
    td: bigint,
    blockAccessListRlp?: Uint8Array,
    revertReasonsRlp?: Uint8Array,
  ): void {
    const raw = block.raw()
    this.store.writeBlock({
      hash: block.hash(),
      number: block.header.number,
      totalDifficulty: td,
      headerRlp: RLP.encode(raw[0]),
      bodyRlp: RLP.encode(raw.slice(1) as never),
      senders,
      receiptsRlp: receiptsRlp[0] ?? RLP.encode([]),
      blockAccessListRlp,
      revertReasonsRlp,
    })
  }

  private writeCanonicalRows(block: Block, receipts: Receipt[]): StoredLog[] {
    const hash = block.hash()
    const txHashes = block.transactions.map((t: TypedTransaction) => t.hash())
    const logs: StoredLog[] = []
    receipts.forEach((r, txIndex) => {
      for (const [address, topics, data] of r.logs) {
        logs.push({
          blockNumber: Number(block.header.number),
          logIndex: logs.length,
          blockHash: hash,
          txHash: txHashes[txIndex],
          txIndex,
          address,
          topics,
          data,
          blockTimestamp: Number(block.header.timestamp),
        })
      }
    })
    this.store.writeCanonical({ number: block.header.number, hash, txHashes, logs })
    return logs
  }

  private cacheReceipts(key: string, receipts: Receipt[]): void {
    this.receiptCache.set(key, receipts)
    if (this.receiptCache.size > BLOCK_CACHE_SIZE) this.receiptCache.delete(this.receiptCache.keys().next().value!)
  }

  private cacheBlock(key: string, block: Block): void {
    keepHeaderHash(block)
    this.blockCache.set(key, block)
    if (this.blockCache.size > BLOCK_CACHE_SIZE) this.blockCache.delete(this.blockCache.keys().next().value!)
  }
}

/** `block`'s hash in hex, made once per block object (every state read at a block asks for it). */
const blockHashHex = weakMemo((block: Block) => bytesToHex(block.hash()))

/** A state root in hex, made once per bytes object (roots are never written in place). */
const hexOf = weakMemo((root: Uint8Array) => bytesToHex(root))

function logBlock(block: Block): LogBlock {
  return { hash: block.hash(), number: block.header.number }
}
