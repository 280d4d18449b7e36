/**
 * Message execution for RPC: runs a call request against the state after a block, on a throw-away
 * copy of that state (state and block overrides allowed), and reports return data, gas, logs and
 * the accessed addresses. Owns Besu's simulator rules: gas defaults to the RPC gas cap (the block
 * gas limit when the cap is 0), a nonce is checked only when the call names one (Besu's simulator
 * allows a future nonce, not a past one), the sender defaults to the zero address,
 * and the sender's balance is checked against the gas only when the call names a price (or
 * `strict` asks for it); a value above the balance is refused either way, as Besu does.
 * Talks to the state layer (scratch state) and the VM factory; knows nothing of JSON-RPC.
 */
import type { Block, BlockHeader } from '@ethereumjs/block'
import type { ExecResult, Log } from '@ethereumjs/evm'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { runTx } from '@ethereumjs/vm'
import { minBigInt } from '../primitives/bigintMath.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import type { StateManager } from '../state/worldState.ts'
import { CallError, callFailure } from './callError.ts'
import {
  type AccessListEntry,
  buildCallTransaction,
  type CallFees,
  type CallRequest,
  ZERO_ADDRESS,
} from './callTransaction.ts'
import { isLeanCall, type LeanCallResult, runLeanCall } from './leanCall.ts'
import { memoizeTrieReads, openScratchState, type StateSource } from './scratchState.ts'
import { type BlockOverrides, simulationBlock } from './simulationBlock.ts'
import { applyStateOverrides, type StateOverrides } from './stateOverrides.ts'
import { type BlockSource, createVm, type VM } from './vmFactory.ts'

export type { AccessListEntry, CallRequest }

/** What the call service reads: fork rules, trie store and canonical blocks (for BLOCKHASH). */
export interface CallChain extends StateSource, BlockSource {
  /** The state root after a block (its header's, unless the dev tools edited that state). */
  postStateRoot(block: Block): Uint8Array
  /** The base fee of the block after `parent`, by the chain's fee market. */
  nextBaseFee(parent: BlockHeader): bigint
}

export interface CallOptions {
  /** Settings' RPC gas cap; 0 = the block gas limit. */
  gasCap: bigint
  stateOverrides?: StateOverrides
  blockOverrides?: BlockOverrides
  /** Check the sender can pay; default: only when the request names a price (Besu's auto rule). */
  isBalanceChecked?: boolean
}

export interface CallResult {
  returnData: Uint8Array
  /** Gas charged (after refunds). */
  gasUsed: bigint
  /** Gas used before refunds were subtracted. */
  gasUsedBeforeRefund: bigint
  isRevert: boolean
  /** The EVM's error for a failed call (`revert`, `out of gas`, …). */
  exceptionError?: string
  /** The opcode the top frame halted on, for an `invalid opcode` failure (Besu's message names it). */
  haltedOpcode?: number
  /** RETURNDATACOPY read past the return data: the library says `out of gas`, Besu `Out of bounds`. */
  isReturnDataOverrun?: boolean
  logs: Log[]
  /** Addresses and slots touched, when asked for (sender, recipient and precompiles left out unless slots were read). */
  accessList?: AccessListEntry[]
  createdAddress?: Uint8Array
}

export interface RunOptions {
  gasLimit?: bigint
  isAccessListReported?: boolean
  /** Keep the state changes for the next run (eth_simulateV1); discarded otherwise. */
  isCommitted?: boolean
  /**
   * Run a plain message straight on the EVM (`leanCall.ts`) when it qualifies, with the same
   * result as `runTx`. Only for callers that read the result alone: a tracer watching the run
   * would miss the transaction's own account updates.
   */
  isLeanAllowed?: boolean
}

/** EIP-7825's cap on a transaction's gas (Osaka). */
const MAX_TX_GAS = 1n << 24n

/** Besu's rule for eth_call without `strict`: the balance is checked once any price is non-zero. */
export function isPricedCall(req: CallRequest, block: Block): boolean {
  if (block.header.baseFeePerGas !== undefined && req.blobVersionedHashes !== undefined && !req.maxFeePerBlobGas)
    return false
  return Boolean(req.gasPrice || req.maxFeePerGas || req.maxPriorityFeePerGas)
}

function upfrontCostError(cost: bigint, balance: bigint, sender: Address): CallError {
  const hex = (n: bigint) => `0x${n.toString(16)}`
  return new CallError(
    'insufficientFunds',
    `transaction up-front cost ${hex(cost)} exceeds transaction sender account balance ${hex(balance)} for sender ${sender.toString()}`,
  )
}

