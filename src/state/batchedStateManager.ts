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
  ValueEncoding,
} from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToBareHex, bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { diffTries, MissingTrieNodeError, type NodeReader, type TrieDiff } from './trieDiff.ts'
import { STORAGE_KEY_PREFIX_BYTES, storageRootOf, type TrieLog } from './trieLog.ts'
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
  valueEncoding: ValueEncoding
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

/** The trie's options behind its key hashing, node hashing and store keys (protected in its typings). */
interface TrieInternals {
  _opts: { useKeyHashing?: boolean; useKeyHashingFunction: (b: Uint8Array) => Uint8Array; keyPrefix?: Uint8Array }
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
    const addressHex = bytesToBareHex(address.bytes)
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
    const accountTrie = (this._trie as unknown as TrieInternals)._opts
    const accountKey = (a: Address) =>
      accountTrie.useKeyHashing ? accountTrie.useKeyHashingFunction(a.bytes) : a.bytes
    for (const [addressHex, slots] of slotsByAccount) {
      const address = createAddressFromString(`0x${addressHex}`)
      const account = await this.getAccount(address)
      if (!account) continue
      const storageTrie = this._getStorageTrie(address, account)
      const base = storageTrie.root()
      const result = await this.updateTrie(storageTrie, slots)
      storageUpdates.set(bytesToHex(accountKey(address)), { base, result })
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
      const read = syncReader(this._trie) as NodeReader
      const log = flushLog(rootBefore, result, storageUpdates, read)
      if (log) transitions.call(this._trie.database().db, log)
    }
  }

  /**
   * Applies `changes` (unhashed keys) to `trie` in one update and sets its new root; the nodes it
   * reports are given by their store keys. Keys and nodes are hashed with the trie's own function
   * but without the copy its `hash` makes of every digest, and a node's store key is made once, as
   * the hex its database wrapper keys by (the wrapper's `put` makes bytes, then hex, of each).
   */
  private async updateTrie(trie: MerklePatriciaTrie, changes: TrieChange[]): Promise<TrieUpdateResult> {
    const read = syncReader(trie)
    if (read === undefined) throw new Error('a trie without synchronous reads')
    if (changes.length === 0) return { root: trie.root(), changed: [], created: [], staled: [] }
    const opts = (trie as unknown as TrieInternals)._opts
    const hash = opts.useKeyHashingFunction
    const prefix = opts.keyPrefix
    const prefixHex = prefix === undefined ? '' : bytesToBareHex(prefix)
    const writes: [string, Uint8Array][] = []
    const update = new TrieUpdate(
      (nodeHash) => read(prefixHex + bytesToBareHex(nodeHash)),
      hash,
      (nodeHash, node) => writes.push([prefixHex + bytesToBareHex(nodeHash), node]),
    )
    if (opts.useKeyHashing) for (const c of changes) c.key = hash(c.key)
    const result = update.apply(trie.root(), changes)
    await writeNodes(trie, writes)
    trie.root(result.root)
    const storeKey = prefix === undefined ? (h: Uint8Array) => h : (h: Uint8Array) => concatBytes(prefix, h)
    return { ...result, created: result.created.map(storeKey), staled: result.staled.map(storeKey) }
  }
}

/**
 * Puts nodes (keyed by store-key hex) as the trie's database wrapper's `put` does: into its newest
 * checkpoint when one is open (a block's flush always runs in one), else into the store.
 */
async function writeNodes(trie: MerklePatriciaTrie, writes: [string, Uint8Array][]): Promise<void> {
  const layers = trie.database() as unknown as CheckpointLayers
  const top = layers.checkpoints[layers.checkpoints.length - 1]
  if (top === undefined && layers.valueEncoding !== ValueEncoding.Bytes) {
    const ops: BatchDBOp[] = writes.map(([key, value]) => ({ type: 'put', key: hexToBytes(key), value }))
    return trie.database().batch(ops)
  }
  if (top === undefined) {
    // The wrapper's `batch` would turn each key to hex again: the store keys by that hex, and
    // takes the values as bytes (ValueEncoding.Bytes); `syncReader` allows no wrapper cache.
    const store = layers.db as { batch(ops: { type: 'put'; key: string; value: Uint8Array }[]): Promise<void> }
    return store.batch(writes.map(([key, value]) => ({ type: 'put', key, value })))
  }
  for (const [key, node] of writes) top.keyValueMap.set(key, node)
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
 * slots of each account whose storage root changed, the nodes created and left behind. An account
 * whose storage root moved otherwise than by this flush's update of it (storage cleared, an account
 * deleted or made again, in this flush's transactions) has its slots from a diff of its own storage
 * trie, the old root against the new: the rest of the state is not walked. Undefined when a node
 * that diff needs is not readable (then a diff of the state roots finds the block's log).
 */
function flushLog(
  rootBefore: Uint8Array,
  accounts: TrieUpdateResult,
  storage: Map<string, StorageUpdate>,
  read: NodeReader,
): TrieLog | undefined {
  const log: TrieLog = {
    rootBefore,
    rootAfter: accounts.root,
    accounts: [],
    slots: [],
    created: accounts.created.slice(),
    staled: accounts.staled.slice(),
  }
  /** Accounts whose storage came from a diff: their update's nodes are in it. */
  const diffed = new Set<string>()
  for (const a of accounts.changed) {
    log.accounts.push({ key: a.key, before: a.before, after: a.after })
    const before = storageRootOf(a.before)
    const after = storageRootOf(a.after)
    if (equalsBytes(before, after)) continue
    const keyHex = bytesToHex(a.key)
    const update = storage.get(keyHex)
    if (update && equalsBytes(update.base, before) && equalsBytes(update.result.root, after)) {
      for (const s of update.result.changed) {
        log.slots.push({ account: a.key, slot: s.key, before: s.before, after: s.after })
      }
      continue
    }
    let slots: TrieDiff
    try {
      slots = diffTries(read, before, after, a.key.slice(0, STORAGE_KEY_PREFIX_BYTES))
    } catch (e) {
      if (e instanceof MissingTrieNodeError) return undefined
      throw e
    }
    for (const s of slots.leaves) log.slots.push({ account: a.key, slot: s.key, before: s.before, after: s.after })
    for (const h of slots.created) log.created.push(h)
    for (const h of slots.staled) log.staled.push(h)
    diffed.add(keyHex)
  }
  for (const [keyHex, { result }] of storage) {
    if (diffed.has(keyHex)) continue
    for (const h of result.created) log.created.push(h)
    for (const h of result.staled) log.staled.push(h)
  }
  return log
}
