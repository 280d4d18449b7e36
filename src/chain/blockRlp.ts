/**
 * Blocks as RLP bytes: splitting a file of concatenated RLP blocks (hive's chain.rlp, Besu's
 * `blocks export`) and decoding one block with the chain's fork rules.
 */
import { type Block, createBlockFromBytesArray, createBlockHeaderFromBytesArray } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { decodeWithoutKzg } from '../evm/kzgPresence.ts'
import { bytesToBigint } from '../primitives/hex.ts'
import type { Chain } from './chain.ts'

/** Thrown when the bytes are not a sequence of whole RLP items. */
export class RlpFileError extends Error {}

/** Total length (prefix + payload) of the RLP item starting at `offset`. */
function itemLength(bytes: Uint8Array, offset: number): number {
  const b = bytes[offset]
  if (b < 0x80) return 1
  if (b < 0xb8) return 1 + b - 0x80
  if (b >= 0xc0 && b < 0xf8) return 1 + b - 0xc0
  const lenOfLen = b < 0xc0 ? b - 0xb7 : b - 0xf7
  if (offset + 1 + lenOfLen > bytes.length) throw new RlpFileError(`truncated RLP length at byte ${offset}`)
  let len = 0
  for (let i = 0; i < lenOfLen; i++) len = len * 256 + bytes[offset + 1 + i]
  return 1 + lenOfLen + len
}

/** The top-level RLP items of `bytes`, in order (views into `bytes`, not copies). */
export function* splitRlpItems(bytes: Uint8Array): Generator<Uint8Array> {
  let offset = 0
  while (offset < bytes.length) {
    const len = itemLength(bytes, offset)
    if (offset + len > bytes.length) throw new RlpFileError(`truncated RLP item at byte ${offset}`)
    yield bytes.subarray(offset, offset + len)
    offset += len
  }
}

/** The hash and number of an RLP block, read from its header without decoding the body. */
export function peekBlock(rlp: Uint8Array): { hash: Uint8Array; number: bigint } {
  const header = (RLP.decode(rlp) as unknown as Uint8Array[][])[0]
  if (!Array.isArray(header) || header.length < 15) throw new RlpFileError('not an RLP block (no header list)')
  return { hash: keccak_256(RLP.encode(header)), number: bytesToBigint(header[8]) }
}

/** Decodes one RLP block with the chain's fork schedule (loading KZG first when it carries blobs). */
export async function decodeBlockRlp(chain: Pick<Chain, 'common'>, rlp: Uint8Array): Promise<Block> {
  const values = RLP.decode(rlp) as unknown as Uint8Array[][]
  if (!Array.isArray(values) || values.length < 3)
    throw new RlpFileError('not an RLP block (expected a list of header, transactions, ommers…)')
  const block = decodeWithoutKzg(chain.common, () =>
    createBlockFromBytesArray(values as never, { common: chain.common, setHardfork: true }),
  )
  // The library takes a missing slot number for 0; Besu's header has it as field 22 on Amsterdam.
  if (block.common.isActivatedEIP(7843) && values[0].length <= SLOT_NUMBER_INDEX)
    throw new RlpFileError(EARLIER_AMSTERDAM)
  return block
}

/** The header field of the slot number (EIP-7843), after the block access list hash. */
const SLOT_NUMBER_INDEX = 22

/**
 * An Amsterdam header without a slot number (EIP-7843) after its block access list hash comes from
 * the Besu releases whose Amsterdam was BPO5 with block access lists alone; Basalt runs the later
 * Amsterdam, whose EIPs (EIP-7708, EIP-7778, EIP-8037, …) change the gas and the receipts as well.
 */
const EARLIER_AMSTERDAM =
  'an Amsterdam header without a slot number (EIP-7843) is of the earlier Besu Amsterdam (BPO5 with EIP-7928 block access lists only), which Basalt does not run: it runs Amsterdam as the latest Besu releases define it'

/**
 * The hash the chain names a header by, from its RLP values: the keccak of its RLP, except on a BFT
 * chain, where the chain's Common makes it the BFT block hash (no seals, round 0).
 */
export function headerHashOf(chain: Pick<Chain, 'common'>, values: unknown): Uint8Array {
  return createBlockHeaderFromBytesArray(values as never, { common: chain.common, setHardfork: true }).hash()
}
