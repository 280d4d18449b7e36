/**
 * Blocks of a legacy IBFT 1.0 chain (Quorum's Istanbul), which Besu reads only to import them and
 * move the chain to QBFT at `qbft.startBlock` (Besu's `consensus/ibftlegacy`). Owns the extraData
 * layout, the block and seal hashes, the vote a header carries, and the header rules; it produces no
 * block and exchanges no message (Besu's IBFT 1.0 controller mines nothing either).
 *
 * - extraData: 32 raw bytes of vanity, then RLP `[validators, proposerSeal, committedSeals]`; the
 *   vanity is not an RLP item, unlike IBFT 2.0's and QBFT's.
 * - block hash: keccak of the header with the committed seals emptied (the proposer seal kept);
 * - proposer seal: signs keccak(keccak(header with no proposer seal and no committed seals));
 * - committed seal: signs keccak(block hash ‖ 0x02), 0x02 being Istanbul's COMMIT code;
 * - vote: the coinbase is the candidate (zero: no vote), the nonce its polarity (all ones add, zero drop).
 */
import type { BlockHeader } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_RLP_ARRAY } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex, equalBytes } from '../primitives/hex.ts'
import { VANITY_LENGTH } from './bftExtraData.ts'
import { recoverAddress } from './bftHashing.ts'
import { BFT_DIFFICULTY, BFT_MIX_HASH, quorumSize } from './bftRules.ts'

export interface LegacyExtraData {
  vanity: Uint8Array
  validators: Uint8Array[]
  /** Absent in a proposal being signed (Besu reads an all-zero seal as none). */
  proposerSeal?: Uint8Array
  seals: Uint8Array[]
}

/** A legacy extraData or header that breaks a rule; the message names it. */
export class LegacyIbftError extends Error {
  override name = 'LegacyIbftError'
}

const fail = (reason: string): never => {
  throw new LegacyIbftError(reason)
}

const ADDRESS_LENGTH = 20
const SEAL_LENGTH = 65
const EXTRA_DATA_INDEX = 12
const COMMIT_CODE = 0x02
const ADD_NONCE = new Uint8Array(8).fill(0xff)
const DROP_NONCE = new Uint8Array(8)

type RlpItem = Uint8Array | RlpItem[]

function sized(item: RlpItem, name: string, size: number): Uint8Array {
  if (!(item instanceof Uint8Array) || item.length !== size)
    fail(`Invalid IBFT 1.0 extraData: ${name} is not ${size} bytes`)
  return item as Uint8Array
}

function list(item: RlpItem, name: string): RlpItem[] {
  if (!Array.isArray(item)) fail(`Invalid IBFT 1.0 extraData: ${name} is bytes, expected a list`)
  return item as RlpItem[]
}

/** Decodes a legacy extraData; throws LegacyIbftError naming the bad field. */
export function decodeLegacyExtraData(extraData: Uint8Array): LegacyExtraData {
  if (extraData.length <= VANITY_LENGTH)
    fail('Invalid IBFT 1.0 extraData: too short to produce a valid IBFT Extra Data object')
  let root: RlpItem
  try {
    root = RLP.decode(extraData.subarray(VANITY_LENGTH)) as RlpItem
  } catch (e) {
    return fail(`Invalid IBFT 1.0 extraData: not valid RLP after the vanity (${(e as Error).message})`)
  }
  const fields = list(root, 'the body')
  if (fields.length !== 3)
    fail(`Invalid IBFT 1.0 extraData: expected 3 fields after the vanity, found ${fields.length}`)
  const [validators, proposerSeal, seals] = fields
  if (!(proposerSeal instanceof Uint8Array)) return fail('Invalid IBFT 1.0 extraData: proposer seal is a list')
  const isNoSeal = proposerSeal.every((b) => b === 0)
  return {
    vanity: extraData.slice(0, VANITY_LENGTH),
    validators: list(validators, 'validators').map((v, i) => sized(v, `validator ${i}`, ADDRESS_LENGTH)),
    proposerSeal: isNoSeal ? undefined : sized(proposerSeal, 'proposer seal', SEAL_LENGTH),
    seals: list(seals, 'committed seals').map((s, i) => sized(s, `committed seal ${i}`, SEAL_LENGTH)),
  }
}

/** Vanity ‖ RLP([validators, proposer seal or empty, committed seals]); `withSeals` false empties the last. */
export function encodeLegacyExtraData(data: LegacyExtraData, withSeals = true): Uint8Array {
  const body = RLP.encode([data.validators, data.proposerSeal ?? new Uint8Array(0), withSeals ? data.seals : []])
  const out = new Uint8Array(VANITY_LENGTH + body.length)
  out.set(data.vanity.subarray(0, VANITY_LENGTH))
  out.set(body, VANITY_LENGTH)
  return out
}

/** keccak of the header RLP with `extraData` in place of its own (the genesis header as it stands). */
function hashWith(header: BlockHeader, extraData: Uint8Array): Uint8Array {
  const raw = header.raw()
  if (header.number !== 0n) raw[EXTRA_DATA_INDEX] = extraData
  return keccak_256(RLP.encode(raw))
}

