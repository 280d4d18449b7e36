import { Common, Mainnet } from '@ethereumjs/common'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { Caches, MerkleStateManager } from '@ethereumjs/statemanager'
import {
  Account,
  Address,
  createAccount,
  hexToBytes,
  KECCAK256_NULL,
  KECCAK256_RLP,
  MapDB,
  ValueEncoding,
} from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex, equalBytes } from '../primitives/hex.ts'
import { describe, expect, it, seededRandom } from '../runtime/testing.ts'
import type { ChainStore } from '../storage/chainStore.ts'
import { BatchedStateManager } from './batchedStateManager.ts'
import { TrieDb } from './trieDb.ts'
import { computeTrieLog, type TrieLog } from './trieLog.ts'
import { type FlatHead, openState } from './worldState.ts'

/** A store that holds nothing: the trie's nodes stay in the pending writes. */
const emptyStore = { readTrieNode: () => undefined } as unknown as ChainStore

const ADDRESSES = Array.from({ length: 8 }, (_, i) => new Address(new Uint8Array(20).fill(i + 1)))
const SLOTS = Array.from({ length: 6 }, (_, i) => {
  const key = new Uint8Array(32)
  key[31] = i
  return key
})

type State = MerkleStateManager

/** What the state should hold: accounts with their storage (unpadded values), none empty. */
interface ModelAccount {
  nonce: bigint
  balance: bigint
  code: Uint8Array
  storage: Map<string, Uint8Array>
}
type Model = Map<string, ModelAccount>

function copyModel(model: Model): Model {
  const out: Model = new Map()
  for (const [k, a] of model) out.set(k, { ...a, storage: new Map(a.storage) })
  return out
}

/** A trie log as sets, whatever the order of its lists. */
function logSets(log: TrieLog): string[][] {
  return [
    log.accounts.map((a) => `${bytesToHex(a.key)} ${bytesToHex(a.before)} ${bytesToHex(a.after)}`).sort(),
    log.slots
      .map((x) => `${bytesToHex(x.account)} ${bytesToHex(x.slot)} ${bytesToHex(x.before)} ${bytesToHex(x.after)}`)
      .sort(),
    log.created.map((k) => bytesToHex(k)).sort(),
    log.staled.map((k) => bytesToHex(k)).sort(),
  ]
}

/** The encoding of each account of `model`, by address, with its storage root. */
async function modelAccounts(model: Model, common: Common): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>()
  for (const [hex, a] of model) {
    const storage = new MerklePatriciaTrie({ useKeyHashing: true, common })
    for (const [slot, value] of a.storage) await storage.put(hexToBytes(slot as `0x${string}`), RLP.encode(value))
    const codeHash = a.code.length === 0 ? KECCAK256_NULL : keccak_256(a.code)
    out.set(
      hex,
      createAccount({ nonce: a.nonce, balance: a.balance, storageRoot: storage.root(), codeHash }).serialize(),
    )
  }
  return out
}

/** The state root of `model`, built key by key with the library's trie. */
async function modelRoot(model: Model, common: Common): Promise<Uint8Array> {
  const accounts = new MerklePatriciaTrie({ useKeyHashing: true, common })
  for (const [hex, rlp] of await modelAccounts(model, common)) await accounts.put(hexToBytes(hex as `0x${string}`), rlp)
  return accounts.root()
}

/**
 * Flat tables that hold a model's state at one root, as BONSAI's move leaves them after a commit.
 * A read made while the writer's last question (`isAt`) found them at another state fails.
 */
class ModelFlat {
  private root?: Uint8Array
  private isLastAt = false
  private accounts = new Map<string, Uint8Array>()
  private slots = new Map<string, Uint8Array>()
  reads = 0

  readonly flat = {
    readAccount: (key: Uint8Array) => this.read(this.accounts, bytesToHex(key)),
    readSlot: (account: Uint8Array, slot: Uint8Array) => this.read(this.slots, bytesToHex(account) + bytesToHex(slot)),
  }

  isAt(root: Uint8Array): boolean {
    this.isLastAt = this.root !== undefined && equalBytes(this.root, root)
    return this.isLastAt
  }

