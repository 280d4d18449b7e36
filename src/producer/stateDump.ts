/**
 * `anvil_dumpState` / `anvil_loadState` and `--dump-state` / `--load-state`: the whole state after
 * the head as one JSON document. The trie is keyed by hashed addresses and slots, so a dump cannot
 * name accounts the way Anvil's does; it carries the trie itself instead — every node reachable from
 * the state root (account trie, storage tries, code) — which a load puts back exactly and makes the
 * state after the head. A load also takes Anvil's own format (`accounts` with balance, nonce, code
 * and storage), applied as state edits.
 */
import { gunzipSync, gzipSync } from 'node:zlib'
import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_NULL, KECCAK256_RLP } from '@ethereumjs/util'
import { bytesToHex, equalBytes, hexToBytes, padHex } from '../primitives/hex.ts'
import type { TrieDb } from '../state/trieDb.ts'
import { diffTries } from '../state/trieDiff.ts'
import { STORAGE_KEY_PREFIX_BYTES } from '../state/trieLog.ts'
import type { AccountEdit, DevTools } from './devTools.ts'

const FORMAT = 'basalt-state/1'
/** Contract code sits beside the trie nodes under its hash, prefixed with `c` (ethereumjs' layout). */
const CODE_PREFIX = '63'

export interface StateDump {
  format: typeof FORMAT
  block: { number: string; hash: string }
  stateRoot: string
  /** Trie node or code key (hex, as the store keys them) → value (hex). */
  nodes: Record<string, string>
}

/** Every node of the trie under `root` (keys prefixed with `keyPrefix`), into `nodes`; resolves to its leaves. */
function collect(db: TrieDb, root: Uint8Array, nodes: Record<string, string>, keyPrefix?: Uint8Array) {
  const read = (hex: string) => db.getSync(hex)
  const all = diffTries(read, KECCAK256_RLP, root, keyPrefix)
  for (const key of all.created) {
    const hex = bytesToHex(key).slice(2)
    nodes[hex] = bytesToHex(read(hex)!)
  }
  return all.leaves
}

/**
 * The state after the head as a dump. A BONSAI data path keys each storage trie's nodes with its
 * account's prefix (see docs/state-storage.md), so its dumps load into BONSAI data paths only.
 */
export function dumpState(tools: DevTools): StateDump {
  const { chain } = tools
  const root = chain.postStateRoot(chain.head)
  const nodes: Record<string, string> = {}
  const isPrefixed = chain.trieDb.storageFormat === 'BONSAI'
  for (const { key, after: value } of collect(chain.trieDb, root, nodes)) {
    const fields = RLP.decode(value)
    // A forked state's markers (tombstones, detach entries; see state/forkState.ts) are no accounts.
    if (!Array.isArray(fields) || fields.length !== 4) continue
    const [, , storageRoot, codeHash] = fields as Uint8Array[]
    collect(chain.trieDb, storageRoot, nodes, isPrefixed ? key.slice(0, STORAGE_KEY_PREFIX_BYTES) : undefined)
    if (equalBytes(codeHash, KECCAK256_NULL)) continue
    const codeKey = CODE_PREFIX + bytesToHex(codeHash).slice(2)
    const code = chain.trieDb.getSync(codeKey)
    if (code) nodes[codeKey] = bytesToHex(code)
  }
  const head = chain.head
  return {
    format: FORMAT,
    block: { number: `0x${head.header.number.toString(16)}`, hash: bytesToHex(head.hash()) },
    stateRoot: bytesToHex(root),
    nodes,
  }
}

/** A dump as `anvil_dumpState` answers it: gzip-compressed JSON, hex-encoded. */
export function encodeDump(dump: StateDump): string {
  return bytesToHex(gzipSync(JSON.stringify(dump)))
}

/** Reads a dump given as hex (gzip or not) or as JSON text. */
export function decodeDump(input: string): unknown {
  let text = input.trim()
  if (text.startsWith('0x')) {
    const bytes = hexToBytes(text)
    text = new TextDecoder().decode(bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes)
  }
  return JSON.parse(text)
}

/** Loads a Basalt dump or Anvil's `accounts` format into the state after the head. */
export async function loadState(tools: DevTools, value: unknown): Promise<void> {
  const doc = value as Partial<StateDump> & { accounts?: Record<string, AnvilAccount> }
  if (doc?.format === FORMAT && typeof doc.stateRoot === 'string' && doc.nodes) {
    const nodes = doc.nodes
    await tools.replaceState(hexToBytes(doc.stateRoot), async (db) => {
      for (const [key, v] of Object.entries(nodes)) await db.put(key, hexToBytes(v))
    })
    return
  }
  if (doc?.accounts && typeof doc.accounts === 'object') {
    await tools.setAccounts(Object.entries(doc.accounts).map(([a, acc]) => [hexToBytes(a), anvilAccount(acc)]))
    return
  }
  throw new Error('expected a state dump (format basalt-state/1, or Anvil accounts)')
}

interface AnvilAccount {
  balance?: string
  nonce?: string | number
  code?: string
  storage?: Record<string, string>
}

function anvilAccount(a: AnvilAccount): AccountEdit {
  return {
    balance: a.balance === undefined ? undefined : BigInt(a.balance),
    nonce: a.nonce === undefined ? undefined : BigInt(a.nonce),
    code: a.code === undefined ? undefined : hexToBytes(a.code),
    storage: Object.entries(a.storage ?? {}).map(([k, v]) => [hexToBytes(padHex(k, 32)), hexToBytes(padHex(v, 32))]),
  }
}
