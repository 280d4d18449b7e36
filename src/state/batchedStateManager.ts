/**
 * A MerkleStateManager whose flush (once per block when a block is built or imported: the block's
 * checkpoint holds the transactions' writes in the caches, and the block's state root flushes them
 * all) updates each changed storage trie and then the account trie in one pass over their sorted
 * changed keys (`TrieUpdate`), where the library puts the keys one at a time and so encodes and
 * hashes the upper nodes again for every key (a third of the nodes a one-transfer block formatted
 * were such in-between states, written and never referenced). Nodes are read and written through
 * the trie's own database wrapper, as the library's are: inside a checkpoint the new nodes wait in
 * it and go with its revert. On BONSAI each flush also leaves its trie log with the trie store
 * (what the updates changed, created and left behind), so that the chain need not diff the roots.
 * A store without synchronous reads (or a wrapper with a cache of its own) takes the library's path.
 */
import type { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { CODEHASH_PREFIX, MerkleStateManager } from '@ethereumjs/statemanager'
import {
  Account,
  type Address,
  type BatchDBOp,
  concatBytes,
  createAddressFromString,
  equalsBytes,
  unpadBytes,
  unprefixedHexToBytes,
} from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex } from '../primitives/hex.ts'
import { storageRootOf, type TrieLog } from './trieLog.ts'
import { type TrieChange, TrieUpdate, type TrieUpdateResult } from './trieUpdate.ts'

/** What the flush needs of the store under a trie: synchronous reads. */
interface SyncReads {
  getSync(key: string): Uint8Array | undefined
}

/** The trie's database wrapper as it is at runtime: the writes of open checkpoints, then an optional cache. */
interface CheckpointLayers {
  db: unknown
  checkpoints: { keyValueMap: Map<string, Uint8Array | undefined> }[]
  _cache?: unknown
}

/**
 * A synchronous reader of `trie`'s nodes by store key (unprefixed hex) that sees what its database
 * wrapper's `get` sees: the writes of its open checkpoints first, then the store. Undefined when the
 * store has no synchronous reads or the wrapper keeps a cache of its own.
 */
function syncReader(trie: MerklePatriciaTrie): ((key: string) => Uint8Array | undefined) | undefined {
  const layers = trie.database() as unknown as CheckpointLayers
  const store = layers.db as Partial<SyncReads>
  if (typeof store.getSync !== 'function' || layers._cache !== undefined) return undefined
  const sync = store as SyncReads
  return (key) => {
    const checkpoints = layers.checkpoints
    for (let i = checkpoints.length - 1; i >= 0; i--) {
      const map = checkpoints[i].keyValueMap
      if (map.has(key)) return map.get(key)
    }
    return sync.getSync(key)
  }
}

/** The trie's own key hashing, node hashing and store keys (protected in its typings). */
interface TrieKeys {
  appliedKey(key: Uint8Array): Uint8Array
  hash(bytes: Uint8Array): Uint8Array
  _getDbKey(hash: Uint8Array): Uint8Array
}

/** The storage cache's own record of pre-checkpoint values (internal to the library). */
interface StorageJournal {
  dump(address: Address): Map<string, Uint8Array> | undefined
  _saveCachePreState(addressHex: string, keyHex: string): void
}