  async moveTo(model: Model, root: Uint8Array, common: Common): Promise<void> {
    this.accounts.clear()
    this.slots.clear()
    for (const [hex, rlp] of await modelAccounts(model, common)) {
      const key = bytesToHex(keccak_256(hexToBytes(hex as `0x${string}`)))
      this.accounts.set(key, rlp)
      for (const [slot, value] of model.get(hex)!.storage)
        this.slots.set(key + bytesToHex(keccak_256(hexToBytes(slot as `0x${string}`))), RLP.encode(value))
    }
    this.root = root
  }

  private read(rows: Map<string, Uint8Array>, key: string): Uint8Array | undefined {
    expect(this.isLastAt).toBe(true)
    this.reads++
    return rows.get(key)
  }
}

/** Reads a random account and slot (a warm or a missed one) and compares them with the model. */
async function readBack(state: State, model: Model, next: () => number, label: string): Promise<void> {
  const address = ADDRESSES[Math.floor(next() * ADDRESSES.length)]
  const slot = SLOTS[Math.floor(next() * SLOTS.length)]
  const held = model.get(bytesToHex(address.bytes))
  expect(`${label}: ${(await state.getAccount(address))?.balance}`).toBe(`${label}: ${held?.balance}`)
  const value = bytesToHex(held?.storage.get(bytesToHex(slot)) ?? new Uint8Array(0))
  expect(`${label}: ${bytesToHex(await state.getStorage(address, slot))}`).toBe(`${label}: ${value}`)
}

/** One random change, on the state and on the model. */
async function change(state: State, model: Model, next: () => number): Promise<void> {
  const address = ADDRESSES[Math.floor(next() * ADDRESSES.length)]
  const key = bytesToHex(address.bytes)
  const op = next()
  const held = model.get(key)
  const fresh = (): ModelAccount => ({ nonce: 0n, balance: 0n, code: new Uint8Array(0), storage: new Map() })
  if (op < 0.3 || held === undefined) {
    const account = (await state.getAccount(address)) ?? new Account()
    account.balance += 1n + BigInt(Math.floor(op * 1000))
    account.nonce += 1n
    await state.putAccount(address, account)
    const a = held ?? fresh()
    model.set(key, { ...a, nonce: a.nonce + 1n, balance: a.balance + 1n + BigInt(Math.floor(op * 1000)) })
  } else if (op < 0.75) {
    const slot = SLOTS[Math.floor((op * 1000) % SLOTS.length)]
    // A third of the writes store zero: a deletion of the slot (or of nothing).
    const value = op < 0.45 ? new Uint8Array(0) : new Uint8Array(op < 0.6 ? 1 : 32).fill(Math.floor(op * 250) + 1)
    await state.putStorage(address, slot, value)
    if (value.length === 0) held.storage.delete(bytesToHex(slot))
    else held.storage.set(bytesToHex(slot), value)
  } else if (op < 0.82) {
    await state.clearStorage(address)
    held.storage.clear()
  } else if (op < 0.9) {
    const code = new Uint8Array([0x60, Math.floor(op * 250), 0x00])
    await state.putCode(address, code)
    held.code = code
  } else {
    // A self-destruct: the account and its storage go; a later write makes a new, empty one.
    await state.deleteAccount(address)
    model.delete(key)
  }
}

/**
 * Blocks of transactions, each a checkpoint that commits or reverts, as block building runs them,
 * against a model of what the state should hold.
 */
