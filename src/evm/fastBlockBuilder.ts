/**
 * A block builder whose cost per added transaction does not grow with the block. The library's
 * `BlockBuilder.addTransaction` re-creates the whole block (every prior transaction re-constructed,
 * each with its own Common copy) for every transaction it adds, which makes building a block of n
 * transactions O(n²). This subclass runs each transaction against one header-only block made at
 * the start and keeps the library's system calls (EIP-4788, EIP-2935), withdrawals, requests
 * (EIP-7685) and `build()` unchanged, except for one shortcut: the EIP-7002/7251 dequeue call of a
 * request contract whose queue is empty is skipped (see `idleRequestContracts`). A VM of a PoA chain
 * without the request contract addresses makes none of these calls (poaSystemCalls.ts).
 */
import { type Block, createBlock, createSealedCliqueBlock } from '@ethereumjs/block'
import { type EVMResult, type EVMRunCallOpts, txExceedsAvailableBlockGas8037 } from '@ethereumjs/evm'
import {
  Blob4844Tx,
  createMinimal4844TxFromNetworkWrapper,
  NetworkWrapperType,
  type TypedTransaction,
} from '@ethereumjs/tx'
import { type Address, bigIntToAddressBytes, bytesToHex, createAddressFromBigInt } from '@ethereumjs/util'
import { BlockBuilder, type BuildBlockOpts, type RunTxResult, runTx, type SealBlockOpts, type VM } from '@ethereumjs/vm'
import { maxBigInt } from '../primitives/bigintMath.ts'
import { type BlockReward, payBlockReward } from './blockReward.ts'
import { shareEncodings } from './txMemo.ts'

/** The library builder's fields this subclass maintains (private in its typings, plain at runtime). */
interface BuilderFields {
  vm: VM
  blockOpts: NonNullable<BuildBlockOpts['blockOpts']>
  headerData: Record<string, unknown> & { gasLimit: bigint }
  transactions: TypedTransaction[]
  transactionResults: RunTxResult[]
  checkpointed: boolean
  blockRegularGasUsed: bigint
  blockStateGasUsed: bigint
  _minerValue: bigint
  checkStatus(): void
}

/** Storage slots of the EIP-7002/7251 contracts: excess (0), count (1), queue head (2), queue tail (3). */
const REQUEST_QUEUE_SLOTS = [0, 1, 2, 3].map((i) => {
  const key = new Uint8Array(32)
  key[31] = i
  return key
})

/** What the dequeue system call of an idle request contract returns: no requests. */
const IDLE_REQUEST_CALL = {
  execResult: { returnValue: new Uint8Array(0), executionGasUsed: 0n },
} as unknown as EVMResult

export interface FastBuildOptions {
  /**
   * Code hashes (hex) of the EIP-7002/7251 contracts whose semantics the shortcut relies on. With
   * none given, every request system call runs in the EVM.
   */
  requestContractCodeHashes?: ReadonlySet<string>
  /** A reward the library does not pay by itself (BFT's `blockreward`), paid when the block is built. */
  reward?: BlockReward
}

export class FastBlockBuilder extends BlockBuilder {
  private headerBlock?: Block
  /**
   * Gas of the receipts so far: after refunds. The header's `gasUsed` counts before them under
   * EIP-7778 (and per dimension under EIP-8037), so the receipts' cumulative gas keeps its own sum,
   * as the library's `runBlock` does on import.
   */
  private receiptGasUsed = 0n

  private readonly fastOpts: FastBuildOptions

  constructor(vm: VM, opts: BuildBlockOpts, fastOpts: FastBuildOptions = {}) {
    super(vm, opts)
    this.fastOpts = fastOpts
  }

