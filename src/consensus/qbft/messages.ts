/**
 * QBFT wire messages, as Besu's `istanbul/100` subprotocol carries them. Every payload travels
 * signed as `[payload, signature]`, the signature (r‖s‖v, 65 bytes) over keccak(rlp([code, payload])):
 * - PREPARE 0x13: `[height, round, digest]`
 * - COMMIT 0x14: `[height, round, digest, commitSeal]`
 * - ROUND_CHANGE 0x15: `[height, round, [preparedRound, preparedHash] | []]`, sent as
 *   `[signedPayload, preparedBlock | [], [signedPrepare…]]`
 * - PROPOSAL 0x12: `[height, round, block]`, sent as `[signedPayload, [[signedRoundChange…], [signedPrepare…]]]`
 * Height and round are RLP scalars; the digest names the proposal by the hash its commit seals sign
 * (its header with the round, without seals: `commitSealHash`). Decoding recovers
 * each signer; a message whose signature does not recover is refused.
 *
 * The types here are the consensus core's view of a message, shared by both kinds; `MessageCodec`
 * is what differs on the wire (IBFT 2.0's codec is `../ibft2/ibftMessages.ts`).
 */
import type { Block } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bigintToBytes } from '../../primitives/hex.ts'
import { signHash } from '../../primitives/nodeKey.ts'
import { recoverAddress } from '../bftHashing.ts'
import { bytes, fail, int, list, parseRlp, QbftMessageError, type RlpItem, readSignedItem } from './rlpFields.ts'

export { QbftMessageError }

export const PROPOSAL = 0x12
export const PREPARE = 0x13
export const COMMIT = 0x14
export const ROUND_CHANGE = 0x15

export interface RoundId {
  height: bigint
  round: number
}
export interface PreparePayload extends RoundId {
  digest: Uint8Array
}
export interface CommitPayload extends PreparePayload {
  seal: Uint8Array
}
export interface RoundChangePayload extends RoundId {
  prepared?: { round: number; hash: Uint8Array }
  /**
   * IBFT 2.0 only: the prepared certificate signed inside the round change (the proposal's signed
   * `[height, round, digest]` and its prepares); `prepared` is then read from it.
   */
  certificate?: { proposal: Signed<PreparePayload>; prepares: Signed<PreparePayload>[] }
}
export interface ProposalPayload extends RoundId {
  block: Block
}

/** A payload with its signature and signer; `raw` is the payload's RLP item as signed. */
export interface Signed<P> {
  payload: P
  raw: RlpItem
  signature: Uint8Array
  author: Uint8Array
}

export type QbftMessage =
  | {
      code: typeof PROPOSAL
      signed: Signed<ProposalPayload>
      roundChanges: Signed<RoundChangePayload>[]
      prepares: Signed<PreparePayload>[]
    }
  | { code: typeof PREPARE; signed: Signed<PreparePayload> }
  | { code: typeof COMMIT; signed: Signed<CommitPayload> }
  | {
      code: typeof ROUND_CHANGE
      signed: Signed<RoundChangePayload>
      preparedBlock?: Block
      prepares: Signed<PreparePayload>[]
    }

/** Builds a block from its RLP values (the chain's fork rules apply). */
export type BlockDecoder = (values: RlpItem) => Block

/**
 * One BFT flavour's wire format: how payloads are signed, how messages are laid out, and how a
 * transport reads a frame's signer and height. Codes are the core's (0x12–0x15) for both kinds.
 */
export interface MessageCodec {
  signPrepare(p: PreparePayload, key: Uint8Array): Signed<PreparePayload>
  signCommit(p: CommitPayload, key: Uint8Array): Signed<CommitPayload>
  signRoundChange(p: RoundChangePayload, key: Uint8Array): Signed<RoundChangePayload>
  signProposal(p: ProposalPayload, key: Uint8Array): Signed<ProposalPayload>
  encode(msg: QbftMessage): Uint8Array
  decode(code: number, data: Uint8Array, decodeBlock: BlockDecoder): QbftMessage
  origin(code: number, data: Uint8Array): { author: Uint8Array; height: bigint }
}

const scalar = (n: bigint | number) => bigintToBytes(BigInt(n))

function signatureHash(code: number, raw: RlpItem): Uint8Array {
  return keccak_256(RLP.encode([scalar(code), raw]))
}

function sign<P>(code: number, payload: P, raw: RlpItem, key: Uint8Array): Signed<P> {
  const signature = signHash(signatureHash(code, raw), key)
  const author = recoverAddress(signatureHash(code, raw), signature)!
  return { payload, raw, signature, author }
}

export function signPrepare(p: PreparePayload, key: Uint8Array): Signed<PreparePayload> {
  return sign(PREPARE, p, [scalar(p.height), scalar(p.round), p.digest], key)
}

export function signCommit(p: CommitPayload, key: Uint8Array): Signed<CommitPayload> {
  return sign(COMMIT, p, [scalar(p.height), scalar(p.round), p.digest, p.seal], key)
}

export function signRoundChange(p: RoundChangePayload, key: Uint8Array): Signed<RoundChangePayload> {
  const prepared = p.prepared ? [scalar(p.prepared.round), p.prepared.hash] : []
  return sign(ROUND_CHANGE, p, [scalar(p.height), scalar(p.round), prepared], key)
}

export function signProposal(p: ProposalPayload, key: Uint8Array): Signed<ProposalPayload> {
  return sign(PROPOSAL, p, [scalar(p.height), scalar(p.round), p.block.raw() as RlpItem], key)
}

