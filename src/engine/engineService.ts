/**
 * The Engine API's state and rules, under the versioned methods: payload validation (newPayload),
 * forkchoice (head, safe, finalized, and starting payload builds) and the payload store
 * (getPayload). Owns the statuses a consensus client sees; does not decode JSON (payloadCodec.ts)
 * or execute blocks (chain/blockImporter.ts) or build them (producer/payloadBuilder.ts).
 * Calls are serialised: the spec requires forkchoice updates to be applied in the order received,
 * and a payload import must not race a head change.
 */
import type { Block } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { BlockImportError, importBlock } from '../chain/blockImporter.ts'
import type { Chain } from '../chain/chain.ts'
import type { Clock } from '../primitives/clock.ts'
import { bigintToBytes, bytesToHex, concatBytes, equalBytes } from '../primitives/hex.ts'
import { createLogger } from '../primitives/logger.ts'
import type { BuildAttributes, PayloadBuilder, PayloadJob } from '../producer/payloadBuilder.ts'
import type { TxPool } from '../txpool/txPool.ts'
import { blobHashesOf } from './blobs.ts'
import { engineError } from './errors.ts'
import type { ExecutionPayload, ForkchoiceState, PayloadAttributes } from './payloadCodec.ts'
import { PayloadBlockError, type PayloadExtras, payloadToBlock } from './payloadToBlock.ts'

const log = createLogger('engine')
const ZERO_HASH = new Uint8Array(32)
const MAX_STORED_PAYLOADS = 16
/** How long without any Engine API call before warning that no consensus client seems connected. */
export const ENGINE_IDLE_WARN_MS = 120_000

export type PayloadStatusKind = 'VALID' | 'INVALID' | 'SYNCING' | 'ACCEPTED' | 'INVALID_BLOCK_HASH'

export interface PayloadStatus {
  status: PayloadStatusKind
  latestValidHash: Uint8Array | null
  validationError: string | null
}

export interface ForkchoiceResult {
  payloadStatus: PayloadStatus
  payloadId: Uint8Array | null
}

export interface NewPayloadOptions extends PayloadExtras {
  /** newPayloadV3+: the blob versioned hashes the consensus client expects, in order. */
  expectedBlobHashes?: Uint8Array[]
  /** newPayloadV1 reports a wrong block hash as INVALID_BLOCK_HASH; later versions as INVALID. */
  hasInvalidBlockHashStatus: boolean
}

const status = (
  s: PayloadStatusKind,
  latestValidHash: Uint8Array | null = null,
  validationError: string | null = null,
): PayloadStatus => ({
  status: s,
  latestValidHash,
  validationError,
})

export class EngineService {
  private queue: Promise<unknown> = Promise.resolve()
  /** Blocks found invalid, by hash, with their latest valid ancestor. */
  private readonly invalid = new Map<string, Uint8Array | null>()
  private readonly payloads = new Map<string, PayloadJob>()
  private lastCallMs: number
  private idleTimer?: ReturnType<typeof setInterval>

  constructor(
    readonly chain: Chain,
    private readonly pool: TxPool,
    private readonly builder: PayloadBuilder,
    private readonly clock: Clock,
  ) {
    this.lastCallMs = clock.nowMs()
  }

  /** Warns (Besu's QoS timer) while no consensus client has called for ENGINE_IDLE_WARN_MS. */
  startIdleWarnings(): void {
    this.idleTimer = setInterval(() => {
      const idleMs = this.clock.nowMs() - this.lastCallMs
      if (idleMs >= ENGINE_IDLE_WARN_MS) {
        log.warn(
          `Execution engine not called in ${Math.floor(idleMs / 1000)} seconds, consensus client may not be connected`,
        )
      }
    }, ENGINE_IDLE_WARN_MS)
    this.idleTimer.unref?.()
  }

  stop(): void {
    if (this.idleTimer) clearInterval(this.idleTimer)
    for (const job of this.payloads.values()) job.stop()
  }

  /** Records that the consensus client is alive (every engine method calls this). */
  touch(): void {
    this.lastCallMs = this.clock.nowMs()
  }

