/**
 * IBFT 2.0 wire messages, as Besu's `IBF/1` subprotocol carries them (Besu `consensus/ibft`:
 * `payload/*Payload.java`, `messagewrappers/*.java`, `messagedata/IbftV2.java`). They carry the same
 * decisions as QBFT's but are laid out differently:
 * - codes PROPOSAL 0, PREPARE 1, COMMIT 2, ROUND_CHANGE 3 (the core's 0x12–0x15 shifted down);
 * - a round identifier is two fixed-width integers written inline, the height as 8 bytes and the
 *   round as 4 (Besu's `RLPOutput.writeLong` / `writeInt`), not RLP scalars;
 * - each payload travels as `[payload, signature]`, the signature over
 *   keccak(code byte ‖ rlp(payload)) — the code is prefixed as a raw byte, not RLP-listed;
 * - PROPOSAL payload `[height, round, digest]` (the block travels beside it), sent as
 *   `[signedPayload, block, roundChangeCertificate | null]`, the certificate `[[signedRoundChange…]]`;
 * - PREPARE `[height, round, digest]`; COMMIT `[height, round, digest, commitSeal]`;
 * - ROUND_CHANGE `[height, round, preparedCertificate | null]`, the certificate
 *   `[signedProposalPayload, [signedPrepare…]]` inside the signed payload, sent as
 *   `[signedPayload, preparedBlock | null]`; "null" is the empty byte string.
 * The digest is the proposal's hash for the committed seal (`commitSealHash`), as in QBFT.
 */
import { RLP } from '@ethereumjs/rlp'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { concatBytes, equalBytes } from '../../primitives/hex.ts'
import { signHash } from '../../primitives/nodeKey.ts'
import { commitSealHash, recoverAddress } from '../bftHashing.ts'
import {
  type BlockDecoder,
  blockReader,
  COMMIT,
  type CommitPayload,
  frameOrigin,
  type MessageCodec,
  PREPARE,
  PROPOSAL,
  type PreparePayload,
  type ProposalPayload,
  type QbftMessage,
  ROUND_CHANGE,
  type RoundChangePayload,
  type RoundId,
  type Signed,
  wire,
} from '../qbft/messages.ts'
import { bytes, fail, fixedInt, isNull, list, parseRlp, type RlpItem, readSignedItem } from '../qbft/rlpFields.ts'

/** Besu's `IbftV2` codes are the core's codes minus this. */
export const IBFT_CODE_OFFSET = PROPOSAL
const NULL = new Uint8Array(0)

function fixed(value: bigint | number, width: number): Uint8Array {
  const out = new Uint8Array(width)
  let v = BigInt(value)
  for (let i = width - 1; i >= 0; i--) {
    out[i] = Number(v & 0xffn)
    v >>= 8n
  }
  return out
}

const roundId = (r: RoundId): Uint8Array[] => [fixed(r.height, 8), fixed(r.round, 4)]

/** keccak(code ‖ rlp(payload)) with Besu's IBFT code (0–3). */
function signatureHash(code: number, raw: RlpItem): Uint8Array {
  return keccak_256(concatBytes(Uint8Array.of(code - IBFT_CODE_OFFSET), RLP.encode(raw)))
}

function sign<P>(code: number, payload: P, raw: RlpItem, key: Uint8Array): Signed<P> {
  const hash = signatureHash(code, raw)
  const signature = signHash(hash, key)
  return { payload, raw, signature, author: recoverAddress(hash, signature)! }
}

function certificateItem(p: RoundChangePayload): RlpItem {
  if (!p.certificate) return NULL
  return [wire(p.certificate.proposal), p.certificate.prepares.map(wire)]
}

export const signPrepare = (p: PreparePayload, key: Uint8Array): Signed<PreparePayload> =>
  sign(PREPARE, p, [...roundId(p), p.digest], key)

export const signCommit = (p: CommitPayload, key: Uint8Array): Signed<CommitPayload> =>
  sign(COMMIT, p, [...roundId(p), p.digest, p.seal], key)

export function signRoundChange(p: RoundChangePayload, key: Uint8Array): Signed<RoundChangePayload> {
  return sign(ROUND_CHANGE, p, [...roundId(p), certificateItem(p)], key)
}

export function signProposal(p: ProposalPayload, key: Uint8Array): Signed<ProposalPayload> {
  return sign(PROPOSAL, p, [...roundId(p), commitSealHash('ibft2', p.block.header)], key)
}

export function encodeIbftMessage(msg: QbftMessage): Uint8Array {
  switch (msg.code) {
    case PREPARE:
    case COMMIT:
      return RLP.encode(wire(msg.signed))
    case ROUND_CHANGE:
      return RLP.encode([wire(msg.signed), msg.preparedBlock ? (msg.preparedBlock.raw() as RlpItem) : NULL])
    case PROPOSAL: {
      const certificate = msg.roundChanges.length ? [msg.roundChanges.map(wire)] : NULL
      return RLP.encode([wire(msg.signed), msg.signed.payload.block.raw() as RlpItem, certificate])
    }
  }
}

