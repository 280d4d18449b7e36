/**
 * A block builder whose cost per added transaction does not grow with the block. The library's
 * `BlockBuilder.addTransaction` re-creates the whole block (every prior transaction re-constructed,
 * each with its own Common copy) for every transaction it adds, which makes building a block of n
 * transactions O(n²). This subclass runs each transaction against one header-only block made at
 * the start and keeps the library's system calls (EIP-4788, EIP-2935), withdrawals, requests
 * (EIP-7685) and `build()` unchanged.
 */
import { type Block, createBlock } from '@ethereumjs/block'
import { txExceedsAvailableBlockGas8037 } from '@ethereumjs/evm'
import {
  Blob4844Tx,
  createMinimal4844TxFromNetworkWrapper,
  NetworkWrapperType,
  type TypedTransaction,
} from '@ethereumjs/tx'
import { BlockBuilder, type BuildBlockOpts, type RunTxResult, runTx, type VM } from '@ethereumjs/vm'

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

export class FastBlockBuilder extends BlockBuilder {
  private headerBlock?: Block

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
    this.headerBlock ??= createBlock({ header: { ...self.headerData, gasUsed: 0n } }, self.blockOpts)
    const bal = vm.evm.blockLevelAccessList
    if (vm.common.isActivatedEIP(7928) && bal !== undefined) bal.blockAccessIndex = self.transactions.length + 1
    const result = await runTx(vm, { tx, block: this.headerBlock, skipHardForkValidation, blockGasUsed: this.gasUsed })
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
      // biome-ignore lint/complexity/useMathMinMax: bigint operands
      this.gasUsed =
        self.blockRegularGasUsed > self.blockStateGasUsed ? self.blockRegularGasUsed : self.blockStateGasUsed
    } else {
      this.gasUsed += result.blockGasSpent
    }
    self._minerValue += result.minerValue
    return result
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
export async function startBlock(vm: VM, opts: BuildBlockOpts): Promise<FastBlockBuilder> {
  const builder = new FastBlockBuilder(vm, opts)
  await builder.initState()
  return builder
}
