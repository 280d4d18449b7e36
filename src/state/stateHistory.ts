/**
 * BONSAI's state history beyond the window (Besu's Bonsai archive idea; see
 * docs/state-storage.md): for every canonical block, the value after it of each account and slot
 * the block changed, keyed (key, block). The state at any block from the history's start on is one
 * indexed lookup per account or slot (the row with the highest block ≤ n), however old the block:
 * no trie nodes and no trie logs to roll back. There is no trie of such a state, so what needs one
 * (proofs, storage ranges) is not served from it.
 *
 * Written from the trie logs the flat state moves with, inside the same transaction: a block joining
 * the canonical chain writes its rows, a block leaving it deletes them. Accounts are kept slim
 * (Besu's flat-database encoding: an empty storage root and code hash stored as empty strings),
 * which makes an account without code a dozen bytes.
 */
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex, equalBytes, hexToBytes } from '../primitives/hex.ts'
import type { ChainStore } from '../storage/chainStore.ts'
import { HistoryStore, type HistoryValue } from '../storage/historyStore.ts'
import { SortedTrieBuilder } from './sortedTrie.ts'
import type { TrieDb } from './trieDb.ts'
import { STORAGE_KEY_PREFIX_BYTES, type TrieLog } from './trieLog.ts'

/** The first block whose state the history holds (absent: the data path keeps no history). */
const META_HISTORY_FROM = 'historyFrom'
const NONE = new Uint8Array(0)
/** Flat rows written a page at a time when the history starts (a large state is not held whole). */
const START_PAGE_ROWS = 4096

/** An account RLP with an empty storage root and code hash stored as empty strings. */
function slimAccount(rlp: Uint8Array): Uint8Array {
  if (rlp.length === 0) return rlp
  const [nonce, balance, storageRoot, codeHash] = RLP.decode(rlp) as Uint8Array[]
  return RLP.encode([
    nonce,
    balance,
    equalBytes(storageRoot, KECCAK256_RLP) ? NONE : storageRoot,
    equalBytes(codeHash, KECCAK256_NULL) ? NONE : codeHash,
  ])
}

function fullAccount(slim: Uint8Array): Uint8Array {
  const [nonce, balance, storageRoot, codeHash] = RLP.decode(slim) as Uint8Array[]
  return RLP.encode([
    nonce,
    balance,
    storageRoot.length === 0 ? KECCAK256_RLP : storageRoot,
    codeHash.length === 0 ? KECCAK256_NULL : codeHash,
  ])
}

function slotKey(account: Uint8Array, slot: Uint8Array): Uint8Array {
  const key = new Uint8Array(account.length + slot.length)
  key.set(account, 0)
  key.set(slot, account.length)
  return key
}

export class StateHistory {
  readonly rows: HistoryStore
  private readonly store: ChainStore
  private fromBlock?: bigint

  constructor(store: ChainStore) {
    this.store = store
    this.rows = new HistoryStore(store.db)
    const from = store.readMeta(META_HISTORY_FROM)
    this.fromBlock = from && from.length > 0 ? BigInt(bytesToHex(from)) : undefined
  }

  /** Whether the data path keeps a state history. */
  static isKeptIn(store: ChainStore): boolean {
    return (store.readMeta(META_HISTORY_FROM)?.length ?? 0) > 0
  }

  /** The first block whose state the history holds; undefined before it started. */
  get from(): bigint | undefined {
    return this.fromBlock
  }

  /** Whether the history holds the state after block `n` (the caller checks `n` is canonical). */
  covers(n: bigint): boolean {
    return this.fromBlock !== undefined && n >= this.fromBlock
  }

  /**
   * Starts the history over at block `n`, from the flat tables (which hold the state after `n`):
   * one row per account and slot. Inside the caller's transaction.
   */
  start(n: bigint): void {
    this.rows.clear()
    let page: HistoryValue[] = []
    for (const [key, value] of this.rows.flatRows()) {
      page.push({ key, number: n, value: key.length === 32 ? slimAccount(value) : value })
      if (page.length < START_PAGE_ROWS) continue
      this.rows.writeValues(page)
      page = []
    }
    this.rows.writeValues(page)
    this.fromBlock = n
    this.store.writeMeta(META_HISTORY_FROM, hexToBytes(`0x${n.toString(16).padStart(16, '0')}`))
  }

  /** Deletes the history (the data path no longer keeps one). Inside the caller's transaction. */
  stop(): void {
    this.rows.clear()
    this.fromBlock = undefined
    this.store.writeMeta(META_HISTORY_FROM, NONE)
  }

  /** Records what `log` changed as the state after canonical block `n`. */
  record(log: TrieLog, n: bigint): void {
    this.recordAll([{ log, n }])
  }

  /** Records what each log changed as the state after its canonical block, in order. */
  recordAll(logs: Iterable<{ log: TrieLog; n: bigint }>): void {
    const values: HistoryValue[] = []
    for (const { log, n } of logs) {
      for (const a of log.accounts) values.push({ key: a.key, number: n, value: slimAccount(a.after) })
      for (const s of log.slots) values.push({ key: slotKey(s.account, s.slot), number: n, value: s.after })
    }
    this.rows.writeValues(values)
  }

