/**
 * eth_simulateV1's engine: builds a chain of simulated blocks on top of a stored block, each with
 * its own block and state overrides and a list of calls executed in order on a scratch state. The
 * blocks are real blocks (system calls, withdrawals, requests, roots) built with the library's
 * block builder; calls run unsigned, with nonce and balance checks only under `validation`.
 */
import { type Block, createBlock, type HeaderData } from '@ethereumjs/block'
import type { Log } from '@ethereumjs/evm'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Address, equalsBytes, KECCAK256_NULL, MAX_UINT64 } from '@ethereumjs/util'
import { type RunTxResult, runTx } from '@ethereumjs/vm'
import { keccak_256 } from '@noble/hashes/sha3.js'
import type { StateManager } from '../state/worldState.ts'
import { callFailure } from './callError.ts'
import { type CallChain, gasBeforeRefund } from './callService.ts'
import { buildCallTransaction, type CallRequest, ZERO_ADDRESS } from './callTransaction.ts'
import { startBlock } from './fastBlockBuilder.ts'
import { buildBlock, isMaxNonce, wrapSenderNonce } from './nonceOverflow.ts'
import { openScratchState } from './scratchState.ts'
import type { BlockOverrides } from './simulationBlock.ts'
import { applyStateOverrides, type StateOverrides } from './stateOverrides.ts'
import { frameErrorText } from './tracers/gethErrors.ts'
import { enableTransferLogs, takeTransferLogs } from './transferLogs.ts'
import { type BlockSource, createVm, type VM } from './vmFactory.ts'

export interface BlockStateCall {
  blockOverrides?: BlockOverrides
  stateOverrides?: StateOverrides
  calls?: CallRequest[]
}

export interface SimulateRequest {
  blockStateCalls: BlockStateCall[]
  isValidated: boolean
  /** Report ETH transfers as ERC-7528 logs in the calls' results. */
  isTraceTransfers?: boolean
  /** The RPC gas cap (0 = none): the gas all calls of the simulation may use together. */
  gasCap: bigint
}

export interface SimulatedCall {
  sender: Uint8Array
  returnData: Uint8Array
  logs: Log[]
  /** Logs the call emitted and then lost to a failure; geth's log indexes still count them. */
  discardedLogCount: number
  gasUsed: bigint
  maxUsedGas: bigint
  isSuccess: boolean
  isRevert: boolean
  exceptionError?: string
}

export interface SimulatedBlock {
  block: Block
  calls: SimulatedCall[]
}

export type SimulateErrorKind =
  | 'nonceTooLow'
  | 'nonceTooHigh'
  | 'nonceMax'
  | 'baseFeeTooLow'
  | 'intrinsicGas'
  | 'insufficientFunds'
  | 'blockGasLimitReached'
  | 'blockNumberOrder'
  | 'timestampOrder'
  | 'tooManyBlocks'
  | 'invalid'

export class SimulateError extends Error {
  readonly kind: SimulateErrorKind

  constructor(kind: SimulateErrorKind, message: string) {
    super(message)
    this.kind = kind
    this.name = 'SimulateError'
  }
}

const MAX_BLOCKS = 256n
/** EIP-7825's cap on a transaction's gas (Osaka). */
const MAX_TX_GAS = 1n << 24n
const SECONDS_PER_SLOT = 12n
const ZERO_32 = new Uint8Array(32)

/** Sorts a VM refusal of one call into the spec's error kinds. */
function callRefusal(e: unknown): Error {
  const f = callFailure(e)
  const m = f.message
  const nonces = /account has nonce of: (\d+) tx has nonce of: (\d+)/.exec(m)
  if (nonces) return new SimulateError(BigInt(nonces[2]) < BigInt(nonces[1]) ? 'nonceTooLow' : 'nonceTooHigh', m)
  if (/nonce cannot equal or exceed/.test(m)) return new SimulateError('nonceMax', m)
  if (/baseFeePerGas/.test(m)) return new SimulateError('baseFeeTooLow', m)
  if (/INTRINSIC_GAS_TOO_LOW|minimum gas limit/.test(m)) return new SimulateError('intrinsicGas', m)
  if (/enough funds/.test(m)) return new SimulateError('insufficientFunds', m)
  if (/higher gas limit/.test(m)) return new SimulateError('blockGasLimitReached', m)
  return f
}

