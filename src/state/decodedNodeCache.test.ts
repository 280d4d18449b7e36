import { BranchMPTNode, LeafMPTNode, MerklePatriciaTrie } from '@ethereumjs/mpt'
import { bytesToHex, utf8ToBytes } from '@ethereumjs/util'
import { describe, expect, it } from '../runtime/testing.ts'
import { copyNode, installDecodedNodeCache } from './decodedNodeCache.ts'

installDecodedNodeCache()

function randomPairs(n: number, seed: number): [Uint8Array, Uint8Array][] {
  let x = seed
  const next = () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff
    return x & 0xff
  }
  return Array.from({ length: n }, () => [
    Uint8Array.from({ length: 32 }, next),
    Uint8Array.from({ length: 1 + (next() % 40) }, next),
  ])
}

describe('installDecodedNodeCache', () => {
  it('keeps the root of the trie test vector (dog, doge, horse)', async () => {
    const trie = new MerklePatriciaTrie()
    for (const [k, v] of [
      ['do', 'verb'],
      ['dog', 'puppy'],
      ['doge', 'coin'],
      ['horse', 'stallion'],
    ]) {
      await trie.put(utf8ToBytes(k), utf8ToBytes(v))
    }
    expect(bytesToHex(trie.root())).toBe('0x5991bb8c6514148a29db676a14ac506cd2cd5775ace63c30a4fe457715e9ac84')
  })

  it('gives the same root and values whatever the order of updates, deletions included', async () => {
    const pairs = randomPairs(600, 7)
    const forward = new MerklePatriciaTrie()
    for (const [k, v] of pairs) await forward.put(k, v)
    // Overwrite and delete through the cached nodes, then restore: the root must come back.
    const before = forward.root()
    for (const [k] of pairs.slice(0, 100)) await forward.put(k, utf8ToBytes('changed'))
    for (const [k] of pairs.slice(100, 200)) await forward.del(k)
    for (const [k, v] of pairs.slice(0, 200)) await forward.put(k, v)
    expect(bytesToHex(forward.root())).toBe(bytesToHex(before))

    const backward = new MerklePatriciaTrie()
    for (const [k, v] of [...pairs].reverse()) await backward.put(k, v)
    expect(bytesToHex(backward.root())).toBe(bytesToHex(before))
    for (const [k, v] of pairs) expect(bytesToHex((await backward.get(k))!)).toBe(bytesToHex(v))
  })

  it('reads an older root of the same trie after later updates', async () => {
    const pairs = randomPairs(200, 11)
    const trie = new MerklePatriciaTrie()
    for (const [k, v] of pairs) await trie.put(k, v)
    const old = trie.root()
    for (const [k] of pairs) await trie.put(k, utf8ToBytes('new'))
    trie.root(old)
    for (const [k, v] of pairs) expect(bytesToHex((await trie.get(k))!)).toBe(bytesToHex(v))
  })
})

describe('copyNode', () => {
  it('copies a branch so that changing the copy leaves the original alone', () => {
    const branch = new BranchMPTNode()
    branch.setBranch(3, new Uint8Array(32).fill(1))
    const copy = copyNode(branch) as BranchMPTNode
    copy.setBranch(3, new Uint8Array(32).fill(2))
    copy.value(utf8ToBytes('v'))
    expect(branch.getBranch(3)![0]).toBe(1)
    expect(branch.value()).toBeNull()
  })

  it('copies a leaf with its own key', () => {
    const leaf = new LeafMPTNode([1, 2, 3], utf8ToBytes('x'))
    const copy = copyNode(leaf) as LeafMPTNode
    copy.key([4])
    copy.value(utf8ToBytes('y'))
    expect(leaf.key()).toEqual([1, 2, 3])
    expect(leaf.value()).toEqual(utf8ToBytes('x'))
  })
})
