/**
 * Builds execution payloads for a consensus client: on a parent block with the payload attributes
 * of a forkchoiceUpdated (timestamp, prevRandao, fee recipient, withdrawals, parent beacon block
 * root), from the pool's best executable transactions. A job builds at once, then rebuilds while
 * new transactions arrive, keeping the payload of highest value, until it is fetched or times out.
 * Built blocks are never committed here; the consensus client sends them back through newPayload.
 */
import type { Block } from '@ethereumjs/block'
import type { TypedTransaction } from '@ethereumjs/tx'
import { blockAccessListOf } from '../chain/blockImporter.ts'
import type { Chain } from '../chain/chain.ts'
import { nextGasLimit } from '../chain/gasLimit.ts'
import { isKzgMissing, withKzgOnDemand } from '../chain/kzg.ts'
import { type FastBlockBuilder, startBlock } from '../evm/fastBlockBuilder.ts'
import { createVm } from '../evm/vmFactory.ts'
import { bytesToHex } from '../primitives/hex.ts'
import { createLogger } from '../primitives/logger.ts'
import { openState } from '../state/worldState.ts'
import type { PoolTx, TxPool } from '../txpool/txPool.ts'
import type { MinerSettings } from './blockAssembler.ts'
import { buildFailureReason, isTransientBuildFailure } from './buildFailure.ts'

const log = createLogger('payload')

export interface BuildAttributes {
  timestamp: bigint
  prevRandao: Uint8Array
  feeRecipient: Uint8Array
  withdrawals?: { index: bigint; validatorIndex: bigint; address: Uint8Array; amount: bigint }[]
  parentBeaconBlockRoot?: Uint8Array
  /** The header's slot number (EIP-7843, Amsterdam), from forkchoiceUpdatedV4's attributes. */
  slotNumber?: bigint
  /**
   * The gas limit the consensus client asks the payload to move toward (forkchoiceUpdatedV4's
   * `targetGasLimit`); the node's `--target-gas-limit` when absent.
   */
  targetGasLimit?: bigint
}

export interface BuiltPayload {
  block: Block
  /** Priority fees paid to the fee recipient, in wei. */
  blockValue: bigint
  /** EIP-7685 requests, type-prefixed, empty ones left out (Prague and later). */
  executionRequests?: Uint8Array[]
  /** The RLP of the block's access list (EIP-7928: Amsterdam, FutureEips), for engine_getPayloadV6. */
  blockAccessList?: Uint8Array
  /** The included blob transactions as the pool holds them, with their blobs, commitments and proofs. */
  blobTxs: TypedTransaction[]
}

export interface PayloadBuilderOptions {
  /** How often a job looks for new transactions to rebuild with. */
  rebuildIntervalMs: number
  /** When a job stops improving its payload (a slot's length). */
  maxBuildMs: number
  /** The target gas limit payloads move toward and their extraData, shared with the node's other producers. */
  miner?: MinerSettings
}

const DEFAULTS: PayloadBuilderOptions = { rebuildIntervalMs: 500, maxBuildMs: 12_000 }

/** One payload being built: the best payload so far, improved until `stop()` or the time limit. */
export class PayloadJob {
  private bestSoFar?: BuiltPayload
  private building: Promise<void>
  private timer?: ReturnType<typeof setInterval>
  private poolVersion = 0
  private builtVersion = 0
  private unsubscribe: () => void

  private readonly builder: PayloadBuilder
  readonly parent: Block
  readonly attributes: BuildAttributes

  constructor(builder: PayloadBuilder, parent: Block, attributes: BuildAttributes, opts: PayloadBuilderOptions) {
    this.builder = builder
    this.parent = parent
    this.attributes = attributes
    this.unsubscribe = builder.pool.onAdded(() => this.poolVersion++)
    this.building = this.rebuild()
    this.timer = setInterval(() => {
      if (this.poolVersion !== this.builtVersion) this.building = this.building.then(() => this.rebuild())
    }, opts.rebuildIntervalMs)
    setTimeout(() => this.stop(), opts.maxBuildMs).unref?.()
  }

  /** The most valuable payload built so far (waits for the first build). */
  async best(): Promise<BuiltPayload> {
    await this.building
    if (!this.bestSoFar) throw new Error('payload could not be built')
    return this.bestSoFar
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    this.unsubscribe()
  }

