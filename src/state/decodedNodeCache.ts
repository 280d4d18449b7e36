/**
 * The trie library decodes a node from its RLP every time a lookup walks through it: the root and
 * the branches under it are decoded again for every account and slot a block reads or writes, which
 * was a tenth of sealing a block. Nodes are content-addressed (a hash names one node forever), so
 * the decoded form can be kept by hash and shared by every trie. The library changes nodes in place
 * while it updates a path, so each lookup gets its own shallow copy (cheaper than decoding).
 */
import { BranchMPTNode, ExtensionMPTNode, LeafMPTNode, MerklePatriciaTrie, type MPTNode } from '@ethereumjs/mpt'

/** Decoded nodes kept (about 1 KiB each for a full branch). */
const CAPACITY = 20_000

/** The runtime's native hex encoder where there is one (Bun, Deno). */
const nativeToHex = (Uint8Array.prototype as unknown as { toHex?: () => string }).toHex

function hashKey(hash: Uint8Array): string {
  return nativeToHex ? nativeToHex.call(hash) : Buffer.from(hash.buffer, hash.byteOffset, hash.length).toString('hex')
}

interface BranchFields {
  _branches: (Uint8Array | Uint8Array[] | null)[]
  _value: Uint8Array | null
}

interface KeyedFields {
  _nibbles: number[]
  _value: Uint8Array
}

/** A copy whose own fields can be changed without touching `node`; the byte arrays are shared. */
export function copyNode(node: MPTNode): MPTNode {
  if (node instanceof BranchMPTNode) {
    const src = node as unknown as BranchFields
    const out = new BranchMPTNode()
    const dst = out as unknown as BranchFields
    dst._branches = src._branches.slice()
    dst._value = src._value
    return out
  }
  const src = node as unknown as KeyedFields
  if (node instanceof LeafMPTNode) return new LeafMPTNode(src._nibbles.slice(), src._value)
  if (node instanceof ExtensionMPTNode) return new ExtensionMPTNode(src._nibbles.slice(), src._value)
  return node
}

const cache = new Map<string, MPTNode>()
let isInstalled = false

/** Routes every trie's node lookups by hash through the shared cache of decoded nodes. */
export function installDecodedNodeCache(): void {
  if (isInstalled) return
  isInstalled = true
  const proto = MerklePatriciaTrie.prototype
  const lookup = proto.lookupNode
  proto.lookupNode = async function (this: MerklePatriciaTrie, ref: Uint8Array | Uint8Array[]): Promise<MPTNode> {
    // Nodes under 32 bytes are embedded in their parent, not referenced by hash.
    if (Array.isArray(ref) || ref.length !== 32) return lookup.call(this, ref)
    const key = hashKey(ref)
    const hit = cache.get(key)
    if (hit !== undefined) return copyNode(hit)
    const node = await lookup.call(this, ref)
    remember(key, copyNode(node))
    return node
  }
  // A node written while a path is updated is usually read again by the next update of the same
  // flush (the root and the branches under it): keep it from the start.
  const format = internals(proto)._formatNode
  internals(proto)._formatNode = function (this: MerklePatriciaTrie, node, isTopLevel, opStack, isRemoval = false) {
    const ref = format.call(this, node, isTopLevel, opStack, isRemoval)
    if (!isRemoval && ref instanceof Uint8Array && ref.length === 32) remember(hashKey(ref), copyNode(node))
    return ref
  }
}

interface TrieInternals {
  _formatNode(node: MPTNode, isTopLevel: boolean, opStack: unknown[], isRemoval?: boolean): Uint8Array | Uint8Array[]
}

function internals(proto: MerklePatriciaTrie): TrieInternals {
  return proto as unknown as TrieInternals
}

function remember(key: string, node: MPTNode): void {
  if (cache.size >= CAPACITY) {
    // Drop the oldest tenth; Map iterates in insertion order.
    let n = CAPACITY / 10
    for (const k of cache.keys()) {
      cache.delete(k)
      if (--n <= 0) break
    }
  }
  cache.set(key, node)
}
