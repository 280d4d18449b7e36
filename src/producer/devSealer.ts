/**
 * The dev sealer: builds post-merge blocks from the pool on the head, as soon as transactions
 * arrive (automine), every `--block-period`, or only when told (`evm_mine`); the dev tools switch
 * between these at run time. Timestamps come from `BlockTime` and strictly increase; base fee
 * follows EIP-1559 unless one block's is set; system calls come from the VM's block builder. Blocks
 * are committed through `Chain.commitBlock`, so a block is durable before any client sees its receipt.
 */
import type { Block } from '@ethereumjs/block'
import { keccak_256 } from '@noble/hashes/sha3.js'
import type { Chain } from '../chain/chain.ts'
import { isKzgMissing, withKzgOnDemand } from '../chain/kzg.ts'
import { SYSTEM_CONTRACTS } from '../chain/systemContracts.ts'
import { startBlock } from '../evm/fastBlockBuilder.ts'
import { createVm, type VM } from '../evm/vmFactory.ts'
import type { Clock } from '../primitives/clock.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { createLogger } from '../primitives/logger.ts'
import { openState } from '../state/worldState.ts'
import type { PoolTx, TxPool } from '../txpool/txPool.ts'
import { BlockTime, type BlockTimeSettings } from './blockTime.ts'

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

export interface DevSealerOptions {
  coinbase: Uint8Array
  /** Interval mining when set; automine otherwise. */
  blockPeriodMs?: number
  clock: Clock
}

/** The mining settings the dev tools change and a snapshot restores. */
export interface SealerSettings {
  isAutomine: boolean
  intervalMs?: number
  coinbase: Uint8Array
  gasLimit?: bigint
  nextBaseFee?: bigint
  time: BlockTimeSettings
}

export class DevSealer {
  readonly time: BlockTime
  coinbase: Uint8Array
  /** The gas limit of the blocks to come (`evm_setBlockGasLimit`); the parent's when unset. */
  gasLimit?: bigint
  /** The base fee of the next block only (`hardhat_setNextBlockBaseFeePerGas`). */
  nextBaseFee?: bigint
  /** The PREVRANDAO (mixHash) of the next block only (`hardhat_setPrevRandao`); the parent's otherwise. */
  nextPrevRandao?: Uint8Array
  private isAutomineOn: boolean
  private intervalMs?: number
  private isStarted = false
  private vm?: VM
  private vmRoot?: string
  private sealing: Promise<void> = Promise.resolve()
  private isScheduled = false
  private timer?: ReturnType<typeof setInterval>
  private unsubscribe?: () => void

  constructor(
    private readonly chain: Chain,
    private readonly pool: TxPool,
    opts: DevSealerOptions,
  ) {
    this.time = new BlockTime(opts.clock)
    this.coinbase = opts.coinbase
    this.intervalMs = opts.blockPeriodMs
    this.isAutomineOn = !opts.blockPeriodMs
  }

  start(): void {
    this.isStarted = true
    this.applyMode()
  }

  stop(): Promise<void> {
    this.isStarted = false
    this.applyMode()
    return this.sealing
  }

  get isAutomine(): boolean {
    return this.isAutomineOn
  }

  /** Seals as soon as transactions arrive (on) or only by interval or request (off). */
  setAutomine(isOn: boolean): void {
    this.isAutomineOn = isOn
    this.applyMode()
  }

  /** Seals every `ms` (0: no interval mining). */
  setIntervalMining(ms: number): void {
    this.intervalMs = ms > 0 ? ms : undefined
    this.applyMode()
  }

  settings(): SealerSettings {
    const { isAutomineOn: isAutomine, intervalMs, coinbase, gasLimit, nextBaseFee } = this
    return { isAutomine, intervalMs, coinbase, gasLimit, nextBaseFee, time: this.time.save() }
  }

  restore(s: SealerSettings): void {
    Object.assign(this, { isAutomineOn: s.isAutomine, intervalMs: s.intervalMs, coinbase: s.coinbase })
    Object.assign(this, { gasLimit: s.gasLimit, nextBaseFee: s.nextBaseFee })
    this.time.restore(s.time)
    this.applyMode()
  }

