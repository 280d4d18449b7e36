/**
 * Builds the EVM-running VM over a state manager. Owns the `@ethereumjs/vm` dependency; the layers
 * above ask for a VM here and never construct one themselves.
 */
import { type Block, type BlockHeader, cliqueSigner } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { Address } from '@ethereumjs/util'
import { createVM, type VM } from '@ethereumjs/vm'
import { ForkStateManager } from '../state/forkState.ts'
import type { StateManager } from '../state/worldState.ts'
import { applyMissingChainId } from './chainIdOpcode.ts'
import { applyClassicPrecompiles } from './classicPrecompiles.ts'
import { checkExecutionDeadline, makeInterruptible } from './executionDeadline.ts'
import { applyNoSystemCalls } from './poaSystemCalls.ts'
import { allowSendersWithCode } from './senderCode.ts'
import { applyStackSize, chainStackSize } from './stackSize.ts'

/** Where BLOCKHASH (before EIP-2935) finds ancestor blocks. */
export interface BlockSource {
  getBlockByNumber(n: bigint): Promise<Block | undefined>
}

export type { VM }

export interface VmOptions {
  /** Serves requests: honours the request's execution deadline and gives way to other work. */
  isInterruptible?: boolean
  /** Run transactions whose sender has code (EIP-3607 lifted; see `senderCode.ts`). */
  isSenderCodeAllowed?: boolean
}

/** A VM over `state` whose BLOCKHASH reads canonical blocks from `blocks`. */
export async function createVm(
  common: Common,
  state: StateManager,
  blocks: BlockSource,
  opts: VmOptions = {},
): Promise<VM> {
  if (opts.isInterruptible) checkExecutionDeadline()
  const blockchain = {
    async getBlock(n: number | bigint) {
      const b = await blocks.getBlockByNumber(BigInt(n))
      if (b) return b
      // A forked chain's blocks before the fork block are the remote's: BLOCKHASH needs their hash only.
      const hash = state instanceof ForkStateManager ? await state.fork.blockHash(BigInt(n)) : undefined
      if (!hash) throw new Error(`block ${n} not found`)
      return { hash: () => hash }
    },
    async putBlock() {},
    shallowCopy() {
      return blockchain
    },
  }
  const vm = await createVM({
    common: common.copy(),
    stateManager: state,
    blockchain: blockchain as never,
    setHardfork: true,
    // The library's EVM runs no code on a clique chain without a way to name a block's signer.
    evmOpts: common.consensusAlgorithm() === 'clique' ? { cliqueSigner: signerOf } : undefined,
  })
  applyStackSize(vm, chainStackSize(common))
  applyMissingChainId(vm, common)
  applyClassicPrecompiles(vm)
  applyNoSystemCalls(vm)
  if (opts.isInterruptible) makeInterruptible(vm)
  if (opts.isSenderCodeAllowed) allowSendersWithCode(vm)
  return vm
}

/**
 * COINBASE on a clique chain: the block's signer (Besu's clique mining beneficiary), or the header's
 * coinbase when the header carries no seal to recover it from (a call on a header made for it).
 */
function signerOf(header: { coinbase: Address }): Address {
  try {
    return cliqueSigner(header as BlockHeader)
  } catch {
    return header.coinbase
  }
}
