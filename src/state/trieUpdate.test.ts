import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { KECCAK256_RLP, MapDB, ValueEncoding } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex } from '../primitives/hex.ts'
import { describe, expect, it, seededRandom } from '../runtime/testing.ts'
import { diffTries } from './trieDiff.ts'
import { type TrieChange, TrieUpdate } from './trieUpdate.ts'

/** Keys of `length` bytes whose nibbles come from a few values, so that they share long prefixes. */
function keyPool(next: () => number, count: number, length: number): Uint8Array[] {
  const nibbles = [0, 1, 0xa, 0xf]
  const seen = new Set<string>()
  const out: Uint8Array[] = []
  for (let tries = 0; out.length < count && tries < count * 20; tries++) {
    const key = new Uint8Array(length)
    // Half the keys differ only in their last bytes.
    const spread = next() < 0.5 ? length : 2
    for (let i = 0; i < length; i++) {
      const hi = i >= length - spread ? nibbles[Math.floor(next() * 4)] : 1
      const lo = i >= length - spread ? nibbles[Math.floor(next() * 4)] : 0
      key[i] = (hi << 4) | lo
    }
    const hex = bytesToHex(key)
    if (seen.has(hex)) continue
    seen.add(hex)
    out.push(key)
  }
  return out
}

function sorted(list: Uint8Array[]): string[] {
  return list.map((b) => bytesToHex(b)).sort()
}

function leafSet(list: { key: Uint8Array; before: Uint8Array; after: Uint8Array }[]): string[] {
  return list.map((l) => `${bytesToHex(l.key)} ${bytesToHex(l.before)} ${bytesToHex(l.after)}`).sort()
}

/** A value of 1 to 3 bytes (nodes embedded in their parent) or of 33 (nodes stored by hash). */
function value(next: () => number): Uint8Array {
  const length = next() < 0.5 ? 1 + Math.floor(next() * 3) : 33
  return new Uint8Array(length).fill(1 + Math.floor(next() * 250))
}

/** A library trie whose nodes live in `nodes` (unprefixed hex keys, as the trie's database writes them). */
function libraryTrie(nodes: Map<string, Uint8Array>, root?: Uint8Array): MerklePatriciaTrie {
  return new MerklePatriciaTrie({
    db: new MapDB<string, Uint8Array>(nodes),
    useKeyHashing: false,
    valueEncoding: ValueEncoding.Bytes,
    root,
  })
}

function updaterOver(nodes: Map<string, Uint8Array>): TrieUpdate {
  return new TrieUpdate(
    (hash) => nodes.get(bytesToHex(hash).slice(2)),
    keccak_256,
    (hash, node) => nodes.set(bytesToHex(hash).slice(2), node),
  )
}

/**
 * Runs `batches` random batches of changes over a pool of keys through the library (one put or del
 * at a time) and through one update per batch, comparing the roots after each batch, and reading
 * every key back from the update's nodes alone.
 */