/** A VM over a scratch copy of one block's state, reusable for several runs (estimates, access lists). */
export class CallSession {
  readonly vm: VM
  readonly state: StateManager
  readonly block: Block
  readonly isBalanceChecked: boolean
  private readonly defaultGas: bigint
  private readonly gasCap: bigint

  private constructor(
    vm: VM,
    state: StateManager,
    block: Block,
    isBalanceChecked: boolean,
    defaultGas: bigint,
    gasCap: bigint,
  ) {
    this.vm = vm
    this.state = state
    this.block = block
    this.isBalanceChecked = isBalanceChecked
    this.defaultGas = defaultGas
    this.gasCap = gasCap
  }

  /** Opens the state after `parent` with `opts`' overrides; `req` decides the fee rules. */
  static async open(chain: CallChain, parent: Block, req: CallRequest, opts: CallOptions): Promise<CallSession> {
    const isBalanceChecked = opts.isBalanceChecked ?? isPricedCall(req, parent)
    const block = simulationBlock(parent, chain.common, {
      overrides: opts.blockOverrides,
      isFeeFree: !isBalanceChecked,
    })
    const state = openScratchState(chain, chain.postStateRoot(parent), parent)
    const vm = await createVm(block.common, state, chain, { isInterruptible: true, isSenderCodeAllowed: true })
    vm.common.setHardfork(block.common.hardfork())
    if (opts.stateOverrides) await applyStateOverrides(vm, state, opts.stateOverrides)
    const cap = opts.gasCap > 0n ? opts.gasCap : block.header.gasLimit
    const defaultGas = vm.common.isActivatedEIP(7825) && cap > MAX_TX_GAS ? MAX_TX_GAS : cap
    return new CallSession(vm, state, block, isBalanceChecked, defaultGas, cap)
  }

  /** The gas a request runs with when it names none, or names more than the cap. */
  gasLimitFor(req: CallRequest): bigint {
    if (req.gas === undefined) return this.defaultGas
    return minBigInt(req.gas, this.gasCap)
  }

  /** Runs `req` once; throws CallError when the message is invalid (cannot pay, too little gas…). */
  async run(req: CallRequest, opts: RunOptions = {}): Promise<CallResult> {
    const gasLimit = opts.gasLimit ?? this.gasLimitFor(req)
    if (!this.isBalanceChecked && req.value) await this.checkValue(req.from ?? ZERO_ADDRESS, req.value)
    if (
      opts.isLeanAllowed &&
      !opts.isCommitted &&
      !opts.isAccessListReported &&
      !this.isBalanceChecked &&
      isLeanCall(this.vm, this.block, req, gasLimit)
    ) {
      try {
        return callResult(await runLeanCall(this.vm, this.block, req, gasLimit))
      } catch (e) {
        throw callFailure(e)
      }
    }
    const tx = await this.transaction(req, gasLimit)
    if (!opts.isCommitted) await this.state.checkpoint()
    try {
      const r = await runTx(this.vm, {
        tx,
        block: this.block,
        skipNonce: true,
        skipBalance: !this.isBalanceChecked,
        skipHardForkValidation: true,
        skipBlockGasLimitValidation: true,
        reportAccessList: opts.isAccessListReported,
      })
      const result = callResult(r)
      if (opts.isAccessListReported)
        result.accessList = this.filterAccessList(r.accessList ?? [], tx, r.createdAddress?.bytes)
      result.createdAddress = r.createdAddress?.bytes
      return result
    } catch (e) {
      const failure = callFailure(e)
      if (failure instanceof CallError && failure.kind === 'insufficientFunds') throw await this.upfrontCostError(tx)
      throw failure
    } finally {
      if (!opts.isCommitted) await this.state.revert()
    }
  }

  /**
   * Without a price the gas costs nothing, but the value still has to be the sender's: Besu's
   * simulator refuses a value above the balance (its up-front cost is then the value alone), where
   * the EVM library would raise the balance to it.
   */
  private async checkValue(from: Uint8Array, value: bigint): Promise<void> {
    const sender = new Address(from)
    const balance = (await this.state.getAccount(sender))?.balance ?? 0n
    if (value > balance) throw upfrontCostError(value, balance, sender)
  }