  /**
   * Seals `count` blocks now (empty ones too), the first at the chain's time (or `firstTimestamp`),
   * each later one `intervalSec` after its parent; resolves to the last.
   */
  mine(count: bigint, intervalSec = 1n, firstTimestamp?: bigint): Promise<Block | undefined> {
    return this.exclusive(async () => {
      let last: Block | undefined
      for (let i = 0n; i < count; i++) {
        const ts = i === 0n ? firstTimestamp : this.chain.head.header.timestamp + intervalSec
        last = await this.sealBlock(true, ts)
      }
      return last
    })
  }

  /** Runs `fn` between sealing passes, so that it sees and changes a head no block is built on. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.sealing.then(fn)
    this.sealing = run.then(
      () => {},
      () => {},
    )
    return run
  }

  /** (Re)arms the pool listener and the interval timer for the current mode. */
  private applyMode(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    this.unsubscribe?.()
    this.unsubscribe = undefined
    if (!this.isStarted) return
    const ms = this.intervalMs
    if (ms) this.timer = setInterval(() => this.schedule(true), ms)
    if (this.isAutomineOn) {
      this.unsubscribe = this.pool.onAdded(() => this.schedule(false))
      if (this.pool.size > 0) this.schedule(false)
    }
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
          if (!this.isAutomineOn) break
          await nextTurn()
        } while (this.pool.executable(this.nextBlockBaseFee()).length > 0)
      } catch (e) {
        log.error('sealing failed', { error: e instanceof Error ? (e.stack ?? e.message) : String(e) })
      }
    })
  }

  /** Builds, executes and commits one block on the head; returns it (undefined when nothing to do). */
  async sealBlock(isEmptyAllowed = true, timestampSec?: bigint): Promise<Block | undefined> {
    const parent = this.chain.head
    const baseFee = this.nextBlockBaseFee()
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
    const timestamp = timestampSec ?? this.time.next(parent.header.timestamp)
    vm.common.setHardforkBy({ blockNumber: parent.header.number + 1n, timestamp })
    const builder = await startBlock(
      vm,
      {
        parentBlock: parent,
        headerData: {
          timestamp,
          coinbase: this.coinbase,
          gasLimit: this.gasLimit ?? parent.header.gasLimit,
          ...(this.nextBaseFee !== undefined && parent.header.baseFeePerGas !== undefined
            ? { baseFeePerGas: this.nextBaseFee }
            : {}),
          mixHash: this.nextPrevRandao ?? parent.header.mixHash,
          difficulty: 0n,
        },
        withdrawals: vm.common.isActivatedEIP(4895) ? [] : undefined,
        // Not frozen, so that the chain can attach the senders (impersonated ones are not recoverable).
        blockOpts: { putBlockIntoBlockchain: false, setHardfork: true, freeze: false },
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
    this.time.sealed(timestamp)
    this.nextBaseFee = undefined
    this.nextPrevRandao = undefined
    this.pool.onNewHead(included.map((t) => ({ senderHex: t.senderHex, nonce: t.nonce })))
    log.info('sealed block', { number: block.header.number, txs: included.length, gasUsed: block.header.gasUsed })
    return block
  }

  /** The base fee the next block will have. */
  nextBlockBaseFee(): bigint {
    return this.nextBaseFee ?? this.chain.head.header.calcNextBaseFee()
  }

  /** The writer VM, positioned on the head's state (re-rooted when the head or its state moved). */
  private async vmAtHead(): Promise<VM> {
    const head = this.chain.head
    const headRoot = this.chain.postStateRoot(head)
    const root = bytesToHex(headRoot)
    if (!this.vm) {
      const state = openState(this.chain.trieDb, this.chain.common, headRoot, true)
      this.vm = await createVm(this.chain.common, state, this.chain, { isSenderCodeAllowed: true })
    } else if (this.vmRoot !== root) {
      await this.vm.stateManager.setStateRoot(headRoot)
    }
    this.vmRoot = root
    return this.vm
  }
}
