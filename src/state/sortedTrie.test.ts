import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { KECCAK256_RLP } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { SortedTrieBuilder } from './sortedTrie.ts'

/** `count` hashed keys with values of 1 to 40 bytes (short ones give nodes embedded in their parent). */
function entries(count: number): [Uint8Array, Uint8Array][] {
  const out: [Uint8Array, Uint8Array][] = []
  for (let i = 0; i < count; i++) {
    const key = keccak_256(new Uint8Array([i & 0xff, i >> 8]))
    out.push([key, new Uint8Array(1 + (i % 40)).fill(i % 251)])
  }
  // Hex strings of equal length sort as their bytes do.
  return out.sort((a, b) => (bytesToHex(a[0]) < bytesToHex(b[0]) ? -1 : 1))
}

async function reference(list: [Uint8Array, Uint8Array][]): Promise<Uint8Array> {
  const trie = new MerklePatriciaTrie({ useKeyHashing: false })
  for (const [key, value] of list) await trie.put(key, value)
  return trie.root()
}

describe('SortedTrieBuilder', () => {
  it('gives the root of the same keys put one at a time, and stores every node it refers to by hash', async () => {
    for (const count of [0, 1, 2, 3, 17, 300]) {
      const list = entries(count)
      const stored = new Map<string, Uint8Array>()
      const builder = new SortedTrieBuilder(keccak_256, (hash, node) => stored.set(bytesToHex(hash), node))
      for (const [key, value] of list) builder.add(key, value)
      const root = builder.root()
      expect(bytesToHex(root)).toBe(bytesToHex(await reference(list)))
      if (count === 0) expect(bytesToHex(root)).toBe(bytesToHex(KECCAK256_RLP))
      else expect(bytesToHex(keccak_256(stored.get(bytesToHex(root))!))).toBe(bytesToHex(root))
      for (const [hash, node] of stored) expect(bytesToHex(keccak_256(node)) as string).toBe(hash)
    }
  })
})
