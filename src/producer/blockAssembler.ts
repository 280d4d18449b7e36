/**
 * Builds a block on the head from the pool's executable transactions: the VM's block builder runs
 * the system calls, the transactions (a transaction that cannot execute is dropped from the pool,
 * one that does not fit waits), withdrawals and requests, and computes the roots. Building stores
 * nothing; `commit` lands the block (or a sealed copy of it with the same body) through
 * `Chain.commitBlock` and tells the pool. Shared by the dev sealer and the BFT validator.
 */
import type { Block, HeaderData } from '@ethereumjs/block'
import { toBytes } from '@ethereumjs/util'
import type { TxReceipt } from '@ethereumjs/vm'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { producedBaseFee } from '../chain/baseFee.ts'
import { blockAccessListOf } from '../chain/blockImporter.ts'
import type { Chain } from '../chain/chain.ts'
import { hasKeccakSeal } from '../chain/classicForks.ts'
import { cliqueHeaderFields } from '../chain/clique.ts'
import { baseGasLimit, isLondonForkBlock, nextGasLimit } from '../chain/gasLimit.ts'
import { presetPowDifficulty } from '../chain/headerValidation.ts'
import { keccakSealed } from '../chain/keccakPow.ts'
import { isKzgMissing, withKzgOnDemand } from '../chain/kzg.ts'
import { startBlock } from '../evm/fastBlockBuilder.ts'
import { revertOutputOf } from '../evm/revertOutput.ts'
import { SYSTEM_CONTRACTS } from '../evm/systemContracts.ts'
import { createVm, type VM } from '../evm/vmFactory.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { createLogger } from '../primitives/logger.ts'
import { metrics } from '../primitives/metrics.ts'
import { openState } from '../state/worldState.ts'
import type { PoolTx, TxPool } from '../txpool/txPool.ts'
import { buildFailureReason, isTransientBuildFailure } from './buildFailure.ts'

const log = createLogger('sealer')

/** The request contracts (EIP-7002, EIP-7251) whose idle dequeue call the block builder may skip. */
const REQUEST_CONTRACT_CODE_HASHES: ReadonlySet<string> = new Set(
  SYSTEM_CONTRACTS.filter((c) => c.eip === 'EIP-7002' || c.eip === 'EIP-7251').map((c) =>
    bytesToHex(keccak_256(hexToBytes(c.code))),
  ),
)

/**
 * How long a block's transactions run before the builder lets waiting requests in. A block of a few
 * transactions is built without a break, so that a client that sent one finds its receipt at the
 * first poll after `eth_sendRawTransaction` answered (clients written against Hardhat expect it).
 */
const YIELD_EVERY_MS = 2