function readRound(f: RlpItem[]): RoundId {
  return { height: fixedInt(f[0], 'height', 8), round: Number(fixedInt(f[1], 'round', 4)) }
}

function readDigestPayload(what: string) {
  return (f: RlpItem[]): PreparePayload => {
    if (f.length !== 3) fail(`${what} payload must have 3 items`)
    return { ...readRound(f), digest: bytes(f[2], 'digest', 32) }
  }
}

function readSigned<P>(code: number, item: RlpItem, read: (fields: RlpItem[]) => P): Signed<P> {
  const { raw, signature, author } = readSignedItem(item, (r) => signatureHash(code, r))
  return { payload: read(raw), raw, signature, author }
}

const readPrepare = (item: RlpItem) => readSigned(PREPARE, item, readDigestPayload('prepare'))

function readCommit(f: RlpItem[]): CommitPayload {
  if (f.length !== 4) fail('commit payload must have 4 items')
  return { ...readRound(f), digest: bytes(f[2], 'digest', 32), seal: bytes(f[3], 'commit seal', 65) }
}

function readRoundChange(f: RlpItem[]): RoundChangePayload {
  if (f.length !== 3) fail('round change payload must have 3 items')
  if (isNull(f[2])) return readRound(f)
  const [proposalItem, preparesItem] = list(f[2], 'prepared certificate', 2)
  const proposal = readSigned(PROPOSAL, proposalItem, readDigestPayload('proposal'))
  const prepares = list(preparesItem, 'prepares').map(readPrepare)
  const prepared = { round: proposal.payload.round, hash: proposal.payload.digest }
  return { ...readRound(f), prepared, certificate: { proposal, prepares } }
}

const readSignedRoundChange = (item: RlpItem) => readSigned(ROUND_CHANGE, item, readRoundChange)

/** The prepares of the highest prepared round among `roundChanges` (what justifies a re-proposal). */
function bestPrepares(roundChanges: Signed<RoundChangePayload>[]): Signed<PreparePayload>[] {
  let best: RoundChangePayload | undefined
  for (const { payload } of roundChanges) {
    if (payload.prepared && (!best || payload.prepared.round > best.prepared!.round)) best = payload
  }
  return best?.certificate?.prepares ?? []
}

export function decodeIbftMessage(code: number, data: Uint8Array, decodeBlock: BlockDecoder): QbftMessage {
  const root = parseRlp(data)
  const block = blockReader(decodeBlock)
  switch (code) {
    case PREPARE:
      return { code, signed: readPrepare(root) }
    case COMMIT:
      return { code, signed: readSigned(code, root, readCommit) }
    case ROUND_CHANGE: {
      const [signedItem, blockItem] = list(root, 'round change', 2)
      const signed = readSignedRoundChange(signedItem)
      const preparedBlock = isNull(blockItem) ? undefined : block(blockItem, 'prepared block')
      return { code, signed, preparedBlock, prepares: signed.payload.certificate?.prepares ?? [] }
    }
    case PROPOSAL: {
      const [signedItem, blockItem, certificate] = list(root, 'proposal', 3)
      const proposed = block(blockItem, 'proposed block')
      const head = readSigned(code, signedItem, readDigestPayload('proposal'))
      const { digest, ...id } = head.payload
      if (!equalBytes(digest, commitSealHash('ibft2', proposed.header)))
        fail('proposal digest is not the hash of the proposed block')
      const roundChanges = isNull(certificate)
        ? []
        : list(list(certificate, 'round change certificate', 1)[0], 'round changes').map(readSignedRoundChange)
      const signed = { ...head, payload: { ...id, block: proposed } }
      return { code, signed, roundChanges, prepares: bestPrepares(roundChanges) }
    }
    default:
      fail(`unknown message code ${code - IBFT_CODE_OFFSET}`)
  }
}

/** The signer and height of an IBFT 2.0 frame, read without decoding blocks or certificates. */
export function ibftMessageOrigin(code: number, data: Uint8Array): { author: Uint8Array; height: bigint } {
  return frameOrigin(code, data, String(code - IBFT_CODE_OFFSET), (item) => readSigned(code, item, readRound))
}

/** Besu's IBFT 2.0 wire format (`IBF/1`). */
export const ibft2Codec: MessageCodec = {
  signPrepare,
  signCommit,
  signRoundChange,
  signProposal,
  encode: encodeIbftMessage,
  decode: decodeIbftMessage,
  origin: ibftMessageOrigin,
}