  /** Validates and stores a payload without changing the head. Spec: paris.md#engine_newpayloadv1 */
  newPayload(payload: ExecutionPayload, opts: NewPayloadOptions): Promise<PayloadStatus> {
    return this.serially(() => this.importPayload(payload, opts))
  }

  private async importPayload(payload: ExecutionPayload, opts: NewPayloadOptions): Promise<PayloadStatus> {
    let block: Block
    try {
      block = await payloadToBlock(this.chain, payload, opts)
    } catch (e) {
      if (!(e instanceof PayloadBlockError)) throw e
      if (e.kind === 'blockHash')
        return status(opts.hasInvalidBlockHashStatus ? 'INVALID_BLOCK_HASH' : 'INVALID', null, e.message)
      return status('INVALID', this.validAncestorOf(payload.parentHash), e.message)
    }
    const key = bytesToHex(block.hash())
    if (opts.expectedBlobHashes) {
      const actual = block.transactions.flatMap((tx) => blobHashesOf(tx))
      const expected = opts.expectedBlobHashes.map((h) => bytesToHex(h))
      if (actual.length !== expected.length || actual.some((h, i) => h !== expected[i])) {
        return status('INVALID', null, 'Payload blob versioned hashes do not match the expected ones')
      }
    }
    if (this.invalid.has(key))
      return status('INVALID', this.invalid.get(key) ?? null, 'Block already known to be invalid')
    if (this.chain.store.hasBlock(block.hash())) return status('VALID', block.hash())
    const parentKey = bytesToHex(block.header.parentHash)
    if (this.invalid.has(parentKey)) {
      const latestValid = this.invalid.get(parentKey) ?? null
      this.invalid.set(key, latestValid)
      return status('INVALID', latestValid, 'Block descends from an invalid block')
    }
    try {
      await importBlock(this.chain, block, { setHead: false })
      return status('VALID', block.hash())
    } catch (e) {
      if (!(e instanceof BlockImportError)) throw e
      if (e.kind === 'unknownParent') return status('SYNCING')
      log.warn('invalid payload', { number: block.header.number, hash: key, reason: e.reason })
      this.invalid.set(key, block.header.parentHash)
      return status('INVALID', block.header.parentHash, e.reason)
    }
  }

  /** The hash of the newest valid block at or below `hash`, or null when unknown. */
  private validAncestorOf(hash: Uint8Array): Uint8Array | null {
    const key = bytesToHex(hash)
    if (this.invalid.has(key)) return this.invalid.get(key) ?? null
    return this.chain.store.hasBlock(hash) ? hash : null
  }

  /**
   * Applies a forkchoice state; with attributes, starts building a payload on the new head.
   * `checkAttributes` runs the version's attribute checks after the state is applied (the spec
   * says a failing check must not roll the update back). Spec: paris.md#engine_forkchoiceupdatedv1
   */
  forkchoiceUpdated(
    state: ForkchoiceState,
    attributes: PayloadAttributes | undefined,
    checkAttributes: (a: PayloadAttributes, head: Block) => void,
  ): Promise<ForkchoiceResult> {
    return this.serially(() => this.applyForkchoice(state, attributes, checkAttributes))
  }

  private async applyForkchoice(
    state: ForkchoiceState,
    attributes: PayloadAttributes | undefined,
    checkAttributes: (a: PayloadAttributes, head: Block) => void,
  ): Promise<ForkchoiceResult> {
    const headKey = bytesToHex(state.headBlockHash)
    if (this.invalid.has(headKey)) {
      return {
        payloadStatus: status('INVALID', this.invalid.get(headKey) ?? null, 'Head block is invalid'),
        payloadId: null,
      }
    }
    const head = await this.chain.getBlockByHash(state.headBlockHash)
    if (!head) return { payloadStatus: status('SYNCING'), payloadId: null }
    const safe = await this.ancestorOrFail(head, state.safeBlockHash, 'safe')
    const finalized = await this.ancestorOrFail(head, state.finalizedBlockHash, 'finalized')
    await this.moveHead(head)
    if (safe || finalized) this.chain.setSafeAndFinalized(safe, finalized)
    let payloadId: Uint8Array | null = null
    if (attributes) {
      checkAttributes(attributes, head)
      if (attributes.timestamp <= head.header.timestamp) {
        throw engineError('invalidPayloadAttributes', 'payload timestamp must be greater than the head timestamp')
      }
      payloadId = this.startBuild(head, attributes)
    }
    return { payloadStatus: status('VALID', head.hash()), payloadId }
  }