export class BatchedStateManager extends MerkleStateManager {
  /**
   * Writes the slot to the storage cache only, for the flush. The library's `putStorage` (10.1.3)
   * also writes each one straight through to the storage trie (`cache.put(…) ?? write` always takes
   * the right side, `put` returning nothing): trie nodes hashed on every SSTORE and system-contract
   * write, which the flush then wrote again.
   */
  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    const storage = this._caches?.storage
    if (storage === undefined) return super.putStorage(address, key, value)
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long')
    if (value.length > 32) throw new Error('Storage value cannot be longer than 32 bytes')
    if (!(await this.getAccount(address))) throw new Error('putStorage() called on non-existing account')
    storage.put(address, key, RLP.encode(unpadBytes(value)))
  }

  override async clearStorage(address: Address): Promise<void> {
    this.journalCachedSlots(address)
    return super.clearStorage(address)
  }

  override async deleteAccount(address: Address): Promise<void> {
    this.journalCachedSlots(address)
    return super.deleteAccount(address)
  }

  /**
   * Records the account's cached slots in the storage cache's journal before its storage is
   * cleared: the cache replaces the account's slots without a record, so a revert left them gone.
   * The library's write-through to the storage trie hid that (the trie still had them); with the
   * writes held in the cache until the flush, the revert must bring them back.
   */
  private journalCachedSlots(address: Address): void {
    const storage = this._caches?.storage as unknown as StorageJournal | undefined
    const slots = storage?.dump(address)
    if (storage === undefined || slots === undefined) return
    const addressHex = bytesToHex(address.bytes).slice(2)
    for (const keyHex of slots.keys()) storage._saveCachePreState(addressHex, keyHex)
  }

  /**
   * The account's storage trie at the account's own storage root. The library keeps one trie
   * object per account and trusts its root once made; an account deleted (a self-destruct) and
   * created again in the same block would then read and write its old storage. The account record
   * is journaled with the caches, so its root is the one to follow.
   */
  protected override _getStorageTrie(
    addressOrHash: Address | { bytes: Uint8Array } | Uint8Array,
    rootAccount?: Account,
  ): MerklePatriciaTrie {
    const trie = super._getStorageTrie(addressOrHash, rootAccount)
    if (rootAccount !== undefined && !equalsBytes(trie.root(), rootAccount.storageRoot))
      trie.root(rootAccount.storageRoot)
    return trie
  }

  override async flush(): Promise<void> {
    const caches = this._caches
    if (caches === undefined || syncReader(this._trie) === undefined) return super.flush()
    const keccak = this.common.customCrypto.keccak256 ?? keccak_256
    for (const [addressHex, { code }] of caches.code?.flush() ?? []) {
      if (code === undefined) continue
      const address = createAddressFromString(`0x${addressHex}`)
      const codeHash = keccak(code)
      await this._getCodeDB().put(this._prefixCodeHashes ? concatBytes(CODEHASH_PREFIX, codeHash) : codeHash, code)
      if ((await this.getAccount(address)) === undefined) await this.putAccount(address, new Account())
      await this.modifyAccountFields(address, { codeHash })
    }
    const slotsByAccount = new Map<string, TrieChange[]>()
    for (const [addressHex, keyHex, value] of caches.storage?.flush() ?? []) {
      const decoded = RLP.decode(value ?? new Uint8Array(0)) as Uint8Array
      const change = { key: unprefixedHexToBytes(keyHex), value: decoded.length > 0 ? RLP.encode(decoded) : decoded }
      const list = slotsByAccount.get(addressHex)
      if (list) list.push(change)
      else slotsByAccount.set(addressHex, [change])
    }
    const storageUpdates = new Map<string, StorageUpdate>()
    const accountKeys = this._trie as unknown as TrieKeys
    for (const [addressHex, slots] of slotsByAccount) {
      const address = createAddressFromString(`0x${addressHex}`)
      const account = await this.getAccount(address)
      if (!account) continue
      const storageTrie = this._getStorageTrie(address, account)
      const base = storageTrie.root()
      const result = await this.updateTrie(storageTrie, slots)
      storageUpdates.set(bytesToHex(accountKeys.appliedKey(address.bytes)), { base, result })
      account.storageRoot = result.root
      await this.putAccount(address, account)
    }
    const accounts: TrieChange[] = []
    for (const [addressHex, { accountRLP }] of caches.account?.flush() ?? []) {
      accounts.push({ key: unprefixedHexToBytes(addressHex), value: accountRLP ?? new Uint8Array(0) })
    }
    const rootBefore = this._trie.root()
    const result = await this.updateTrie(this._trie, accounts)
    const transitions = (this._trie.database().db as Partial<TransitionStore>).noteTransition
    if (this._prefixStorageTrieKeys && typeof transitions === 'function' && !equalsBytes(rootBefore, result.root)) {
      const log = flushLog(rootBefore, result, storageUpdates)
      if (log) transitions.call(this._trie.database().db, log)
    }
  }

  /**
   * Applies `changes` (unhashed keys) to `trie` in one update and sets its new root; the nodes it
   * reports are given by their store keys.
   */
  private async updateTrie(trie: MerklePatriciaTrie, changes: TrieChange[]): Promise<TrieUpdateResult> {
    const read = syncReader(trie)
    if (read === undefined) throw new Error('a trie without synchronous reads')
    if (changes.length === 0) return { root: trie.root(), changed: [], created: [], staled: [] }
    const keys = trie as unknown as TrieKeys
    const ops: BatchDBOp[] = []
    const update = new TrieUpdate(
      (hash) => read(bytesToHex(keys._getDbKey(hash)).slice(2)),
      (bytes) => keys.hash(bytes),
      (hash, node) => ops.push({ type: 'put', key: keys._getDbKey(hash), value: node }),
    )
    for (const c of changes) c.key = keys.appliedKey(c.key)
    const result = update.apply(trie.root(), changes)
    await trie.database().batch(ops)
    trie.root(result.root)
    const storeKey = (hash: Uint8Array) => keys._getDbKey(hash)
    return { ...result, created: result.created.map(storeKey), staled: result.staled.map(storeKey) }
  }
}

/** A storage trie's update in a flush: the root it started from and what it did. */
interface StorageUpdate {
  base: Uint8Array
  result: TrieUpdateResult
}

/** A store that keeps the state transitions its writers report (`TrieDb`). */
interface TransitionStore {
  noteTransition(log: TrieLog): void
}

/**
 * The trie log of one flush, from what its updates did: the account trie's changed leaves, the
 * slots of each account whose storage root changed, the nodes created and left behind. Undefined
 * when an account's storage root moved otherwise than by this flush's update of it (storage
 * cleared, an account deleted or made again): then a diff of the roots is what finds the slots.
 */
function flushLog(rootBefore: Uint8Array, accounts: TrieUpdateResult, storage: Map<string, StorageUpdate>) {
  const log: TrieLog = {
    rootBefore,
    rootAfter: accounts.root,
    accounts: [],
    slots: [],
    created: [...accounts.created],
    staled: [...accounts.staled],
  }
  for (const a of accounts.changed) {
    log.accounts.push({ key: a.key, before: a.before, after: a.after })
    const before = storageRootOf(a.before)
    const after = storageRootOf(a.after)
    if (equalsBytes(before, after)) continue
    const update = storage.get(bytesToHex(a.key))
    if (!update || !equalsBytes(update.base, before) || !equalsBytes(update.result.root, after)) return undefined
    for (const s of update.result.changed) {
      log.slots.push({ account: a.key, slot: s.key, before: s.before, after: s.after })
    }
  }
  for (const { result } of storage.values()) {
    log.created.push(...result.created)
    log.staled.push(...result.staled)
  }
  return log
}
