/**
 * The transaction pool. Validates with Besu's rules, keeps per sender a pending run (consecutive
 * nonces from the account nonce) and queued transactions (after a gap), replaces with a price bump,
 * evicts the cheapest when full, and hands the block producer the best executable transactions.
 * It never drops a transaction it accepted except by replacement, eviction for a better one,
 * inclusion in a block, or a block builder finding it invalid (`drop`). Talks to the chain only through `PoolChainView`.
 */
import { getMinimumGasLimit, type TypedTransaction } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { minBigInt } from '../primitives/bigintMath.ts'
import { bytesToHex } from '../primitives/hex.ts'
import { TxPoolError } from './txPoolError.ts'

/** Besu's `tx-pool-max-future-by-sender` default. */
export const DEFAULT_MAX_FUTURE_BY_SENDER = 200

/** What the pool needs to know of the chain head. */
export interface PoolChainView {
  chainId: bigint
  /** False on a chain whose genesis has no chain id: Besu refuses replay-protected transactions there. */
  hasChainId?: boolean
  headGasLimit(): bigint
  headBaseFee(): bigint
  /** Nonce and balance of an account at the head. */
  account(address: Uint8Array): Promise<{ nonce: bigint; balance: bigint }>
  /** Calls `fn` whenever the head is moved by hand (debug_setHead…); the pool then re-reads nonces. */
  onHeadReset?(fn: () => Promise<void>): void
}

export interface TxPoolOptions {
  minGasPrice: bigint
  /**
   * Besu's --min-priority-fee (`miner_setMinPriorityFee`): a block takes a transaction only when its
   * effective tip reaches it, unless the transaction has priority (local, or a priority sender's).
   */
  minPriorityFee?: bigint
  maxSize: number
  priceBumpPercent: number
  /**
   * How far past the account nonce a sender may queue: Besu's `tx-pool-max-future-by-sender` (200),
   * or for its sequenced pool `tx-pool-limit-by-account-percentage` of the pool's size.
   */
  maxFutureBySender?: number
  /**
   * Whether local transactions (sent over JSON-RPC) go into blocks before remote ones (from peers)
   * whatever their tips, as Besu's pools do unless `--tx-pool-no-local-priority`. Default true.
   */
  isLocalPriority?: boolean
  /** Senders (lowercase hex) whose transactions go first, as local ones do (Besu's `--tx-pool-priority-senders`). */
  prioritySenders?: ReadonlySet<string>
  /**
   * Whether a sender (lowercase hex) may send transactions (Besu's accounts allowlist): others are
   * refused, and kept out of blocks when the list loses them while their transactions wait.
   */
  isPermittedSender?: (senderHex: string) => boolean
  /**
   * Besu's `--rpc-tx-feecap`: the most a local transaction may offer to pay (its gas limit at its
   * max fee); 0 or absent: no cap.
   */
  txFeeCap?: bigint
  /** Besu's `--strict-tx-replay-protection-enabled`: local transactions must be signed for a chain id. */
  isReplayProtectionRequired?: boolean
}

export interface AddOptions {
  /** Sent to this node over JSON-RPC (true, the default) rather than relayed by a peer. */
  isLocal?: boolean
}

export interface PoolTx {
  tx: TypedTransaction
  hash: string
  sender: Uint8Array
  senderHex: string
  nonce: bigint
  addedAtMs: number
  /** Sent to this node over JSON-RPC rather than relayed by a peer. */
  isLocal: boolean
}

interface SenderTxs {
  /** The account nonce at the head, as last seen. */
  stateNonce: bigint
  byNonce: Map<bigint, PoolTx>
}

export class TxPool {
  private readonly senders = new Map<string, SenderTxs>()
  private readonly byHash = new Map<string, PoolTx>()
  private readonly listeners = new Set<(t: PoolTx) => void>()

  private readonly chain: PoolChainView
  private readonly opts: TxPoolOptions

  constructor(chain: PoolChainView, opts: TxPoolOptions) {
    this.chain = chain
    this.opts = opts
    chain.onHeadReset?.(() => this.resync())
  }

  get size(): number {
    return this.byHash.size
  }

  get maxSize(): number {
    return this.opts.maxSize
  }

  onAdded(fn: (t: PoolTx) => void): () => void {
    this.listeners.add(fn)
    return () => this.listeners.delete(fn)
  }

  get(hash: string): PoolTx | undefined {
    return this.byHash.get(hash)
  }

