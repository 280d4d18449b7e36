/**
 * The dev sealer: builds post-merge blocks from the pool on the head, as soon as transactions
 * arrive (automine), every `--block-period`, or only when told (`evm_mine`); the dev tools switch
 * between these at run time. Timestamps come from `BlockTime` and strictly increase; base fee
 * follows EIP-1559 unless one block's is set; system calls come from the VM's block builder. Blocks
 * are committed through `Chain.commitBlock`, so a block is durable before any client sees its receipt.
 */
import type { Block } from '@ethereumjs/block'
import { privateToAddress } from '@ethereumjs/util'
import type { Chain } from '../chain/chain.ts'
import { CliqueWaitError, cliqueOutOfTurnDelayMs, cliqueSignersFor, signerHex } from '../chain/clique.ts'
import type { Clock } from '../primitives/clock.ts'
import { equalBytes } from '../primitives/hex.ts'
import { createLogger } from '../primitives/logger.ts'
import { metrics } from '../primitives/metrics.ts'
import { after, every, type LongTimer } from '../runtime/eventLoop.ts'
import type { TxPool } from '../txpool/txPool.ts'
import { BlockAssembler, type MinerSettings, nextTurn, type ProducerHeaderFields } from './blockAssembler.ts'
import { BlockTime, type BlockTimeSettings, MAX_BLOCK_TIMESTAMP, TimestampRangeError } from './blockTime.ts'

const log = createLogger('sealer')

/** How long automine holds a burst back with no new send (see `onTransactionAdded`). */
const BATCH_IDLE_MS = 5
/** The longest automine holds a burst's first transaction back. */
const BATCH_MAX_MS = 100
/** A burst is sealed at once when this many transactions wait (below the pool's per-sender future limit). */
const BATCH_MAX_TXS = 128
/**
 * Automine: a send waits for the blocks being sealed once this many transactions are in the pool.
 * Sends arriving while a long block is built (it yields to the event loop) would otherwise pile up
 * against the head's nonce until the pool's per-sender future limit (200, Besu's) refused one.
 */
const BACKPRESSURE_TXS = 160
/**
 * `mine` commits its blocks this many at a time in one SQLite transaction: one commit instead of
 * one a block, while a crash loses at most this many of a call's blocks and the WAL stays bounded.
 */
const MINE_BLOCKS_PER_COMMIT = 1024n

export interface DevSealerOptions {
  coinbase: Uint8Array
  /** Interval mining when set; automine otherwise. */
  blockPeriodMs?: number
  /** The target gas limit and extraData of sealed blocks (clique: their vanity), shared with the node's other producers. */
  miner?: MinerSettings
  /** The key that seals the blocks of a clique chain (the node key). */
  cliqueKey?: Uint8Array
  /** This node's clique proposals (clique_propose): a sealed block carries one of them as its vote. */
  cliqueProposals?: ReadonlyMap<string, boolean>
  /** Whether interval mining seals a block when no transaction waits (clique's `createemptyblocks`); default on. */
  isEmptyBlockSealed?: boolean
  clock: Clock
  /** Randomness of the clique out-of-turn delay, in [0, 1) (Math.random by default). */
  random?: () => number
  /** Waits `ms` milliseconds (a timer by default). */
  wait?: (ms: number) => Promise<void>
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
  private readonly assembler: BlockAssembler
  private readonly isEmptyBlockSealed: boolean
  private isAutomineOn: boolean
  private intervalMs?: number
  private isStarted = false
  private sealing: Promise<void> = Promise.resolve()
  private isScheduled = false
  private timer?: LongTimer
  private unsubscribe?: () => void

