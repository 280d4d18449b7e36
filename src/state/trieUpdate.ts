/**
 * One update of a stored Merkle Patricia trie over a batch of changes (inserts, updates and
 * deletions of keys all the same length, already hashed), in one pass over the changed paths: each
 * node the new state holds is encoded and hashed once. Putting the keys one at a time into the
 * library's trie encodes the upper nodes again for every key (the states in between are written
 * too, and no committed state holds them). The result is the canonical trie of the new key set
 * (the same root as the library's, whatever the order of its puts): a branch left with one child
 * folds into that child's path, an extension over a changed child joins the child's path, and
 * paths split where a new key leaves them. Nodes are read through `read` (the store's encoding
 * under its hash), and the new ones, of 32 bytes or more, and the root whatever its size, are
 * handed to `store`; shorter ones are embedded in their parent, as in `sortedTrie.ts`.
 */
import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_RLP } from '@ethereumjs/util'
import { bytesToBareHex, equalBytes as equalsBytes } from '../primitives/hex.ts'
import { compactPath, toNibbles } from './sortedTrie.ts'

type Raw = Uint8Array | Raw[]

/** A change of one key: the new value, or an empty value to delete the key. */
export interface TrieChange {
  key: Uint8Array
  value: Uint8Array
}

/** A node of the state being built, or a reference to one the update left as it was. */
type Node = Leaf | Extension | Branch | Kept
interface Leaf {
  kind: 'leaf'
  path: Uint8Array
  value: Uint8Array
}
interface Extension {
  kind: 'extension'
  path: Uint8Array
  child: Node
}
interface Branch {
  kind: 'branch'
  children: (Node | null)[]
  value: Uint8Array
}
/** An unchanged child: its hash or, under 32 bytes, the node itself, as its parent holds it. */
interface Kept {
  kind: 'kept'
  ref: Raw
}

/** A change with its key as nibbles, and the value it replaces (found on the way down). */
interface Item {
  key: Uint8Array
  nibbles: Uint8Array
  value: Uint8Array
  before: Uint8Array
}

/** What one update did: its root, the keys whose value changed, and the stored nodes it made and left behind. */
export interface TrieUpdateResult {
  root: Uint8Array
  /** Keys whose value changed, with the old and the new value (empty: absent). */
  changed: { key: Uint8Array; before: Uint8Array; after: Uint8Array }[]
  /** Hashes of the nodes stored for the new state that the old one did not hold. */
  created: Uint8Array[]
  /** Hashes of the stored nodes of the old state that the new one does not hold. */
  staled: Uint8Array[]
}

const EMPTY = new Uint8Array(0)

/** A compact path back to nibbles, and whether it ends in a leaf. */
function decodePath(compact: Uint8Array): { path: Uint8Array; isLeaf: boolean } {
  const flag = compact[0] >> 4
  const isOdd = (flag & 1) === 1
  const path = new Uint8Array((compact.length - 1) * 2 + (isOdd ? 1 : 0))
  let o = 0
  if (isOdd) path[o++] = compact[0] & 0x0f
  for (let i = 1; i < compact.length; i++) {
    path[o++] = compact[i] >> 4
    path[o++] = compact[i] & 0x0f
  }
  return { path, isLeaf: flag >= 2 }
}

function concatNibbles(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

function compareNibbles(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i]
  return a.length - b.length
}

/** How many nibbles of `nibbles` from `depth` on match `path`. */
function sharedLength(nibbles: Uint8Array, depth: number, path: Uint8Array): number {
  let k = 0
  while (k < path.length && depth + k < nibbles.length && nibbles[depth + k] === path[k]) k++
  return k
}

export class TrieUpdate {
  private readonly read: (hash: Uint8Array) => Uint8Array | undefined
  private readonly keccak: (b: Uint8Array) => Uint8Array
  private readonly store: (hash: Uint8Array, node: Uint8Array) => void

  constructor(
    read: (hash: Uint8Array) => Uint8Array | undefined,
    keccak: (b: Uint8Array) => Uint8Array,
    store: (hash: Uint8Array, node: Uint8Array) => void,
  ) {
    this.read = read
    this.keccak = keccak
    this.store = store
  }

  /** Hashes of the nodes stored and of the stored nodes replaced by the update under way. */
  private created: Uint8Array[] = []
  private staled: Uint8Array[] = []

