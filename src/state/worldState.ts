/**
 * World state over the trie store: a MerkleStateManager whose trie reads and writes go to `TrieDb`.
 * A retained block's state is one `stateAt(root)` away: FOREST never deletes trie nodes, BONSAI
 * keeps them for the history window (see bonsaiState.ts). A BONSAI head view answers account and
 * storage reads from the flat tables, one lookup instead of a trie walk.
 * On a forked chain (`TrieDb.fork` set) the state falls through to the remote (see forkState.ts).
 */
import type { Common } from '@ethereumjs/common'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { type AccountCache, Caches, type MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, type Address, bytesToUnprefixedHex, createAccountFromRLP, ValueEncoding } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex, equalBytes } from '../primitives/hex.ts'
import { weakMemo } from '../primitives/weakMemo.ts'
import { BatchedStateManager } from './batchedStateManager.ts'
import type { BonsaiState } from './bonsaiState.ts'
import { openForkState } from './forkState.ts'
import type { TrieDb } from './trieDb.ts'

export type StateManager = MerkleStateManager

/** What a flat view reads: the flat tables, and whether they hold a given state. */
export type FlatHead = Pick<BonsaiState, 'flat' | 'isAt'>

/**
 * A state manager rooted at `root`. `isWriter` adds the account/storage/code caches that make
 * block building fast; readers go without, so that they cost nothing to create. A writer given the
 * BONSAI flat head (`flat`) reads what its caches miss from the flat tables while they hold its
 * state (see FlatWriter).
 */
export function openState(
  db: TrieDb,
  common: Common,
  root: Uint8Array,
  isWriter = false,
  flat?: FlatHead,
): StateManager {
  const caches = isWriter ? new Caches() : undefined
  const opts = { common, trie: openTrie(db, common, root), caches, ...prefixOpts(db) }
  const state = db.fork
    ? openForkState(db, db.fork, common, root, caches)
    : isWriter && flat
      ? new FlatWriter(opts, flat)
      : new BatchedStateManager(opts)
  if (isWriter) db.preimages?.record(state)
  return state
}

/**
 * A view of the state at `root` whose account and storage reads come from the flat tables while
 * they hold that state (and from the trie once the head has moved on). The chain's shared head view
 * is read-only; a simulation's scratch copy (over an overlay store) may write, its writes staying
 * in its caches and overlay, never in the flat tables.
 */
export function openFlatView(db: TrieDb, common: Common, root: Uint8Array, bonsai: FlatHead): StateManager {
  const caches = new Caches()
  holdDecodedAccounts(caches.account!)
  return new FlatView({ common, trie: openTrie(db, common, root), caches, ...prefixOpts(db) }, bonsai)
}

/**
 * An account cache element holding the account itself; its RLP is made only when something reads
 * it (a flush into the trie, the library's own `getAccount`), and then once.
 */
class HeldAccount {
  readonly account: Account
  private rlp: Uint8Array | undefined

  constructor(account: Account) {
    this.account = account
  }

  get accountRLP(): Uint8Array {
    this.rlp ??= this.account.serialize()
    return this.rlp
  }
}

/**
 * A copy of `a` as decoding its RLP gives it (code size and version left at their defaults, which
 * the RLP does not hold). Reads each field once, as `serialize()` does.
 */
function copyAccount(a: Account): Account {
  return new Account(a.nonce, a.balance, a.storageRoot, a.codeHash)
}

/** Accounts decoded from an RLP, by the identity of its bytes (flat rows and cached RLP never change). */
const decodedAccount = weakMemo((rlp: Uint8Array) => createAccountFromRLP(rlp))

/** The account an RLP encodes, decoded once per bytes object; the caller gets its own copy. */
function accountFromRLP(rlp: Uint8Array): Account {
  return copyAccount(decodedAccount(rlp))
}

/**
 * Makes `cache.put` keep a copy of the account instead of its RLP (`HeldAccount`), so that the
 * writes of a simulation that is reverted (the sender's nonce, a zero-value transfer) never encode
 * an account, and a read of a cached account is a copy, not a decode. What the cache hands to the
 * library (its RLP, on a flush or a library read) is the same bytes `put` would have stored.
 */
