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
import { EngineWatchdog } from './engineWatchdog.ts'
import { engineError } from './errors.ts'
import { isForkActive } from './forkRules.ts'
import type { ExecutionPayload, ForkchoiceState, PayloadAttributes } from './payloadCodec.ts'
import { PayloadBlockError, type PayloadExtras, payloadToBlock } from './payloadToBlock.ts'
import { MAX_PENDING_PAYLOADS, PendingPayloads } from './pendingPayloads.ts'

const log = createLogger('engine')
const ZERO_HASH = new Uint8Array(32)
const MAX_STORED_PAYLOADS = 16
/** Besu's MergeMiningCoordinator.MAX_REORG_DEPTH: the deepest reorg a forkchoiceUpdated may ask for. */
const MAX_REORG_DEPTH = 90_000n

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
  /** Payloads whose parent is not stored yet, by hash; executed once it is. */
  private readonly pending = new PendingPayloads()
  /** Warns when the consensus client stops calling. */
  readonly watchdog: EngineWatchdog

  readonly chain: Chain
  private readonly pool: TxPool
  private readonly builder: PayloadBuilder

  constructor(chain: Chain, pool: TxPool, builder: PayloadBuilder, clock: Clock) {
    this.chain = chain
    this.pool = pool
    this.builder = builder
    this.watchdog = new EngineWatchdog(
      clock,
      () => !isForkActive(chain.common, 'cancun', chain.head.header.timestamp),
      (message) => log.warn(message),
    )
  }

  /** Starts the warnings about a silent consensus client. */
  startIdleWarnings(): void {
    this.watchdog.start()
  }

  stop(): void {
    this.watchdog.stop()
    for (const job of this.payloads.values()) job.stop()
  }

  /** Records that the consensus client is alive (every engine method calls this). */
  touch(): void {
    this.watchdog.called()
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
      const reason = 'Block descends from an invalid block'
      this.invalid.set(key, latestValid)
      this.chain.store.writeBadBlock(block.hash(), block.serialize(), reason, Date.now())
      return status('INVALID', latestValid, reason)
    }
    if (!this.chain.store.hasBlock(block.header.parentHash)) {
      // Not executable yet. A child of a block held here joins a well-formed chain that is not
      // validated: ACCEPTED (paris.md); otherwise the gap is unknown: SYNCING.
      const isChainKnown = this.pending.has(parentKey)
      this.pending.hold(block)
      return status(isChainKnown ? 'ACCEPTED' : 'SYNCING')
    }
    const result = await this.execute(block)
    if (result.status === 'VALID') await this.executePendingChildren(block.hash())
    return result
  }

  /** Executes and stores `block` on its stored parent, without moving the head. */
  private async execute(block: Block): Promise<PayloadStatus> {
    try {
      await importBlock(this.chain, block, { setHead: false })
      return status('VALID', block.hash())
    } catch (e) {
      if (!(e instanceof BlockImportError)) throw e
      if (e.kind === 'unknownParent') return status('SYNCING')
      log.warn('invalid payload', { number: block.header.number, hash: bytesToHex(block.hash()), reason: e.reason })
      this.invalid.set(bytesToHex(block.hash()), block.header.parentHash)
      return status('INVALID', block.header.parentHash, e.reason)
    }
  }

  /** Executes the held payloads that descend from `hash`, now that it is stored. */
  private async executePendingChildren(hash: Uint8Array): Promise<void> {
    const parents = [bytesToHex(hash)]
    for (let i = 0; i < parents.length && i <= MAX_PENDING_PAYLOADS; i++) {
      for (const child of this.pending.takeChildren(parents[i])) {
        const result = await this.execute(child)
        const key = bytesToHex(child.hash())
        if (result.status === 'VALID') parents.push(key)
        else for (const k of this.pending.takeDescendants(key)) this.invalid.set(k, result.latestValidHash)
      }
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
    this.checkReorgDepth(head)
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

  /**
   * -38006 for a head whose reorg Basalt cannot make (paris.md: a depth beyond the client's limit),
   * as Besu's forkchoiceUpdated answers it after checking the forkchoice state: deeper than Besu's
   * `MAX_REORG_DEPTH` (90,000 blocks), or (Basalt's own limit) back to a block whose state has left
   * the BONSAI window, where the trie logs that would undo the blocks above it are gone.
   */
  private checkReorgDepth(head: Block): void {
    if (equalBytes(head.hash(), this.chain.head.hash())) return
    const reorg = this.chain.reorgTo(head)
    if (!reorg) return
    const common = this.chain.head.header.number - reorg.depth
    if (reorg.depth > MAX_REORG_DEPTH) {
      log.warn('Rejecting forkchoiceUpdated: reorg depth exceeds limit', { depth: reorg.depth, limit: MAX_REORG_DEPTH })
      throw engineError('tooDeepReorg', `reorg depth ${reorg.depth} exceeds the limit of ${MAX_REORG_DEPTH} blocks`)
    }
    if (!reorg.isStateReachable) {
      log.warn('Rejecting forkchoiceUpdated: reorg below the retained state', { depth: reorg.depth, block: common })
      throw engineError(
        'tooDeepReorg',
        `reorg depth ${reorg.depth} goes back to block ${common}, whose state is no longer retained (--bonsai-historical-block-limit)`,
      )
    }
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
      slotNumber: a.slotNumber,
      targetGasLimit: a.targetGasLimit,
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
    a.slotNumber === undefined ? new Uint8Array(0) : bigintToBytes(a.slotNumber),
    a.targetGasLimit === undefined ? new Uint8Array(0) : bigintToBytes(a.targetGasLimit),
  )
  return keccak_256(preimage).subarray(0, 8)
}
