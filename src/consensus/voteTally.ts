/**
 * Validator sets of a BFT chain whose validators live in block headers (Besu's "blockheader" mode).
 * Each block lists the validators that sealed it; the proposer (its coinbase) may carry one vote in
 * its extraData to add or drop an address. Votes accumulate from the last epoch block, one per
 * validator and subject, and a subject joins or leaves once more than half of the validators voted
 * the same way. An epoch block (number % epochlength == 0, genesis included) restarts the tally
 * from the validators it lists, discarding pending votes. A legacy IBFT 1.0 block carries its vote in
 * the header instead (coinbase and nonce), cast by the signer of its proposer seal.
 */
import type { BlockHeader } from '@ethereumjs/block'
import { bytesToHex, type Hex, hexToBytes } from '../primitives/hex.ts'
import { type BftKind, decodeBftExtraData } from './bftExtraData.ts'
import { decodeLegacyExtraData, legacyProposerOf, legacyVoteOf } from './ibftLegacy.ts'

/** The layout of a block's extraData and votes: a BFT protocol's, or legacy IBFT 1.0's (`ibft`). */
export type BlockFormat = BftKind | 'ibft'

/** The format of each block: one for all, or by block number (a chain migrating to QBFT). */
export type BlockFormatOf = BlockFormat | ((number: bigint) => BlockFormat)

/** The validators a block lists and the vote it carries, with its voter, in the block's format. */
function readBlock(format: BlockFormat, header: BlockHeader) {
  if (format === 'ibft') {
    const extra = decodeLegacyExtraData(header.extraData)
    const vote = legacyVoteOf(header)
    return { validators: extra.validators, vote, voter: () => legacyProposerOf(header, extra) }
  }
  const extra = decodeBftExtraData(format, header.extraData)
  return { validators: extra.validators, vote: extra.vote, voter: () => header.coinbase.bytes }
}

/** Validators (sorted, lower-case hex) and the votes cast since the last epoch block. */
export interface VoteTally {
  validators: Hex[]
  /** subject → voters for adding it */
  adds: Map<Hex, Set<Hex>>
  /** subject → voters for dropping it */
  drops: Map<Hex, Set<Hex>>
}

export function newTally(validators: Iterable<Uint8Array | Hex>): VoteTally {
  const list = [...validators].map((v) => (typeof v === 'string' ? (v.toLowerCase() as Hex) : bytesToHex(v)))
  return { validators: [...new Set(list)].sort(), adds: new Map(), drops: new Map() }
}

function copyTally(t: VoteTally): VoteTally {
  const copy = (m: Map<Hex, Set<Hex>>) => new Map([...m].map(([k, v]) => [k, new Set(v)]))
  return { validators: [...t.validators], adds: copy(t.adds), drops: copy(t.drops) }
}

/** The tally after `voter` voted to add (`isAuth`) or drop `subject`; `t` is left unchanged. */
export function applyVote(t: VoteTally, voter: Hex, subject: Hex, isAuth: boolean): VoteTally {
  const next = copyTally(t)
  const adds = next.adds.get(subject) ?? new Set<Hex>()
  const drops = next.drops.get(subject) ?? new Set<Hex>()
  ;(isAuth ? adds : drops).add(voter)
  ;(isAuth ? drops : adds).delete(voter)
  next.adds.set(subject, adds)
  next.drops.set(subject, drops)
  const threshold = Math.floor(next.validators.length / 2) + 1
  const isMember = next.validators.includes(subject)
  if (adds.size >= threshold && !isMember) {
    next.validators = [...next.validators, subject].sort()
    forget(next, subject)
  } else if (drops.size >= threshold && isMember) {
    next.validators = next.validators.filter((v) => v !== subject)
    forget(next, subject)
    for (const voters of [...next.adds.values(), ...next.drops.values()]) voters.delete(subject)
  }
  return next
}

function forget(t: VoteTally, subject: Hex): void {
  t.adds.delete(subject)
  t.drops.delete(subject)
}

/** What the tracker needs of the chain: headers by hash. */
export interface HeaderSource {
  getHeaderByHash(hash: Uint8Array): BlockHeader | undefined
}

const CACHE_SIZE = 1024

/**
 * The tally after each block, computed from the nearest epoch block or cached ancestor and cached
 * by block hash, so a running chain applies one vote per block.
 */
export class ValidatorTracker {
  private readonly cache = new Map<Hex, VoteTally>()

  /** The format of each block (its extraData layout): earlier validators carry over into QBFT. */
  readonly kind: BlockFormatOf
  /** Blocks per epoch; on a migrating chain each protocol's own, by block number. */
  readonly epochLength: bigint | ((number: bigint) => bigint)
  private readonly headers: HeaderSource
  /**
   * The validators of the child of a header when something other than votes sets them: a genesis
   * transition's list, or QBFT's validator contract.
   */
  private readonly overrideAfter: (header: BlockHeader) => Uint8Array[] | undefined

  constructor(
    kind: BlockFormatOf,
    epochLength: bigint | ((number: bigint) => bigint),
    headers: HeaderSource,
    overrideAfter: (header: BlockHeader) => Uint8Array[] | undefined = () => undefined,
  ) {
    this.kind = kind
    this.epochLength = epochLength
    this.headers = headers
    this.overrideAfter = overrideAfter
  }

  /** The validators that seal the child of `header`, sorted. */
  validatorsAfter(header: BlockHeader): Uint8Array[] {
    return this.overrideAfter(header) ?? this.tallyAfter(header).validators.map(hexToBytes)
  }

  tallyAfter(header: BlockHeader): VoteTally {
    const path: BlockHeader[] = []
    let cur: BlockHeader | undefined = header
    let tally: VoteTally | undefined
    while (cur) {
      tally = this.cache.get(bytesToHex(cur.hash()))
      if (tally) break
      const epoch = typeof this.epochLength === 'function' ? this.epochLength(cur.number) : this.epochLength
      if (cur.number % epoch === 0n) {
        tally = newTally(readBlock(this.formatOf(cur.number), cur).validators)
        this.remember(cur, tally)
        break
      }
      path.push(cur)
      cur = this.headers.getHeaderByHash(cur.parentHash)
    }
    if (!tally) throw new Error(`no epoch block below block ${header.number}`)
    for (const h of path.reverse()) {
      const { vote, voter } = readBlock(this.formatOf(h.number), h)
      if (vote) tally = applyVote(tally, bytesToHex(voter()), bytesToHex(vote.recipient), vote.isAuth)
      this.remember(h, tally)
    }
    return tally
  }

  /** The format of block `number`. */
  formatOf(number: bigint): BlockFormat {
    return typeof this.kind === 'function' ? this.kind(number) : this.kind
  }

  /** The validators block `header` lists, read in its format. */
  listedValidators(header: BlockHeader): Uint8Array[] {
    return readBlock(this.formatOf(header.number), header).validators
  }

  /** The proposer of a block: its coinbase, or on a legacy IBFT 1.0 block the signer of its proposer seal. */
  proposerOf(header: BlockHeader): Uint8Array {
    if (this.formatOf(header.number) !== 'ibft' || header.number === 0n) return header.coinbase.bytes
    return legacyProposerOf(header)
  }

  private remember(header: BlockHeader, tally: VoteTally): void {
    this.cache.set(bytesToHex(header.hash()), tally)
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value!)
  }
}
