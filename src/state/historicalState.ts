/**
 * The state after a canonical block below the BONSAI history window, read from the state history
 * (stateHistory.ts): accounts and storage slots one indexed lookup each, code by its hash from the
 * node store (code is never pruned). What the EVM writes stays in the view's caches: there is no
 * trie under this state, so nothing is ever flushed into one.
 *
 * What needs that trie is refused with StateUnavailableError (-32000 `World state unavailable`, as
 * below the window without history): proofs (eth_getProof), account and storage ranges. The state
 * root the view reports is the block's own, also after writes: a pre-Byzantium receipt's
 * intermediate root is not known here, and tracers do not use it.
 */
import type { Common } from '@ethereumjs/common'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager'
import { type Account, type Address, createAccountFromRLP, unpadBytes } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex, equalBytes, hexToBytes } from '../primitives/hex.ts'
import { StateUnavailableError } from './bonsaiState.ts'
import type { StateHistory } from './stateHistory.ts'

/** Where a historical view reads code (the node store, or an overlay of it). */
export interface CodeSource {
  get(key: string): Promise<Uint8Array | string | undefined>
}

/**
 * A trie with no nodes to read: any walk of a historical state's trie (a proof, a range) ends in
 * StateUnavailableError, whatever node caches hold.
 */
class NodelessTrie extends MerklePatriciaTrie {
  blockNumber = 0n

  override async lookupNode(_node: Uint8Array | Uint8Array[]): Promise<never> {
    throw new StateUnavailableError(this.blockNumber)
  }
}

/** The state after canonical block `number` (state root `root`), read from `history`. */
export function openHistoricalState(
  common: Common,
  root: Uint8Array,
  number: bigint,
  history: StateHistory,
  code: CodeSource,
): MerkleStateManager {
  return new HistoricalView(common, root, number, history, code)
}

/**
 * Moves a view opened by `openHistoricalState` to the state after canonical block `number` (root
 * `root`), dropping its writes and everything it remembered of the old block; false (and nothing
 * done) when `state` is not such a view. A replay VM kept over one view serves the next block's
 * parent this way instead of building another VM.
 */
export function moveHistoricalState(state: unknown, root: Uint8Array, number: bigint): boolean {
  if (!(state instanceof HistoricalView)) return false
  state.moveTo(root, number)
  return true
}

const CODE_KEY_PREFIX = '63' // 'c', the library's prefix of code keys
/** '0x' and 20 bytes: the address part of a slot's key in `slotReads`. */
const ADDRESS_HEX_CHARS = 42
/** Answers a view remembers per kind before it starts over (a replay VM keeps its view). */
const READS_KEPT = 1 << 14
/** Keys a view moved to another block reads again at once (what the last block's replay read). */
const KEYS_CARRIED = 256

function remember(reads: Map<string, Uint8Array | null>, key: string, value: Uint8Array | null): void {
  if (reads.size >= READS_KEPT) reads.clear()
  reads.set(key, value)
}

class HistoricalView extends MerkleStateManager {
  private viewRoot: Uint8Array
  private blockNumber: bigint
  private readonly history: StateHistory
  private readonly code: CodeSource
  private readonly keccak: (b: Uint8Array) => Uint8Array
  /**
   * Storage root of each account as the history holds it, by address: its slots are read from the
   * history only while the account still has that root (a cleared or re-created account has the
   * empty root, its slots in the caches).
   */
  private readonly historyStorageRoots = new Map<string, Uint8Array>()
  /**
   * What the history answered, by address (account RLPs) and by address and slot (value RLPs;
   * null: absent). The view's block is fixed, so an answer never changes; unlike the caches, these
   * outlive the checkpoint revert after each replay, so the traces of one block after the first
   * read nothing from SQLite again (memoizeTrieReads does the same for views over a trie).
   */
  private readonly accountReads = new Map<string, Uint8Array | null>()
  private readonly slotReads = new Map<string, Uint8Array | null>()
  /** The keys of those answers used since the view last moved (what `moveTo` reads again). */
  private readonly accountsUsed = new Set<string>()
  private readonly slotsUsed = new Set<string>()

  constructor(common: Common, root: Uint8Array, number: bigint, history: StateHistory, code: CodeSource) {
    const trie = new NodelessTrie({ root, useKeyHashing: true, common })
    trie.blockNumber = number
    super({ common, trie, caches: new Caches(), prefixStorageTrieKeys: true })
    this.viewRoot = root
    this.blockNumber = number
    this.history = history
    this.code = code
    this.keccak = common.customCrypto.keccak256 ?? keccak_256
  }

  /**
   * The view of another block's state (see moveHistoricalState). The keys the old block's replay
   * read are read again at the new block in one batch: a neighbouring block's replay reads mostly
   * the same ones (the sender, the contract, the coinbase, the system contracts), one statement
   * each otherwise.
   */
  moveTo(root: Uint8Array, number: bigint): void {
    const addresses = [...this.accountsUsed].slice(0, KEYS_CARRIED)
    const slots = [...this.slotsUsed].slice(0, KEYS_CARRIED)
    this.accountsUsed.clear()
    this.slotsUsed.clear()
    this.viewRoot = root
    this.blockNumber = number
    const trie = this._trie as NodelessTrie
    trie.root(root)
    trie.blockNumber = number
    this._caches?.clear()
    this._storageTries = {}
    this.historyStorageRoots.clear()
    this.accountReads.clear()
    this.slotReads.clear()
    this.carry(addresses, slots)
  }