  all(): PoolTx[] {
    return [...this.byHash.values()]
  }

  /** Validates and adds `tx`; throws TxPoolError; resolves to the transaction hash. */
  async add(tx: TypedTransaction, opts: AddOptions = {}): Promise<string> {
    if (!tx.isSigned()) throw new TxPoolError('invalidSignature', 'Invalid signature')
    const hash = bytesToHex(tx.hash())
    if (this.byHash.has(hash)) throw new TxPoolError('knownTransaction', 'Known transaction')
    let sender: Uint8Array
    try {
      sender = tx.getSenderAddress().bytes
    } catch {
      throw new TxPoolError('invalidSignature', 'Invalid signature')
    }
    this.checkStatic(tx, sender)
    const isLocal = opts.isLocal ?? true
    if (isLocal) this.checkLocal(tx)
    const senderHex = bytesToHex(sender)
    if (this.opts.isPermittedSender?.(senderHex) === false)
      throw new TxPoolError('txSenderNotAuthorized', 'Sender account not authorized to send transactions')
    const account = await this.chain.account(sender)
    if (tx.nonce < account.nonce) {
      throw new TxPoolError(
        'nonceTooLow',
        `Nonce too low: transaction nonce ${tx.nonce}, account nonce ${account.nonce}`,
      )
    }
    // Besu's bound: a nonce distance of maxFutureBySender or more is refused.
    if (tx.nonce - account.nonce >= BigInt(this.opts.maxFutureBySender ?? DEFAULT_MAX_FUTURE_BY_SENDER)) {
      throw new TxPoolError('nonceTooFarInFuture', 'Transaction nonce is too distant from current sender nonce')
    }
    const cost = tx.getUpfrontCost()
    if (cost > account.balance) {
      throw new TxPoolError(
        'upfrontCostExceedsBalance',
        `Upfront cost ${cost} exceeds account balance ${account.balance}`,
      )
    }
    const existing = this.senders.get(senderHex)?.byNonce.get(tx.nonce)
    if (existing) this.checkReplacement(existing.tx, tx)
    const pooled: PoolTx = { tx, hash, sender, senderHex, nonce: tx.nonce, addedAtMs: Date.now(), isLocal }
    if (!existing && this.byHash.size >= this.opts.maxSize) this.evictFor(pooled)
    if (existing) this.byHash.delete(existing.hash)
    let entry = this.senders.get(senderHex)
    if (!entry) {
      entry = { stateNonce: account.nonce, byNonce: new Map() }
      this.senders.set(senderHex, entry)
    }
    entry.stateNonce = account.nonce
    entry.byNonce.set(tx.nonce, pooled)
    this.byHash.set(hash, pooled)
    for (const fn of this.listeners) fn(pooled)
    return hash
  }

  /** Checks that need no state: chain id, gas limits, fee fields, minimum price. */
  private checkStatic(tx: TypedTransaction, sender: Uint8Array): void {
    const chainId = (tx as { chainId?: bigint }).chainId ?? tx.common.chainId()
    if (tx.type !== 0 || (tx as { v?: bigint }).v! > 28n) {
      if (this.chain.hasChainId === false)
        throw new TxPoolError('replayProtectionNotSupported', 'replay protected signatures is not supported')
      if (chainId !== this.chain.chainId)
        throw new TxPoolError('wrongChainId', `Wrong chainId: ${chainId}, expected ${this.chain.chainId}`)
    }
    // Besu's validator: the larger of the intrinsic gas and the calldata floor (EIP-7623, from
    // Prague; EIP-7976's 64 gas a byte on Amsterdam), which execution would refuse anyway. The floor
    // depends on the sender (EIP-2780: a self-transfer pays no recipient).
    const intrinsic = getMinimumGasLimit(tx, new Address(sender))
    if (intrinsic > tx.gasLimit) {
      throw new TxPoolError('intrinsicGasExceedsLimit', `Intrinsic gas ${intrinsic} exceeds gas limit ${tx.gasLimit}`)
    }
    const blockGasLimit = this.chain.headGasLimit()
    if (tx.gasLimit > blockGasLimit) {
      throw new TxPoolError(
        'exceedsBlockGasLimit',
        `Transaction gas limit ${tx.gasLimit} exceeds block gas limit ${blockGasLimit}`,
      )
    }
    const { maxFee, priorityFee } = fees(tx)
    if (priorityFee > maxFee)
      throw new TxPoolError('priorityFeeExceedsMaxFee', 'Max priority fee per gas exceeds max fee per gas')
    if (maxFee < this.opts.minGasPrice) {
      throw new TxPoolError(
        'gasPriceTooLow',
        `Gas price ${maxFee} below configured minimum gas price ${this.opts.minGasPrice}`,
      )
    }
  }