  private readonly chain: Chain
  private readonly pool: TxPool
  private readonly cliqueSigner?: string
  private readonly random: () => number
  private readonly wait: (ms: number) => Promise<void>
  private readonly clock: Clock
  private unsubscribeHeads?: () => void
  /** Ends a clique signer's wait for its turn at once (a stop must not wait a block period). */
  private endTurnWait?: () => void
  /** Transaction sends the RPC answered in a row, with no other request between them. */
  private sendStreak = 0
  /** Sealing passes scheduled or running. */
  private passes = 0
  /** Set while automine holds back a burst's transactions to seal them together. */
  private batchTimer?: ReturnType<typeof setTimeout>
  private batchStartedMs = 0

  constructor(chain: Chain, pool: TxPool, opts: DevSealerOptions) {
    this.chain = chain
    this.pool = pool
    this.cliqueSigner = opts.cliqueKey ? signerHex(privateToAddress(opts.cliqueKey)) : undefined
    this.random = opts.random ?? Math.random
    this.clock = opts.clock
    this.wait = opts.wait ?? ((ms) => new Promise((resolve) => after(ms, resolve)))
    this.time = new BlockTime(opts.clock)
    this.coinbase = opts.coinbase
    this.assembler = new BlockAssembler(chain, pool, {
      miner: opts.miner,
      cliqueKey: opts.cliqueKey,
      cliqueProposals: opts.cliqueProposals,
    })
    this.intervalMs = opts.blockPeriodMs
    this.isAutomineOn = !opts.blockPeriodMs
    this.isEmptyBlockSealed = opts.isEmptyBlockSealed ?? true
  }

  start(): void {
    this.isStarted = true
    this.applyMode()
  }

  stop(): Promise<void> {
    this.sealBatch()
    this.isStarted = false
    this.applyMode()
    this.endTurnWait?.()
    return this.sealing
  }