  /** Deletes what `log` recorded at block `n` (the block left the canonical chain). */
  undo(log: TrieLog, n: bigint): void {
    const drop = (key: Uint8Array) => {
      const id = this.rows.idOf(key)
      if (id !== undefined) this.rows.delete(id, n)
    }
    for (const a of log.accounts) drop(a.key)
    for (const s of log.slots) drop(slotKey(s.account, s.slot))
  }

  /**
   * Keeps only the states up to block `n` (the head moved to `n` without trie logs to undo: the
   * flat tables were rebuilt at `n`); when the history started above `n` it starts again at `n`.
   */
  truncate(n: bigint): void {
    if (this.fromBlock === undefined) return
    if (this.fromBlock > n) this.start(n)
    else this.rows.deleteAbove(n)
  }

  /** Forgets what memory holds of rows a rolled-back transaction wrote. */
  forget(): void {
    this.rows.forget()
  }

  /**
   * Writes the trie of the state after canonical block `n` into `db` (pending) from the history rows
   * alone, and resolves to its root: every account and slot the history knows, read at `n` in key
   * order, built into an account trie and storage tries (their node keys prefixed as BONSAI's) in
   * one pass each. Contract code is not written: the node store keeps it by code hash for good.
   * Throws when a storage trie's root is not the one its account holds, or an account's code is not
   * stored; the caller checks the returned root against the block's.
   */
  async writeTrie(db: TrieDb, common: Common, n: bigint): Promise<Uint8Array> {
    const keccak = common.customCrypto.keccak256 ?? keccak_256
    const nodes: [string, Uint8Array][] = []
    const storeUnder = (prefix: string) => (hash: Uint8Array, node: Uint8Array) =>
      nodes.push([prefix + bytesToHex(hash).slice(2), node])
    const accounts = new SortedTrieBuilder(keccak, storeUnder(''))
    let account: { key: Uint8Array; rlp: Uint8Array; storage?: SortedTrieBuilder } | undefined
    const addAccount = () => {
      if (!account) return
      const [, , storageRoot, codeHash] = RLP.decode(account.rlp) as Uint8Array[]
      const root = account.storage?.root() ?? KECCAK256_RLP
      if (!equalBytes(root, storageRoot)) {
        throw new Error(
          `the slots of account ${bytesToHex(account.key)} give storage root ${bytesToHex(root)}, not its ${bytesToHex(storageRoot)}`,
        )
      }
      if (!equalBytes(codeHash, KECCAK256_NULL) && db.getSync(`63${bytesToHex(codeHash).slice(2)}`) === undefined)
        throw new Error(`the code ${bytesToHex(codeHash)} of account ${bytesToHex(account.key)} is not stored`)
      accounts.add(account.key, account.rlp)
    }
    for (const [key, value] of this.rows.valuesAt(n)) {
      if (key.length === 32) {
        addAccount()
        account = { key, rlp: fullAccount(value) }
        continue
      }
      if (!account || !equalBytes(key.subarray(0, 32), account.key))
        throw new Error(`a slot of account ${bytesToHex(key.subarray(0, 32))} outlives the account after block ${n}`)
      const prefix = bytesToHex(account.key.subarray(0, STORAGE_KEY_PREFIX_BYTES)).slice(2)
      account.storage ??= new SortedTrieBuilder(keccak, storeUnder(prefix))
      account.storage.add(key.subarray(32), value)
    }
    addAccount()
    const root = accounts.root()
    for (const [key, node] of nodes) await db.put(key, node)
    return root
  }

  /** The account RLP under hashed key `key` after block `n`; undefined when it did not exist. */
  readAccount(key: Uint8Array, n: bigint): Uint8Array | undefined {
    const id = this.rows.idOf(key)
    const value = id === undefined ? undefined : this.rows.read(id, n)
    return value && value.length > 0 ? fullAccount(value) : undefined
  }

  /**
   * `readAccount` and `readSlot` of many keys after block `n` in a few statements (hashed keys; a
   * slot as its account and slot keys): the answers in order.
   */
  readMany(
    accounts: Uint8Array[],
    slots: [Uint8Array, Uint8Array][],
    n: bigint,
  ): { accounts: (Uint8Array | undefined)[]; slots: (Uint8Array | undefined)[] } {
    const slotKeys = slots.map(([account, slot]) => slotKey(account, slot))
    const values = this.rows.valuesOf([...accounts, ...slotKeys], n)
    const present = (key: Uint8Array) => {
      const value = values.get(bytesToHex(key))
      return value && value.length > 0 ? value : undefined
    }
    return {
      accounts: accounts.map((key) => {
        const value = present(key)
        return value && fullAccount(value)
      }),
      slots: slotKeys.map(present),
    }
  }

  /** The value RLP of a slot (hashed account and slot keys) after block `n`; undefined when zero. */
  readSlot(account: Uint8Array, slot: Uint8Array, n: bigint): Uint8Array | undefined {
    const id = this.rows.idOf(slotKey(account, slot))
    const value = id === undefined ? undefined : this.rows.read(id, n)
    return value && value.length > 0 ? value : undefined
  }
}