  /** Besu's checks of transactions sent over JSON-RPC only: the fee cap, replay protection. */
  private checkLocal(tx: TypedTransaction): void {
    const cap = this.opts.txFeeCap ?? 0n
    if (cap > 0n && fees(tx).maxFee * tx.gasLimit > cap)
      throw new TxPoolError(
        'txFeeCapExceeded',
        `Transaction fee cap exceeded: ${fees(tx).maxFee * tx.gasLimit} > ${cap}`,
      )
    if (this.opts.isReplayProtectionRequired && tx.type === 0 && (tx as { v?: bigint }).v! <= 28n)
      throw new TxPoolError('replayProtectionRequired', 'ChainId is required')
  }

  private checkReplacement(old: TypedTransaction, next: TypedTransaction): void {
    const a = fees(old)
    const b = fees(next)
    const bump = BigInt(100 + this.opts.priceBumpPercent)
    if (b.maxFee * 100n < a.maxFee * bump || b.priorityFee * 100n < a.priorityFee * bump) {
      throw new TxPoolError('replacementUnderpriced', 'Replacement transaction underpriced')
    }
  }

  /** Makes room for `incoming` by dropping the cheapest transaction at the end of a sender's run. */
  private evictFor(incoming: PoolTx): void {
    let victim: PoolTx | undefined
    for (const entry of this.senders.values()) {
      let last: PoolTx | undefined
      for (const t of entry.byNonce.values()) if (!last || t.nonce > last.nonce) last = t
      if (!last) continue
      if (!victim || fees(last.tx).maxFee < fees(victim.tx).maxFee) victim = last
    }
    if (!victim || fees(victim.tx).maxFee >= fees(incoming.tx).maxFee) {
      throw new TxPoolError('txPoolFull', 'Transaction pool is full')
    }
    this.remove(victim)
  }

  private remove(t: PoolTx): void {
    this.byHash.delete(t.hash)
    const entry = this.senders.get(t.senderHex)
    if (!entry) return
    entry.byNonce.delete(t.nonce)
    if (entry.byNonce.size === 0) this.senders.delete(t.senderHex)
  }

  /** Next nonce for `sender` counting its pending run (eth_getTransactionCount "pending"). */
  pendingNonce(senderHex: string, stateNonce: bigint): bigint {
    const entry = this.senders.get(senderHex)
    let n = stateNonce
    while (entry?.byNonce.has(n)) n++
    return n
  }

  /** Pending (executable) and queued (behind a nonce gap) transactions per sender. */
  content(): { pending: Map<string, PoolTx[]>; queued: Map<string, PoolTx[]> } {
    const pending = new Map<string, PoolTx[]>()
    const queued = new Map<string, PoolTx[]>()
    for (const [sender, entry] of this.senders) {
      const sorted = [...entry.byNonce.values()].sort((x, y) => (x.nonce < y.nonce ? -1 : 1))
      let next = entry.stateNonce
      for (const t of sorted) {
        const target = t.nonce === next ? pending : queued
        if (t.nonce === next) next++
        const list = target.get(sender) ?? []
        list.push(t)
        target.set(sender, list)
      }
    }
    return { pending, queued }
  }

