/**
 * The extraData field of IBFT 2.0 and QBFT blocks: one RLP list [vanity, validators, vote, round, seals].
 * Owns both wire layouts and their decoding; it does not check seals against a header or validators
 * against a chain (that is the validator's job). The two layouts differ only in two fields:
 * - no vote: IBFT 2.0 writes an empty string, QBFT an empty list;
 * - round: IBFT 2.0 writes a 4-byte integer, QBFT a scalar (no leading zeros, empty for 0);
 * and a QBFT drop vote is an empty string where IBFT 2.0 writes the byte 0x00.
 */
import { RLP } from '@ethereumjs/rlp'
import { bigintToBytes, bigintToPaddedBytes, bytesToBigint } from '../primitives/hex.ts'

export type BftKind = 'ibft2' | 'qbft'

/** The protocol of a chain's blocks: one for all, or by block number (a chain migrating to QBFT). */
export type BftKindOf = BftKind | ((number: bigint) => BftKind)

/** The protocol of block `number` under `kinds`. */
export function kindOfBlock(kinds: BftKindOf, number: bigint): BftKind {
  return typeof kinds === 'function' ? kinds(number) : kinds
}

/** A validator vote carried by a block: add (`isAuth`) or drop `recipient`. */
export interface BftVote {
  recipient: Uint8Array
  isAuth: boolean
}

export interface BftExtraData {
  vanity: Uint8Array
  validators: Uint8Array[]
  vote?: BftVote
  round: number
  seals: Uint8Array[]
}

/**
 * Which fields an encoding keeps: the proposer signs the header without seals and round, committers
 * sign it without seals, and the block itself carries everything.
 */
export type BftEncoding = 'all' | 'excludeCommitSeals' | 'excludeCommitSealsAndRound'

export const VANITY_LENGTH = 32
export const SEAL_LENGTH = 65
const ADDRESS_LENGTH = 20
const ADD_VOTE = 0xff
const DROP_VOTE = 0x00
const MAX_ROUND = 0xffffffff

type RlpItem = Uint8Array | RlpItem[]

const KIND_NAMES: Record<BftKind, string> = { ibft2: 'IBFT 2.0', qbft: 'QBFT' }

/** An extraData that does not decode under the chosen layout. */
export class BftExtraDataError extends Error {
  constructor(kind: BftKind, reason: string) {
    super(`Invalid ${KIND_NAMES[kind]} extraData: ${reason}`)
    this.name = 'BftExtraDataError'
  }
}

/** The extraData of a genesis block: zero vanity, the validators, no vote, round 0, no seals. */
export function genesisExtraData(kind: BftKind, validators: Uint8Array[]): Uint8Array {
  return encodeBftExtraData(kind, { vanity: new Uint8Array(VANITY_LENGTH), validators, round: 0, seals: [] })
}

/** RLP-encodes an extraData in the layout of `kind`, keeping the fields `encoding` asks for. */
export function encodeBftExtraData(kind: BftKind, data: BftExtraData, encoding: BftEncoding = 'all'): Uint8Array {
  checkEncodable(kind, data)
  const items: RlpItem[] = [data.vanity, data.validators, encodeVote(kind, data.vote)]
  const withRound = encoding !== 'excludeCommitSealsAndRound'
  const withSeals = encoding === 'all'
  if (kind === 'ibft2') {
    if (withRound) items.push(bigintToPaddedBytes(BigInt(data.round), 4))
    if (withRound && withSeals) items.push(data.seals)
  } else {
    items.push(withRound ? bigintToBytes(BigInt(data.round)) : new Uint8Array(0))
    items.push(withSeals ? data.seals : [])
  }
  return RLP.encode(items)
}