/** A block after one at 2^64 - 1 (a uint64 header field) has no timestamp left. */
function checkTimestampRange(t: bigint): void {
  if (t > MAX_UINT64) {
    const m = `Timestamp is invalid. Trying to add a call at timestamp ${t}, above the largest block timestamp ${MAX_UINT64}.`
    throw new SimulateError('timestampOrder', m)
  }
}

/** Headers of the blocks to build, with the empty blocks that fill gaps in the requested numbers. */
function plan(base: Block, req: SimulateRequest): { overrides: BlockOverrides; call?: BlockStateCall }[] {
  const out: { overrides: BlockOverrides; call?: BlockStateCall }[] = []
  let number = base.header.number
  let time = base.header.timestamp
  for (const call of req.blockStateCalls) {
    const o = call.blockOverrides ?? {}
    const n = o.number ?? number + 1n
    if (n <= number) {
      const m = `Block number is invalid. Trying to add a call at block number ${n}, while current block number is ${number}.`
      throw new SimulateError('blockNumberOrder', m)
    }
    if (n - base.header.number > MAX_BLOCKS) throw new SimulateError('tooManyBlocks', 'too many blocks')
    for (let gap = number + 1n; gap < n; gap++) {
      time += SECONDS_PER_SLOT
      checkTimestampRange(time)
      out.push({ overrides: { number: gap, time } })
    }
    const t = o.time ?? time + SECONDS_PER_SLOT
    checkTimestampRange(t)
    if (t <= time) {
      const m = `Timestamp is invalid. Trying to add a call at timestamp ${t}, while current timestamp is ${time}.`
      throw new SimulateError('timestampOrder', m)
    }
    number = n
    time = t
    out.push({ overrides: { ...o, number: n, time: t }, call })
  }
  return out
}

/** The hash an unsigned transaction gets (signature fields encoded as zero, like geth). */
export function unsignedTxHash(tx: TypedTransaction): Uint8Array {
  return keccak_256(tx.serialize())
}

/**
 * Precompiles that state overrides may move, while the addresses warm at the start of every
 * transaction (EIP-2929; the VM reads them through `entries()`) stay the fork's own, as in geth.
 */
class PrecompileMap extends Map<string, unknown> {
  private readonly original: Map<string, unknown>

  constructor(original: Map<string, unknown>) {
    super(original)
    this.original = original
  }

  override entries(): MapIterator<[string, unknown]> {
    return this.original.entries()
  }
}

/** BLOCKHASH's view: stored blocks up to the base, then the blocks simulated so far. */
function simulatedChain(chain: CallChain, base: Block, built: Map<bigint, Block>): BlockSource {
  return {
    getBlockByNumber: async (n) => (n <= base.header.number ? chain.getBlockByNumber(n) : built.get(n)),
  }
}

/** Runs every block state call in order; throws SimulateError when a call cannot be included. */
export async function simulate(chain: CallChain, base: Block, req: SimulateRequest): Promise<SimulatedBlock[]> {
  const state = openScratchState(chain, chain.postStateRoot(base), base)
  const built = new Map<bigint, Block>()
  const vm = await createVm(chain.common, state, simulatedChain(chain, base, built), {
    isInterruptible: true,
    isSenderCodeAllowed: true,
  })
  if (req.isTraceTransfers) enableTransferLogs(vm.common)
  const precompiles = new Map(vm.evm.precompiles as Map<string, unknown>)
  const run: SimulationRun = { chain, vm, state, req, precompiles, budget: req.gasCap > 0n ? req.gasCap : undefined }
  const out: SimulatedBlock[] = []
  let parent = base
  for (const step of plan(base, req)) {
    const result = await simulateBlock(run, parent, step.overrides, step.call)
    out.push(result)
    built.set(result.block.header.number, result.block)
    parent = result.block
  }
  return out
}

interface SimulationRun {
  chain: CallChain
  vm: VM
  state: StateManager
  req: SimulateRequest
  /** The base block's precompiles: every block starts from them, whatever earlier overrides moved. */
  precompiles: Map<string, unknown>
  /** Gas the remaining calls may still use (geth's RPC gas cap over the whole simulation). */
  budget?: bigint
}

/**
 * geth's simulation skips EIP-3607 (a sender with code): hide the sender's code from the VM's
 * one sender check, the first read of its account in `runTx`.
 */
