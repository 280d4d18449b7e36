/**
 * The difference between two Merkle Patricia tries stored in the same node store: the leaves whose
 * value changed (with the old and the new value) and the stored nodes only one side holds. Both
 * tries are walked together by absolute nibble path and a subtree whose reference is the same on
 * both sides is skipped, so the cost follows the changed paths, not the size of the state.
 *
 * A stored node held only by the old trie is "staled" (no longer needed by the new state); one held
 * only by the new trie is "created". With hashed keys a node hash names one position in one trie,
 * which is what makes this per-position comparison exact.
 */
import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_RLP } from '@ethereumjs/util'
import { bytesToHex, equalBytes } from '../primitives/hex.ts'

/** A child reference inside a node: a 32-byte hash, an inline node, or empty. */
type Ref = Uint8Array | RawNode
type RawNode = (Uint8Array | RawNode)[]

/** A leaf or extension seen from part-way down its key (never stored on its own). */
interface Virtual {
  isLeaf: boolean
  nibbles: number[]
  /** Leaf: the value; extension: the child reference. */
  next: Ref
}

type Side = Ref | Virtual

export interface LeafChange {
  /** The full key (32 bytes for the hashed-key tries of the state). */
  key: Uint8Array
  /** Absent on that side: empty. */
  before: Uint8Array
  after: Uint8Array
}

export interface TrieDiff {
  leaves: LeafChange[]
  /** Store keys (prefix + hash) of nodes only the new trie holds. */
  created: Uint8Array[]
  /** Store keys of nodes only the old trie holds. */
  staled: Uint8Array[]
}

/** Reads a stored node by its unprefixed hex key. */
export type NodeReader = (hexKey: string) => Uint8Array | undefined

const EMPTY = new Uint8Array(0)

/** The runtime's native hex encoder where there is one (Bun, Deno). */
const nativeToHex = (Uint8Array.prototype as unknown as { toHex?: () => string }).toHex

export class MissingTrieNodeError extends Error {
  constructor(key: string) {
    super(`missing trie node ${key}`)
    this.name = 'MissingTrieNodeError'
  }
}

/** Compares the tries rooted at `before` and `after` (node keys prefixed with `keyPrefix`). */
export function diffTries(
  read: NodeReader,
  before: Uint8Array,
  after: Uint8Array,
  keyPrefix: Uint8Array<ArrayBufferLike> = EMPTY,
): TrieDiff {
  const out: TrieDiff = { leaves: [], created: [], staled: [] }
  const walker = new DiffWalker(read, keyPrefix, out)
  walker.diff(rootRef(before), rootRef(after), [])
  return out
}

function rootRef(root: Uint8Array): Ref {
  return equalBytes(root, KECCAK256_RLP) ? EMPTY : root
}

function isVirtual(s: Side): s is Virtual {
  return !(s instanceof Uint8Array) && !Array.isArray(s)
}

function isEmpty(s: Side): boolean {
  return s instanceof Uint8Array && s.length === 0
}

function sameRef(a: Side, b: Side): boolean {
  if (a instanceof Uint8Array && b instanceof Uint8Array) return equalBytes(a, b)
  if (Array.isArray(a) && Array.isArray(b)) return equalBytes(RLP.encode(a), RLP.encode(b))
  return false
}

/** Hex-prefix (compact) path of a leaf or extension node to nibbles and its kind. */
function decodePath(compact: Uint8Array): { nibbles: number[]; isLeaf: boolean } {
  const flag = compact[0] >> 4
  const nibbles: number[] = []
  if (flag & 1) nibbles.push(compact[0] & 0x0f)
  for (let i = 1; i < compact.length; i++) nibbles.push(compact[i] >> 4, compact[i] & 0x0f)
  return { nibbles, isLeaf: flag >= 2 }
}

function nibblesToBytes(nibbles: number[]): Uint8Array {
  const out = new Uint8Array(nibbles.length >> 1)
  for (let i = 0; i < out.length; i++) out[i] = (nibbles[2 * i] << 4) | nibbles[2 * i + 1]
  return out
}

