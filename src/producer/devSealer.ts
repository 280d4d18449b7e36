/**
 * The dev sealer: builds post-merge blocks from the pool on the head, either as soon as
 * transactions arrive (automine) or every `--block-period`. Timestamps strictly increase; base fee
 * follows EIP-1559; system calls come from the VM's block builder. Blocks are committed through
 * `Chain.commitBlock`, so a block is durable before any client sees its receipt.
 */
import type { Block } from '@ethereumjs/block'
import type { Chain } from '../chain/chain.ts'
import type { Clock } from '../primitives/clock.ts'
import { createLogger } from '../primitives/logger.ts'
import type { PoolTx, TxPool } from '../txpool/txPool.ts'
import { BlockAssembler, nextTurn } from './blockAssembler.ts'

const log = createLogger('sealer')

export interface DevSealerOptions {
  coinbase: Uint8Array
  /** Interval mining when set; automine otherwise. */
  blockPeriodMs?: number
  clock: Clock
}

export class DevSealer {
  private readonly assembler: BlockAssembler
  private sealing: Promise<void> = Promise.resolve()
  private isScheduled = false
  private timer?: ReturnType<typeof setInterval>
  private unsubscribe?: () => void

  constructor(
    private readonly chain: Chain,
    private readonly pool: TxPool,
    private readonly opts: DevSealerOptions,
  ) {
    this.assembler = new BlockAssembler(chain, pool)
  }

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
        } while (!this.opts.blockPeriodMs && this.pool.executable(this.chain.head.header.calcNextBaseFee()).length > 0)
      } catch (e) {
        log.error('sealing failed', { error: e instanceof Error ? (e.stack ?? e.message) : String(e) })
      }
    })
  }

  /** Builds, executes and commits one block on the head; returns it (undefined when nothing to do). */
  async sealBlock(isEmptyAllowed = true, timestampSec?: bigint): Promise<Block | undefined> {
    const parent = this.chain.head
    const baseFee = parent.header.calcNextBaseFee()
    const candidates = this.pool.executable(baseFee)
    if (candidates.length === 0 && !isEmptyAllowed) return undefined
    return this.buildOnHead(parent, candidates, timestampSec)
  }

  private async buildOnHead(parent: Block, candidates: PoolTx[], timestampSec?: bigint): Promise<Block> {
    const nowSec = BigInt(Math.floor(this.opts.clock.nowMs() / 1000))
    const timestamp = timestampSec ?? (nowSec > parent.header.timestamp ? nowSec : parent.header.timestamp + 1n)
    const fields = { timestamp, coinbase: this.opts.coinbase, mixHash: parent.header.mixHash, difficulty: 0n }
    const assembled = await this.assembler.assemble(parent, candidates, fields)
    await this.assembler.commit(assembled.block, assembled)
    const { block, included } = assembled
    log.info('sealed block', { number: block.header.number, txs: included.length, gasUsed: block.header.gasUsed })
    return block
  }
}