async function allowSenderWithCode(vm: VM, sender: Address): Promise<void> {
  const account = await vm.stateManager.getAccount(sender)
  if (!account || equalsBytes(account.codeHash, KECCAK256_NULL)) return
  const sm = vm.stateManager
  const getAccount = sm.getAccount
  sm.getAccount = async (a: Address) => {
    const acc = await getAccount.call(sm, a)
    if (!acc || !a.equals(sender)) return acc
    sm.getAccount = getAccount
    let isMasked = true
    Object.defineProperty(acc, 'codeHash', {
      configurable: true,
      get() {
        if (!isMasked) return (this as { _codeHash: Uint8Array })._codeHash
        isMasked = false
        return KECCAK256_NULL
      },
      set(v: Uint8Array) {
        ;(this as { _codeHash: Uint8Array })._codeHash = v
      },
    })
    return acc
  }
}

async function simulateBlock(
  run: SimulationRun,
  parent: Block,
  o: BlockOverrides,
  step: BlockStateCall | undefined,
): Promise<SimulatedBlock> {
  const { vm, state } = run
  const { isValidated } = run.req
  vm.common.setHardforkBy({ blockNumber: o.number!, timestamp: o.time! })
  Object.assign(vm.evm, { _precompiles: new PrecompileMap(run.precompiles) })
  if (step?.stateOverrides) {
    await applyStateOverrides(vm, state, step.stateOverrides)
    // Overridden accounts left empty do not exist (EIP-161), as in geth's finalised state.
    for (const [address] of step.stateOverrides) {
      const a = new Address(address)
      if ((await state.getAccount(a))?.isEmpty()) await state.deleteAccount(a)
    }
    // Write the overrides through now: cache entries made before the block's checkpoint would
    // otherwise stay out of its state root unless a call touches them again.
    await state.flush()
  }
  const london = vm.common.isActivatedEIP(1559)
  // geth: fee recipient, difficulty and gas limit carry over from the block before.
  const headerData: HeaderData = {
    parentHash: parent.hash(),
    number: o.number,
    timestamp: o.time,
    gasLimit: o.gasLimit ?? parent.header.gasLimit,
    coinbase: o.feeRecipient ?? parent.header.coinbase,
    mixHash: o.prevRandao ?? ZERO_32,
    difficulty: parent.header.difficulty,
    baseFeePerGas: london ? (o.baseFeePerGas ?? (isValidated ? run.chain.nextBaseFee(parent.header) : 0n)) : undefined,
    parentBeaconBlockRoot: vm.common.isActivatedEIP(4788) ? ZERO_32 : undefined,
  }
  const builder = await startBlock(vm, {
    parentBlock: parent,
    headerData,
    withdrawals: vm.common.isActivatedEIP(4895) ? [] : undefined,
    blockOpts: { putBlockIntoBlockchain: false, freeze: false, skipConsensusFormatValidation: true, common: vm.common },
  })
  const fields = builder as unknown as {
    transactions: TypedTransaction[]
    transactionResults: RunTxResult[]
    headerData: HeaderData
  }
  const envHeader = { ...fields.headerData, gasUsed: 0n }
  const blockOpts = { common: vm.common, freeze: false, skipConsensusFormatValidation: true }
  const env = createBlock({ header: envHeader }, blockOpts)
  // Without validation a call may offer less than the base fee (geth's NoBaseFee).
  const feeFreeEnv = london ? createBlock({ header: { ...envHeader, baseFeePerGas: 0n } }, blockOpts) : env
  const blobBaseFee = o.blobBaseFee ?? (isValidated ? undefined : 0n)
  if (blobBaseFee !== undefined && vm.common.isActivatedEIP(4844))
    for (const b of [env, feeFreeEnv]) Object.assign(b.header, { getBlobGasPrice: () => blobBaseFee })
  const calls: SimulatedCall[] = []
  for (const c of step?.calls ?? []) calls.push(await simulateCall(run, builder, fields, c, env, feeFreeEnv))
  // The block re-creates its transactions; let them keep gas above EIP-7825's cap, as geth's do.
  const relaxed = vm.common.copy()
  const isActive = relaxed.isActivatedEIP.bind(relaxed)
  Object.assign(relaxed, { isActivatedEIP: (eip: number) => eip !== 7825 && isActive(eip) })
  ;(builder as unknown as { blockOpts: { common: unknown } }).blockOpts.common = relaxed
  const block = await buildBlock(builder)
  for (const tx of block.transactions) Object.assign(tx, { hash: () => unsignedTxHash(tx) })
  return { block, calls }
}