  /**
   * A sender that cannot pay, in the words of Besu's transaction validator: the up-front cost is
   * the gas limit at the highest price the call names, plus the value and the blob gas at its fee
   * cap (the EVM library states a cost at the block's effective price instead).
   */
  private async upfrontCostError(tx: TypedTransaction): Promise<CallError> {
    const sender = tx.getSenderAddress()
    const balance = (await this.state.getAccount(sender))?.balance ?? 0n
    const t = tx as {
      maxFeePerGas?: bigint
      gasPrice?: bigint
      maxFeePerBlobGas?: bigint
      blobVersionedHashes?: unknown[]
    }
    const blobs = BigInt(t.blobVersionedHashes?.length ?? 0)
    const blobGas = blobs === 0n ? 0n : blobs * this.vm.common.param('blobGasPerBlob')
    const cost = tx.gasLimit * (t.maxFeePerGas ?? t.gasPrice ?? 0n) + tx.value + blobGas * (t.maxFeePerBlobGas ?? 0n)
    return upfrontCostError(cost, balance, sender)
  }

  private async transaction(req: CallRequest, gasLimit: bigint): Promise<TypedTransaction> {
    const sender = new Address(req.from ?? ZERO_ADDRESS)
    const accountNonce = (await this.state.getAccount(sender))?.nonce ?? 0n
    if (req.nonce !== undefined && req.nonce < accountNonce)
      throw new CallError(
        'nonceTooLow',
        `transaction nonce ${req.nonce} below sender account nonce ${accountNonce} for sender ${sender.toString()}`,
      )
    const nonce = req.nonce ?? accountNonce
    const gasPrice = req.gasPrice ?? 0n
    const fees: CallFees = this.isBalanceChecked
      ? {
          gasPrice,
          maxFeePerGas: req.maxFeePerGas ?? gasPrice,
          maxPriorityFeePerGas: req.maxPriorityFeePerGas ?? gasPrice,
          maxFeePerBlobGas: req.maxFeePerBlobGas ?? 0n,
        }
      : { gasPrice: 0n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, maxFeePerBlobGas: 0n }
    try {
      return buildCallTransaction(this.vm.common, req, gasLimit, nonce, fees)
    } catch (e) {
      throw callFailure(e)
    }
  }

  /** geth's rule: sender, recipient and precompiles are implied, unless storage of theirs was touched. */
  private filterAccessList(
    list: { address: string; storageKeys: string[] }[],
    tx: TypedTransaction,
    created?: Uint8Array,
  ): AccessListEntry[] {
    const implied = new Set<string>([tx.getSenderAddress().toString()])
    if (tx.to) implied.add(tx.to.toString())
    if (created && !tx.to) implied.add(new Address(created).toString())
    for (const k of (this.vm.evm.precompiles as Map<string, unknown>).keys()) implied.add(`0x${k}`)
    return list
      .filter((e) => e.storageKeys.length > 0 || !implied.has(e.address))
      .map((e) => ({ address: hexToBytes(e.address), storageKeys: e.storageKeys.map(hexToBytes) }))
  }
}

/** The outcome of a run, from `runTx`'s result or the lean path's (the same fields). */
function callResult(r: LeanCallResult): CallResult {
  const error = r.execResult.exceptionError?.error
  return {
    returnData: r.execResult.returnValue,
    gasUsed: r.totalGasSpent,
    gasUsedBeforeRefund: gasBeforeRefund(r.totalGasSpent, r.gasRefund ?? 0n),
    isRevert: error === 'revert',
    exceptionError: error,
    haltedOpcode: error === 'invalid opcode' ? r.execResult.runState?.opCode : undefined,
    isReturnDataOverrun: error === 'out of gas' && isReturnDataOverrun(r.execResult.runState),
    logs: error !== undefined ? [] : (r.execResult.logs ?? []),
  }
}

const RETURNDATACOPY = 0x3e

/** Whether a run halted on a RETURNDATACOPY whose source range ends past the return data (EIP-211). */
function isReturnDataOverrun(rs: ExecResult['runState']): boolean {
  if (rs?.opCode !== RETURNDATACOPY || rs.stack.length < 3) return false
  const [, offset, length] = rs.stack.peek(3)
  return offset + length > BigInt(rs.interpreter.getReturnDataSize())
}

/** Undoes the refund (capped at a fifth of the gas spent, EIP-3529) that `runTx` subtracted. */
export function gasBeforeRefund(spent: bigint, refund: bigint): bigint {
  return 4n * refund <= spent ? spent + refund : (spent * 5n + 3n) / 4n
}

/** A session kept for plain calls at one block and fee rule, used by one call at a time. */
interface SharedSession {
  session: Promise<CallSession>
  /** Before Byzantium a receipt's state root flushes the caches inside the checkpoint, which the
   * revert then cannot undo; such a session starts from the block's root again after each call. */
  isRootReset: boolean
  /** Settles when the last queued call is done. */
  tail: Promise<unknown>
  /** When the running call started (performance.now()); undefined while idle. */
  runningSinceMs?: number
}