  private async rebuild(): Promise<void> {
    this.builtVersion = this.poolVersion
    try {
      const built = await withKzgOnDemand(this.builder.chain.common, () =>
        this.builder.build(this.parent, this.attributes),
      )
      if (!this.bestSoFar || built.blockValue > this.bestSoFar.blockValue) this.bestSoFar = built
    } catch (e) {
      log.error('payload build failed', {
        parent: bytesToHex(this.parent.hash()),
        error: e instanceof Error ? (e.stack ?? e.message) : String(e),
      })
    }
  }
}

export class PayloadBuilder {
  private readonly opts: PayloadBuilderOptions

  readonly chain: Chain
  readonly pool: TxPool

  constructor(chain: Chain, pool: TxPool, opts: Partial<PayloadBuilderOptions> = {}) {
    this.chain = chain
    this.pool = pool
    this.opts = { ...DEFAULTS, ...opts }
  }

  /** Starts a job that builds on `parent` with `attributes`. */
  start(parent: Block, attributes: BuildAttributes): PayloadJob {
    return new PayloadJob(this, parent, attributes, this.opts)
  }

  /** Builds one payload now from the pool's executable transactions. */
  async build(parent: Block, attrs: BuildAttributes): Promise<BuiltPayload> {
    const state = openState(this.chain.trieDb, this.chain.common, this.chain.postStateRoot(parent), true)
    const vm = await createVm(this.chain.common, state, this.chain)
    vm.common.setHardforkBy({ blockNumber: parent.header.number + 1n, timestamp: attrs.timestamp })
    // The fast builder: its receipts count gas after refunds while the header (EIP-7778) does not.
    const builder = await startBlock(vm, {
      parentBlock: parent,
      headerData: {
        timestamp: attrs.timestamp,
        coinbase: attrs.feeRecipient,
        extraData: this.opts.miner?.extraData,
        gasLimit: nextGasLimit(parent.header.gasLimit, attrs.targetGasLimit ?? this.opts.miner?.targetGasLimit),
        mixHash: attrs.prevRandao,
        difficulty: 0n,
        baseFeePerGas: this.chain.nextBaseFee(parent.header),
        parentBeaconBlockRoot: attrs.parentBeaconBlockRoot,
        slotNumber: vm.common.isActivatedEIP(7843) ? attrs.slotNumber : undefined,
      },
      withdrawals: attrs.withdrawals,
      blockOpts: { putBlockIntoBlockchain: false, setHardfork: true },
    })
    const baseFee = this.chain.nextBaseFee(parent.header)
    const blobTxs: TypedTransaction[] = []
    for (const t of this.pool.executable(baseFee)) {
      if ((await this.tryAdd(builder, t)) && t.tx.type === 3) blobTxs.push(t.tx)
    }
    const { block, requests } = await builder.build()
    const executionRequests = requests?.filter((r) => r.bytes.length > 1).map((r) => r.bytes)
    log.debug('built payload', {
      number: block.header.number,
      txs: block.transactions.length,
      value: builder.minerValue,
    })
    const blockAccessList = blockAccessListOf(vm)
    return { block, blockValue: builder.minerValue, executionRequests, blockAccessList, blobTxs }
  }

  /**
   * Adds a pool transaction when it fits. One that cannot execute is dropped from the pool with its
   * reason, unless a later block may take it (block full, fee below this block's base fee, a nonce
   * gap): Besu's block creator does the same, and a client would otherwise wait on it forever.
   */
  private async tryAdd(builder: FastBlockBuilder, t: PoolTx): Promise<boolean> {
    try {
      await builder.addTransaction(t.tx, { skipHardForkValidation: true })
      return true
    } catch (e) {
      if (isKzgMissing(e)) throw e
      const msg = e instanceof Error ? e.message : String(e)
      if (isTransientBuildFailure(msg)) {
        log.debug('transaction left out of payload', { hash: t.hash, error: buildFailureReason(msg) })
      } else {
        log.warn('dropping transaction that cannot execute', { hash: t.hash, error: buildFailureReason(msg) })
        this.pool.drop(t.hash)
      }
      return false
    }
  }
}
