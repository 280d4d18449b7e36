/**
 * ECIP-1049's proof of work (Besu's `KeccakHasher` and `ProofOfWorkValidationRule`): the seal of a
 * header is keccak256(keccak256(rlp(header without mix hash and nonce)) ‖ nonce), which must be the
 * header's mix hash and, read as a number, at most 2^256 / difficulty. Unlike ethash it needs no
 * dataset, so Basalt checks it on import (ommers' too) and mines it (`keccakSealed`).
 */
import { Block, type BlockHeader, createBlockHeader } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToBigint, bytesToHex } from '../primitives/hex.ts'

const TWO_256 = 1n << 256n

/** keccak256 of the header's RLP without its mix hash and nonce (Besu's `hashHeader`; the base fee when it has one). */
export function keccakSealHash(header: BlockHeader): Uint8Array {
  const fields: Uint8Array[] = [
    header.parentHash,
    header.uncleHash,
    header.coinbase.bytes,
    header.stateRoot,
    header.transactionsTrie,
    header.receiptTrie,
    header.logsBloom,
    bigIntToUnpaddedBytes(header.difficulty),
    bigIntToUnpaddedBytes(header.number),
    bigIntToUnpaddedBytes(header.gasLimit),
    bigIntToUnpaddedBytes(header.gasUsed),
    bigIntToUnpaddedBytes(header.timestamp),
    header.extraData,
  ]
  if (header.baseFeePerGas !== undefined) fields.push(bigIntToUnpaddedBytes(header.baseFeePerGas))
  return keccak_256(RLP.encode(fields))
}

/** The keccak-256 solution of a header (its `keccakSealHash`) for `nonce` (8 bytes): the mix hash it must carry. */
export function keccakSolution(
  sealHash: Uint8Array,
  nonce: Uint8Array,
  hash: (data: Uint8Array) => Uint8Array = keccak_256,
): Uint8Array {
  const input = new Uint8Array(40)
  input.set(sealHash, 0)
  input.set(nonce, 32)
  return hash(input)
}

/** Why `header`'s ECIP-1049 seal is invalid, in Besu's words, or undefined when it holds. */
export function keccakSealError(header: BlockHeader): string | undefined {
  if (header.difficulty === 0n) return 'invalid proof of work: difficulty is 0'
  const solution = keccakSolution(keccakSealHash(header), header.nonce)
  const target = header.difficulty === 1n ? TWO_256 - 1n : TWO_256 / header.difficulty
  const result = bytesToBigint(solution)
  if (result > target)
    return `invalid proof of work: the Keccak-256 result ${result} was greater than the target ${target}`
  if (bytesToHex(solution) !== bytesToHex(header.mixHash))
    return `invalid proof of work: header mixed hash ${bytesToHex(header.mixHash)} does not equal calculated mixed hash ${bytesToHex(solution)}`
  return undefined
}

/** Nonces tried between two yields to other work while mining. */
const YIELD_EVERY = 2048
/** Nonces tried before giving up (2^32: about 2^32 / difficulty solutions expected). */
const MAX_ATTEMPTS = 2 ** 32

/**
 * `block` sealed with ECIP-1049's keccak-256 proof of work, as Besu's keccak miner seals it: from a
 * random nonce up, the first whose solution is at most 2^256 / difficulty; the mix hash is that
 * solution. Same body, so its receipts and state stay the block's. Yields to other work between
 * batches of nonces; throws after `MAX_ATTEMPTS` of them.
 */
export async function keccakSealed(block: Block, yieldTurn: () => Promise<void>): Promise<Block> {
  const { header } = block
  if (header.difficulty === 0n) throw new Error('cannot mine a block of difficulty 0')
  const sealHash = keccakSealHash(header)
  const target = header.difficulty === 1n ? TWO_256 - 1n : TWO_256 / header.difficulty
  const start = new DataView(crypto.getRandomValues(new Uint8Array(8)).buffer).getBigUint64(0)
  const nonce = new Uint8Array(8)
  const view = new DataView(nonce.buffer)
  // The chain's WebAssembly keccak-256 when it has one (primitives/keccak.ts): 3-4 times faster.
  const hash = header.common.customCrypto.keccak256 ?? keccak_256
  for (let i = 0; i < MAX_ATTEMPTS; i++) {
    if (i > 0 && i % YIELD_EVERY === 0) await yieldTurn()
    view.setBigUint64(0, BigInt.asUintN(64, start + BigInt(i)))
    const solution = keccakSolution(sealHash, nonce, hash)
    if (bytesToBigint(solution) > target) continue
    const sealed = createBlockHeader(
      { ...header.toJSON(), mixHash: solution, nonce },
      { common: header.common, setHardfork: true, freeze: false },
    )
    return new Block(sealed, block.transactions, block.uncleHeaders, block.withdrawals, {
      common: header.common,
      freeze: false,
    })
  }
  throw new Error(`no keccak-256 seal found for block ${header.number} in ${MAX_ATTEMPTS} nonces`)
}
