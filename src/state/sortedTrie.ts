/**
 * A Merkle Patricia trie built in one pass from its complete set of keys (all the same length,
 * already hashed) and values, as a state rebuilt from the state history needs: each node is
 * encoded and hashed once, where putting the keys one at a time into a trie re-encodes and
 * re-hashes every node on the path of each key. Nodes of 32 bytes or more (and the root, whatever
 * its size) are handed to `store` under their hash, as the trie stores them; shorter ones are
 * embedded in their parent.
 */
import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_RLP } from '@ethereumjs/util'

type Raw = Uint8Array | Raw[]

/** One entry: the key as nibbles, and its value (not empty). */
interface Entry {
  nibbles: Uint8Array
  value: Uint8Array
}

/** A key as nibbles, high half of each byte first. */
export function toNibbles(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2)
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = key[i] >> 4
    out[2 * i + 1] = key[i] & 0x0f
  }
  return out
}

/** The hex-prefix (compact) encoding of a leaf's or an extension's path. */
export function compactPath(nibbles: Uint8Array, isLeaf: boolean): Uint8Array {
  const isOdd = nibbles.length % 2 === 1
  const flag = (isLeaf ? 2 : 0) + (isOdd ? 1 : 0)
  const out = new Uint8Array(1 + (nibbles.length >> 1))
  let i = 0
  if (isOdd) out[0] = (flag << 4) | nibbles[i++]
  else out[0] = flag << 4
  for (let o = 1; i < nibbles.length; i += 2, o++) out[o] = (nibbles[i] << 4) | nibbles[i + 1]
  return out
}

export class SortedTrieBuilder {
  private readonly entries: Entry[] = []
  private readonly keccak: (b: Uint8Array) => Uint8Array
  private readonly store: (hash: Uint8Array, node: Uint8Array) => void

  constructor(keccak: (b: Uint8Array) => Uint8Array, store: (hash: Uint8Array, node: Uint8Array) => void) {
    this.keccak = keccak
    this.store = store
  }

  /** Adds a key, greater than every key added before it, with its (non-empty) value. */
  add(key: Uint8Array, value: Uint8Array): void {
    this.entries.push({ nibbles: toNibbles(key), value })
  }

  /** Builds the trie, hands its nodes to `store` and returns its root. */
  root(): Uint8Array {
    if (this.entries.length === 0) return KECCAK256_RLP
    const encoded = RLP.encode(this.node(0, this.entries.length, 0))
    const hash = this.keccak(encoded)
    this.store(hash, encoded)
    return hash
  }

  /** The raw node over entries [from, to), all of which share their first `depth` nibbles. */
  private node(from: number, to: number, depth: number): Raw {
    const first = this.entries[from].nibbles
    if (to - from === 1) return [compactPath(first.subarray(depth), true), this.entries[from].value]
    // Sorted: the prefix all share is the one the first and the last share.
    const last = this.entries[to - 1].nibbles
    let shared = depth
    while (shared < first.length && first[shared] === last[shared]) shared++
    if (shared > depth) {
      return [compactPath(first.subarray(depth, shared), false), this.ref(this.branch(from, to, shared))]
    }
    return this.branch(from, to, depth)
  }

  private branch(from: number, to: number, depth: number): Raw[] {
    const children: Raw[] = new Array(17).fill(new Uint8Array(0))
    let start = from
    while (start < to) {
      const nibble = this.entries[start].nibbles[depth]
      let end = start + 1
      while (end < to && this.entries[end].nibbles[depth] === nibble) end++
      children[nibble] = this.ref(this.node(start, end, depth + 1))
      start = end
    }
    return children
  }

  /** How a parent refers to `node`: embedded when its encoding is under 32 bytes, else by hash. */
  private ref(node: Raw): Raw {
    const encoded = RLP.encode(node)
    if (encoded.length < 32) return node
    const hash = this.keccak(encoded)
    this.store(hash, encoded)
    return hash
  }
}
