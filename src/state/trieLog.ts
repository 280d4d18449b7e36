/**
 * A trie log: what one block (or one dev-tools edit) changed in the world state, as Besu's Bonsai
 * keeps it: each changed account and storage slot with its value before and after, keyed by the
 * hashed address / slot the trie uses, plus the trie nodes the change created and the ones it left
 * behind. Applied forwards it moves the flat state from the state before to the state after;
 * applied backwards it moves it back. A writer state's flush reports it (`batchedStateManager.ts`);
 * otherwise it is computed from the two state roots alone (a diff of the tries), so every writer
 * of state (block import, the sealer, the dev tools) gets one.
 */
import { RLP } from '@ethereumjs/rlp'
import { createAccountFromRLP, KECCAK256_RLP } from '@ethereumjs/util'
import { bytesToHex, equalBytes } from '../primitives/hex.ts'
import { diffTries, type NodeReader, nodesOnPath } from './trieDiff.ts'

export interface AccountChange {
  /** keccak(address) */
  key: Uint8Array
  /** Account RLP; empty when the account did not (does not) exist. */
  before: Uint8Array
  after: Uint8Array
}

export interface SlotChange {
  account: Uint8Array
  /** keccak(slot) */
  slot: Uint8Array
  /** The slot's RLP value; empty when zero. */
  before: Uint8Array
  after: Uint8Array
}

export interface TrieLog {
  rootBefore: Uint8Array
  rootAfter: Uint8Array
  accounts: AccountChange[]
  slots: SlotChange[]
  created: Uint8Array[]
  staled: Uint8Array[]
}

/** Storage tries share the node store; their node keys start with 7 bytes of keccak(address). */
export const STORAGE_KEY_PREFIX_BYTES = 7

/** The storage root an account's RLP holds (the empty trie's for no account). */
export function storageRootOf(accountRlp: Uint8Array): Uint8Array {
  return accountRlp.length === 0 ? KECCAK256_RLP : createAccountFromRLP(accountRlp).storageRoot
}

/** The trie log that takes the state at `rootBefore` to the state at `rootAfter`. */
export function computeTrieLog(read: NodeReader, rootBefore: Uint8Array, rootAfter: Uint8Array): TrieLog {
  const accountsDiff = diffTries(read, rootBefore, rootAfter)
  const log: TrieLog = {
    rootBefore,
    rootAfter,
    accounts: [],
    slots: [],
    created: accountsDiff.created,
    staled: accountsDiff.staled,
  }
  for (const leaf of accountsDiff.leaves) {
    log.accounts.push({ key: leaf.key, before: leaf.before, after: leaf.after })
    const storageBefore = storageRootOf(leaf.before)
    const storageAfter = storageRootOf(leaf.after)
    if (equalBytes(storageBefore, storageAfter)) continue
    const prefix = new Uint8Array(leaf.key.subarray(0, STORAGE_KEY_PREFIX_BYTES))
    const slots = diffTries(read, storageBefore, storageAfter, prefix)
    for (const s of slots.leaves) log.slots.push({ account: leaf.key, slot: s.key, before: s.before, after: s.after })
    log.created.push(...slots.created)
    log.staled.push(...slots.staled)
  }
  return log
}

/**
 * One trie log for consecutive ones (each starting where the one before ended): a key's value
 * before the first and after the last, dropped when they are equal; a node created and later left
 * behind (or left behind and created again) is in neither list.
 */
export function composeTrieLogs(logs: TrieLog[]): TrieLog {
  if (logs.length === 1) return logs[0]
  const accounts = new Map<string, AccountChange>()
  const slots = new Map<string, SlotChange>()
  const nodes = new Map<string, { key: Uint8Array; isCreated: boolean }>()
  for (const log of logs) {
    for (const a of log.accounts) {
      const k = bytesToHex(a.key)
      const held = accounts.get(k)
      accounts.set(k, { key: a.key, before: held ? held.before : a.before, after: a.after })
    }
    for (const s of log.slots) {
      const k = bytesToHex(s.account) + bytesToHex(s.slot)
      const held = slots.get(k)
      slots.set(k, { account: s.account, slot: s.slot, before: held ? held.before : s.before, after: s.after })
    }
    for (const [list, isCreated] of [
      [log.created, true],
      [log.staled, false],
    ] as const) {
      for (const key of list) {
        const k = bytesToHex(key)
        const held = nodes.get(k)
        if (held && held.isCreated !== isCreated) nodes.delete(k)
        else nodes.set(k, { key, isCreated })
      }
    }
  }
  const node = (isCreated: boolean) => [...nodes.values()].filter((n) => n.isCreated === isCreated).map((n) => n.key)
  return {
    rootBefore: logs[0].rootBefore,
    rootAfter: logs[logs.length - 1].rootAfter,
    accounts: [...accounts.values()].filter((a) => !equalBytes(a.before, a.after)),
    slots: [...slots.values()].filter((s) => !equalBytes(s.before, s.after)),
    created: node(true),
    staled: node(false),
  }
}

/**
 * The store keys (unprefixed hex) of the nodes of the state at `root` that lie on the paths of the
 * accounts and slots `log` changed: where a node `log` created would sit if that state held it.
 */
export function nodesOnLogPaths(read: NodeReader, root: Uint8Array, log: TrieLog): Set<string> {
  const seen = new Set<string>()
  const slotsOf = new Map<string, Uint8Array[]>()
  for (const s of log.slots) {
    const key = bytesToHex(s.account)
    const list = slotsOf.get(key)
    if (list) list.push(s.slot)
    else slotsOf.set(key, [s.slot])
  }
  for (const a of log.accounts) {
    const account = nodesOnPath(read, root, a.key, seen)
    const slots = slotsOf.get(bytesToHex(a.key))
    if (!slots || account.length === 0) continue
    const prefix = a.key.subarray(0, STORAGE_KEY_PREFIX_BYTES)
    for (const slot of slots) nodesOnPath(read, storageRootOf(account), slot, seen, prefix)
  }
  return seen
}

export function encodeTrieLog(log: TrieLog): Uint8Array {
  return RLP.encode([
    log.rootBefore,
    log.rootAfter,
    log.accounts.map((a) => [a.key, a.before, a.after]),
    log.slots.map((s) => [s.account, s.slot, s.before, s.after]),
    log.created,
    log.staled,
  ])
}

export function decodeTrieLog(bytes: Uint8Array): TrieLog {
  const [rootBefore, rootAfter, accounts, slots, created, staled] = RLP.decode(bytes) as unknown as [
    Uint8Array,
    Uint8Array,
    Uint8Array[][],
    Uint8Array[][],
    Uint8Array[],
    Uint8Array[],
  ]
  return {
    rootBefore,
    rootAfter,
    accounts: accounts.map(([key, before, after]) => ({ key, before, after })),
    slots: slots.map(([account, slot, before, after]) => ({ account, slot, before, after })),
    created,
    staled,
  }
}