async function runCase(seed: number, isPrefixed: boolean, flat?: ModelFlat): Promise<number> {
  let logsFromFlushes = 0
  const next = seededRandom(seed)
  const common = new Common({ chain: Mainnet })
  const db = new TrieDb(emptyStore)
  db.storageFormat = isPrefixed ? 'BONSAI' : 'FOREST'
  let state = openState(db, common, KECCAK256_RLP, true, flat as unknown as FlatHead | undefined)
  expect(state instanceof BatchedStateManager).toBe(true)
  await flat?.moveTo(new Map(), KECCAK256_RLP, common)
  let model: Model = new Map()
  let rootBefore = KECCAK256_RLP
  let rootTwoBack = KECCAK256_RLP
  for (let block = 0; block < 6; block++) {
    // A writer made again at the block's parent (a new VM) misses every key.
    if (next() < 0.5) state = openState(db, common, rootBefore, true, flat as unknown as FlatHead | undefined)
    await state.checkpoint()
    const txs = 1 + Math.floor(next() * 4)
    for (let tx = 0; tx < txs; tx++) {
      await state.checkpoint()
      const before = copyModel(model)
      const changes = 1 + Math.floor(next() * 6)
      for (let i = 0; i < changes; i++) {
        await change(state, model, next)
        await readBack(state, model, next, `${seed}/${block}/${tx}/${i}`)
      }
      if (next() < 0.2) {
        await state.revert()
        model = before
      } else {
        await state.commit()
      }
    }
    const want = bytesToHex(await modelRoot(model, common))
    // The builder takes the root inside the block's checkpoint, then commits it.
    expect(`${seed}/${block}: ${bytesToHex(await state.getStateRoot())}`).toBe(`${seed}/${block}: ${want}`)
    await state.commit()
    const root = await state.getStateRoot()
    expect(`${seed}/${block}: ${bytesToHex(root)}`).toBe(`${seed}/${block}: ${want}`)
    // The block's trie log from its flushes is the diff of the two roots; on BONSAI every block
    // that changed the state has one (cleared storage and self-destructs included).
    const fromFlushes = db.transitionLog(rootBefore, root)
    if (isPrefixed && !equalBytes(rootBefore, root))
      expect(`${seed}/${block}: ${fromFlushes !== undefined}`).toBe(`${seed}/${block}: true`)
    if (fromFlushes) {
      expect(logSets(fromFlushes)).toEqual(logSets(computeTrieLog((k) => db.getSync(k), rootBefore, root)))
      logsFromFlushes++
    }
    // Two blocks' flushes chained: one log, as the diff over both.
    const overTwo = db.transitionLog(rootTwoBack, root)
    if (block > 0 && overTwo) {
      expect(logSets(overTwo)).toEqual(logSets(computeTrieLog((k) => db.getSync(k), rootTwoBack, root)))
    }
    rootTwoBack = rootBefore
    rootBefore = root
    await flat?.moveTo(model, root, common)
    // A fresh state at that root reads every account and slot back from the stored nodes.
    const reader = openState(db, common, root)
    for (const address of ADDRESSES) {
      const a = model.get(bytesToHex(address.bytes))
      expect((await reader.getAccount(address))?.balance).toBe(a?.balance)
      expect((await state.getAccount(address))?.balance).toBe(a?.balance)
      if (a === undefined) continue
      for (const slot of SLOTS) {
        const value = bytesToHex(a.storage.get(bytesToHex(slot)) ?? new Uint8Array(0))
        expect(bytesToHex(await reader.getStorage(address, slot))).toBe(value)
        expect(bytesToHex(await state.getStorage(address, slot))).toBe(value)
      }
    }
  }
  return logsFromFlushes
}

/** The library's own state manager, with the same caches. */
function referenceState(common: Common): State {
  const trie = new MerklePatriciaTrie({
    db: new MapDB<string, Uint8Array>(),
    useKeyHashing: true,
    valueEncoding: ValueEncoding.Bytes,
    common,
  })
  return new MerkleStateManager({ common, trie, caches: new Caches() })
}

describe('BatchedStateManager', () => {
  it('reaches the root of what it was told to hold over random blocks of accounts, slots, code and deletions', async () => {
    let logsFromFlushes = 0
    for (let seed = 1; seed <= 40; seed++) logsFromFlushes += await runCase(seed, seed % 2 === 0)
    // BONSAI's prefixed cases keep their flushes' logs: most blocks have one.
    expect(logsFromFlushes).toBeGreaterThan(40)
  })

  it('as a BONSAI head writer, reads what its caches miss from the flat tables while they hold its state, and the same values', async () => {
    let reads = 0
    for (let seed = 1; seed <= 40; seed++) {
      const flat = new ModelFlat()
      await runCase(seed, true, flat)
      reads += flat.reads
    }
    // Most blocks start on the tables' state, and half of them with empty caches.
    expect(reads).toBeGreaterThan(200)
  })

  it('keeps a slot written in a reverted transaction out of the state', async () => {
    const common = new Common({ chain: Mainnet })
    const state = openState(new TrieDb(emptyStore), common, KECCAK256_RLP, true)
    const address = ADDRESSES[0]
    await state.putAccount(address, new Account(1n))
    await state.checkpoint()
    await state.putStorage(address, SLOTS[1], new Uint8Array([7]))
    await state.revert()
    const root = await state.getStateRoot()
    const reference = referenceState(common)
    await reference.putAccount(address, new Account(1n))
    expect(bytesToHex(root)).toBe(bytesToHex(await reference.getStateRoot()))
    expect(bytesToHex(await state.getStorage(address, SLOTS[1]))).toBe('0x')
  })
})
