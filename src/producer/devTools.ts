/**
 * The dev chain's test controls behind the `evm_*`, `hardhat_*` and `anvil_*` methods: state edits
 * on the head, snapshots and reverts, and mining on request (through the dev sealer).
 *
 * A state edit (a balance, nonce, code or storage slot set from outside) changes the state after the
 * head without sealing a block, as Hardhat and Anvil do. It is written as a new state root recorded
 * for the head (`Chain.setPostStateRoot`) in the same SQLite transaction as its trie nodes, so a
 * restart keeps it, and every reader and re-execution that starts from the head's state (calls, the
 * next sealed block, `debug_*`/`trace_*` replays of that block, crash recovery) starts from the
 * edited state. The head's header keeps the root it was sealed with.
 *
 * A snapshot keeps the head, the state root after it, the pool's transactions and the sealer's
 * settings; reverting moves the head back with `Chain.setHead` (later blocks stay stored but leave
 * the canonical chain) and restores the rest. Snapshots live in memory, as in Hardhat and Anvil.
 */
import type { Block } from '@ethereumjs/block'
import { Account, Address } from '@ethereumjs/util'
import type { Chain } from '../chain/chain.ts'
import { moveHead, rewindTo } from '../chain/headReset.ts'
import { equalBytes } from '../primitives/hex.ts'
import type { TrieDb } from '../state/trieDb.ts'
import { openState, type StateManager } from '../state/worldState.ts'
import type { PoolTx, TxPool } from '../txpool/txPool.ts'
import type { DevSealer, SealerSettings } from './devSealer.ts'

interface Snapshot {
  head: Block
  postStateRoot: Uint8Array
  pool: PoolTx[]
  sealer: SealerSettings
  /** Lets the history window prune the snapshot's state again (BONSAI keeps it while the snapshot lives). */
  release?: () => void
}

/** An account as `anvil_loadState` gives it (and `eth_getAccountInfo` answers it). */
export interface AccountEdit {
  balance?: bigint
  nonce?: bigint
  code?: Uint8Array
  /** Slot (32 bytes) → value (32 bytes). */
  storage?: [Uint8Array, Uint8Array][]
}

export class DevTools {
  /** Accounts `eth_sendTransaction` may send from without a key (lower-case hex). */
  readonly impersonated = new Set<string>()
  /** Every account is impersonated (`anvil_autoImpersonateAccount`). */
  isAutoImpersonating = false
  private readonly snapshots = new Map<bigint, Snapshot>()
  private nextSnapshotId = 1n
  private initial?: Snapshot

  readonly chain: Chain
  readonly pool: TxPool
  readonly sealer: DevSealer

  constructor(chain: Chain, pool: TxPool, sealer: DevSealer) {
    this.chain = chain
    this.pool = pool
    this.sealer = sealer
  }

  isImpersonated(addressHex: string): boolean {
    return this.isAutoImpersonating || this.impersonated.has(addressHex)
  }

  /** Remembers the state at start, for `anvil_reset` / `hardhat_reset` without a fork. */
  markInitial(): void {
    this.initial = this.capture()
  }

  /** Applies `edit` to the state after the head, records it for the head and resyncs the pool. */
  editState(edit: (state: StateManager) => Promise<void>): Promise<void> {
    return this.sealer.exclusive(async () => {
      const head = this.chain.head
      const state = openState(this.chain.trieDb, this.chain.common, this.chain.postStateRoot(head), true)
      await state.checkpoint()
      await edit(state)
      await state.commit()
      this.chain.setPostStateRoot(head, await state.getStateRoot())
      await this.pool.resync()
    })
  }

  /** Makes `root` the state after the head, once `fill` has written its nodes (a loaded dump). */
  replaceState(root: Uint8Array, fill: (db: TrieDb) => Promise<void>): Promise<void> {
    return this.sealer.exclusive(async () => {
      await fill(this.chain.trieDb)
      this.chain.setPostStateRoot(this.chain.head, root)
      await this.pool.resync()
    })
  }

  /** Sets the given fields of each account (absent fields keep their value). */
  setAccounts(accounts: [Uint8Array, AccountEdit][]): Promise<void> {
    return this.editState(async (state) => {
      for (const [addressBytes, edit] of accounts) {
        const address = new Address(addressBytes)
        const account = (await state.getAccount(address)) ?? new Account()
        if (edit.balance !== undefined) account.balance = edit.balance
        if (edit.nonce !== undefined) account.nonce = edit.nonce
        await state.putAccount(address, account)
        if (edit.code !== undefined) await state.putCode(address, edit.code)
        for (const [slot, value] of edit.storage ?? []) await state.putStorage(address, slot, value)
      }
    })
  }

  /** Adds `wei` to an account's balance; resolves to the new balance. */
  async addBalance(address: Uint8Array, wei: bigint): Promise<bigint> {
    let balance = 0n
    await this.editState(async (state) => {
      const a = new Address(address)
      const account = (await state.getAccount(a)) ?? new Account()
      account.balance += wei
      balance = account.balance
      await state.putAccount(a, account)
    })
    return balance
  }

