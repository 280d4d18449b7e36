/**
 * Block import with full validation: the header against its parent, the ommers against the
 * ancestry, then execution on the parent's state with `runBlock`, which checks the body roots, gas
 * used, bloom, receipts root, requests hash and state root. A valid block is committed through
 * `Chain.commitBlock`; an invalid one is recorded as a bad block and reported as BlockImportError.
 * Used by `blocks import` and by the Engine API's newPayload. Does not pick the head by itself.
 */
import { type Block, createBlockFromBytesArray } from '@ethereumjs/block'
import type { RunBlockOpts, RunBlockResult, TxReceipt, VM } from '@ethereumjs/vm'
import { runBlockWithReward } from '../evm/blockReward.ts'
import { revertOutputOf } from '../evm/revertOutput.ts'
import { type BlockSource, createVm } from '../evm/vmFactory.ts'
import { bytesToHex } from '../primitives/hex.ts'
import { metrics } from '../primitives/metrics.ts'
import { openState } from '../state/worldState.ts'
import type { Chain } from './chain.ts'
import { classicOmmerRewards, hasKeccakSeal, isKeccakSealFork } from './classicForks.ts'
import { validateCliqueSeal } from './clique.ts'
import { validateHeader, validateOmmers } from './headerValidation.ts'
import { keccakSealError } from './keccakPow.ts'
import { ensureKzgFor, isKzgMissing } from './kzg.ts'
import { replaceUsedKzgStandIn } from './kzgStandIn.ts'

export interface ImportOptions {
  /** Make the block the canonical head once stored. */
  setHead: boolean
  /**
   * Accept proof-of-work blocks without checking their ethash seal (Besu's
   * `--skip-pow-validation-enabled`). Seals cannot be verified here, so PoW blocks need this.
   */
  skipPowValidation?: boolean
}

export interface ImportResult {
  block: Block
  receipts: TxReceipt[]
  /** True when the block was already stored (nothing was executed or written). */
  isKnown: boolean
}

/** `unknownParent`: the parent is not stored (the block may be valid later); `invalid`: it never will be. */
export type BlockImportErrorKind = 'unknownParent' | 'invalid'

export class BlockImportError extends Error {
  readonly kind: BlockImportErrorKind
  readonly number: bigint
  readonly hash: Uint8Array
  readonly reason: string

  constructor(kind: BlockImportErrorKind, number: bigint, hash: Uint8Array, reason: string) {
    super(`block ${number} (${bytesToHex(hash)}): ${reason}`)
    this.kind = kind
    this.number = number
    this.hash = hash
    this.reason = reason
    this.name = 'BlockImportError'
  }
}

/**
 * Validates, executes and stores `block` on its stored parent; with `setHead` it becomes the head.
 * Throws BlockImportError; a block found invalid is also written to the bad-blocks table.
 */
export async function importBlock(chain: Chain, block: Block, opts: ImportOptions): Promise<ImportResult> {
  const hash = block.hash()
  if (chain.store.hasBlock(hash)) {
    if (opts.setHead) await chain.setHead(block)
    return { block, receipts: [], isKnown: true }
  }
  const parent = await chain.getBlockByHash(block.header.parentHash)
  if (!parent) {
    throw new BlockImportError(
      'unknownParent',
      block.header.number,
      hash,
      `unknown parent ${bytesToHex(block.header.parentHash)}`,
    )
  }
  block = withCurrentForkRules(chain, block)
  if (block.header.common.consensusType() === 'pow' && !opts.skipPowValidation && hasKeccakSeal(block.header.common)) {
    // ECIP-1049's keccak-256 seal needs no dataset: checked as Besu checks it, the ommers' too.
    const reason = keccakSealError(block.header) ?? ommerSealError(chain, block)
    if (reason !== undefined) {
      chain.store.writeBadBlock(hash, block.serialize(), reason, Date.now())
      throw new BlockImportError('invalid', block.header.number, hash, reason)
    }
  } else if (block.header.common.consensusType() === 'pow' && !opts.skipPowValidation) {
    // A refusal, not a verdict: the block is not recorded as bad.
    const reason =
      'proof-of-work seal not verified: ethash verification is not supported (use --skip-pow-validation-enabled)'
    throw new BlockImportError('invalid', block.header.number, hash, reason)
  }
  let executed: ExecutedBlock
  try {
    executed = await metrics.time('blockchain', 'block_import_ms', () => validateAndExecute(chain, block, parent))
  } catch (e) {
    // Executed before KZG was loaded: the point-evaluation precompile needs it; load, run again.
    if (isKzgMissing(e)) {
      await ensureKzgFor(chain.common)
      return importBlock(chain, block, opts)
    }
    if (await replaceUsedKzgStandIn(chain.common)) return importBlock(chain, block, opts)
    const reason = e instanceof Error ? e.message : String(e)
    chain.store.writeBadBlock(hash, block.serialize(), reason, Date.now())
    throw new BlockImportError('invalid', block.header.number, hash, reason)
  }
  const senders = block.transactions.map((tx) => tx.getSenderAddress().bytes)
  const { receipts, blockAccessList, revertReasons } = executed
  await chain.commitBlock(block, receipts, senders, { setHead: opts.setHead, blockAccessList, revertReasons })
  metrics.inc('blockchain', 'blocks_imported')
  return { block, receipts, isKnown: false }
}

/**
 * Why an ommer of `block` has an invalid ECIP-1049 seal (Besu's ommer header validator checks the
 * proof of work too); ommers of a fork before ECIP-1049 carry ethash seals, which are not verified.
 */
