/**
 * The lean call executor: runs a plain simulated message (eth_call, eth_estimateGas) straight on the
 * EVM, without building a transaction object and without `runTx`'s bookkeeping after the message
 * (refund and fee payments, the miner's account, selfdestruct clean-up, receipt, bloom), which a
 * simulation that is thrown away never observes. What the message itself can observe is kept as
 * `runTx` (@ethereumjs/vm 10.1) sets it up: the warm addresses (precompiles, sender, recipient,
 * coinbase), the sender's nonce bumped and its balance raised to the value sent, the gas left after
 * the intrinsic gas; and the gas it reports is `runTx`'s (refund cap, EIP-7623 calldata floor).
 *
 * Only messages whose rules this reproduces take the lean path (`isLeanCall`): a call (not a
 * creation) that names no access list, authorizations, blobs or nonce, charged nothing (zero fees,
 * zero base fee), on a fork from London on, none of whose later transaction-level EIPs (listed
 * below) is active. Every other message runs through `runTx`.
 */
import type { Block } from '@ethereumjs/block'
import type { ExecResult } from '@ethereumjs/evm'
import { paramsTx } from '@ethereumjs/tx'
import { Address, bytesToUnprefixedHex, MAX_INTEGER, MAX_UINT64 } from '@ethereumjs/util'
import { callFailure } from './callError.ts'
import { type CallRequest, callTxType, ZERO_ADDRESS } from './callTransaction.ts'
import type { VM } from './vmFactory.ts'

/**
 * Transaction-level EIPs whose rules the lean path does not reproduce (gas dimensions, burn logs,
 * block access lists, calldata token rules, binary trees): when one is active, `runTx` runs.
 */
const UNSUPPORTED_EIPS = [2780, 7708, 7864, 7928, 7976, 7981, 8037, 8246]

const EMPTY = new Uint8Array(0)

/** What a lean run reports: `runTx`'s figures for the same message. */
export interface LeanCallResult {
  execResult: ExecResult
  /** Gas charged (after the refund cap and the calldata floor), as `runTx`'s `totalGasSpent`. */
  totalGasSpent: bigint
  /** As `runTx`'s `gasRefund`: the refund before its cap, zero when the calldata floor applied. */
  gasRefund: bigint
}

/** The transaction library's gas parameters at a VM's fork (the VM's own Common lacks them). */
interface TxParams {
  hardfork: string
  txGas: bigint
  zeroByteGas: bigint
  nonZeroByteGas: bigint
  /** EIP-7623's price of a calldata token; undefined before Prague. */
  floorPerToken?: bigint
  /** EIP-7825's cap on a transaction's gas; undefined before Osaka. */
  maxTxGas?: bigint
  maxRefundQuotient: bigint
}

const txParamsByVm = new WeakMap<VM, TxParams>()

function txParams(vm: VM): TxParams {
  const hardfork = vm.common.hardfork()
  const known = txParamsByVm.get(vm)
  if (known?.hardfork === hardfork) return known
  const common = vm.common.copy()
  common.updateParams(paramsTx)
  const params: TxParams = {
    hardfork,
    txGas: common.param('txGas'),
    zeroByteGas: common.param('txDataZeroGas'),
    nonZeroByteGas: common.param('txDataNonZeroGas'),
    floorPerToken: common.isActivatedEIP(7623) ? common.param('totalCostFloorPerToken') : undefined,
    maxTxGas: common.isActivatedEIP(7825) ? common.param('maxTransactionGasLimit') : undefined,
    maxRefundQuotient: vm.common.param('maxRefundQuotient'),
  }
  txParamsByVm.set(vm, params)
  return params
}

/** The journal's map of always-warm addresses (unprefixed hex) to their always-warm slots. */
interface JournalInternals {
  alwaysWarmJournal: WarmAddresses
}

const warmPrecompilesByEvm = new WeakMap<object, { keys: object; warm: ReadonlyMap<string, Set<string>> }>()
/** An address-only set shared by every call: a lean call names no access list, so none gets slots. */
const NO_SLOTS: ReadonlySet<string> = new Set()

/**
 * The always-warm entries of the EVM's precompiles, as `addAlwaysWarmAddress` makes them (their map
 * keys are unprefixed hex already), rebuilt when the EVM's precompile map changes (another fork).
 */
function warmPrecompiles(evm: VM['evm']): ReadonlyMap<string, Set<string>> {
  const keys = evm.precompiles
  const known = warmPrecompilesByEvm.get(evm)
  if (known?.keys === keys) return known.warm
  const warm = new Map([...keys.keys()].map((a): [string, Set<string>] => [a, NO_SLOTS as Set<string>]))
  warmPrecompilesByEvm.set(evm, { keys, warm })
  return warm
}

/**
 * The journal's always-warm map during a lean call: the call's own entries (sender, recipient,
 * coinbase) over the EVM's precompiles, which stay shared instead of being copied into a new map on
 * every call. The journal only asks it `has`, `get` and `set` (its slot sets are only added to
 * for an access list, which a lean call never names), and replaces it when the call is cleaned up.
 */
