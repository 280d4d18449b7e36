/**
 * The dev sealer: builds post-merge blocks from the pool on the head, either as soon as
 * transactions arrive (automine) or every `--block-period`. Timestamps strictly increase; base fee
 * follows EIP-1559; system calls come from the VM's block builder. Blocks are committed through
 * `Chain.commitBlock`, so a block is durable before any client sees its receipt.
 */

import type { Block } from '@ethereumjs/block'
import { keccak_256 } from '@noble/hashes/sha3.js'
import type { Chain } from '../chain/chain.ts'
import { fixedDifficulty } from '../chain/forkSchedule.ts'
import { nextGasLimit } from '../chain/gasLimit.ts'
import { isKzgMissing, withKzgOnDemand } from '../chain/kzg.ts'
import { SYSTEM_CONTRACTS } from '../chain/systemContracts.ts'
import { startBlock } from '../evm/fastBlockBuilder.ts'
import { createVm, type VM } from '../evm/vmFactory.ts'
import type { Clock } from '../primitives/clock.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { createLogger } from '../primitives/logger.ts'
import { openState } from '../state/worldState.ts'
import type { PoolTx, TxPool } from '../txpool/txPool.ts'

const log = createLogger('sealer')

/** The request contracts (EIP-7002, EIP-7251) whose idle dequeue call the block builder may skip. */
const REQUEST_CONTRACT_CODE_HASHES: ReadonlySet<string> = new Set(
  SYSTEM_CONTRACTS.filter((c) => c.eip === 'EIP-7002' || c.eip === 'EIP-7251').map((c) =>
    bytesToHex(keccak_256(hexToBytes(c.code))),
  ),
)

/**
 * How long a block's transactions run before the sealer lets waiting requests in. A block of a few
 * transactions is built without a break, so that a client that sent one finds its receipt at the
 * first poll after `eth_sendRawTransaction` answered (clients written against Hardhat expect it).
 */
const YIELD_EVERY_MS = 2

/** Resolves after the event loop has handled the I/O that is already waiting. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** The base fee of the block after `parent`: 0 before London (a pre-London genesis such as Besu's dev.json). */
function nextBaseFee(parent: Block): bigint {
  return parent.header.baseFeePerGas === undefined ? 0n : parent.header.calcNextBaseFee()
}

export interface DevSealerOptions {
  coinbase: Uint8Array
  /** Interval mining when set; automine otherwise. */
  blockPeriodMs?: number
  /** Besu's --target-gas-limit: blocks move their gas limit toward it. */
  targetGasLimit?: bigint
  clock: Clock
}

export class DevSealer {
  private vm?: VM
  private vmRoot?: string
  private sealing: Promise<void> = Promise.resolve()
  private isScheduled = false
  private timer?: ReturnType<typeof setInterval>
  private unsubscribe?: () => void

  constructor(
    private readonly chain: Chain,
    private readonly pool: TxPool,
    private readonly opts: DevSealerOptions,
  ) {}

  start(): void {
    if (this.opts.blockPeriodMs) {
      this.timer = setInterval(() => this.schedule(true), this.opts.blockPeriodMs)
    } else {
      this.unsubscribe = this.pool.onAdded(() => this.schedule(false))
      if (this.pool.size > 0) this.schedule(false)
    }
  }

  stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.unsubscribe?.()
    return this.sealing
  }

  /** Resolves once every block scheduled so far is committed. */
  idle(): Promise<void> {
    return this.sealing
  }

  /**
   * Coalesces triggers: one sealing pass runs at a time and takes everything pending; a trigger
   * during a pass schedules exactly one more. Each block starts on a fresh event-loop turn, so that
   * requests already received (other senders' transactions) join it rather than each one sealing a
   * block of its own inside the microtasks of the request that triggered it.
   */
  private schedule(isEmptyAllowed: boolean): void {
    if (this.isScheduled) return
    this.isScheduled = true
    this.sealing = this.sealing.then(async () => {
      await nextTurn()
      this.isScheduled = false
      try {
        do {
          await this.sealBlock(isEmptyAllowed)
          if (!this.opts.blockPeriodMs) await nextTurn()
        } while (!this.opts.blockPeriodMs && this.pool.executable(nextBaseFee(this.chain.head)).length > 0)
      } catch (e) {
        log.error('sealing failed', { error: e instanceof Error ? (e.stack ?? e.message) : String(e) })
      }
    })
  }

  /** Builds, executes and commits one block on the head; returns it (undefined when nothing to do). */
  async sealBlock(isEmptyAllowed = true, timestampSec?: bigint): Promise<Block | undefined> {
    const parent = this.chain.head
    const baseFee = nextBaseFee(parent)
    const candidates = this.pool.executable(baseFee)
    if (candidates.length === 0 && !isEmptyAllowed) return undefined
    return withKzgOnDemand(this.chain.common, async () => {
      try {
        return await this.buildOnHead(parent, candidates, timestampSec)
      } catch (e) {
        // A failed build can leave the writer VM with an open checkpoint and dirty caches: start over.
        this.vm = undefined
        throw e
      }
    })
  }

  private async buildOnHead(parent: Block, candidates: PoolTx[], timestampSec?: bigint): Promise<Block> {
    const vm = await this.vmAtHead()
    const nowSec = BigInt(Math.floor(this.opts.clock.nowMs() / 1000))
    const timestamp = timestampSec ?? (nowSec > parent.header.timestamp ? nowSec : parent.header.timestamp + 1n)
    vm.common.setHardforkBy({ blockNumber: parent.header.number + 1n, timestamp })
    // A proof-of-work genesis (Besu's dev.json) gets its fixed difficulty, or the ethash one.
    const isPow = vm.common.consensusType() === 'pow'
    const powDifficulty = isPow ? fixedDifficulty(vm.common) : undefined
    const builder = await startBlock(
      vm,
      {
        parentBlock: parent,
        headerData: {
          timestamp,
          coinbase: this.opts.coinbase,
          gasLimit: nextGasLimit(parent.header.gasLimit, this.opts.targetGasLimit),
          mixHash: parent.header.mixHash,
          difficulty: isPow ? powDifficulty : 0n,
        },
        withdrawals: vm.common.isActivatedEIP(4895) ? [] : undefined,
        blockOpts: {
          putBlockIntoBlockchain: false,
          setHardfork: true,
          calcDifficultyFromHeader: isPow && powDifficulty === undefined ? parent.header : undefined,
        },
      },
      { requestContractCodeHashes: REQUEST_CONTRACT_CODE_HASHES },
    )
    const included: PoolTx[] = []
    let yieldAtMs = performance.now() + YIELD_EVERY_MS
    for (const t of candidates) {
      if (performance.now() >= yieldAtMs) {
        await nextTurn()
        yieldAtMs = performance.now() + YIELD_EVERY_MS
      }
      try {
        await builder.addTransaction(t.tx, { skipHardForkValidation: true })
        included.push(t)
      } catch (e) {
        if (isKzgMissing(e)) throw e
        const msg = e instanceof Error ? e.message : String(e)
        if (msg.includes('remaining gas in the block') || msg.includes('blob gas limit')) continue
        log.warn('dropping transaction that cannot execute', { hash: t.hash, error: msg })
        this.pool.drop(t.hash)
      }
    }
    const { block } = await builder.build()
    const senders = included.map((t) => t.sender)
    await this.chain.commitBlock(block, builder.transactionReceipts, senders, { setHead: true })
    this.vmRoot = bytesToHex(block.header.stateRoot)
    this.pool.onNewHead(included.map((t) => ({ senderHex: t.senderHex, nonce: t.nonce })))
    log.info('sealed block', { number: block.header.number, txs: included.length, gasUsed: block.header.gasUsed })
    return block
  }

  /** The writer VM, positioned on the head's state (re-rooted when the head moved elsewhere). */
  private async vmAtHead(): Promise<VM> {
    const head = this.chain.head
    const root = bytesToHex(head.header.stateRoot)
    if (!this.vm) {
      const state = openState(this.chain.trieDb, this.chain.common, head.header.stateRoot, true)
      this.vm = await createVm(this.chain.common, state, this.chain)
    } else if (this.vmRoot !== root) {
      await this.vm.stateManager.setStateRoot(head.header.stateRoot)
    }
    this.vmRoot = root
    return this.vm
  }
}