function ommerSealError(chain: Chain, block: Block): string | undefined {
  for (const ommer of block.uncleHeaders) {
    const fork = chain.common.getHardforkBy({ blockNumber: ommer.number, timestamp: ommer.timestamp })
    if (!isKeccakSealFork(fork)) continue
    const reason = keccakSealError(ommer)
    if (reason !== undefined) return `invalid ommer ${bytesToHex(ommer.hash())}: ${reason}`
  }
  return undefined
}

/**
 * The block decoded again when the fork schedule has changed since it was decoded (the merge block
 * of a TTD chain becomes known only when its parent is stored).
 */
function withCurrentForkRules(chain: Chain, block: Block): Block {
  const { number, timestamp } = block.header
  if (chain.common.getHardforkBy({ blockNumber: number, timestamp }) === block.header.common.hardfork()) return block
  return createBlockFromBytesArray(block.raw() as never, { common: chain.rulesAt(number), setHardfork: true })
}

async function validateAndExecute(chain: Chain, block: Block, parent: Block): Promise<ExecutedBlock> {
  await chain.sealRules?.prepare?.(parent.header)
  validateHeader(block.header, parent.header, chain.baseFeeMarket, chain.sealRules)
  if (block.header.common.consensusType() === 'poa') await validateCliqueSeal(chain, block.header)
  await validateOmmers(block, chain)
  block.validateBlobTransactions(parent.header)
  return executeBlock(chain, block, parent)
}

/** What executing a block yields: its receipts and, from Amsterdam on, the RLP of its access list. */
export interface ExecutedBlock {
  receipts: TxReceipt[]
  blockAccessList?: Uint8Array
  /** Per transaction, what its top-level REVERT returned (undefined when it did not revert). */
  revertReasons: (Uint8Array | undefined)[]
}

/**
 * Executes `block` on its parent's state and checks every root it commits to (state, receipts,
 * gas, bloom, requests, access list); resolves to its receipts and access list. Its state nodes
 * land in the trie store's memory.
 * `isOwnBlock`: a block this node already committed (crash recovery), which may hold transactions
 * from impersonated contracts (see evm/senderCode.ts).
 */
export async function executeBlock(
  chain: Chain,
  block: Block,
  parent: Block,
  isOwnBlock = false,
): Promise<ExecutedBlock> {
  // State nodes written here stay pending in the trie store until flushed; a failed block leaves
  // only unreferenced, content-addressed nodes behind, which are harmless.
  const state = openState(chain.trieDb, chain.common, chain.postStateRoot(parent), true, chain.bonsai)
  // The block's own rules: its chain id may be an earlier one (anvil_setChainId).
  const vm = await createVm(block.common, state, ancestorSource(chain, parent), { isSenderCodeAllowed: isOwnBlock })
  const opts = { block, skipHeaderValidation: true, setHardfork: true, validateBlockSize: true }
  const result = await runChainBlock(chain, vm, opts)
  checkBlockAccessListHash(vm, block)
  return {
    receipts: result.receipts,
    blockAccessList: blockAccessListOf(vm),
    revertReasons: result.results.map(revertOutputOf),
  }
}

/** The RLP of the access list the VM recorded for the block it ran; undefined before EIP-7928. */
export function blockAccessListOf(vm: VM): Uint8Array | undefined {
  return vm.common.isActivatedEIP(7928) ? vm.evm.blockLevelAccessList?.serialize() : undefined
}

/**
 * EIP-7928: the header's `blockAccessListHash` must be the hash of the access list the execution
 * recorded (the library checks it only against a list given with the block), Besu's message.
 */
function checkBlockAccessListHash(vm: VM, block: Block): void {
  const recorded = vm.evm.blockLevelAccessList
  const claimed = block.header.blockAccessListHash
  if (!block.common.isActivatedEIP(7928) || recorded === undefined || claimed === undefined) return
  const calculated = recorded.hash()
  if (bytesToHex(calculated) === bytesToHex(claimed)) return
  throw new Error(
    `Block access list hash mismatch, calculated: ${bytesToHex(calculated)} header: ${bytesToHex(claimed)}`,
  )
}

/**
 * `runBlock` with the rewards `chain` pays beyond the library's own: BFT's `blockreward`, and on
 * Ethereum Classic from Gotham on Besu's ommer rewards, for which the library runs the block
 * without its ommers (their list is checked against the header here first, unless `opts` skips
 * the block's validation).
 */
export async function runChainBlock(chain: Chain, vm: VM, opts: RunBlockOpts): Promise<RunBlockResult> {
  const { block } = opts
  const { number, coinbase } = block.header
  const own = chain.blockReward?.(number, coinbase.bytes)
  const rewards = own === undefined ? [] : [own]
  const ommers = classicOmmerRewards(block.common, number, coinbase.bytes, block.uncleHeaders)
  if (ommers === undefined) return runBlockWithReward(vm, opts, rewards)
  if (opts.skipBlockValidation !== true) await block.validateData(false, true, opts.validateBlockSize ?? false)
  const withoutOmmers = Object.create(block, { uncleHeaders: { value: [] } }) as Block
  return runBlockWithReward(vm, { ...opts, block: withoutOmmers, skipBlockValidation: true }, [...rewards, ...ommers])
}

/** BLOCKHASH before EIP-2935 reads the block's own ancestry, which is not canonical on a side branch. */
function ancestorSource(chain: Chain, parent: Block): BlockSource {
  if (chain.isCanonical(parent)) return chain
  return {
    async getBlockByNumber(n: bigint) {
      let cur: Block | undefined = parent
      while (cur && cur.header.number > n) cur = await chain.getBlockByHash(cur.header.parentHash)
      return cur?.header.number === n ? cur : undefined
    },
  }
}