  /**
   * Applies `changes` (one per key, any order) to the trie at `root`; the nodes of the new state
   * that the old one did not hold along the changed paths go to `store`.
   */
  apply(root: Uint8Array, changes: Iterable<TrieChange>): TrieUpdateResult {
    const items: Item[] = []
    for (const c of changes) items.push({ key: c.key, nibbles: toNibbles(c.key), value: c.value, before: EMPTY })
    this.created = []
    this.staled = []
    items.sort((a, b) => compareNibbles(a.nibbles, b.nibbles))
    const start: Node | null = equalsEmptyRoot(root) ? null : { kind: 'kept', ref: root }
    const next = items.length === 0 ? start : this.update(start, 0, items)
    let newRoot: Uint8Array
    if (next === null) newRoot = KECCAK256_RLP
    else if (next.kind === 'kept') newRoot = next.ref as Uint8Array
    else {
      const encoded = RLP.encode(this.raw(next))
      newRoot = this.keccak(encoded)
      this.store(newRoot, encoded)
      this.created.push(newRoot)
    }
    const changed = []
    for (const i of items) {
      if (!equalsBytes(i.before, i.value)) changed.push({ key: i.key, before: i.before, after: i.value })
    }
    if (this.created.length === 0 || this.staled.length === 0)
      return { root: newRoot, changed, created: this.created, staled: this.staled }
    // A node rebuilt as it was (a deletion of an absent key below it) is neither.
    const made = new Set(this.created.map(bytesToBareHex))
    const gone = new Set(this.staled.map(bytesToBareHex))
    return {
      root: newRoot,
      changed,
      created: this.created.filter((h) => !gone.has(bytesToBareHex(h))),
      staled: this.staled.filter((h) => !made.has(bytesToBareHex(h))),
    }
  }

  /** The node at `depth` after `items` (sorted, sharing their first `depth` nibbles) are applied. */
  private update(node: Node | null, depth: number, items: Item[]): Node | null {
    if (items.length === 0) return node
    if (node === null)
      return this.build(
        items.filter((i) => i.value.length > 0),
        depth,
      )
    if (node.kind === 'kept' && node.ref instanceof Uint8Array) this.staled.push(node.ref)
    const n = node.kind === 'kept' ? this.load(node.ref) : node
    if (n.kind === 'leaf') return this.updateLeaf(n, depth, items)
    if (n.kind === 'extension') return this.updateExtension(n, depth, items)
    return this.updateBranch(n as Branch, depth, items)
  }

  private updateLeaf(leaf: Leaf, depth: number, items: Item[]): Node | null {
    const out: Item[] = []
    const prefix = items[0].nibbles.subarray(0, depth)
    const nibbles = concatNibbles(prefix, leaf.path)
    const own: Item = { key: EMPTY, nibbles, value: leaf.value, before: EMPTY }
    let isOwnPlaced = false
    for (const item of items) {
      if (!isOwnPlaced) {
        const order = compareNibbles(own.nibbles, item.nibbles)
        if (order < 0) out.push(own)
        // Equal: the change replaces (or deletes) the leaf's own value.
        if (order === 0) item.before = leaf.value
        if (order <= 0) isOwnPlaced = true
      }
      if (item.value.length > 0) out.push(item)
    }
    if (!isOwnPlaced) out.push(own)
    return this.build(out, depth)
  }

  private updateExtension(ext: Extension, depth: number, items: Item[]): Node | null {
    const path = ext.path
    // The shortest match with the path of a key to insert: the path splits there.
    let split = path.length
    for (const item of items) {
      if (item.value.length === 0) continue
      const k = sharedLength(item.nibbles, depth, path)
      if (k < split) split = k
    }
    if (split === path.length) {
      // Deletions of keys off the path delete nothing.
      const under = items.filter((i) => sharedLength(i.nibbles, depth, path) === path.length)
      return this.join(path, this.update(ext.child, depth + path.length, under))
    }
    const children: (Node | null)[] = new Array(16).fill(null)
    const rest = path.subarray(split + 1)
    children[path[split]] = rest.length > 0 ? { kind: 'extension', path: rest, child: ext.child } : ext.child
    const branch: Branch = { kind: 'branch', children, value: EMPTY }
    const under = items.filter((i) => sharedLength(i.nibbles, depth, path) >= split)
    return this.join(path.subarray(0, split), this.updateBranch(branch, depth + split, under))
  }

  private updateBranch(branch: Branch, depth: number, items: Item[]): Node | null {
    const children = branch.children.slice()
    let start = 0
    while (start < items.length) {
      const nibble = items[start].nibbles[depth]
      let end = start + 1
      while (end < items.length && items[end].nibbles[depth] === nibble) end++
      children[nibble] = this.update(children[nibble], depth + 1, items.slice(start, end))
      start = end
    }
    let only = -1
    let count = 0
    for (let i = 0; i < 16; i++) {
      if (children[i] === null) continue
      count++
      only = i
    }
    if (branch.value.length > 0 || count > 1) return { kind: 'branch', children, value: branch.value }
    if (count === 0) return null
    return this.join(Uint8Array.of(only), children[only])
  }

  /** `child` under `path` (a branch with one child left, or an extension over a changed child). */
  private join(path: Uint8Array, child: Node | null): Node | null {
    if (child === null || path.length === 0) return child
    const n = child.kind === 'kept' ? this.load(child.ref) : child
    // A stored leaf or extension moves under a longer path: a new node, the old one left behind.
    if (n.kind !== 'branch' && child.kind === 'kept' && child.ref instanceof Uint8Array) this.staled.push(child.ref)
    if (n.kind === 'leaf') return { kind: 'leaf', path: concatNibbles(path, n.path), value: n.value }
    if (n.kind === 'extension') return { kind: 'extension', path: concatNibbles(path, n.path), child: n.child }
    // A branch keeps its reference: it is not encoded again.
    return { kind: 'extension', path, child }
  }