/** A call running longer than this (a loop) no longer makes new calls queue behind it. */
const QUEUE_BEHIND_MS = 20

/** Sessions of recent blocks: building a VM (opcode tables, precompiles, params) costs more than most calls. */
const sharedSessions = new WeakMap<CallChain, Map<string, SharedSession>>()
const SHARED_SESSIONS = 4

function hasBlockOverrides(o: BlockOverrides | undefined): boolean {
  return o !== undefined && Object.values(o).some((v) => v !== undefined)
}

/**
 * Runs `req` once against the state after `block`. Calls without overrides share one VM per block
 * and fee rule, queued one after the other: each run is undone by its checkpoint, so they see the
 * same state as a fresh VM would. While the shared VM is held by a long call, a call gets its own.
 */
export async function call(chain: CallChain, block: Block, req: CallRequest, opts: CallOptions): Promise<CallResult> {
  const isBalanceChecked = opts.isBalanceChecked ?? isPricedCall(req, block)
  const shared =
    opts.stateOverrides?.length || hasBlockOverrides(opts.blockOverrides)
      ? undefined
      : sharedSession(chain, block, req, opts.gasCap, isBalanceChecked)
  if (!shared) {
    const session = await CallSession.open(chain, block, req, opts)
    return session.run(req, { isLeanAllowed: true })
  }
  const key = shared.key
  const entry = shared.entry
  const result = entry.tail.then(async () => {
    entry.runningSinceMs = performance.now()
    try {
      const session = await entry.session
      const r = await session.run(req, { isLeanAllowed: true })
      if (entry.isRootReset) await session.state.setStateRoot(chain.postStateRoot(block))
      return r
    } catch (e) {
      // A failed run may leave the VM mid-transaction; the next call starts over.
      if (shared.byKey.get(key) === entry) shared.byKey.delete(key)
      throw e
    } finally {
      entry.runningSinceMs = undefined
    }
  })
  entry.tail = result.catch(() => {})
  return result
}

interface BlockKey {
  root: Uint8Array
  key: string
  /** The last shared-session key made from `key`, with the fee rule and cap it was made for. */
  session?: { isBalanceChecked: boolean; gasCap: bigint; key: string }
}
const blockKeys = new WeakMap<Block, BlockKey>()

/** `block`'s state root and hash in hex, kept per block object while its state root stays. */
function blockKey(chain: CallChain, block: Block): BlockKey {
  const root = chain.postStateRoot(block)
  const known = blockKeys.get(block)
  if (known?.root === root) return known
  const entry = { root, key: `${bytesToHex(root)}|${bytesToHex(block.hash())}` }
  blockKeys.set(block, entry)
  return entry
}

/** The shared session's key: the block's, the fee rule and the cap (made once while they repeat). */
function sessionKey(chain: CallChain, block: Block, isBalanceChecked: boolean, gasCap: bigint): string {
  const entry = blockKey(chain, block)
  const last = entry.session
  if (last?.isBalanceChecked === isBalanceChecked && last.gasCap === gasCap) return last.key
  const key = `${entry.key}|${isBalanceChecked}|${gasCap}`
  entry.session = { isBalanceChecked, gasCap, key }
  return key
}

/** The shared session for plain calls at `block`, unless a long call holds it. */
function sharedSession(
  chain: CallChain,
  block: Block,
  req: CallRequest,
  gasCap: bigint,
  isBalanceChecked: boolean,
): { entry: SharedSession; key: string; byKey: Map<string, SharedSession> } | undefined {
  let byKey = sharedSessions.get(chain)
  if (!byKey) {
    byKey = new Map()
    sharedSessions.set(chain, byKey)
  }
  const key = sessionKey(chain, block, isBalanceChecked, gasCap)
  let shared = byKey.get(key)
  if (shared?.runningSinceMs !== undefined && performance.now() - shared.runningSinceMs > QUEUE_BEHIND_MS)
    return undefined
  if (!shared) {
    const session = CallSession.open(chain, block, req, { gasCap, isBalanceChecked }).then((s) => {
      memoizeTrieReads(s.state)
      return s
    })
    shared = { session, isRootReset: !block.common.gteHardfork('byzantium'), tail: Promise.resolve() }
    byKey.set(key, shared)
    if (byKey.size > SHARED_SESSIONS) byKey.delete(byKey.keys().next().value!)
  }
  return { entry: shared, key, byKey }
}

export type { BlockOverrides, StateOverrides }