  /**
   * Whether it seals on its own: started (not stopped) and sealing by automine or by interval, what
   * eth_mining reports (Besu's mining coordinator; after `evm_setAutomine(false)` without an
   * interval blocks come only when asked for, and the node is not mining, as Ganache reports it).
   */
  get isMining(): boolean {
    return this.isStarted && (this.isAutomineOn || this.intervalMs !== undefined)
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
   * each later one `intervalSec` after its parent; resolves to the last. The blocks are committed
   * `MINE_BLOCKS_PER_COMMIT` at a time: a crash (kill -9) mid-call leaves the chain at the last such
   * boundary, every block below it whole.
   */
  mine(count: bigint, intervalSec = 1n, firstTimestamp?: bigint): Promise<Block | undefined> {
    return this.exclusive(async () => {
      let last: Block | undefined
      for (let i = 0n; i < count; ) {
        const end = i + MINE_BLOCKS_PER_COMMIT < count ? i + MINE_BLOCKS_PER_COMMIT : count
        await this.chain.commitTogether(async () => {
          for (; i < end; i++) {
            const ts = i === 0n ? firstTimestamp : this.chain.head.header.timestamp + intervalSec
            last = await this.sealBlock(true, ts)
          }
        })
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
    this.sealBatch()
    this.timer?.cancel()
    this.timer = undefined
    this.unsubscribe?.()
    this.unsubscribe = undefined
    this.unsubscribeHeads?.()
    this.unsubscribeHeads = undefined
    if (!this.isStarted) return
    const ms = this.intervalMs
    if (ms) this.timer = every(ms, () => this.schedule(this.isEmptyBlockSealed))
    // A clique signer, as Besu's miner, starts its next block on every new head: the pass waits for
    // the parent's time plus the period (and out of turn, the random delay), so turns do not hang
    // on when each node's interval happens to tick.
    if (ms && this.cliqueSigner)
      this.unsubscribeHeads = this.chain.onNewBlock(() => this.schedule(this.isEmptyBlockSealed))
    if (this.isAutomineOn) {
      this.unsubscribe = this.pool.onAdded(() => this.onTransactionAdded())
      if (this.pool.size > 0) this.schedule(false)
    }
  }

  /** Resolves once every block scheduled so far is committed (a held-back burst included). */
  idle(): Promise<void> {
    this.sealBatch()
    return this.sealing
  }

  /**
   * Whether a request now must reach `onRequest` on this thread, or wait for a block: a sealing pass
   * is scheduled or running (a send is answered before its block is sealed, on the next turn), a
   * burst is held back, or a run of sends is open (a read ends it).
   */
  get isBlockPending(): boolean {
    return this.passes > 0 || this.sendStreak > 0 || this.batchTimer !== undefined
  }

  /** The sealing pass scheduled or running, if any (a request relayed from another thread waits for it). */
  pendingPass(): Promise<void> | undefined {
    return this.passes > 0 ? this.sealing : undefined
  }

  /**
   * Told by the RPC dispatcher before each method runs. A send (`eth_sendRawTransaction`,
   * `eth_sendTransaction`) only counts; any other request first waits for the transactions automine
   * holds back, so that whatever a client asks next (a receipt, a balance, the block number) sees
   * them sealed. Undefined when there is nothing to wait for. Under automine a send also waits for
   * the blocks being sealed while the pool holds `BACKPRESSURE_TXS` or more, so that a client
   * sending without a pause is slowed down instead of refused.
   */
  onRequest(isSend: boolean): Promise<void> | undefined {
    if (isSend) {
      this.sendStreak++
      if (!this.isAutomineOn || !this.isStarted || this.pool.size < BACKPRESSURE_TXS) return undefined
      this.sealBatch()
      return this.sealing
    }
    this.sendStreak = 0
    if (this.batchTimer === undefined) return undefined
    this.sealBatch()
    return this.sealing
  }

  /**
   * Automine: a transaction after a request other than a send is sealed at once (its sender may
   * be waiting for the receipt). One that follows another send directly comes from a client sending
   * without waiting (a burst): it is held back with the ones after it, for at most `BATCH_IDLE_MS`
   * without a new send and `BATCH_MAX_MS` in all, or until `BATCH_MAX_TXS` wait, so that they share a
   * block instead of each paying for one.
   */
  private onTransactionAdded(): void {
    if (this.sendStreak < 2 || this.pool.size >= Math.min(BATCH_MAX_TXS, this.pool.maxSize)) {
      if (this.batchTimer !== undefined) this.sealBatch()
      else this.schedule(false)
      return
    }
    const nowMs = performance.now()
    if (this.batchTimer === undefined) this.batchStartedMs = nowMs
    else clearTimeout(this.batchTimer)
    const waitMs = Math.max(0, Math.min(BATCH_IDLE_MS, this.batchStartedMs + BATCH_MAX_MS - nowMs))
    this.batchTimer = setTimeout(() => this.sealBatch(), waitMs)
  }

  /** Ends a held-back burst: its transactions go into the next sealing pass. */
  private sealBatch(): void {
    if (this.batchTimer === undefined) return
    clearTimeout(this.batchTimer)
    this.batchTimer = undefined
    if (this.isStarted && this.isAutomineOn) this.schedule(false)
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
    this.passes++
    this.sealing = this.sealing.then(async () => {
      await nextTurn()
      this.isScheduled = false
      try {
        do {
          if (!(await this.waitForTurn())) {
            // Another signer's block came: automine goes on from it, interval mining at its next tick.
            if (this.isStarted && this.isAutomineOn) this.schedule(false)
            break
          }
          const block = await this.sealBlock(isEmptyAllowed)
          // Transactions kept for a later block (block full, fee or nonce not yet reachable) must
          // not make automine seal empty blocks in a loop.
          if (!this.isAutomineOn || block?.transactions.length === 0) break
          await nextTurn()
        } while (this.batchTimer === undefined && this.pool.executable(this.nextBlockBaseFee()).length > 0)
      } catch (e) {
        // A clique signer waits for another signer's block, as Besu's miner does: not a failure.
        if (e instanceof CliqueWaitError) log.debug('not sealing', { reason: e.message })
        // The dev tools moved the time past the range: the user's doing, said in one line.
        else if (e instanceof TimestampRangeError) log.warn('not sealing', { reason: e.message })
        else log.error('sealing failed', { error: e instanceof Error ? (e.stack ?? e.message) : String(e) })
      } finally {
        this.passes--
      }
    })
  }

  /**
   * A clique signer waits until the parent's time plus the block period, and out of turn Besu's
   * random delay on top (`cliqueOutOfTurnDelayMs`), so that the in-turn signer's block usually
   * arrives first; false when a block came meanwhile (the next pass seals on it).
   */
  private async waitForTurn(): Promise<boolean> {
    if (!this.cliqueSigner) return true
    // Stopped while the pass was queued: no new wait.
    if (!this.isStarted) return false
    const parent = this.chain.head.header
    let delayMs = 0
    try {
      const common = this.chain.commonForNextBlock()
      if (common.consensusType() !== 'poa') return true
      const signers = cliqueSignersFor(this.chain, parent)
      delayMs = cliqueOutOfTurnDelayMs(signers, parent.number + 1n, this.cliqueSigner, this.random)
      const period = BigInt((common.consensusConfig() as { period?: number }).period ?? 0)
      delayMs += Math.max(0, Number(parent.timestamp + period) * 1000 - this.clock.nowMs())
    } catch {
      // Signers unknown at the head: sealing finds out and says why.
      return true
    }
    if (delayMs === 0) return true
    log.debug('waiting before sealing', { number: parent.number + 1n, delayMs })
    let isEnded = false
    await new Promise<void>((resolve) => {
      this.endTurnWait = () => {
        isEnded = true
        resolve()
      }
      this.wait(delayMs).then(resolve)
    })
    this.endTurnWait = undefined
    return !isEnded && equalBytes(this.chain.head.hash(), parent.hash())
  }

  /** Builds, executes and commits one block on the head; returns it (undefined when nothing to do). */
  async sealBlock(isEmptyAllowed = true, timestampSec?: bigint): Promise<Block | undefined> {
    return this.chain.exclusive(() => this.sealOnHead(isEmptyAllowed, timestampSec))
  }

  private async sealOnHead(isEmptyAllowed: boolean, timestampSec?: bigint): Promise<Block | undefined> {
    const parent = this.chain.head
    const baseFee = this.nextBlockBaseFee()
    const candidates = this.pool.executable(baseFee)
    if (candidates.length === 0 && !isEmptyAllowed) return undefined
    const assembled = await metrics.time('blockchain', 'block_seal_ms', () =>
      this.assembler.assemble(parent, candidates, this.headerFields(parent, timestampSec)),
    )
    await this.assembler.commit(assembled.block, assembled)
    const { block, included } = assembled
    this.time.sealed(block.header.timestamp)
    this.nextBaseFee = undefined
    this.nextPrevRandao = undefined
    log.info('sealed block', { number: block.header.number, txs: included.length, gasUsed: block.header.gasUsed })
    return block
  }

  /** The header fields of the next block: the chain's time, and the settings the dev tools changed. */
  private headerFields(parent: Block, timestampSec?: bigint): ProducerHeaderFields {
    const timestamp = timestampSec ?? this.time.next(parent.header.timestamp)
    // The dev methods refuse times past the range; a timestamp interval can still walk out of it.
    if (timestamp > MAX_BLOCK_TIMESTAMP) throw new TimestampRangeError(timestamp)
    return {
      timestamp,
      coinbase: this.coinbase,
      mixHash: this.nextPrevRandao ?? parent.header.mixHash,
      ...(this.gasLimit !== undefined ? { gasLimit: this.gasLimit } : {}),
      ...(this.nextBaseFee !== undefined ? { baseFeePerGas: this.nextBaseFee } : {}),
    }
  }

  /** The base fee the next block will have. */
  nextBlockBaseFee(): bigint {
    return this.nextBaseFee ?? this.chain.nextBaseFee()
  }
}