  /** Runs `tx` on the block being built and adds it; throws when it cannot be included. */
  override async addTransaction(
    tx: TypedTransaction,
    { skipHardForkValidation, allowNoBlobs }: { skipHardForkValidation?: boolean; allowNoBlobs?: boolean } = {},
  ): Promise<RunTxResult> {
    const self = this as unknown as BuilderFields
    const { vm } = self
    self.checkStatus()
    if (!self.checkpointed) {
      await vm.evm.journal.checkpoint()
      self.checkpointed = true
    }
    const blockGasLimit = BigInt(self.headerData.gasLimit)
    if (vm.common.isActivatedEIP(8037)) {
      const cap = tx.common.param('maxTransactionGasLimit')
      if (
        txExceedsAvailableBlockGas8037(
          tx.gasLimit,
          cap,
          blockGasLimit,
          self.blockRegularGasUsed,
          self.blockStateGasUsed,
        )
      ) {
        throw new Error('tx has a higher gas limit than the remaining gas in the block')
      }
    } else if (tx.gasLimit > blockGasLimit - this.gasUsed) {
      throw new Error('tx has a higher gas limit than the remaining gas in the block')
    }
    const blobGasPerBlob = vm.common.param('blobGasPerBlob')
    if (tx instanceof Blob4844Tx) this.checkBlobTx(tx, blobGasPerBlob, allowNoBlobs === true)
    // A clique block pays its fees to the signer recovered from the seal, so the header the
    // transactions run against is sealed too (the final block gets its own seal in build()).
    const signer = self.blockOpts.cliqueSigner
    const headerOnly = { header: { ...self.headerData, gasUsed: 0n } }
    this.headerBlock ??=
      signer === undefined
        ? createBlock(headerOnly, self.blockOpts)
        : createSealedCliqueBlock(headerOnly, signer, self.blockOpts)
    const bal = vm.evm.blockLevelAccessList
    if (vm.common.isActivatedEIP(7928) && bal !== undefined) bal.blockAccessIndex = self.transactions.length + 1
    const result = await runTx(vm, {
      tx,
      block: this.headerBlock,
      skipHardForkValidation,
      blockGasUsed: this.receiptGasUsed,
    })
    this.receiptGasUsed += result.totalGasSpent
    let included = tx
    if (tx instanceof Blob4844Tx) {
      this.blobGasUsed += BigInt(tx.blobVersionedHashes.length) * blobGasPerBlob
      included = createMinimal4844TxFromNetworkWrapper(tx, { common: self.blockOpts.common })
    }
    self.transactions.push(included)
    self.transactionResults.push(result)
    if (vm.common.isActivatedEIP(8037) && result.txRegularGas !== undefined) {
      self.blockRegularGasUsed += result.txRegularGas
      self.blockStateGasUsed += result.txStateGas ?? 0n
      this.gasUsed = maxBigInt(self.blockRegularGasUsed, self.blockStateGasUsed)
    } else {
      this.gasUsed += result.blockGasSpent
    }
    self._minerValue += result.minerValue
    return result
  }

  /**
   * Builds the block; a request contract that `idleRequestContracts` finds idle answers its system
   * call with no requests instead of running, which leaves the same state (see there).
   */
  override async build(sealOpts?: SealBlockOpts): ReturnType<BlockBuilder['build']> {
    const { vm } = this as unknown as BuilderFields
    await this.requireBuilderRequestContracts()
    // After the transactions; withdrawals and requests follow, which neither read nor change it.
    if (this.fastOpts.reward) await payBlockReward(vm, this.fastOpts.reward)
    const idle = await this.idleRequestContracts()
    if (idle.size === 0) return this.sharingEncodings(await super.build(sealOpts))
    const evm = vm.evm as { runCall(o: EVMRunCallOpts): Promise<EVMResult> }
    const runCall = evm.runCall
    const isOwn = Object.hasOwn(evm, 'runCall')
    const system = bytesToHex(bigIntToAddressBytes(vm.common.param('systemAddress')))
    evm.runCall = (o) =>
      o.to !== undefined && idle.has(o.to.toString()) && o.caller?.toString() === system
        ? Promise.resolve(IDLE_REQUEST_CALL)
        : runCall.call(vm.evm, o)
    try {
      return this.sharingEncodings(await super.build(sealOpts))
    } finally {
      if (isOwn) evm.runCall = runCall
      else delete (evm as Partial<typeof evm>).runCall
    }
  }

