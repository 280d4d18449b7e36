/**
 * Re-executes a stored block on its parent's state, transaction by transaction, handing the chosen
 * ones to tracers. The state is a throw-away view: its writes stay in an overlay and never reach
 * the chain's trie store.
 */
import type { Block } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { runTx } from '@ethereumjs/vm'
import { bigintToPaddedBytes, bytesToHex, equalBytes, hexToBytes } from '../../primitives/hex.ts'
import { moveHistoricalState } from '../../state/historicalState.ts'
import type { TrieDb } from '../../state/trieDb.ts'
import { openState, type StateManager } from '../../state/worldState.ts'
import { cacheStorageWrites, memoizeTrieReads } from '../scratchState.ts'
import { SYSTEM_CONTRACTS } from '../systemContracts.ts'
import { type BlockSource, createVm, type VM } from '../vmFactory.ts'
import { OverlayTrieDb } from './overlayTrieDb.ts'
import { TraceTimeoutError, type TxContext, type TxTracer } from './txTracer.ts'

const BEACON_ROOTS_ADDRESS = new Address(hexToBytes('0x000f3df6d732807ef1319fb7b8bb8522d0beac02'))

/** What replay needs from the chain. */
export interface ReplaySource extends BlockSource {
  readonly common: import('@ethereumjs/common').Common
  readonly trieDb: TrieDb
  getBlockByHash(hash: Uint8Array): Promise<Block | undefined>
  getSenders(block: Block): Uint8Array[]
  /** The state root after a block (its header's, unless the dev tools edited that state). */
  postStateRoot(block: Block): Uint8Array
  /** Throws when the state after `block` is no longer kept (outside a history window). */
  assertStateRetained(block: Block): void
  /** The state after `block` when only a state history holds it (its trie is not kept); else undefined. */
  openHistoricalState?(block: Block, code: TrieDb): StateManager | undefined
  /** Whether `openHistoricalState` would open the state after `block` (a source has both or neither). */
  isHistoricalState?(block: Block): boolean
}

/** Thrown when a block cannot be replayed (no parent: genesis, or a pruned/missing ancestor). */
export class ReplayError extends Error {
  readonly kind: 'genesis' | 'missingParent'

  constructor(kind: 'genesis' | 'missingParent', message: string) {
    super(message)
    this.kind = kind
  }
}

/**
 * A transaction's trace ran past its timeout during a block replay. Carries the position and the
 * results of the transactions traced before it; the replay VM is dropped (the aborted run may have
 * left the EVM's journal mid-transaction).
 */
export class ReplayTimeoutError<R> extends TraceTimeoutError {
  readonly index: number
  readonly done: Map<number, R>

  constructor(index: number, done: Map<number, R>) {
    super()
    this.index = index
    this.done = done
  }
}

const BEACON_ROOTS_CODE = SYSTEM_CONTRACTS[0].code
const HISTORY_STORAGE_CODE = SYSTEM_CONTRACTS[1].code
const SYSTEM_CALL_GAS = 30_000_000n

/**
 * Runs the code at `to` as a block's system call (from the system address, 30,000,000 gas, the
 * system account left as it was), as block execution does for code at the EIP-4788 / EIP-2935
 * addresses other than the specified contracts (src/evm/libraryPatches.ts, `systemContractCalls`).
 */
async function runSystemCall(vm: VM, to: Address, data: Uint8Array): Promise<void> {
  const caller = new Address(bigintToPaddedBytes(vm.common.param('systemAddress'), 20))
  const callerAccount = await vm.stateManager.getAccount(caller)
  await vm.evm.runCall({ caller, to, data, gasLimit: SYSTEM_CALL_GAS })
  if (callerAccount === undefined) await vm.stateManager.deleteAccount(caller)
  else await vm.stateManager.putAccount(caller, callerAccount)
  await vm.evm.journal.cleanup()
}

/**
 * The block-level work that precedes the first transaction (EIP-2935 history, EIP-4788 root): the
 * specified contracts' storage written directly (the state their run leaves), any other code run.
 */
