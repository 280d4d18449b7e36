/**
 * World state of a forked chain: the local trie holds what the local chain wrote, and a read that
 * finds nothing there falls through to the remote chain at the fork block (`ForkSource`), whose
 * values are cached, so every replay of a local block reads the same values and reaches the same
 * root. Local roots are local (as Anvil's): they commit to the local trie only.
 *
 * "Never fetched" and "deleted here" must not look alike, or a deleted account would come back
 * from the remote. So, in a forked state, the trie keeps markers where the plain trie deletes:
 *  - an account the remote has, deleted locally, is replaced by a tombstone value (`0xc0`);
 *  - an address whose storage was wiped locally (deleted, or created over) gets a detach entry
 *    under the key `address ‖ 0xff` (21 bytes, so no account can collide): its storage no longer
 *    falls through, even after the account is created again;
 *  - a slot of remote-backed storage set to zero is stored as the one byte `0x00` (which reads as
 *    zero) instead of being deleted.
 * The markers are ordinary trie entries: the state manager's checkpoints and reverts cover them,
 * and the archive keeps them per root.
 */
import type { Common } from '@ethereumjs/common'
import { MerklePatriciaTrie, type MPTOpts } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { type Caches, CODEHASH_PREFIX, MerkleStateManager } from '@ethereumjs/statemanager'
import { type Address, createAccount, KECCAK256_NULL, KECCAK256_RLP, ValueEncoding } from '@ethereumjs/util'
import { bytesToHex, concatBytes, equalBytes } from '../primitives/hex.ts'
import type { ForkSource } from './forkSource.ts'
import type { TrieDb } from './trieDb.ts'

const TOMBSTONE = Uint8Array.of(0xc0)
const DETACHED = Uint8Array.of(0x01)
const ZERO_SLOT = Uint8Array.of(0x00)

function detachKey(address: Uint8Array): Uint8Array {
  return concatBytes(address, Uint8Array.of(0xff))
}

/** The account trie of a forked state: misses fall through to the remote, deletions leave tombstones. */
class ForkAccountTrie extends MerklePatriciaTrie {
  readonly fork: ForkSource
  private readonly codeDb: TrieDb

  constructor(opts: MPTOpts, fork: ForkSource, codeDb: TrieDb) {
    super(opts)
    this.fork = fork
    this.codeDb = codeDb
  }

  /** The local value under `key`: undefined when never written, null when deleted here. */
  async localValue(key: Uint8Array): Promise<Uint8Array | null | undefined> {
    const v = await super.get(key)
    if (v === null) return undefined
    return equalBytes(v, TOMBSTONE) ? null : v
  }

  override async get(key: Uint8Array, throwIfMissing = false): Promise<Uint8Array | null> {
    const v = await super.get(key, throwIfMissing)
    if (v !== null) return equalBytes(v, TOMBSTONE) ? null : v
    if (key.length !== 20) return null
    const remote = await this.fork.account(key)
    if (!remote) return null
    if (!equalBytes(remote.codeHash, KECCAK256_NULL)) {
      // Code is content-addressed: put it where the state manager looks it up by hash.
      const codeKey = bytesToHex(concatBytes(CODEHASH_PREFIX, remote.codeHash)).slice(2)
      if (this.codeDb.getSync(codeKey) === undefined)
        await this.codeDb.put(codeKey, await this.fork.code(key, remote.codeHash))
    }
    const { nonce, balance, codeHash } = remote
    return createAccount({ nonce, balance, codeHash, storageRoot: KECCAK256_RLP }).serialize()
  }

  override async del(key: Uint8Array, skipKeyTransform = false): Promise<void> {
    const remote = key.length === 20 ? await this.fork.account(key) : undefined
    if (!remote) return super.del(key, skipKeyTransform)
    await this.put(key, TOMBSTONE)
    if (remote.hasStorage) await this.put(detachKey(key), DETACHED)
  }
}

/** A MerkleStateManager over a `ForkAccountTrie` whose storage tries fall through the same way. */
export class ForkStateManager extends MerkleStateManager {
  private readonly forkTrie: ForkAccountTrie
  private readonly attached = new WeakSet<MerklePatriciaTrie>()

  constructor(common: Common, trie: ForkAccountTrie, caches?: Caches) {
    super({ common, trie, caches })
    this.forkTrie = trie
  }

  /** The remote state this one falls through to. */
  get fork(): ForkSource {
    return this.forkTrie.fork
  }

  /** Whether slots of `address` missing locally come from the remote. */
  private async isRemoteBacked(address: Uint8Array): Promise<boolean> {
    const remote = await this.fork.account(address)
    if (!remote?.hasStorage) return false
    return (await this.forkTrie.localValue(detachKey(address))) === undefined
  }

  override _getStorageTrie(addressOrHash: Address | Uint8Array, rootAccount?: never): MerklePatriciaTrie {
    const trie = super._getStorageTrie(addressOrHash, rootAccount)
    if (addressOrHash instanceof Uint8Array || this.attached.has(trie)) return trie
    this.attached.add(trie)
    const address = addressOrHash.bytes
    const get = trie.get.bind(trie)
    const del = trie.del.bind(trie)
    trie.get = async (key, throwIfMissing) => {
      const v = await get(key, throwIfMissing)
      if (v !== null || !(await this.isRemoteBacked(address))) return v
      const value = await this.fork.storage(address, key)
      return value.length === 0 ? null : RLP.encode(value)
    }
    trie.del = async (key, skipKeyTransform) => {
      if (await this.isRemoteBacked(address)) return trie.put(key, ZERO_SLOT, skipKeyTransform)
      return del(key, skipKeyTransform)
    }
    return trie
  }

  override async clearStorage(address: Address): Promise<void> {
    if (await this.isRemoteBacked(address.bytes)) await this.forkTrie.put(detachKey(address.bytes), DETACHED)
    return super.clearStorage(address)
  }
}

/** A forked state rooted at `root` (see the file comment). */
export function openForkState(
  db: TrieDb,
  fork: ForkSource,
  common: Common,
  root: Uint8Array,
  caches?: Caches,
): ForkStateManager {
  const trie = new ForkAccountTrie(
    { db, root, useKeyHashing: true, valueEncoding: ValueEncoding.Bytes, common },
    fork,
    db,
  )
  return new ForkStateManager(common, trie, caches)
}