class WarmAddresses {
  private readonly own = new Map<string, Set<string>>()
  private readonly shared: ReadonlyMap<string, Set<string>>
  constructor(shared: ReadonlyMap<string, Set<string>>) {
    this.shared = shared
  }
  has(address: string): boolean {
    return this.own.has(address) || this.shared.has(address)
  }
  get(address: string): Set<string> | undefined {
    return this.own.get(address) ?? this.shared.get(address)
  }
  set(address: string, slots: Set<string>): void {
    this.own.set(address, slots)
  }
}

/** Whether `req` at `gasLimit` qualifies for the lean path (see the module comment). */
export function isLeanCall(vm: VM, block: Block, req: CallRequest, gasLimit: bigint): boolean {
  const common = vm.common
  if (req.to === undefined || req.nonce !== undefined) return false
  if (req.accessList !== undefined || req.authorizationList !== undefined) return false
  if (req.blobVersionedHashes !== undefined || req.maxFeePerBlobGas !== undefined) return false
  if (!common.isActivatedEIP(1559) || !common.isActivatedEIP(2929)) return false
  const type = callTxType(req, true)
  if (type !== 0 && type !== 2) return false
  if ((block.header.baseFeePerGas ?? 0n) !== 0n) return false
  for (const eip of UNSUPPORTED_EIPS) if (common.isActivatedEIP(eip)) return false
  // The transaction's own bounds (its constructor refuses these): leave the error to runTx's path.
  if (gasLimit >= MAX_UINT64 || (req.value ?? 0n) >= MAX_INTEGER) return false
  const maxTxGas = txParams(vm).maxTxGas
  return maxTxGas === undefined || gasLimit <= maxTxGas
}

/** Intrinsic gas of a call with `data` (no creation, no access list) and its EIP-7623 floor (0 before Prague). */
function intrinsicGas(params: TxParams, data: Uint8Array): { intrinsic: bigint; floor: bigint } {
  let zeros = 0
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++
  const nonZeros = data.length - zeros
  const intrinsic = params.txGas + params.zeroByteGas * BigInt(zeros) + params.nonZeroByteGas * BigInt(nonZeros)
  const floor =
    params.floorPerToken === undefined ? 0n : params.txGas + params.floorPerToken * BigInt(zeros + 4 * nonZeros)
  return { intrinsic, floor }
}

/**
 * Runs `req` (which `isLeanCall` accepted) with `gasLimit` on `vm`'s state and undoes every change
 * it made; throws CallError when the message cannot start (too little gas for its intrinsic gas).
 */
export async function runLeanCall(vm: VM, block: Block, req: CallRequest, gasLimit: bigint): Promise<LeanCallResult> {
  const data = req.data ?? EMPTY
  const params = txParams(vm)
  const { intrinsic, floor } = intrinsicGas(params, data)
  const minimum = intrinsic > floor ? intrinsic : floor
  if (gasLimit < minimum)
    throw callFailure(
      new Error(
        `INTRINSIC_GAS_TOO_LOW: tx gas limit ${Number(gasLimit)} is lower than the minimum gas limit of ${Number(minimum)}`,
      ),
    )
  const common = vm.common
  const evm = vm.evm
  const journal = evm.journal
  const caller = new Address(req.from ?? ZERO_ADDRESS)
  const to = new Address(req.to!)
  await journal.cleanup()
  await journal.checkpoint()
  try {
    // What `addAlwaysWarmAddress` builds for each precompile, shared (see WarmAddresses).
    ;(journal as unknown as JournalInternals).alwaysWarmJournal = new WarmAddresses(warmPrecompiles(evm))
    journal.addAlwaysWarmAddress(bytesToUnprefixedHex(caller.bytes))
    journal.addAlwaysWarmAddress(bytesToUnprefixedHex(to.bytes))
    if (common.isActivatedEIP(3651)) journal.addAlwaysWarmAddress(bytesToUnprefixedHex(block.header.coinbase.bytes))
    // skipBalance raises the sender's balance to the value when short, as runTx does for a
    // simulation; the nonce is bumped by runCall itself, as runTx bumps it before the message.
    const r = await evm.runCall({
      block,
      gasPrice: 0n,
      caller,
      origin: caller,
      gasLimit: gasLimit - intrinsic,
      to,
      value: req.value ?? 0n,
      data,
      skipBalance: true,
    })
    const exec = r.execResult
    let totalGasSpent = exec.executionGasUsed + intrinsic
    let gasRefund = exec.gasRefund ?? 0n
    if (gasRefund !== 0n) {
      const maxRefund = totalGasSpent / params.maxRefundQuotient
      totalGasSpent -= gasRefund < maxRefund ? gasRefund : maxRefund
    }
    if (params.floorPerToken !== undefined && totalGasSpent < floor) {
      gasRefund = 0n
      totalGasSpent = floor
    }
    return { execResult: exec, totalGasSpent, gasRefund }
  } finally {
    await journal.revert()
    journal.cleanJournal()
    evm.stateManager.originalStorageCache.clear()
  }
}