  /** Reads `addresses` (hex) and `slots` (address hex ‖ slot hex) into the view's answers. */
  private carry(addresses: string[], slots: string[]): void {
    if (addresses.length + slots.length === 0) return
    const hashed = (hex: string) => this.keccak(hexToBytes(hex))
    const slotKeys = slots.map((k): [Uint8Array, Uint8Array] => [
      hashed(k.slice(0, ADDRESS_HEX_CHARS)),
      hashed(`0x${k.slice(ADDRESS_HEX_CHARS)}`),
    ])
    const read = this.history.readMany(addresses.map(hashed), slotKeys, this.blockNumber)
    for (let i = 0; i < addresses.length; i++) remember(this.accountReads, addresses[i], read.accounts[i] ?? null)
    for (let i = 0; i < slots.length; i++) remember(this.slotReads, slots[i], read.slots[i] ?? null)
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    const cached = this._caches?.account?.get(address)
    if (cached !== undefined)
      return cached.accountRLP !== undefined ? createAccountFromRLP(cached.accountRLP) : undefined
    const addressHex = bytesToHex(address.bytes)
    if (this.accountsUsed.size < KEYS_CARRIED) this.accountsUsed.add(addressHex)
    let rlp = this.accountReads.get(addressHex)
    if (rlp === undefined) {
      rlp = this.history.readAccount(this.keccak(address.bytes), this.blockNumber) ?? null
      remember(this.accountReads, addressHex, rlp)
    }
    const account = rlp ? createAccountFromRLP(rlp) : undefined
    if (account) this.historyStorageRoots.set(addressHex, account.storageRoot)
    this._caches?.account?.put(address, account)
    return account
  }

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long')
    const cached = this._caches?.storage?.get(address, key)
    if (cached !== undefined) return RLP.decode(cached) as Uint8Array
    const account = await this.getAccount(address)
    if (!account) return new Uint8Array(0)
    const addressHex = bytesToHex(address.bytes)
    const root = this.historyStorageRoots.get(addressHex)
    if (root === undefined || !equalBytes(root, account.storageRoot)) return new Uint8Array(0)
    const slotHex = addressHex + bytesToHex(key).slice(2)
    if (this.slotsUsed.size < KEYS_CARRIED) this.slotsUsed.add(slotHex)
    let value = this.slotReads.get(slotHex)
    if (value === undefined) {
      value = this.history.readSlot(this.keccak(address.bytes), this.keccak(key), this.blockNumber) ?? null
      remember(this.slotReads, slotHex, value)
    }
    this._caches?.storage?.put(address, key, value ?? Uint8Array.of(0x80))
    return value ? (RLP.decode(value) as Uint8Array) : new Uint8Array(0)
  }

  /** Storage writes stay in the cache: there is no storage trie to write them through to. */
  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (key.length !== 32) throw new Error('Storage key must be 32 bytes long')
    if (value.length > 32) throw new Error('Storage value cannot be longer than 32 bytes')
    if (!(await this.getAccount(address))) throw new Error('putStorage() called on non-existing account')
    this._caches?.storage?.put(address, key, RLP.encode(unpadBytes(value)))
  }

  override async getCode(address: Address): Promise<Uint8Array> {
    const cached = this._caches?.code?.get(address)
    if (cached !== undefined) return cached.code ?? new Uint8Array(0)
    const account = await this.getAccount(address)
    if (!account?.isContract()) return new Uint8Array(0)
    const stored = await this.code.get(CODE_KEY_PREFIX + bytesToHex(account.codeHash).slice(2))
    const code = typeof stored === 'string' || stored === undefined ? new Uint8Array(0) : stored
    this._caches?.code?.put(address, code)
    return code
  }

  /** Storage ranges walk the account's storage trie, which is not kept. */
  override async dumpStorage(_address: Address): Promise<never> {
    throw new StateUnavailableError(this.blockNumber)
  }

  override async dumpStorageRange(_address: Address, _startKey: bigint, _limit: number): Promise<never> {
    throw new StateUnavailableError(this.blockNumber)
  }

  /** Writes stay in the caches (no trie to flush them into). */
  override async flush(): Promise<void> {}

  override async getStateRoot(): Promise<Uint8Array> {
    return this.viewRoot
  }

  /** Only the view's own root: back to the block's state, dropping every write. */
  override async setStateRoot(root: Uint8Array): Promise<void> {
    if (!equalBytes(root, this.viewRoot)) throw new StateUnavailableError(this.blockNumber)
    this._caches?.clear()
    this._storageTries = {}
  }

  override async hasStateRoot(root: Uint8Array): Promise<boolean> {
    return equalBytes(root, this.viewRoot)
  }

  override shallowCopy(): MerkleStateManager {
    return new HistoricalView(this.common, this.viewRoot, this.blockNumber, this.history, this.code)
  }
}
