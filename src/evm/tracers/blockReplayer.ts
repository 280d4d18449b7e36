/**
 * Re-executes a stored block on its parent's state, transaction by transaction, handing the chosen
 * ones to tracers. The state is a throw-away view: its writes stay in an overlay and never reach
 * the chain's trie store.
 */
import type { Block } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { runTx } from '@ethereumjs/vm'
import { bigintToPaddedBytes, hexToBytes } from '../../primitives/hex.ts'
import type { TrieDb } from '../../state/trieDb.ts'
import { openState, type StateManager } from '../../state/worldState.ts'
import { type BlockSource, createVm, type VM } from '../vmFactory.ts'
import { OverlayTrieDb } from './overlayTrieDb.ts'
import type { TxContext, TxTracer } from './txTracer.ts'

const BEACON_ROOTS_ADDRESS = new Address(hexToBytes('0x000f3df6d732807ef1319fb7b8bb8522d0beac02'))

/** What replay needs from the chain. */
export interface ReplaySource extends BlockSource {
  readonly common: import('@ethereumjs/common').Common
  readonly trieDb: TrieDb
  getBlockByHash(hash: Uint8Array): Promise<Block | undefined>
  getSenders(block: Block): Uint8Array[]
}

/** Thrown when a block cannot be replayed (no parent: genesis, or a pruned/missing ancestor). */
export class ReplayError extends Error {
  constructor(
    readonly kind: 'genesis' | 'missingParent',
    message: string,
  ) {
    super(message)
  }
}

/** A VM over a throw-away copy of `root`'s state. */
export async function scratchVm(chain: ReplaySource, root: Uint8Array): Promise<{ vm: VM; state: StateManager }> {
  const state = openState(new OverlayTrieDb(chain.trieDb), chain.common, root, true)
  const vm = await createVm(chain.common, state, chain)
  return { vm, state }
}

/** The block-level writes that precede the first transaction (EIP-2935 history, EIP-4788 root). */
async function applyPreTxSystemWrites(vm: VM, block: Block): Promise<void> {
  const h = block.header
  const common = vm.common
  if (common.isActivatedEIP(2935) && h.number > 0n) {
    const address = new Address(bigintToPaddedBytes(common.param('historyStorageAddress'), 20))
    if ((await vm.stateManager.getCode(address)).length > 0) {
      const slot = (h.number - 1n) % common.param('historyServeWindow')
      await vm.stateManager.putStorage(address, bigintToPaddedBytes(slot, 32), h.parentHash)
    }
  }
  if (common.isActivatedEIP(4788) && h.parentBeaconBlockRoot !== undefined) {
    if ((await vm.stateManager.getCode(BEACON_ROOTS_ADDRESS)).length > 0) {
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
 * Replays `block` up to and including transaction `lastIndex` (all by default); `tracerFor` picks
 * the tracer of each transaction (undefined: run untraced). Returns the tracers' results by index.
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
  const { vm } = await scratchVm(chain, parent.header.stateRoot)
  vm.common.setHardforkBy({ blockNumber: block.header.number, timestamp: block.header.timestamp })
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
    })
    blockGasUsed += result.totalGasSpent
    if (tracer) out.set(i, await tracer.finish(ctx, result))
  }
  return out
}