  /** The trie of `items` (sorted, none empty) below `depth`, built from nothing. */
  private build(items: Item[], depth: number): Node | null {
    if (items.length === 0) return null
    const first = items[0].nibbles
    if (items.length === 1) return { kind: 'leaf', path: first.subarray(depth), value: items[0].value }
    const last = items[items.length - 1].nibbles
    let shared = depth
    while (shared < first.length && first[shared] === last[shared]) shared++
    const children: (Node | null)[] = new Array(16).fill(null)
    let start = 0
    while (start < items.length) {
      const nibble = items[start].nibbles[shared]
      let end = start + 1
      while (end < items.length && items[end].nibbles[shared] === nibble) end++
      children[nibble] = this.build(items.slice(start, end), shared + 1)
      start = end
    }
    const branch: Branch = { kind: 'branch', children, value: EMPTY }
    return shared > depth ? { kind: 'extension', path: first.subarray(depth, shared), child: branch } : branch
  }

  /** A stored node (by hash, or embedded in its parent) as a node of the update. */
  private load(ref: Raw): Node {
    let raw: Raw
    if (ref instanceof Uint8Array) {
      const bytes = this.read(ref)
      if (bytes === undefined) throw new Error('Missing node in DB')
      raw = decodeNode(bytes)
    } else {
      raw = ref
    }
    if (!Array.isArray(raw)) throw new Error('invalid trie node')
    if (raw.length === 17) {
      const children: (Node | null)[] = new Array(16)
      for (let i = 0; i < 16; i++) {
        const c = raw[i]
        children[i] = c instanceof Uint8Array && c.length === 0 ? null : { kind: 'kept', ref: c }
      }
      return { kind: 'branch', children, value: raw[16] as Uint8Array }
    }
    if (raw.length !== 2 || !(raw[0] instanceof Uint8Array)) throw new Error('invalid trie node')
    const { path, isLeaf } = decodePath(raw[0])
    if (isLeaf) return { kind: 'leaf', path, value: raw[1] as Uint8Array }
    return { kind: 'extension', path, child: { kind: 'kept', ref: raw[1] } }
  }

  private raw(node: Leaf | Extension | Branch): Raw {
    if (node.kind === 'leaf') return [compactPath(node.path, true), node.value]
    if (node.kind === 'extension') return [compactPath(node.path, false), this.ref(node.child)]
    const out: Raw[] = new Array(17)
    for (let i = 0; i < 16; i++) {
      const c = node.children[i]
      out[i] = c === null ? EMPTY : this.ref(c)
    }
    out[16] = node.value
    return out
  }

  /** How a parent refers to `node`: embedded when its encoding is under 32 bytes, else by hash. */
  private ref(node: Node): Raw {
    if (node.kind === 'kept') return node.ref
    const raw = this.raw(node)
    const encoded = RLP.encode(raw)
    if (encoded.length < 32) return raw
    const hash = this.keccak(encoded)
    this.store(hash, encoded)
    this.created.push(hash)
    return hash
  }
}

let decodedEnd = 0

/**
 * A stored node's RLP decoded in place: its byte strings are views into `bytes` (a stored encoding
 * is never changed), where the RLP decoder copies each (17 for a branch). Throws on anything but
 * one whole item.
 */
function decodeNode(bytes: Uint8Array): Raw {
  const raw = decodeItem(bytes, 0, bytes.length)
  if (decodedEnd !== bytes.length) throw new Error('invalid trie node')
  return raw
}

function decodeItem(bytes: Uint8Array, at: number, end: number): Raw {
  if (at >= end) throw new Error('invalid trie node')
  const first = bytes[at]
  if (first <= 0x7f) {
    decodedEnd = at + 1
    return bytes.subarray(at, at + 1)
  }
  let start = at + 1
  let len: number
  const isList = first >= 0xc0
  const short = isList ? first - 0xc0 : first - 0x80
  if (short <= 55) len = short
  else {
    const n = short - 55
    if (start + n > end) throw new Error('invalid trie node')
    len = 0
    for (let i = 0; i < n; i++) len = len * 256 + bytes[start + i]
    start += n
  }
  const itemEnd = start + len
  if (itemEnd > end) throw new Error('invalid trie node')
  decodedEnd = itemEnd
  if (!isList) return bytes.subarray(start, itemEnd)
  const items: Raw[] = []
  for (let p = start; p < itemEnd; p = decodedEnd) items.push(decodeItem(bytes, p, itemEnd))
  decodedEnd = itemEnd
  return items
}

function equalsEmptyRoot(root: Uint8Array): boolean {
  if (root.length !== KECCAK256_RLP.length) return false
  for (let i = 0; i < root.length; i++) if (root[i] !== KECCAK256_RLP[i]) return false
  return true
}