/** The hash a legacy block is stored and referenced by: its header without committed seals. */
export function legacyBlockHash(header: BlockHeader, extra = decodeLegacyExtraData(header.extraData)): Uint8Array {
  return hashWith(header, encodeLegacyExtraData(extra, false))
}

/** What the proposer seal signs: the hash of the hash of the header with no seal of any kind. */
export function proposerSealHash(header: BlockHeader, extra: LegacyExtraData): Uint8Array {
  return keccak_256(hashWith(header, encodeLegacyExtraData({ ...extra, proposerSeal: undefined }, false)))
}

/** What a committed seal signs: keccak(block hash ‖ COMMIT code). */
export function committedSealHash(header: BlockHeader, extra: LegacyExtraData): Uint8Array {
  const data = new Uint8Array(33)
  data.set(legacyBlockHash(header, extra))
  data[32] = COMMIT_CODE
  return keccak_256(data)
}

/** The proposer of a legacy block, recovered from its proposer seal. */
export function legacyProposerOf(header: BlockHeader, extra = decodeLegacyExtraData(header.extraData)): Uint8Array {
  if (!extra.proposerSeal) return fail('the proposer seal is missing')
  return (
    recoverAddress(proposerSealHash(header, extra), extra.proposerSeal) ?? fail('the proposer seal does not recover')
  )
}

/** The vote of a legacy block: its coinbase is the candidate (zero: none), its nonce the polarity. */
export function legacyVoteOf(header: BlockHeader): { recipient: Uint8Array; isAuth: boolean } | undefined {
  const candidate = header.coinbase.bytes
  if (candidate.every((b) => b === 0)) return undefined
  return { recipient: candidate, isAuth: equalBytes(header.nonce, ADD_NONCE) }
}

/**
 * Commit seals a legacy block needs among `validatorCount`: Istanbul's 2F + 1 (F = (n - 1) / 3)
 * below `ceil2Nby3Block`, ceil(2n / 3) from it on (Besu's `IbftExtraDataValidationRule`).
 */
export function legacyQuorum(validatorCount: number, number: bigint, ceil2Nby3Block: bigint): number {
  if (number < ceil2Nby3Block) return 2 * Math.floor((validatorCount - 1) / 3) + 1
  return quorumSize(validatorCount)
}

export interface LegacyHeaderCheck {
  blockPeriodSeconds: number
  ceil2Nby3Block: bigint
  /** The validators after the parent, sorted. */
  validators: Uint8Array[]
  /** The current time: a header may be at most 1 s ahead of it; unchecked when absent. */
  nowSec?: bigint
}

/**
 * Besu's IBFT 1.0 header rules for a block joining the chain: difficulty 1, the Istanbul mixHash, no
 * ommers, a vote nonce (all ones or zero), the block period, a proposer and a quorum of committers
 * among the parent's validators, and the validators listed sorted and equal to those.
 */
export function validateLegacyHeader(header: BlockHeader, parent: BlockHeader, check: LegacyHeaderCheck): void {
  if (header.difficulty !== BFT_DIFFICULTY) fail(`invalid difficulty: ${header.difficulty}, expected 1`)
  if (!equalBytes(header.mixHash, BFT_MIX_HASH)) fail(`invalid mixHash: ${bytesToHex(header.mixHash)}`)
  if (!equalBytes(header.uncleHash, KECCAK256_RLP_ARRAY)) fail('ommers are not allowed')
  if (!equalBytes(header.nonce, ADD_NONCE) && !equalBytes(header.nonce, DROP_NONCE))
    fail(`invalid nonce ${bytesToHex(header.nonce)}: a vote is all ones (add) or zero (drop)`)
  if (header.timestamp < parent.timestamp + BigInt(check.blockPeriodSeconds))
    fail(
      `timestamp ${header.timestamp} is less than ${check.blockPeriodSeconds}s after the parent's ${parent.timestamp}`,
    )
  if (check.nowSec !== undefined && header.timestamp > check.nowSec + 1n)
    fail(`timestamp ${header.timestamp} is more than 1s ahead of the clock (${check.nowSec})`)
  const extra = decodeLegacyExtraData(header.extraData)
  const expected = check.validators.map(bytesToHex)
  const proposer = bytesToHex(legacyProposerOf(header, extra))
  if (!expected.includes(proposer)) fail(`proposer ${proposer} is not a validator`)
  const sealHash = committedSealHash(header, extra)
  // Besu counts the recovered committers as they come (a repeated seal counts twice), as here.
  const committers = extra.seals.map((s) =>
    bytesToHex(recoverAddress(sealHash, s) ?? fail('a committed seal does not recover')),
  )
  const quorum = legacyQuorum(expected.length, header.number, check.ceil2Nby3Block)
  if (committers.length < quorum) fail(`${committers.length} committed seals, ${quorum} needed`)
  const outsider = committers.find((c) => !expected.includes(c))
  if (outsider) fail(`committed seal by ${outsider}, who is not a validator`)
  const listed = extra.validators.map(bytesToHex)
  if (listed.join() !== [...listed].sort().join()) fail('validators are not sorted in ascending order')
  if (listed.join() !== expected.join())
    fail(`validators ${listed.join(',')} differ from the expected ${expected.join(',')}`)
}
