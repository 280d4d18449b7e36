import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_RLP, ValueEncoding } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { TrieDb } from './trieDb.ts'
import { diffTries } from './trieDiff.ts'

/** A trie store in memory: TrieDb without SQLite behind it (every write stays pending). */
function memoryDb(): TrieDb {
  return new TrieDb({ readTrieNode: () => undefined } as never, 0)
}

function openTrie(db: TrieDb, root = KECCAK256_RLP): MerklePatriciaTrie {
  return new MerklePatriciaTrie({ db, root, useKeyHashing: true, valueEncoding: ValueEncoding.Bytes })
}

/** Every stored node key reachable from `root`, by walking the raw nodes. */
function reachable(db: TrieDb, root: Uint8Array): Set<string> {
  const out = new Set<string>()
  const visit = (ref: unknown): void => {
    if (ref instanceof Uint8Array) {
      if (ref.length !== 32) return
      const hex = bytesToHex(ref).slice(2)
      const bytes = db.getSync(hex)
      if (!bytes) throw new Error(`missing ${hex}`)
      out.add(hex)
      visitNode(RLP.decode(bytes) as unknown[])
    } else if (Array.isArray(ref)) visitNode(ref)
  }
  const visitNode = (node: unknown[]): void => {
    if (node.length === 17) for (let i = 0; i < 16; i++) visit(node[i])
    else if ((node[0] as Uint8Array)[0] >> 4 < 2) visit(node[1])
  }
  if (bytesToHex(root) !== bytesToHex(KECCAK256_RLP)) visit(root)
  return out
}

/** A deterministic pseudo-random sequence (no wall clock, no Math.random). */
function* numbers(seed: number): Generator<number> {
  let x = seed
  for (;;) {
    x = (x * 1103515245 + 12345) % 2 ** 31
    yield x
  }
}

const key = (i: number) => keccak_256(new Uint8Array([i & 0xff, i >> 8]))

describe('diffTries', () => {
  it('finds no change between a trie and itself', async () => {
    const db = memoryDb()
    const trie = openTrie(db)
    for (let i = 0; i < 50; i++) await trie.put(key(i), new Uint8Array([i + 1]))
    const d = diffTries((k) => db.getSync(k), trie.root(), trie.root())
    expect(d).toEqual({ leaves: [], created: [], staled: [] })
  })

  it('reports every changed leaf with both values and exactly the nodes one side holds', async () => {
    const rand = numbers(7)
    for (let round = 0; round < 20; round++) {
      const db = memoryDb()
      const trie = openTrie(db)
      const values = new Map<number, number>()
      const size = 1 + (rand.next().value % 200)
      for (let i = 0; i < size; i++) {
        const k = rand.next().value % 300
        values.set(k, 1 + (rand.next().value % 250))
        await trie.put(key(k), new Uint8Array([values.get(k)!, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]))
      }
      const before = trie.root()
      const expected = new Map<string, [string, string]>()
      const changes = 1 + (rand.next().value % 20)
      for (let i = 0; i < changes; i++) {
        const k = rand.next().value % 300
        const old = values.get(k)
        const isDelete = old !== undefined && rand.next().value % 3 === 0
        const fresh = isDelete ? undefined : 1 + (rand.next().value % 250)
        const enc = (v?: number) => (v === undefined ? '0x' : bytesToHex(new Uint8Array([v, ...new Array(15).fill(7)])))
        const h = bytesToHex(keccak_256(key(k)))
        const first = expected.get(h)?.[0] ?? enc(old)
        if (isDelete) {
          await trie.del(key(k))
          values.delete(k)
        } else {
          await trie.put(key(k), new Uint8Array([fresh!, ...new Array(15).fill(7)]))
          values.set(k, fresh!)
        }
        expected.set(h, [first, enc(fresh)])
      }
      const after = trie.root()
      for (const [h, [a, b]] of expected) if (a === b) expected.delete(h)
      const d = diffTries((k) => db.getSync(k), before, after)
      const got = new Map<string, [string, string]>(
        d.leaves.map((l) => [bytesToHex(l.key), [bytesToHex(l.before), bytesToHex(l.after)]]),
      )
      expect(got).toEqual(expected)
      const a = reachable(db, before)
      const b = reachable(db, after)
      expect(new Set(d.staled.map((k) => bytesToHex(k).slice(2)))).toEqual(new Set([...a].filter((k) => !b.has(k))))
      expect(new Set(d.created.map((k) => bytesToHex(k).slice(2)))).toEqual(new Set([...b].filter((k) => !a.has(k))))
    }
  })

  it('lists a whole trie against the empty one', async () => {
    const db = memoryDb()
    const trie = openTrie(db)
    for (let i = 0; i < 40; i++) await trie.put(key(i), new Uint8Array(40).fill(i + 1))
    const d = diffTries((k) => db.getSync(k), KECCAK256_RLP, trie.root())
    expect(d.leaves.length).toBe(40)
    expect(d.staled).toEqual([])
    expect(d.created.length).toBe(reachable(db, trie.root()).size)
    const back = diffTries((k) => db.getSync(k), trie.root(), KECCAK256_RLP)
    expect(back.leaves.every((l) => l.after.length === 0)).toBe(true)
    expect(back.staled.length).toBe(d.created.length)
  })
})