  /**
   * Makes `chainId` the chain id from the block after the head on (see `chain/chainIds.ts`); pooled
   * transactions signed for the old id (all but pre-EIP-155 ones) leave the pool, since a block of
   * the new id cannot hold them.
   */
  setChainId(chainId: bigint): Promise<void> {
    return this.sealer.exclusive(() =>
      this.chain.exclusive(async () => {
        this.chain.setChainId(chainId)
        for (const t of this.pool.all()) {
          const isReplayProtected = t.tx.type !== 0 || (t.tx as { v?: bigint }).v! > 28n
          if (isReplayProtected && t.tx.common.chainId() !== chainId) this.pool.drop(t.hash)
        }
      }),
    )
  }

  /** Moves the head back `depth` blocks (`anvil_rollback`); the pool keeps what is still valid there. */
  rollback(depth: bigint): Promise<void> {
    return this.sealer.exclusive(() => this.rollbackNow(depth))
  }

  /**
   * Replaces the last `depth` blocks with as many new ones (`anvil_reorg`): the head moves back, and
   * block `i` of the new branch is sealed with what `fill(i)` put in the emptied pool (the old
   * blocks' transactions are gone, as in Anvil). The transactions pooled before come back after.
   */
  reorg(depth: bigint, fill: (index: number) => Promise<void>): Promise<void> {
    return this.sealer.exclusive(async () => {
      await this.rollbackNow(depth)
      const pooled = this.pool.all()
      this.pool.clear()
      try {
        for (let i = 0; i < Number(depth); i++) {
          await fill(i)
          await this.sealer.sealBlock(true)
          this.pool.clear()
        }
      } finally {
        for (const t of pooled) await this.pool.add(t.tx, { isLocal: t.isLocal }).catch(() => undefined)
      }
    })
  }

  private async rollbackNow(depth: bigint): Promise<void> {
    const target = await this.chain.getBlockByNumber(this.chain.head.header.number - depth)
    if (!target) throw new Error(`block ${this.chain.head.header.number - depth} is not stored`)
    await rewindTo(this.chain, target)
  }

  /** Takes a snapshot; resolves to its id (1, 2, … as Hardhat numbers them). */
  async snapshot(): Promise<bigint> {
    await this.sealer.idle()
    const id = this.nextSnapshotId++
    const snap = this.capture()
    snap.release = this.chain.bonsai?.pin(snap.head.header.number)
    this.snapshots.set(id, snap)
    return id
  }

  /**
   * Reverts to snapshot `id`; false when there is no such snapshot. The snapshot and every later
   * one are consumed, as in Hardhat.
   */
  async revert(id: bigint): Promise<boolean> {
    const snap = this.snapshots.get(id)
    if (!snap) return false
    const consumed = [...this.snapshots].filter(([key]) => key >= id)
    for (const [key] of consumed) this.snapshots.delete(key)
    try {
      await this.restore(snap)
    } finally {
      for (const [, s] of consumed) s.release?.()
    }
    return true
  }

  /** Back to the chain as it was at start: the start's head, state, pool and mining settings. */
  async reset(): Promise<void> {
    this.dropSnapshots()
    if (this.initial) await this.restore(this.initial)
  }

  /** Back to the chain's first block (a forked chain's fork block) with an empty pool. */
  async resetToGenesis(): Promise<void> {
    this.dropSnapshots()
    const genesis = this.chain.genesis
    const initial = this.initial ?? this.capture()
    await this.restore({
      head: genesis,
      postStateRoot: this.chain.postStateRoot(genesis),
      pool: [],
      sealer: initial.sealer,
    })
  }

  /**
   * Moves the chain onto another first block with `move` (a forked chain's re-fork), between sealing
   * passes and inside the chain's exclusive section; then the pool empties, the snapshots are
   * dropped, and the new first block is where `reset` goes back to.
   */
  restartChain(move: () => Promise<void>): Promise<void> {
    return this.sealer.exclusive(() =>
      this.chain.exclusive(async () => {
        await move()
        this.dropSnapshots()
        this.pool.clear()
        this.initial = this.capture()
      }),
    )
  }

  private dropSnapshots(): void {
    for (const snap of this.snapshots.values()) snap.release?.()
    this.snapshots.clear()
  }

  private capture(): Snapshot {
    const head = this.chain.head
    return {
      head,
      postStateRoot: this.chain.postStateRoot(head),
      pool: this.pool.all(),
      sealer: this.sealer.settings(),
    }
  }

  private restore(snap: Snapshot): Promise<void> {
    return this.sealer.exclusive(async () => {
      this.sealer.restore({ ...snap.sealer, isAutomine: false })
      await this.chain.exclusive(() => moveHead(this.chain, snap.head))
      if (!equalBytes(this.chain.postStateRoot(snap.head), snap.postStateRoot)) {
        this.chain.setPostStateRoot(snap.head, snap.postStateRoot)
      }
      this.pool.clear()
      for (const t of snap.pool) await this.pool.add(t.tx, { isLocal: t.isLocal }).catch(() => undefined)
      this.sealer.restore(snap.sealer)
    })
  }
}
