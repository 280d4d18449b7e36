import { bytesToHex } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import type { ChainStore } from '../storage/chainStore.ts'
import { TrieDb } from './trieDb.ts'

/** A store that holds nothing: every read the pending writes do not answer misses. */
const emptyStore = { readTrieNode: () => undefined } as unknown as ChainStore

const key = (n: number) => n.toString(16).padStart(64, '0')
const value = (n: number) => new Uint8Array([n])
const keysOf = (out: [Uint8Array, Uint8Array][]) => out.map(([k]) => bytesToHex(k).slice(2)).sort()

describe('TrieDb.takePending', () => {
  it('writes the referenced nodes and holds the others readable until they expire', async () => {
    const db = new TrieDb(emptyStore)
    await db.put(key(1), value(1))
    await db.put(key(2), value(2))
    expect(keysOf(db.takePending(new Set([key(1)]), 1_000))).toEqual([key(1)])
    expect(db.getSync(key(2))).toEqual(value(2))
    expect([...db.pendingKeys()]).toEqual([key(2)])
    expect(db.pendingCount).toBe(1)
    // Still held 9.9 s later, gone at 10 s.
    expect(db.takePending(new Set(), 10_900)).toEqual([])
    expect(db.getSync(key(2))).toEqual(value(2))
    expect(db.takePending(new Set(), 11_000)).toEqual([])
    expect(db.getSync(key(2))).toBeUndefined()
    expect(db.pendingCount).toBe(0)
  })

  it('writes a held node once a state committed after its flush refers to it', async () => {
    const db = new TrieDb(emptyStore)
    await db.put(key(1), value(1))
    await db.put(key(2), value(2))
    // The flush came between two trie writes of a block: node 2 was not referenced yet.
    expect(keysOf(db.takePending(new Set([key(1)]), 1_000))).toEqual([key(1)])
    await db.put(key(3), value(3))
    expect(keysOf(db.takePending(new Set([key(2), key(3)]), 2_000))).toEqual([key(2), key(3)])
    expect(db.pendingCount).toBe(0)
  })

  it('writes every node, held ones included, when asked for everything', async () => {
    const db = new TrieDb(emptyStore)
    await db.put(key(1), value(1))
    expect(db.takePending(new Set(), 1_000)).toEqual([])
    await db.put(key(2), value(2))
    expect(keysOf(db.takePending(undefined, 2_000))).toEqual([key(1), key(2)])
    expect(db.pendingCount).toBe(0)
    // Written nodes stay readable from the read cache.
    expect(db.getSync(key(1))).toEqual(value(1))
  })

  it('takes a held node back into the pending writes when it is written again, and out of expiry', async () => {
    const db = new TrieDb(emptyStore)
    await db.put(key(1), value(1))
    expect(db.takePending(new Set(), 1_000)).toEqual([])
    await db.put(key(1), value(1))
    expect(db.pendingCount).toBe(1)
    expect(db.takePending(new Set(), 12_000)).toEqual([])
    expect(db.getSync(key(1))).toEqual(value(1))
    expect(keysOf(db.takePending(new Set([key(1)]), 13_000))).toEqual([key(1)])
  })
})