  /** The built block's transactions take their encoding and hash from the ones it ran (see txMemo.ts). */
  private sharingEncodings(
    built: Awaited<ReturnType<BlockBuilder['build']>>,
  ): Awaited<ReturnType<BlockBuilder['build']>> {
    shareEncodings(built.block, (this as unknown as BuilderFields).transactions)
    return built
  }

  /**
   * EIP-8282's builder request calls are checked system calls: importing a block whose contract has
   * no code fails ("system contract empty"), while the library's builder would leave the requests
   * empty. The builder refuses in the same words, so no block is sealed that import would refuse.
   */
  private async requireBuilderRequestContracts(): Promise<void> {
    const { vm } = this as unknown as BuilderFields
    if (!vm.common.isActivatedEIP(8282)) return
    for (const param of ['builderDepositContractAddress', 'builderExitContractAddress']) {
      const address = createAddressFromBigInt(vm.common.param(param))
      if ((await vm.stateManager.getCode(address)).length === 0)
        throw new Error(`system contract empty: no code at builder request contract ${address}`)
    }
  }

  /**
   * The EIP-7002/7251 contracts (known code only) whose dequeue call would change nothing. Called by
   * the system address, the contract dequeues nothing from an empty queue (head = tail), writes 0
   * to head and tail, writes the new excess — max(0, excess + count − target), 0 when excess and
   * count are 0 — and 0 to count, and returns no requests. With all four slots 0 every write
   * stores the value already there, so the state and the (empty) requests are what the call gives.
   * Not used with EIP-7928, whose access list records the call's reads.
   */
  private async idleRequestContracts(): Promise<Set<string>> {
    const { vm } = this as unknown as BuilderFields
    const idle = new Set<string>()
    const codeHashes = this.fastOpts.requestContractCodeHashes
    if (!codeHashes || !vm.common.isActivatedEIP(7685) || vm.common.isActivatedEIP(7928)) return idle
    const contracts: [number, string][] = [
      [7002, 'withdrawalRequestPredeployAddress'],
      [7251, 'consolidationRequestPredeployAddress'],
    ]
    for (const [eip, param] of contracts) {
      if (!vm.common.isActivatedEIP(eip)) continue
      const address: Address = createAddressFromBigInt(vm.common.param(param))
      const account = await vm.stateManager.getAccount(address)
      if (!account || !codeHashes.has(bytesToHex(account.codeHash))) continue
      let isIdle = true
      for (const slot of REQUEST_QUEUE_SLOTS) {
        if ((await vm.stateManager.getStorage(address, slot)).length > 0) {
          isIdle = false
          break
        }
      }
      if (isIdle) idle.add(address.toString())
    }
    return idle
  }

  private checkBlobTx(tx: Blob4844Tx, blobGasPerBlob: bigint, allowNoBlobs: boolean): void {
    const { vm } = this as unknown as BuilderFields
    const is7594 = vm.common.isActivatedEIP(7594)
    if (tx.networkWrapperVersion === NetworkWrapperType.EIP4844 && is7594) {
      throw new Error('eip4844 blob transaction for eip7594 activated fork')
    }
    if (tx.networkWrapperVersion === NetworkWrapperType.EIP7594 && !is7594) {
      throw new Error('eip7594 blob transaction but eip not yet activated')
    }
    if (!vm.common.isActivatedEIP(4844)) throw new Error('eip4844 not activated yet for adding a blob transaction')
    if (tx.blobs === undefined && !allowNoBlobs) throw new Error('blobs missing for 4844 transaction')
    const { maxBlobGasPerBlock } = vm.common.getBlobGasSchedule()
    if (this.blobGasUsed + BigInt(tx.numBlobs()) * blobGasPerBlob > maxBlobGasPerBlock) {
      throw new Error('block blob gas limit reached')
    }
  }
}

/** Starts a block on `opts.parentBlock`: the builder with the block's system calls already applied. */
export async function startBlock(
  vm: VM,
  opts: BuildBlockOpts,
  fastOpts: FastBuildOptions = {},
): Promise<FastBlockBuilder> {
  const builder = new FastBlockBuilder(vm, opts, fastOpts)
  await builder.initState()
  return builder
}
