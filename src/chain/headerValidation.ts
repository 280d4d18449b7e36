/**
 * Consensus rules of a header against its parent, and of a block's ommers against its ancestry.
 * Failures throw `HeaderRuleError` with a reason; the importer turns it into a bad block.
 */
import type { Block, BlockHeader } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { KECCAK256_RLP_ARRAY, MAX_UINT64 } from '@ethereumjs/util'
import { bytesToHex, equalBytes } from '../primitives/hex.ts'
import { type BaseFeeMarket, EIP1559_MARKET, nextBaseFee } from './baseFee.ts'
import { classicDifficulty } from './classicForks.ts'
import { fixedDifficulty } from './forkSchedule.ts'
import { isLondonForkBlock } from './gasLimit.ts'

export class HeaderRuleError extends Error {}

/** Ommers may have a parent at most this many generations above the including block (geth: 7). */
const MAX_OMMER_DEPTH = 7n
const MAX_GAS_LIMIT = 0x7fffffffffffffffn

/** What ommer checks need of the stored chain. */
export interface AncestorReader {
  getBlockByHash(hash: Uint8Array): Promise<Block | undefined>
  getHeaderByHash(hash: Uint8Array): BlockHeader | undefined
}

/**
 * The rules of a consensus the library does not know (IBFT 2.0, QBFT): difficulty, nonce, mixHash,
 * extraData and seals of a header against its parent. Throws with the reason a header breaks one.
 */
export interface SealRules {
  validate(header: BlockHeader, parent: BlockHeader): void
  /** Reads, before `validate`, what it needs that only an async read gives (QBFT contract validators). */
  prepare?(parent: BlockHeader): Promise<void>
}

function fail(reason: string): never {
  throw new HeaderRuleError(reason)
}

/**
 * Number, timestamp, gas limit bounds, difficulty (ethash, or Besu's fixed difficulty), clique's
 * header rules, base fee, excess blob gas and the post-merge constants, or the chain's own
 * `sealRules` (BFT). Seals (ethash, the clique signer) are not checked here.
 */
export function validateHeader(
  header: BlockHeader,
  parent: BlockHeader,
  baseFeeMarket: BaseFeeMarket = EIP1559_MARKET,
  sealRules?: SealRules,
): void {
  if (!equalBytes(header.parentHash, parent.hash())) fail('parent hash mismatch')
  if (header.number !== parent.number + 1n) fail(`invalid number: ${header.number}, parent is ${parent.number}`)
  if (header.timestamp <= parent.timestamp)
    fail(`invalid timestamp: ${header.timestamp} is not after parent's ${parent.timestamp}`)
  // Timestamps are uint64, as every client encodes them (Besu reads them as an unsigned long).
  if (header.timestamp > MAX_UINT64) fail(`invalid timestamp: ${header.timestamp} is above 2^64-1`)
  if (header.gasLimit > MAX_GAS_LIMIT) fail('gas limit above 2^63-1')
  if (header.gasUsed > header.gasLimit) fail(`gas used ${header.gasUsed} above gas limit ${header.gasLimit}`)
  try {
    header.validateGasLimit(parent)
  } catch (e) {
    fail(`invalid gas limit: ${(e as Error).message}`)
  }
  const c = header.common
  const consensus = c.consensusType()
  if (sealRules) {
    try {
      sealRules.validate(header, parent)
    } catch (e) {
      fail((e as Error).message)
    }
  } else if (consensus === 'pow') {
    const expected = powDifficulty(header, parent)
    if (header.difficulty !== expected) fail(`invalid difficulty: ${header.difficulty}, expected ${expected}`)
  } else if (consensus === 'poa') {
    validateCliqueHeader(header, parent)
  } else {
    if (header.difficulty !== 0n) fail(`invalid difficulty: ${header.difficulty}, must be 0 after the merge`)
    if (header.nonce.some((b) => b !== 0)) fail('invalid nonce: must be 0 after the merge')
  }
  // Besu's fixed and zero fee markets do not check the base fee (validation mode NONE).
  if (c.isActivatedEIP(1559) && baseFeeMarket.kind === 'eip1559') {
    // The first London block (by number or, on a chain that starts London with a later fork, by time),
    // and London's fork block after a milestone that already ran its fee market (Besu's `isForkBlock`).
    const isForkBlock = parent.baseFeePerGas === undefined || isLondonForkBlock(c, header.number)
    const expected = isForkBlock ? c.param('initialBaseFee') : nextBaseFee(parent, baseFeeMarket)
    if (header.baseFeePerGas !== expected) fail(`invalid base fee: ${header.baseFeePerGas}, expected ${expected}`)
  }
  if (c.isActivatedEIP(4844)) {
    const expected = parent.calcNextExcessBlobGas(c)
    if (header.excessBlobGas !== expected)
      fail(`invalid excess blob gas: ${header.excessBlobGas}, expected ${expected}`)
  }
  if (c.isActivatedEIP(7685) && header.requestsHash === undefined) fail('missing requests hash')
}