/** A node laid out as a branch at its own path: 16 children and a value (empty when none). */
interface Expanded {
  children: Side[]
  value: Uint8Array
}

class DiffWalker {
  private readonly read: NodeReader
  private readonly keyPrefix: Uint8Array<ArrayBufferLike>
  private readonly out: TrieDiff

  constructor(read: NodeReader, keyPrefix: Uint8Array<ArrayBufferLike>, out: TrieDiff) {
    this.read = read
    this.keyPrefix = keyPrefix
    this.out = out
  }

  diff(a: Side, b: Side, path: number[]): void {
    if (sameRef(a, b)) return
    if (isEmpty(a) || isEmpty(b)) {
      this.collect(isEmpty(a) ? b : a, path, isEmpty(b))
      return
    }
    const na = this.resolve(a, this.out.staled)
    const nb = this.resolve(b, this.out.created)
    // Two leaves (or extensions) with the same remaining path: compare what they hold directly.
    if (isVirtual(na) && isVirtual(nb) && na.isLeaf === nb.isLeaf && sameNibbles(na.nibbles, nb.nibbles)) {
      const at = [...path, ...na.nibbles]
      if (na.isLeaf) {
        const va = na.next as Uint8Array
        const vb = nb.next as Uint8Array
        if (!equalBytes(va, vb)) this.out.leaves.push({ key: nibblesToBytes(at), before: va, after: vb })
      } else {
        this.diff(na.next, nb.next, at)
      }
      return
    }
    const ea = expand(na)
    const eb = expand(nb)
    if (!equalBytes(ea.value, eb.value)) {
      this.out.leaves.push({ key: nibblesToBytes(path), before: ea.value, after: eb.value })
    }
    for (let i = 0; i < 16; i++) {
      // Most children of a changed branch are the same on both sides: skip them before building a path.
      if (!sameRef(ea.children[i], eb.children[i])) this.diff(ea.children[i], eb.children[i], [...path, i])
    }
  }

  /** Every leaf and stored node under `s`, present on one side only. */
  private collect(s: Side, path: number[], isBefore: boolean): void {
    if (isEmpty(s)) return
    const n = this.resolve(s, isBefore ? this.out.staled : this.out.created)
    if (isVirtual(n)) {
      const at = [...path, ...n.nibbles]
      if (!n.isLeaf) {
        this.collect(n.next, at, isBefore)
        return
      }
      const value = n.next as Uint8Array
      this.out.leaves.push({
        key: nibblesToBytes(at),
        before: isBefore ? value : EMPTY,
        after: isBefore ? EMPTY : value,
      })
      return
    }
    const e = expand(n)
    if (e.value.length > 0) {
      this.out.leaves.push({
        key: nibblesToBytes(path),
        before: isBefore ? e.value : EMPTY,
        after: isBefore ? EMPTY : e.value,
      })
    }
    for (let i = 0; i < 16; i++) this.collect(e.children[i], [...path, i], isBefore)
  }

  /** A branch as its raw 17 items, a leaf or extension as a Virtual; stored nodes are noted in `seen`. */
  private resolve(s: Side, seen: Uint8Array[]): RawNode | Virtual {
    if (isVirtual(s)) return s
    let raw: RawNode
    if (s instanceof Uint8Array) {
      const key = this.keyPrefix.length > 0 ? concat(this.keyPrefix, s) : s
      const hex = nativeToHex ? nativeToHex.call(key) : bytesToHex(key).slice(2)
      const bytes = this.read(hex)
      if (bytes === undefined) throw new MissingTrieNodeError(hex)
      seen.push(key)
      raw = decodeStored(hex, bytes)
    } else {
      raw = s
    }
    if (raw.length === 17) return raw
    const { nibbles, isLeaf } = decodePath(raw[0] as Uint8Array)
    return { isLeaf, nibbles, next: raw[1] }
  }
}