async function runCase(seed: number, keyLength: number, batches: number): Promise<void> {
  const next = seededRandom(seed)
  const pool = keyPool(next, 2 + Math.floor(next() * 40), keyLength)
  const reference = libraryTrie(new Map())
  const ours = new Map<string, Uint8Array>()
  const updater = updaterOver(ours)
  const live = new Map<string, Uint8Array>()
  let root = KECCAK256_RLP
  for (let b = 0; b < batches; b++) {
    const changes = new Map<string, TrieChange>()
    const mode = next()
    if (mode < 0.1) {
      // Down to empty (or nearly): delete every key.
      for (const key of pool) changes.set(bytesToHex(key), { key, value: new Uint8Array(0) })
    } else {
      const count = 1 + Math.floor(next() * (mode < 0.3 ? 2 : 12))
      for (let i = 0; i < count; i++) {
        const key = pool[Math.floor(next() * pool.length)]
        const isDelete = next() < 0.35
        changes.set(bytesToHex(key), { key, value: isDelete ? new Uint8Array(0) : value(next) })
      }
    }
    for (const c of changes.values()) {
      if (c.value.length === 0) await reference.del(c.key)
      else await reference.put(c.key, c.value)
      if (c.value.length === 0) live.delete(bytesToHex(c.key))
      else live.set(bytesToHex(c.key), c.value)
    }
    // Any order in, the same trie out.
    const shuffled = [...changes.values()].sort(() => next() - 0.5)
    const result = updater.apply(root, shuffled)
    expect(`${seed}/${b}: ${bytesToHex(result.root)}`).toBe(`${seed}/${b}: ${bytesToHex(reference.root())}`)
    // What it reports is what a diff of the two tries finds. The diff goes by position: a node
    // the old trie held at one place and the new one holds at another (the same subtree under two
    // prefixes, which short keys over few nibbles make) is in both of its lists; the store holds
    // nodes by hash, so the update reports it in neither.
    const diff = diffTries((key) => ours.get(key), root, result.root)
    const moved = new Set(sorted(diff.created).filter((h) => sorted(diff.staled).includes(h)))
    expect(sorted(result.created)).toEqual(sorted(diff.created).filter((h) => !moved.has(h)))
    expect(sorted(result.staled)).toEqual(sorted(diff.staled).filter((h) => !moved.has(h)))
    expect(leafSet(result.changed)).toEqual(leafSet(diff.leaves))
    root = result.root
  }
  // Only our own nodes: a missing one would fail the reads.
  const check = libraryTrie(ours, root)
  for (const key of pool) {
    const got = await check.get(key)
    const want = live.get(bytesToHex(key))
    expect(got === null ? null : bytesToHex(got)).toBe(want === undefined ? null : bytesToHex(want))
  }
}

describe('TrieUpdate', () => {
  it('gives the library root for random batches of puts and deletes over shared-prefix keys', async () => {
    for (let seed = 1; seed <= 150; seed++) await runCase(seed, 3, 12)
  })

  it('gives the library root for 32-byte keys, as the state and storage tries use', async () => {
    for (let seed = 1001; seed <= 1060; seed++) await runCase(seed, 32, 10)
  })

  it('starts from a trie the library built and reads its nodes from the store', async () => {
    const next = seededRandom(7)
    const nodes = new Map<string, Uint8Array>()
    const trie = libraryTrie(nodes)
    const keys = Array.from({ length: 200 }, (_, i) => keccak_256(new Uint8Array([i])))
    for (const key of keys) await trie.put(key, value(next))
    const changes: TrieChange[] = []
    for (let i = 0; i < 200; i += 7) changes.push({ key: keys[i], value: new Uint8Array(0) })
    for (let i = 3; i < 200; i += 11) changes.push({ key: keys[i], value: value(next) })
    changes.push({ key: keccak_256(new Uint8Array([1, 2, 3])), value: value(next) })
    // A key the trie never held: deleting it changes nothing.
    changes.push({ key: keccak_256(new Uint8Array([9, 9])), value: new Uint8Array(0) })
    const { root } = updaterOver(nodes).apply(trie.root(), changes)
    for (const c of changes) {
      if (c.value.length === 0) await trie.del(c.key)
      else await trie.put(c.key, c.value)
    }
    expect(bytesToHex(root)).toBe(bytesToHex(trie.root()))
  })

  it('leaves the root as it is for no change or only deletions of absent keys', () => {
    const nodes = new Map<string, Uint8Array>()
    const updater = updaterOver(nodes)
    const key = new Uint8Array(32).fill(1)
    const { root } = updater.apply(KECCAK256_RLP, [{ key, value: new Uint8Array([5]) }])
    expect(bytesToHex(updater.apply(root, []).root)).toBe(bytesToHex(root))
    const absent = { key: new Uint8Array(32).fill(2), value: new Uint8Array(0) }
    const unchanged = updater.apply(root, [absent])
    expect(bytesToHex(unchanged.root)).toBe(bytesToHex(root))
    expect([unchanged.changed.length, unchanged.created.length, unchanged.staled.length]).toEqual([0, 0, 0])
    const emptied = updater.apply(root, [{ key, value: new Uint8Array(0) }])
    expect(bytesToHex(emptied.root)).toBe(bytesToHex(KECCAK256_RLP))
    expect(sorted(emptied.staled)).toEqual([bytesToHex(root)])
    expect(bytesToHex(updater.apply(KECCAK256_RLP, [absent]).root)).toBe(bytesToHex(KECCAK256_RLP))
  })
})