/**
 * Resolves after the event loop has handled the I/O that is already waiting. Deliberately
 * `setImmediate` on every runtime, not the runtime layer's turn: under Deno that turn is a timer,
 * which lets a receipt poll in before the block holding the transaction is sealed (the sealer's
 * turns order requests, they are not there to serve them).
 */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * The header fields the producer chooses; the rest follow from the parent and the body. The gas
 * limit defaults to the parent's moved toward `targetGasLimit`, the base fee to EIP-1559's (with the
 * chain's floor).
 */
export type ProducerHeaderFields = Pick<
  HeaderData,
  'coinbase' | 'mixHash' | 'difficulty' | 'extraData' | 'nonce' | 'gasLimit' | 'baseFeePerGas'
> & {
  timestamp: bigint
}

/**
 * What Besu's mining options set and its `miner_*` methods change while the node runs: one object,
 * shared by every producer of the node (dev and clique sealer, BFT proposals, Engine payloads), so a
 * change reaches the next block each of them builds.
 */
export interface MinerSettings {
  /** Besu's --target-gas-limit (`miner_changeTargetGasLimit`): blocks move their gas limit toward it. */
  targetGasLimit?: bigint
  /**
   * Besu's --miner-extra-data (`miner_setExtraData`): the extraData of the blocks built (at most 32
   * bytes); on clique and BFT it is the vanity, zero-padded on the left.
   */
  extraData?: Uint8Array
}

export interface BlockAssemblerOptions {
  /** The target gas limit and extraData (a BFT proposal's own extraData wins over the latter). */
  miner?: MinerSettings
  /** The key that seals clique blocks (the node key); a clique block cannot be built without it. */
  cliqueKey?: Uint8Array
  /** This node's clique proposals (subject → add): a sealed block carries one of them as its vote. */
  cliqueProposals?: ReadonlyMap<string, boolean>
}

export interface AssembledBlock {
  block: Block
  receipts: TxReceipt[]
  included: PoolTx[]
  /** The RLP of the block's access list (EIP-7928), stored with it; undefined before Amsterdam. */
  blockAccessList?: Uint8Array
  /** Per included transaction, what its top-level REVERT returned (undefined when it did not revert). */
  revertReasons: (Uint8Array | undefined)[]
}

export class BlockAssembler {
  private vm?: VM
  private vmRoot?: string

  private readonly chain: Chain
  private readonly pool: TxPool
  private readonly opts: BlockAssemblerOptions

  constructor(chain: Chain, pool: TxPool, opts: BlockAssemblerOptions = {}) {
    this.chain = chain
    this.pool = pool
    this.opts = opts
  }

  /** Builds and executes a block of `candidates` on the head `parent`; stores nothing. */
  assemble(parent: Block, candidates: PoolTx[], fields: ProducerHeaderFields): Promise<AssembledBlock> {
    return withKzgOnDemand(this.chain.common, async () => {
      try {
        return await this.build(parent, candidates, fields)
      } catch (e) {
        // A failed build can leave the writer VM with an open checkpoint and dirty caches: start over.
        this.vm = undefined
        throw e
      }
    })
  }

  /** Stores `block` (the assembled one, or a sealed copy with the same body) as the new head. */
  async commit(block: Block, assembled: AssembledBlock): Promise<void> {
    const senders = assembled.included.map((t) => t.sender)
    await this.chain.commitBlock(block, assembled.receipts, senders, {
      setHead: true,
      blockAccessList: assembled.blockAccessList,
      revertReasons: assembled.revertReasons,
    })
    this.pool.onNewHead(assembled.included.map((t) => ({ senderHex: t.senderHex, nonce: t.nonce })))
    metrics.inc('blockchain', 'blocks_sealed')
    metrics.inc('blockchain', 'transactions_sealed', '', assembled.included.length)
  }

  private async build(parent: Block, candidates: PoolTx[], fields: ProducerHeaderFields): Promise<AssembledBlock> {
    const vm = await this.vmAt(parent)
    const number = parent.header.number + 1n
    vm.common.setHardforkBy({ blockNumber: number, timestamp: fields.timestamp })
    // A proof-of-work genesis (Besu's dev.json) gets its fixed difficulty, or the ethash one.
    const isPow = vm.common.consensusType() === 'pow'
    const powDifficulty = isPow ? presetPowDifficulty(vm.common, parent.header, fields.timestamp) : undefined
    const clique = vm.common.consensusType() === 'poa' ? await this.cliqueFields(vm, parent, fields) : undefined
    const builder = await startBlock(
      vm,
      {
        parentBlock: parent,
        headerData: {
          gasLimit: nextGasLimit(
            baseGasLimit(vm.common, parent.header.gasLimit, number),
            this.opts.miner?.targetGasLimit,
          ),
          // Left to the builder for the first London block of the EIP-1559 market (its initial base fee).
          baseFeePerGas: producedBaseFee(
            parent.header,
            this.chain.baseFeeMarket,
            vm.common.isActivatedEIP(1559),
            isLondonForkBlock(vm.common, number),
          ),
          difficulty: isPow ? powDifficulty : 0n,
          extraData: this.opts.miner?.extraData,
          ...fields,
          ...clique,
        },
        withdrawals: vm.common.isActivatedEIP(4895) ? [] : undefined,
        // Not frozen, so that the chain can attach the senders (impersonated ones are not recoverable).
        blockOpts: {
          putBlockIntoBlockchain: false,
          setHardfork: true,
          freeze: false,
          calcDifficultyFromHeader: isPow && powDifficulty === undefined ? parent.header : undefined,
          cliqueSigner: clique ? this.opts.cliqueKey : undefined,
        },
      },
      {
        requestContractCodeHashes: REQUEST_CONTRACT_CODE_HASHES,
        reward: fields.coinbase && this.chain.blockReward?.(parent.header.number + 1n, toBytes(fields.coinbase)),
      },
    )
    const included: PoolTx[] = []
    const revertReasons: (Uint8Array | undefined)[] = []
    let yieldAtMs = performance.now() + YIELD_EVERY_MS
    for (const t of candidates) {
      if (performance.now() >= yieldAtMs) {
        await nextTurn()
        yieldAtMs = performance.now() + YIELD_EVERY_MS
      }
      try {
        const result = await builder.addTransaction(t.tx, { skipHardForkValidation: true })
        included.push(t)
        revertReasons.push(revertOutputOf(result))
      } catch (e) {
        if (isKzgMissing(e)) throw e
        const msg = e instanceof Error ? e.message : String(e)
        if (isTransientBuildFailure(msg)) continue
        log.warn('dropping transaction that cannot execute', { hash: t.hash, error: buildFailureReason(msg) })
        this.pool.drop(t.hash)
      }
    }
    const built = (await builder.build()).block
    // ECIP-1049's keccak-256 seal is mined here (ethash blocks stay unsealed: no dataset).
    const block = isPow && hasKeccakSeal(vm.common) ? await keccakSealed(built, nextTurn) : built
    this.vmRoot = bytesToHex(block.header.stateRoot)
    return {
      block,
      receipts: builder.transactionReceipts,
      included,
      blockAccessList: blockAccessListOf(vm),
      revertReasons,
    }
  }

  /** Clique's header fields of the block after `parent`, sealed by the node key. */
  private cliqueFields(vm: VM, parent: Block, fields: ProducerHeaderFields): Promise<ProducerHeaderFields> {
    const key = this.opts.cliqueKey
    if (!key) throw new Error('a clique block needs its signer key')
    const { cliqueProposals, miner } = this.opts
    const { timestamp } = fields
    return cliqueHeaderFields(this.chain, vm.common, parent.header, key, timestamp, cliqueProposals, miner?.extraData)
  }

  /**
   * The writer VM, positioned on the state after `parent` (re-rooted when it stands elsewhere): its
   * post-state root, which the dev tools may have edited on top of its header's.
   */
  private async vmAt(parent: Block): Promise<VM> {
    const stateRoot = this.chain.postStateRoot(parent)
    const root = bytesToHex(stateRoot)
    // A VM built before a chain id change (anvil_setChainId) is built again under the new id.
    if (!this.vm || this.vm.common.chainId() !== this.chain.common.chainId()) {
      const state = openState(this.chain.trieDb, this.chain.common, stateRoot, true, this.chain.bonsai)
      // Our own blocks may carry transactions from impersonated accounts with code (the dev tools).
      this.vm = await createVm(this.chain.common, state, this.chain, { isSenderCodeAllowed: true })
    } else if (this.vmRoot !== root) {
      await this.vm.stateManager.setStateRoot(stateRoot)
    }
    this.vmRoot = root
    return this.vm
  }
}