type Builder = Awaited<ReturnType<typeof startBlock>>

async function simulateCall(
  run: SimulationRun,
  builder: Builder,
  fields: { transactions: TypedTransaction[]; transactionResults: RunTxResult[]; headerData: HeaderData },
  c: CallRequest,
  env: Block,
  feeFreeEnv: Block,
): Promise<SimulatedCall> {
  const { vm } = run
  const { isValidated } = run.req
  const sender = c.from ?? ZERO_ADDRESS
  const nonce = c.nonce ?? (await vm.stateManager.getAccount(new Address(sender)))?.nonce ?? 0n
  const remaining = BigInt(fields.headerData.gasLimit as bigint) - builder.gasUsed
  let gasLimit = c.gas ?? remaining
  if (run.budget !== undefined && gasLimit > run.budget) gasLimit = run.budget
  const gasPrice = c.gasPrice ?? 0n
  const fees = {
    gasPrice,
    maxFeePerGas: c.maxFeePerGas ?? gasPrice,
    maxPriorityFeePerGas: c.maxPriorityFeePerGas ?? gasPrice,
    maxFeePerBlobGas: c.maxFeePerBlobGas ?? 0n,
  }
  let r: RunTxResult
  let tx: TypedTransaction
  try {
    // Simulations are not bound by EIP-7825's per-transaction cap (geth's defaults exceed it), nor,
    // without validation, by EIP-2681's nonce limit (see nonceOverflow.ts). A creation from nonce
    // 2^64-1 fails inside geth's EVM, which the library does not model: it stays refused.
    const isNonceLifted = !isValidated && c.to !== undefined && isMaxNonce(nonce)
    const txGasLimit = gasLimit > MAX_TX_GAS ? MAX_TX_GAS : gasLimit
    tx = buildCallTransaction(vm.common, c, txGasLimit, isNonceLifted ? 0n : nonce, fees)
    Object.assign(tx, { gasLimit, nonce })
    if (tx.gasLimit > remaining) throw new SimulateError('blockGasLimitReached', 'block gas limit reached')
    const baseFee = env.header.baseFeePerGas ?? 0n
    const offered = 'maxFeePerGas' in tx ? (tx.maxFeePerGas as bigint) : (tx.gasPrice as bigint)
    await allowSenderWithCode(vm, new Address(sender))
    r = await runTx(vm, {
      tx,
      block: !isValidated && offered < baseFee ? feeFreeEnv : env,
      skipNonce: !isValidated,
      skipHardForkValidation: true,
      blockGasUsed: builder.gasUsed,
    })
    if (!isValidated) await wrapSenderNonce(vm, new Address(sender))
  } catch (e) {
    throw e instanceof SimulateError ? e : callRefusal(e)
  }
  const logs = run.req.isTraceTransfers ? takeTransferLogs(r, vm.common) : (r.execResult.logs ?? [])
  fields.transactions.push(tx)
  fields.transactionResults.push(r)
  builder.gasUsed += r.blockGasSpent ?? r.totalGasSpent
  const blobs = (tx as { blobVersionedHashes?: Uint8Array[] }).blobVersionedHashes?.length ?? 0
  if (blobs > 0)
    (builder as unknown as { blobGasUsed: bigint }).blobGasUsed += BigInt(blobs) * vm.common.param('blobGasPerBlob')
  if (run.budget !== undefined) run.budget -= r.totalGasSpent
  const err = r.execResult.exceptionError?.error
  return {
    sender,
    returnData: r.execResult.returnValue,
    logs: err ? [] : logs,
    // The top-level value transfer's log, made before the call failed.
    discardedLogCount: err && run.req.isTraceTransfers && (c.value ?? 0n) > 0n && c.to !== undefined ? 1 : 0,
    gasUsed: r.totalGasSpent,
    maxUsedGas: gasBeforeRefund(r.totalGasSpent, r.gasRefund ?? 0n),
    isSuccess: err === undefined,
    isRevert: err === 'revert',
    // geth's words, as the execution-apis cases expect (`out of gas`, `invalid jump destination`).
    exceptionError: frameErrorText(r.execResult),
  }
}