async function applyPreTxSystemWrites(vm: VM, block: Block): Promise<void> {
  const h = block.header
  const common = vm.common
  if (common.isActivatedEIP(2935) && h.number > 0n) {
    const address = new Address(bigintToPaddedBytes(common.param('historyStorageAddress'), 20))
    const code = await vm.stateManager.getCode(address)
    if (code.length > 0 && bytesToHex(code) !== HISTORY_STORAGE_CODE) await runSystemCall(vm, address, h.parentHash)
    else if (code.length > 0) {
      const slot = (h.number - 1n) % common.param('historyServeWindow')
      await vm.stateManager.putStorage(address, bigintToPaddedBytes(slot, 32), h.parentHash)
    }
  }
  if (common.isActivatedEIP(4788) && h.parentBeaconBlockRoot !== undefined) {
    const code = await vm.stateManager.getCode(BEACON_ROOTS_ADDRESS)
    if (code.length > 0 && bytesToHex(code) !== BEACON_ROOTS_CODE)
      await runSystemCall(vm, BEACON_ROOTS_ADDRESS, h.parentBeaconBlockRoot)
    else if (code.length > 0) {
      const length = common.param('historicalRootsLength')
      const index = h.timestamp % length
      await vm.stateManager.putStorage(
        BEACON_ROOTS_ADDRESS,
        bigintToPaddedBytes(index, 32),
        bigintToPaddedBytes(h.timestamp, 32),
      )
      await vm.stateManager.putStorage(
        BEACON_ROOTS_ADDRESS,
        bigintToPaddedBytes(index + length, 32),
        h.parentBeaconBlockRoot,
      )
    }
  }
}

/**
 * A replay VM kept per kind of parent state and fork, used by one replay at a time. Its state is
 * moved to the next replay's parent when that is another one (see `moveTo`), so that replays of
 * neighbouring blocks share one VM instead of building one each.
 */
interface ReplayVm {
  vm: Promise<VM>
  overlay: OverlayTrieDb
  /** The parent state the VM's state manager holds now. */
  root: Uint8Array
  /** Settles when the last queued replay is done. */
  tail: Promise<unknown>
}

/** VMs of recent replays: building one (opcode tables, precompiles, params) costs more than most replays. */
const replayVms = new WeakMap<ReplaySource, Map<string, ReplayVm>>()
const REPLAY_VMS = 2

/**
 * How the VM's state is moved to another parent state: a view of the state history to another
 * block, a view of the trie store to another root. A forked chain's state (remote reads at its
 * fork block) is never moved: its VMs are kept per root.
 */
type StateKind = 'history' | 'trie' | 'fork'

/** Points `state` at `parent`'s state (root `root`). */
async function moveTo(state: StateManager, kind: StateKind, root: Uint8Array, parent: Block): Promise<void> {
  if (kind === 'history') {
    if (!moveHistoricalState(state, root, parent.header.number)) throw new Error('not a state history view')
  } else await state.setStateRoot(root)
}

/**
 * Replays `block` up to and including transaction `lastIndex` (all by default); `tracerFor` picks
 * the tracer of each transaction (undefined: run untraced). Returns the tracers' results by index.
 * Replays share one VM per kind of parent state and fork, one after the other; after each, the
 * state is set back to the parent's root and the overlay's writes are dropped. (A checkpoint's
 * revert alone is not enough: a flush inside it, as pre-Byzantium receipts and
 * debug_storageRangeAt do, cannot be reverted.)
 */