/** Decodes an extraData in the layout of `kind`; throws BftExtraDataError naming the bad field. */
export function decodeBftExtraData(kind: BftKind, extraData: Uint8Array): BftExtraData {
  if (extraData.length === 0) throw new BftExtraDataError(kind, 'empty')
  let root: RlpItem
  try {
    root = RLP.decode(extraData) as RlpItem
  } catch (err) {
    throw new BftExtraDataError(kind, `not valid RLP (${(err as Error).message})`)
  }
  if (!Array.isArray(root)) throw new BftExtraDataError(kind, 'not an RLP list')
  // QBFT tolerates trailing list items (later extensions append fields); IBFT 2.0 does not.
  if (root.length < 5 || (kind === 'ibft2' && root.length > 5)) {
    throw new BftExtraDataError(kind, `expected 5 fields, found ${root.length}`)
  }
  const [vanity, validators, vote, round, seals] = root
  return {
    vanity: bytesField(kind, vanity, 'vanity'),
    validators: listField(kind, validators, 'validators').map((v, i) =>
      sizedBytes(kind, v, `validator ${i}`, ADDRESS_LENGTH),
    ),
    vote: decodeVote(kind, vote),
    round: decodeRound(kind, round),
    seals: listField(kind, seals, 'seals').map((s, i) => sizedBytes(kind, s, `seal ${i}`, SEAL_LENGTH)),
  }
}

function checkEncodable(kind: BftKind, data: BftExtraData): void {
  if (!Number.isInteger(data.round) || data.round < 0 || data.round > MAX_ROUND) {
    throw new BftExtraDataError(kind, `round ${data.round} is not an integer in 0..${MAX_ROUND}`)
  }
  for (const [i, v] of data.validators.entries()) sizedBytes(kind, v, `validator ${i}`, ADDRESS_LENGTH)
  for (const [i, s] of data.seals.entries()) sizedBytes(kind, s, `seal ${i}`, SEAL_LENGTH)
  if (data.vote) sizedBytes(kind, data.vote.recipient, 'vote recipient', ADDRESS_LENGTH)
}

function encodeVote(kind: BftKind, vote: BftVote | undefined): RlpItem {
  if (!vote) return kind === 'ibft2' ? new Uint8Array(0) : []
  if (vote.isAuth) return [vote.recipient, Uint8Array.of(ADD_VOTE)]
  return [vote.recipient, kind === 'ibft2' ? Uint8Array.of(DROP_VOTE) : new Uint8Array(0)]
}

function decodeVote(kind: BftKind, item: RlpItem): BftVote | undefined {
  const isNone = kind === 'ibft2' ? item instanceof Uint8Array && item.length === 0 : isEmptyList(item)
  if (isNone) return undefined
  const fields = listField(kind, item, 'vote')
  if (fields.length !== 2) throw new BftExtraDataError(kind, `vote has ${fields.length} fields, expected 2`)
  const recipient = sizedBytes(kind, fields[0], 'vote recipient', ADDRESS_LENGTH)
  const value = bytesField(kind, fields[1], 'vote type')
  if (kind === 'qbft' && value.length === 0) return { recipient, isAuth: false }
  if (value.length !== 1 || (value[0] !== ADD_VOTE && value[0] !== DROP_VOTE)) {
    throw new BftExtraDataError(kind, 'vote type is neither add (0xff) nor drop')
  }
  return { recipient, isAuth: value[0] === ADD_VOTE }
}

function decodeRound(kind: BftKind, item: RlpItem): number {
  const bytes = bytesField(kind, item, 'round')
  if (kind === 'ibft2' && bytes.length !== 4) {
    throw new BftExtraDataError(kind, `round is ${bytes.length} bytes, expected 4`)
  }
  if (kind === 'qbft' && (bytes.length > 4 || bytes[0] === 0)) {
    throw new BftExtraDataError(kind, 'round is not a scalar of at most 4 bytes without leading zeros')
  }
  return Number(bytesToBigint(bytes))
}

function isEmptyList(item: RlpItem): boolean {
  return Array.isArray(item) && item.length === 0
}

function bytesField(kind: BftKind, item: RlpItem, name: string): Uint8Array {
  if (!(item instanceof Uint8Array)) throw new BftExtraDataError(kind, `${name} is a list, expected bytes`)
  return item
}

function listField(kind: BftKind, item: RlpItem, name: string): RlpItem[] {
  if (!Array.isArray(item)) throw new BftExtraDataError(kind, `${name} is bytes, expected a list`)
  return item
}

function sizedBytes(kind: BftKind, item: RlpItem, name: string, size: number): Uint8Array {
  const bytes = bytesField(kind, item, name)
  if (bytes.length !== size) throw new BftExtraDataError(kind, `${name} is ${bytes.length} bytes, expected ${size}`)
  return bytes
}