function holdDecodedAccounts(cache: AccountCache): void {
  const put = cache.put.bind(cache)
  cache.put = (address, account, couldBePartialAccount = false) => {
    if (account === undefined || couldBePartialAccount) return put(address, account, couldBePartialAccount)
    const held = new HeldAccount(copyAccount(account))
    const key = bytesToUnprefixedHex(address.bytes)
    cache._saveCachePreState(key)
    if (cache._lruCache) cache._lruCache.set(key, held)
    else cache._orderedMapCache!.setElement(key, held)
    cache._stats.writes += 1
  }
}

/** The account of a cache element (`undefined`: known not to exist), without decoding a held one. */
function cachedAccount(elem: { accountRLP: Uint8Array | undefined }): Account | undefined {
  if (elem instanceof HeldAccount) return copyAccount(elem.account)
  return elem.accountRLP !== undefined ? accountFromRLP(elem.accountRLP) : undefined
}

function openTrie(db: TrieDb, common: Common, root: Uint8Array): MerklePatriciaTrie {
  return new MerklePatriciaTrie({ db, root, useKeyHashing: true, valueEncoding: ValueEncoding.Bytes, common })
}

function prefixOpts(db: TrieDb): { prefixStorageTrieKeys: boolean } {
  return { prefixStorageTrieKeys: db.storageFormat === 'BONSAI' }
}

type StateOpts = ConstructorParameters<typeof MerkleStateManager>[0]

/** Bound on the rows and storage roots a flat view remembers (it forgets them all when full). */
const FLAT_MEMO_ENTRIES = 1 << 16

class FlatView extends BatchedStateManager {
  private readonly viewRoot: Uint8Array
  private readonly keccak: (b: Uint8Array) => Uint8Array
  private readonly bonsai: FlatHead
  /**
   * Storage root of each account as read from the flat tables, by address. The flat slots of an
   * account answer only while its current storage root is still that one: a cleared, deleted or
   * re-created account (new root) reads its storage from its own trie.
   */
  private readonly flatStorageRoots = new Map<string, Uint8Array>()
  /**
   * Flat rows read so far, by address (and slot). They hold this view's state whenever they are
   * used, so they never go stale; a simulation that reverts its caches after each run (a shared
   * eth_call session) reads them again without a query.
   */
  private readonly flatRows = new Map<string, Uint8Array | undefined>()

  constructor(opts: StateOpts, bonsai: FlatHead) {
    super(opts)
    this.bonsai = bonsai
    this.viewRoot = opts!.trie!.root()
    this.keccak = opts!.common!.customCrypto.keccak256 ?? keccak_256
  }

  /** Whether the flat tables hold this view's state and nothing has been flushed into its trie. */
  private get isFlat(): boolean {
    return this.bonsai.isAt(this.viewRoot) && equalBytes(this._trie.root(), this.viewRoot)
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    if (!this.isFlat) return super.getAccount(address)
    const cached = this._caches?.account?.get(address)
    if (cached !== undefined) return cachedAccount(cached)
    const addressHex = bytesToHex(address.bytes)
    const rlp = this.readFlat(addressHex, () => this.bonsai.flat.readAccount(this.keccak(address.bytes)))
    const account = rlp ? accountFromRLP(rlp) : undefined
    if (account) {
      if (this.flatStorageRoots.size >= FLAT_MEMO_ENTRIES) this.flatStorageRoots.clear()
      this.flatStorageRoots.set(addressHex, account.storageRoot)
    }
    this._caches?.account?.put(address, account)
    return account
  }

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    if (!this.isFlat || key.length !== 32) return super.getStorage(address, key)
    const cached = this._caches?.storage?.get(address, key)
    if (cached !== undefined) return RLP.decode(cached) as Uint8Array
    const account = await this.getAccount(address)
    if (!account) return new Uint8Array(0)
    const addressHex = bytesToHex(address.bytes)
    const flatRoot = this.flatStorageRoots.get(addressHex)
    // Checked again after the await: a block committed meanwhile moves the flat tables.
    if (!this.isFlat || flatRoot === undefined || !equalBytes(flatRoot, account.storageRoot))
      return super.getStorage(address, key)
    const value = this.readFlat(addressHex + bytesToHex(key), () =>
      this.bonsai.flat.readSlot(this.keccak(address.bytes), this.keccak(key)),
    )
    return value ? (RLP.decode(value) as Uint8Array) : new Uint8Array(0)
  }

  /** A flat row, from the memo or read now (only while `isFlat`). */
  private readFlat(key: string, read: () => Uint8Array | undefined): Uint8Array | undefined {
    if (this.flatRows.has(key)) return this.flatRows.get(key)
    const value = read()
    if (this.flatRows.size >= FLAT_MEMO_ENTRIES) this.flatRows.clear()
    this.flatRows.set(key, value)
    return value
  }
}