export async function replayBlock<R>(
  chain: ReplaySource,
  block: Block,
  tracerFor: (tx: TypedTransaction, index: number) => TxTracer<R> | undefined,
  lastIndex = block.transactions.length - 1,
): Promise<Map<number, R>> {
  if (block.header.number === 0n) throw new ReplayError('genesis', 'genesis is not traceable')
  const parent = await chain.getBlockByHash(block.header.parentHash)
  if (!parent) throw new ReplayError('missingParent', `parent of block ${block.header.number} not found`)
  // A parent state outside the history window may be partly pruned: never run on it.
  chain.assertStateRetained(parent)
  const fork = chain.common.getHardforkBy({ blockNumber: block.header.number, timestamp: block.header.timestamp })
  let byKey = replayVms.get(chain)
  if (!byKey) {
    byKey = new Map()
    replayVms.set(chain, byKey)
  }
  const root = chain.postStateRoot(parent)
  // Below a BONSAI window the parent's state may come from the state history, without a trie.
  const kind: StateKind = chain.isHistoricalState?.(parent) === true ? 'history' : chain.trieDb.fork ? 'fork' : 'trie'
  const key = `${kind}|${kind === 'fork' ? bytesToHex(root) : ''}|${fork}|${block.common.chainId()}`
  let shared = byKey.get(key)
  if (!shared) {
    const overlay = new OverlayTrieDb(chain.trieDb)
    const historical = kind === 'history' ? chain.openHistoricalState?.(parent, overlay) : undefined
    const state = historical ?? openState(overlay, chain.common, root, true)
    cacheStorageWrites(state)
    memoizeTrieReads(state)
    // The block's own rules: its chain id may be an earlier one (anvil_setChainId).
    const vm = createVm(block.common, state, chain, { isInterruptible: true, isSenderCodeAllowed: true }).then((vm) => {
      vm.common.setHardfork(fork)
      return vm
    })
    shared = { vm, overlay, root, tail: Promise.resolve() }
  } else byKey.delete(key) // set again below: the most recently used last
  byKey.set(key, shared)
  if (byKey.size > REPLAY_VMS) byKey.delete(byKey.keys().next().value!)
  const entry = shared
  const result = entry.tail.then(async () => {
    const vm = await entry.vm
    let isClean = false
    try {
      if (!equalBytes(entry.root, root)) {
        await moveTo(vm.stateManager as StateManager, kind, root, parent)
        entry.root = root
      }
      // The checkpoint spares each transaction's flush into the trie; the reset below undoes the rest.
      await vm.stateManager.checkpoint()
      const out = await replayTransactions(chain, vm, block, tracerFor, lastIndex)
      isClean = true
      return out
    } finally {
      // A failed replay may leave tracers subscribed or the EVM mid-transaction: start over next time.
      const isReset =
        isClean &&
        (await resetState(entry, vm).then(
          () => true,
          () => false,
        ))
      if (!isReset && byKey.get(key) === entry) byKey.delete(key)
    }
  })
  entry.tail = result.catch(() => {})
  return result
}

async function resetState(entry: ReplayVm, vm: VM): Promise<void> {
  await vm.stateManager.revert()
  await (vm.stateManager as StateManager).setStateRoot(entry.root)
  entry.overlay.clear()
}

async function replayTransactions<R>(
  chain: ReplaySource,
  vm: VM,
  block: Block,
  tracerFor: (tx: TypedTransaction, index: number) => TxTracer<R> | undefined,
  lastIndex: number,
): Promise<Map<number, R>> {
  await applyPreTxSystemWrites(vm, block)
  const senders = chain.getSenders(block)
  const out = new Map<number, R>()
  let blockGasUsed = 0n
  for (let i = 0; i <= lastIndex && i < block.transactions.length; i++) {
    const tx = block.transactions[i]
    const tracer = tracerFor(tx, i)
    const ctx: TxContext = { vm, tx, block, index: i, sender: senders[i] ?? tx.getSenderAddress().bytes }
    if (tracer) await tracer.start(ctx)
    const result = await runTx(vm, {
      tx,
      block,
      blockGasUsed,
      skipBlockGasLimitValidation: true,
      skipHardForkValidation: true,
    }).catch((e: unknown) => {
      throw e instanceof TraceTimeoutError ? new ReplayTimeoutError(i, out) : e
    })
    blockGasUsed += result.totalGasSpent
    if (tracer) out.set(i, await tracer.finish(ctx, result))
  }
  return out
}

/** What a block trace that outlives some transactions' timeouts yields. */
export interface TolerantReplay<R> {
  results: Map<number, R>
  /** Transactions whose trace ran past its timeout (run again untraced, so the ones after see their state). */
  timedOut: Set<number>
}

/**
 * Like `replayBlock`, but a transaction whose trace runs past its timeout does not fail the replay,
 * as geth's block tracers answer such a transaction with an error entry: the block is replayed again
 * on a fresh VM with that transaction (and the ones already traced) run untraced, and the tracing
 * goes on after it. At most one extra replay per timed-out transaction.
 */
export async function replayBlockPastTimeouts<R>(
  chain: ReplaySource,
  block: Block,
  tracerFor: (tx: TypedTransaction, index: number) => TxTracer<R> | undefined,
): Promise<TolerantReplay<R>> {
  const results = new Map<number, R>()
  const timedOut = new Set<number>()
  const isSettled = (i: number) => results.has(i) || timedOut.has(i)
  for (let pass = 0; pass <= block.transactions.length; pass++) {
    try {
      const out = await replayBlock(chain, block, (tx, i) => (isSettled(i) ? undefined : tracerFor(tx, i)))
      for (const [i, r] of out) results.set(i, r)
      return { results, timedOut }
    } catch (e) {
      if (!(e instanceof ReplayTimeoutError) || isSettled(e.index)) throw e
      for (const [i, r] of e.done as Map<number, R>) results.set(i, r)
      timedOut.add(e.index)
    }
  }
  throw new Error('block trace did not settle')
}
