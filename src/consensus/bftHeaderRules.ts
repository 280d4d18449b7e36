/**
 * BFT header rules (Besu's BFT block header validation ruleset): the fixed fields (difficulty 1,
 * the Istanbul mixHash, zero nonce, no ommers), the block period, the extraData (vanity, the
 * validators the parent's tally yields), a validator as proposer, and commit seals from a quorum of
 * distinct validators over the header at its round. Also the header fields of a new proposal.
 */
import type { BlockHeader, HeaderData } from '@ethereumjs/block'
import { KECCAK256_RLP_ARRAY, setLengthLeft } from '@ethereumjs/util'
import type { SealRules } from '../chain/headerValidation.ts'
import { bytesToHex, equalBytes } from '../primitives/hex.ts'
import {
  type BftExtraData,
  type BftKind,
  type BftVote,
  decodeBftExtraData,
  encodeBftExtraData,
  VANITY_LENGTH,
} from './bftExtraData.ts'
import { commitSealHash, recoverAddress } from './bftHashing.ts'
import { BFT_DIFFICULTY, BFT_MIX_HASH, quorumSize } from './bftRules.ts'
import type { BftParams } from './bftSchedule.ts'
import type { ValidatorTracker } from './voteTally.ts'

export class BftHeaderError extends Error {
  override name = 'BftHeaderError'
}

function fail(reason: string): never {
  throw new BftHeaderError(reason)
}

export interface BftHeaderCheck {
  kind: BftKind
  blockPeriodSeconds: number
  /** The validators after the parent (sorted): the ones this header must list and be sealed by. */
  validators: Uint8Array[]
  /** False for a proposal, which carries no seals yet. */
  requireSeals: boolean
  /** The current time: a header may be at most 1 s ahead of it (Besu's future bound); unchecked when absent. */
  nowSec?: bigint
  /**
   * QBFT with validators chosen by contract: the extraData lists none and carries no vote (the
   * validators above are the contract's).
   */
  isContractMode?: boolean
}

/** How far ahead of the local clock a header's timestamp may be. */
const MAX_FUTURE_SECONDS = 1n

/** Throws BftHeaderError naming the first rule `header` breaks. */
export function validateBftHeader(header: BlockHeader, parent: BlockHeader, check: BftHeaderCheck): BftExtraData {
  if (header.difficulty !== BFT_DIFFICULTY) fail(`invalid difficulty: ${header.difficulty}, expected 1`)
  if (!equalBytes(header.mixHash, BFT_MIX_HASH)) fail(`invalid mixHash: ${bytesToHex(header.mixHash)}`)
  if (header.nonce.some((b) => b !== 0)) fail('invalid nonce: must be 0')
  if (!equalBytes(header.uncleHash, KECCAK256_RLP_ARRAY)) fail('ommers are not allowed')
  const earliest = parent.timestamp + BigInt(check.blockPeriodSeconds)
  if (header.timestamp < earliest)
    fail(
      `timestamp ${header.timestamp} is less than ${check.blockPeriodSeconds}s after the parent's ${parent.timestamp}`,
    )
  if (check.nowSec !== undefined && header.timestamp > check.nowSec + MAX_FUTURE_SECONDS)
    fail(`timestamp ${header.timestamp} is more than ${MAX_FUTURE_SECONDS}s ahead of the clock (${check.nowSec})`)
  let extra: BftExtraData
  try {
    extra = decodeBftExtraData(check.kind, header.extraData)
  } catch (e) {
    fail((e as Error).message)
  }
  if (extra.vanity.length !== VANITY_LENGTH) fail(`vanity is ${extra.vanity.length} bytes, expected 32`)
  const listed = extra.validators.map(bytesToHex)
  const expected = check.validators.map(bytesToHex)
  if (check.isContractMode) {
    if (listed.length > 0 || extra.vote) fail('a block whose validators come from a contract lists none and votes none')
  } else if (listed.join() !== expected.join())
    fail(`validators ${listed.join(',')} differ from the expected ${expected.join(',')}`)
  if (!expected.includes(bytesToHex(header.coinbase.bytes)))
    fail(`proposer ${header.coinbase.toString()} is not a validator`)
  if (check.requireSeals) checkSeals(check.kind, header, extra, expected)
  return extra
}

function checkSeals(kind: BftKind, header: BlockHeader, extra: BftExtraData, validators: string[]): void {
  const hash = commitSealHash(kind, header, extra)
  const signers = new Set<string>()
  for (const seal of extra.seals) {
    const signer = recoverAddress(hash, seal)
    if (!signer) fail('a commit seal does not recover')
    const hex = bytesToHex(signer)
    if (!validators.includes(hex)) fail(`commit seal by ${hex}, who is not a validator`)
    if (signers.has(hex)) fail(`two commit seals by ${hex}`)
    signers.add(hex)
  }
  const quorum = quorumSize(validators.length)
  if (signers.size < quorum) fail(`${signers.size} commit seals, ${quorum} needed`)
}

export interface ProposalFields {
  kind: BftKind
  round: number
  proposer: Uint8Array
  validators: Uint8Array[]
  vote?: BftVote
  /** Besu's --miner-extra-data as the vanity, zero-padded on the left to 32 bytes; zeros without it. */
  vanity?: Uint8Array
}

/** The consensus fields of a new proposal's header: extraData without seals, proposer, BFT constants. */
export function proposalHeaderFields(f: ProposalFields): HeaderData {
  const extra = {
    vanity: setLengthLeft(f.vanity ?? new Uint8Array(0), VANITY_LENGTH),
    validators: f.validators,
    vote: f.vote,
    round: f.round,
    seals: [],
  }
  return {
    coinbase: f.proposer,
    extraData: encodeBftExtraData(f.kind, extra),
    difficulty: BFT_DIFFICULTY,
    mixHash: BFT_MIX_HASH,
    nonce: new Uint8Array(8),
  }
}

/**
 * The chain's header rules for imported BFT blocks: sealed by a quorum of the parent's validators,
 * under the protocol (extraData layout, seal hash) of the block's number.
 */
export function bftSealRules(
  paramsAt: (number: bigint) => BftParams,
  tracker: ValidatorTracker,
  prepare?: (parent: BlockHeader) => Promise<void>,
): SealRules {
  return {
    prepare,
    validate: (header, parent) =>
      validateBftHeader(header, parent, {
        kind: paramsAt(header.number).kind,
        blockPeriodSeconds: paramsAt(header.number).blockPeriodSeconds,
        isContractMode: paramsAt(header.number).selection.mode === 'contract',
        validators: tracker.validatorsAfter(parent),
        requireSeals: true,
        nowSec: BigInt(Math.floor(Date.now() / 1000)),
      }),
  }
}