/** A signed payload as the wire carries it: `[payload, signature]`. */
export const wire = (s: Signed<unknown>): RlpItem => [s.raw, s.signature]

/** The message's bytes on the wire (the subprotocol frame's payload for `msg.code`). */
export function encodeMessage(msg: QbftMessage): Uint8Array {
  switch (msg.code) {
    case PREPARE:
    case COMMIT:
      return RLP.encode(wire(msg.signed))
    case ROUND_CHANGE:
      return RLP.encode([
        wire(msg.signed),
        msg.preparedBlock ? (msg.preparedBlock.raw() as RlpItem) : [],
        msg.prepares.map(wire),
      ])
    case PROPOSAL:
      return RLP.encode([wire(msg.signed), [msg.roundChanges.map(wire), msg.prepares.map(wire)]])
  }
}

function readSigned<P>(code: number, item: RlpItem, read: (fields: RlpItem[]) => P): Signed<P> {
  const { raw, signature, author } = readSignedItem(item, (r) => signatureHash(code, r))
  return { payload: read(raw), raw, signature, author }
}

function readRound(fields: RlpItem[]): RoundId {
  return { height: int(fields[0], 'height', 8), round: Number(int(fields[1], 'round', 4)) }
}

const readPrepare = (f: RlpItem[]): PreparePayload => {
  if (f.length !== 3) fail('prepare payload must have 3 items')
  return { ...readRound(f), digest: bytes(f[2], 'digest', 32) }
}

const readCommit = (f: RlpItem[]): CommitPayload => {
  if (f.length !== 4) fail('commit payload must have 4 items')
  return { ...readRound(f), digest: bytes(f[2], 'digest', 32), seal: bytes(f[3], 'commit seal', 65) }
}

const readRoundChange = (f: RlpItem[]): RoundChangePayload => {
  if (f.length !== 3) fail('round change payload must have 3 items')
  const prepared = list(f[2], 'prepared round metadata')
  if (prepared.length === 0) return readRound(f)
  if (prepared.length !== 2) fail('prepared round metadata must have 2 items')
  const round = Number(int(prepared[0], 'prepared round', 4))
  return { ...readRound(f), prepared: { round, hash: bytes(prepared[1], 'prepared block hash', 32) } }
}

/** `decodeBlock` with its failure reported as a QbftMessageError naming `what`. */
export function blockReader(decodeBlock: BlockDecoder): (item: RlpItem, what: string) => Block {
  return (item, what) => {
    try {
      return decodeBlock(item)
    } catch (e) {
      fail(`${what} does not decode: ${(e as Error).message}`)
    }
  }
}

/** Decodes the payload of a frame with message code `code`; throws QbftMessageError. */
export function decodeMessage(code: number, data: Uint8Array, decodeBlock: BlockDecoder): QbftMessage {
  const root = parseRlp(data)
  const block = blockReader(decodeBlock)
  switch (code) {
    case PREPARE:
      return { code, signed: readSigned(code, root, readPrepare) }
    case COMMIT:
      return { code, signed: readSigned(code, root, readCommit) }
    case ROUND_CHANGE: {
      const [signed, prepared, prepares] = list(root, 'round change', 3)
      const hasBlock = !(Array.isArray(prepared) && prepared.length === 0)
      return {
        code,
        signed: readSigned(code, signed, readRoundChange),
        preparedBlock: hasBlock ? block(prepared, 'prepared block') : undefined,
        prepares: list(prepares, 'prepares').map((p) => readSigned(PREPARE, p, readPrepare)),
      }
    }
    case PROPOSAL: {
      const [signed, justification] = list(root, 'proposal', 2)
      const [roundChanges, prepares] = list(justification, 'proposal justification', 2)
      return {
        code,
        signed: readSigned(code, signed, (f) => {
          if (f.length !== 3) fail('proposal payload must have 3 items')
          return { ...readRound(f), block: block(f[2], 'proposed block') }
        }),
        roundChanges: list(roundChanges, 'round changes').map((r) => readSigned(ROUND_CHANGE, r, readRoundChange)),
        prepares: list(prepares, 'prepares').map((p) => readSigned(PREPARE, p, readPrepare)),
      }
    }
    default:
      fail(`unknown message code 0x${code.toString(16)}`)
  }
}

/**
 * The signer and height of a frame without decoding the rest (blocks, justifications): what a
 * transport needs to route and gossip it. Throws QbftMessageError as `decodeMessage` does.
 */
export function messageOrigin(code: number, data: Uint8Array): { author: Uint8Array; height: bigint } {
  return frameOrigin(code, data, `0x${code.toString(16)}`, (item) => readSigned(code, item, readRound))
}

/**
 * What both kinds share in reading a frame's origin: PREPARE and COMMIT are the signed payload
 * itself, PROPOSAL and ROUND_CHANGE a list that starts with it.
 */
export function frameOrigin(
  code: number,
  data: Uint8Array,
  codeName: string,
  readSignedRound: (item: RlpItem) => Signed<RoundId>,
): { author: Uint8Array; height: bigint } {
  const root = parseRlp(data)
  if (code < PROPOSAL || code > ROUND_CHANGE) fail(`unknown message code ${codeName}`)
  const signed = code === PREPARE || code === COMMIT ? root : list(root, 'message')[0]
  const { payload, author } = readSignedRound(signed as RlpItem)
  return { author, height: payload.height }
}

/** Besu's QBFT wire format (`istanbul/100`). */
export const qbftCodec: MessageCodec = {
  signPrepare,
  signCommit,
  signRoundChange,
  signProposal,
  encode: encodeMessage,
  decode: decodeMessage,
  origin: messageOrigin,
}