  /** The block `hash` names when it is `head` or one of its ancestors; undefined for the zero hash; else -38002. */
  private async ancestorOrFail(head: Block, hash: Uint8Array, what: string): Promise<Block | undefined> {
    if (equalBytes(hash, ZERO_HASH)) return undefined
    const target = await this.chain.getBlockByHash(hash)
    if (!target) throw engineError('invalidForkchoiceState', `unknown ${what} block ${bytesToHex(hash)}`)
    if (!(await this.isAncestor(head, target))) {
      throw engineError('invalidForkchoiceState', `${what} block ${bytesToHex(hash)} is not an ancestor of the head`)
    }
    return target
  }

  /** Walks back from `head` until the canonical chain, where the canonical index answers. */
  private async isAncestor(head: Block, target: Block): Promise<boolean> {
    let header = head.header
    for (;;) {
      if (header.number < target.header.number) return false
      if (header.number === target.header.number) return equalBytes(header.hash(), target.hash())
      const canonical = this.chain.store.readCanonicalHash(header.number)
      if (canonical && equalBytes(canonical, header.hash())) return this.chain.isCanonical(target)
      const parent = this.chain.getHeaderByHash(header.parentHash)
      if (!parent) return false
      header = parent
    }
  }

  private async moveHead(head: Block): Promise<void> {
    const old = this.chain.head
    if (equalBytes(old.hash(), head.hash())) return
    await this.chain.setHead(head)
    if (equalBytes(head.header.parentHash, old.hash())) {
      const senders = this.chain.getSenders(head)
      this.pool.onNewHead(head.transactions.map((tx, i) => ({ senderHex: bytesToHex(senders[i]), nonce: tx.nonce })))
    } else {
      await this.pool.resync()
    }
    log.info('forkchoice head', { number: head.header.number, hash: bytesToHex(head.hash()) })
  }

  private startBuild(head: Block, a: PayloadAttributes): Uint8Array {
    const id = payloadIdOf(head, a)
    const key = bytesToHex(id)
    if (this.payloads.has(key)) return id
    const attrs: BuildAttributes = {
      timestamp: a.timestamp,
      prevRandao: a.prevRandao,
      feeRecipient: a.suggestedFeeRecipient,
      withdrawals: a.withdrawals,
      parentBeaconBlockRoot: a.parentBeaconBlockRoot,
    }
    this.payloads.set(key, this.builder.start(head, attrs))
    if (this.payloads.size > MAX_STORED_PAYLOADS) {
      const [oldest, job] = this.payloads.entries().next().value!
      job.stop()
      this.payloads.delete(oldest)
    }
    return id
  }

  /** The build job of `payloadId`; -38001 when there is none. */
  getPayloadJob(payloadId: Uint8Array): PayloadJob {
    const job = this.payloads.get(bytesToHex(payloadId))
    if (!job) throw engineError('unknownPayload')
    return job
  }

  private serially<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn)
    this.queue = run.catch(() => undefined)
    return run
  }
}

/** A payload id that is the same for the same parent and attributes (a repeated fcU reuses its build). */
function payloadIdOf(head: Block, a: PayloadAttributes): Uint8Array {
  const withdrawals = (a.withdrawals ?? []).map((w) => [
    bigintToBytes(w.index),
    bigintToBytes(w.validatorIndex),
    w.address,
    bigintToBytes(w.amount),
  ])
  const preimage = concatBytes(
    head.hash(),
    bigintToBytes(a.timestamp),
    a.prevRandao,
    a.suggestedFeeRecipient,
    RLP.encode(withdrawals),
    a.parentBeaconBlockRoot ?? new Uint8Array(0),
  )
  return keccak_256(preimage).subarray(0, 8)
}