/**
 * Decoded stored nodes by store key. A block's diff decodes the nodes it created, and the next
 * block's diff walks the same ones as its old side: each is decoded once. A key names one content
 * forever (a hash, behind a fixed prefix), and the node is still read from the store first, so a
 * node the store no longer holds is missing here too. Decoded nodes are never changed.
 */
const decoded = new Map<string, RawNode>()
const DECODED_CAPACITY = 8_192

function decodeStored(hex: string, bytes: Uint8Array): RawNode {
  let raw = decoded.get(hex)
  if (raw !== undefined) return raw
  raw = RLP.decode(bytes) as RawNode
  if (decoded.size >= DECODED_CAPACITY) {
    // Drop the oldest tenth; Map iterates in insertion order.
    let n = DECODED_CAPACITY / 10
    for (const k of decoded.keys()) {
      decoded.delete(k)
      if (--n <= 0) break
    }
  }
  decoded.set(hex, raw)
  return raw
}

function expand(n: RawNode | Virtual): Expanded {
  // A branch's first 16 items are its children (read only, never changed).
  if (!isVirtual(n)) return { children: n, value: n[16] as Uint8Array }
  const children: Side[] = new Array(16).fill(EMPTY)
  if (n.nibbles.length === 0) {
    // An extension never has an empty path; a leaf with one holds the value at this path.
    return { children, value: n.isLeaf ? (n.next as Uint8Array) : EMPTY }
  }
  const rest = n.nibbles.slice(1)
  children[n.nibbles[0]] = !n.isLeaf && rest.length === 0 ? n.next : { isLeaf: n.isLeaf, nibbles: rest, next: n.next }
  return { children, value: EMPTY }
}

function sameNibbles(a: number[], b: number[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

function concat(a: Uint8Array<ArrayBufferLike>, b: Uint8Array<ArrayBufferLike>): Uint8Array {
  const out = new Uint8Array(a.length + b.length)
  out.set(a)
  out.set(b, a.length)
  return out
}

/**
 * Notes in `seen` the store keys (unprefixed hex) of the stored nodes on the path of `key` in the
 * trie at `root` and of the children of its branches (node keys prefixed with `keyPrefix`), and returns the value at `key` (empty when
 * absent). A node missing from the store ends the walk there.
 */
export function nodesOnPath(
  read: NodeReader,
  root: Uint8Array,
  key: Uint8Array,
  seen: Set<string>,
  keyPrefix: Uint8Array<ArrayBufferLike> = EMPTY,
): Uint8Array {
  const nibbles: number[] = []
  for (const b of key) nibbles.push(b >> 4, b & 0x0f)
  let ref: Ref = rootRef(root)
  let at = 0
  // Every step consumes at least one nibble, or ends the walk.
  for (let step = 0; step <= nibbles.length; step++) {
    let raw: RawNode
    if (ref instanceof Uint8Array) {
      if (ref.length === 0) return EMPTY
      const hex = bytesToHex(keyPrefix.length > 0 ? concat(keyPrefix, ref) : ref).slice(2)
      const bytes = read(hex)
      if (bytes === undefined) return EMPTY
      seen.add(hex)
      raw = RLP.decode(bytes) as RawNode
    } else {
      raw = ref
    }
    if (raw.length === 17) {
      // A change beside a child moves it (a leaf or extension gets a longer or shorter path), so
      // the nodes a change created include the children of the branches on its path.
      for (let i = 0; i < 16; i++) {
        const child = raw[i]
        if (child instanceof Uint8Array && child.length === 32)
          seen.add(bytesToHex(keyPrefix.length > 0 ? concat(keyPrefix, child) : child).slice(2))
      }
      if (at === nibbles.length) return raw[16] as Uint8Array
      ref = raw[nibbles[at++]]
      continue
    }
    const path = decodePath(raw[0] as Uint8Array)
    for (let i = 0; i < path.nibbles.length; i++) if (nibbles[at + i] !== path.nibbles[i]) return EMPTY
    at += path.nibbles.length
    if (path.isLeaf) return at === nibbles.length ? (raw[1] as Uint8Array) : EMPTY
    ref = raw[1]
  }
  return EMPTY
}