/** Bound on the flat storage roots a writer remembers for one state root (it forgets them all when full). */
const FLAT_WRITER_ROOTS = 1 << 12

/** The RLP of an empty slot, as the library caches a slot it found absent. */
const EMPTY_SLOT_RLP = Uint8Array.of(0x80)

/**
 * The writer of a BONSAI head (block building, import): an account or slot its caches miss is read
 * from the flat tables while they hold the state at the writer's trie root, one lookup instead of
 * a walk down the account trie or a storage trie (the new recipient of each transfer, the new
 * holder's slot of each token transfer). That holds between blocks and through a block's
 * transactions, whose writes wait in the caches; the block's flush moves the root and the commit
 * moves the tables, so a writer on any other state (a side chain's parent, the moment between the
 * flush and the commit) reads the trie as before. An account's slots come from the tables only
 * while its storage root is the one they hold: storage cleared, or an account deleted or made again
 * in the block, reads its own trie. Misses are cached as the library caches its trie reads.
 */
class FlatWriter extends BatchedStateManager {
  private readonly flat: FlatHead
  private readonly keccak: (b: Uint8Array) => Uint8Array
  /** The state root `flatStorageRoots` belongs to. */
  private rootsAt?: Uint8Array
  /** Storage root of each account in the flat tables (undefined: no account), by address. */
  private readonly flatStorageRoots = new Map<string, Uint8Array | undefined>()

  constructor(opts: StateOpts, flat: FlatHead) {
    super(opts)
    this.flat = flat
    this.keccak = opts!.common!.customCrypto.keccak256 ?? keccak_256
  }

  /** Whether the flat tables hold the state at the trie's root now. */
  private get isFlat(): boolean {
    return this.flat.isAt(this._trie.root())
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    const cache = this._caches?.account
    const cached = cache?.get(address)
    if (cached !== undefined) return cached.accountRLP !== undefined ? accountFromRLP(cached.accountRLP) : undefined
    if (cache === undefined || !this.isFlat) return super.getAccount(address)
    const rlp = this.flat.flat.readAccount(this.keccak(address.bytes))
    const account = rlp ? accountFromRLP(rlp) : undefined
    cache.put(address, account)
    return account
  }

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const cache = this._caches?.storage
    if (cache === undefined || key.length !== 32) return super.getStorage(address, key)
    const cached = cache.get(address, key)
    if (cached !== undefined) return RLP.decode(cached) as Uint8Array
    const account = await this.getAccount(address)
    if (!account) return new Uint8Array(0)
    if (!this.hasFlatSlots(address, account)) return super.getStorage(address, key)
    const value = this.flat.flat.readSlot(this.keccak(address.bytes), this.keccak(key))
    cache.put(address, key, value ?? EMPTY_SLOT_RLP)
    return value ? (RLP.decode(value) as Uint8Array) : new Uint8Array(0)
  }

  /** Whether the flat tables hold `account`'s slots: they hold this state, and its storage root. */
  private hasFlatSlots(address: Address, account: Account): boolean {
    const root = this._trie.root()
    if (!this.flat.isAt(root)) return false
    if (this.rootsAt === undefined || !equalBytes(this.rootsAt, root)) {
      this.flatStorageRoots.clear()
      this.rootsAt = root
    }
    const addressHex = bytesToHex(address.bytes)
    let flatRoot = this.flatStorageRoots.get(addressHex)
    if (flatRoot === undefined && !this.flatStorageRoots.has(addressHex)) {
      const rlp = this.flat.flat.readAccount(this.keccak(address.bytes))
      flatRoot = rlp ? decodedAccount(rlp).storageRoot : undefined
      if (this.flatStorageRoots.size >= FLAT_WRITER_ROOTS) this.flatStorageRoots.clear()
      this.flatStorageRoots.set(addressHex, flatRoot)
    }
    return flatRoot !== undefined && equalBytes(flatRoot, account.storageRoot)
  }
}