  /**
   * Executable transactions for a block: each sender's run in nonce order, senders interleaved by
   * effective tip (highest first; local ones first unless `isLocalPriority` is off), only those
   * paying at least `baseFee` and, unless they have priority, a tip of at least `minPriorityFee`
   * (Besu's selector; the others wait in the pool).
   */
  executable(baseFee: bigint): PoolTx[] {
    const runs: PoolTx[][] = []
    const isPermitted = this.opts.isPermittedSender
    const isLocalFirst = this.opts.isLocalPriority !== false
    const prioritySenders = this.opts.prioritySenders
    const hasPriorityOf = (t: PoolTx) => (isLocalFirst && t.isLocal) || prioritySenders?.has(t.senderHex) === true
    const minTip = this.opts.minPriorityFee ?? 0n
    for (const [senderHex, entry] of this.senders) {
      if (isPermitted && !isPermitted(senderHex)) continue
      const run: PoolTx[] = []
      for (let n = entry.stateNonce; ; n++) {
        const t = entry.byNonce.get(n)
        if (!t || fees(t.tx).maxFee < baseFee) break
        if (minTip > 0n && effectiveTip(t.tx, baseFee) < minTip && !hasPriorityOf(t)) break
        run.push(t)
      }
      if (run.length > 0) runs.push(run)
    }
    if (runs.length === 1) return runs[0]
    const out: PoolTx[] = []
    const idx = runs.map(() => 0)
    for (;;) {
      let best = -1
      let bestTip = -1n
      let isBestPriority = false
      for (let i = 0; i < runs.length; i++) {
        const t = runs[i][idx[i]]
        if (!t) continue
        const hasPriority = hasPriorityOf(t)
        if (isBestPriority && !hasPriority) continue
        const tip = effectiveTip(t.tx, baseFee)
        if (tip > bestTip || (hasPriority && !isBestPriority)) {
          best = i
          bestTip = tip
          isBestPriority = hasPriority
        }
      }
      if (best < 0) return out
      out.push(runs[best][idx[best]++])
    }
  }

  /** Forgets what a new head included and what its nonces made stale. */
  onNewHead(included: { senderHex: string; nonce: bigint }[]): void {
    const touched = new Map<string, bigint>()
    for (const { senderHex, nonce } of included) {
      const cur = touched.get(senderHex)
      if (cur === undefined || nonce + 1n > cur) touched.set(senderHex, nonce + 1n)
    }
    for (const [senderHex, next] of touched) {
      const entry = this.senders.get(senderHex)
      if (!entry) continue
      entry.stateNonce = next
      for (const t of [...entry.byNonce.values()]) if (t.nonce < next) this.remove(t)
    }
  }

  /** Drops a transaction the producer found invalid at execution. */
  drop(hash: string): void {
    const t = this.byHash.get(hash)
    if (t) this.remove(t)
  }

  /**
   * Drops every transaction added before `cutoffMs` (Date.now() time): Besu's sequenced pool's
   * `--tx-pool-retention-hours`. Returns how many were dropped.
   */
  dropAddedBefore(cutoffMs: number): number {
    let dropped = 0
    for (const t of [...this.byHash.values()]) {
      if (t.addedAtMs >= cutoffMs) continue
      this.remove(t)
      dropped++
    }
    return dropped
  }

  /** Forgets every transaction (`anvil_dropAllTransactions`, a snapshot's revert). */
  clear(): void {
    this.byHash.clear()
    this.senders.clear()
  }

  /** The lowest gas price (max fee) accepted from now on (`anvil_setMinGasPrice`, `miner_setMinGasPrice`). */
  setMinGasPrice(wei: bigint): void {
    this.opts.minGasPrice = wei
  }

  get minGasPrice(): bigint {
    return this.opts.minGasPrice
  }

  /** The lowest tip a block takes from transactions without priority from now on (`miner_setMinPriorityFee`). */
  setMinPriorityFee(wei: bigint): void {
    this.opts.minPriorityFee = wei
  }

  get minPriorityFee(): bigint {
    return this.opts.minPriorityFee ?? 0n
  }

  /**
   * Revalidates every sender against the head (after a reorg or a head reset): re-reads its nonce,
   * forgets what the head already includes, and drops what its balance there no longer covers.
   */
  async resync(): Promise<void> {
    for (const entry of [...this.senders.values()]) {
      const first = entry.byNonce.values().next().value
      if (!first) continue
      const account = await this.chain.account(first.sender)
      entry.stateNonce = account.nonce
      for (const t of [...entry.byNonce.values()]) {
        if (t.nonce < entry.stateNonce || t.tx.getUpfrontCost() > account.balance) this.remove(t)
      }
    }
  }
}

/** Max fee and priority fee per gas of any transaction type (legacy: both are the gas price). */
export function fees(tx: TypedTransaction): { maxFee: bigint; priorityFee: bigint } {
  const t = tx as { maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint; gasPrice?: bigint }
  if (t.maxFeePerGas !== undefined) return { maxFee: t.maxFeePerGas, priorityFee: t.maxPriorityFeePerGas ?? 0n }
  return { maxFee: t.gasPrice ?? 0n, priorityFee: t.gasPrice ?? 0n }
}

export function effectiveTip(tx: TypedTransaction, baseFee: bigint): bigint {
  const { maxFee, priorityFee } = fees(tx)
  const room = maxFee - baseFee
  return minBigInt(room, priorityFee)
}