/**
 * The difficulty a proof-of-work header must have: Besu's fixed difficulty when the genesis sets
 * one, else ETC's calculators (classicForks.ts), else ethash's.
 */
export function powDifficulty(header: BlockHeader, parent: BlockHeader): bigint {
  return fixedDifficulty(header.common) ?? classicDifficulty(header, parent) ?? header.ethashCanonicalDifficulty(parent)
}

/**
 * The difficulty a new proof-of-work block on `parent` gets when it is not ethash's (which the
 * library computes from the parent): the fixed one, or ETC's. `common` runs the new block's fork.
 */
export function presetPowDifficulty(common: Common, parent: BlockHeader, timestamp: bigint): bigint | undefined {
  return fixedDifficulty(common) ?? classicDifficulty({ common, timestamp }, parent)
}

/** Clique's header rules (EIP-225): the block period, difficulty 1 or 2, zero mix hash, nonce all zeros or all ones. */
function validateCliqueHeader(header: BlockHeader, parent: BlockHeader): void {
  const period = BigInt((header.common.consensusConfig() as { period?: number }).period ?? 0)
  if (header.timestamp < parent.timestamp + period)
    fail(`invalid timestamp: ${header.timestamp} is less than ${period} s after parent's ${parent.timestamp}`)
  if (header.difficulty !== 1n && header.difficulty !== 2n)
    fail(`invalid difficulty: ${header.difficulty}, clique blocks have 1 or 2`)
  if (header.mixHash.some((b) => b !== 0)) fail('invalid mix hash: must be 0 on a clique chain')
  const nonce = header.nonce
  if (!nonce.every((b) => b === 0) && !nonce.every((b) => b === 0xff))
    fail('invalid nonce: clique votes are 0x0 or 0xff…ff')
  if (header.uncleHash.some((b, i) => b !== KECCAK256_RLP_ARRAY[i]))
    fail('invalid ommers hash: clique blocks have no ommers')
}

/**
 * Ommer rules (yellow paper 11.1 / geth `VerifyUncles`): at most two, each a valid header whose
 * parent is one of the last seven ancestors, not itself an ancestor, not included before.
 */
export async function validateOmmers(block: Block, chain: AncestorReader): Promise<void> {
  const ommers = block.uncleHeaders
  if (ommers.length === 0) return
  try {
    block.validateUncles()
  } catch (e) {
    fail(`invalid ommers: ${(e as Error).message}`)
  }
  const ancestors = new Set<string>()
  const included = new Set<string>()
  let cursor: Uint8Array = block.header.parentHash
  for (let i = 0n; i < MAX_OMMER_DEPTH; i++) {
    const ancestor = await chain.getBlockByHash(cursor)
    if (!ancestor) break
    ancestors.add(bytesToHex(ancestor.hash()))
    for (const u of ancestor.uncleHeaders) included.add(bytesToHex(u.hash()))
    if (ancestor.header.number === 0n) break
    cursor = ancestor.header.parentHash
  }
  for (const ommer of ommers) {
    const hash = bytesToHex(ommer.hash())
    if (ancestors.has(hash)) fail(`ommer ${hash} is an ancestor`)
    if (included.has(hash)) fail(`ommer ${hash} was already included`)
    if (!ancestors.has(bytesToHex(ommer.parentHash))) fail(`ommer ${hash} has a parent that is not a recent ancestor`)
    const parent = chain.getHeaderByHash(ommer.parentHash)!
    const depth = block.header.number - parent.number
    if (depth < 2n || depth > MAX_OMMER_DEPTH) fail(`ommer ${hash} is ${depth} generations deep`)
    try {
      validateHeader(ommer, parent)
    } catch (e) {
      fail(`invalid ommer ${hash}: ${(e as Error).message}`)
    }
  }
}
