/**
 * The arithmetic both BFT protocols share with Besu: quorum, the proposer of a round, round
 * timeouts and the fixed header fields of a BFT block.
 */
import { bytesToHex, type Hex, hexToBytes } from '../primitives/hex.ts'

/** mixHash of every BFT block: "ctical byzantine fault tolerance" in ASCII (Istanbul's digest). */
export const BFT_MIX_HASH = hexToBytes('0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365')
export const BFT_DIFFICULTY = 1n

/** Signatures needed among `validatorCount` validators: ceil(2n/3). */
export function quorumSize(validatorCount: number): number {
  return Math.ceil((2 * validatorCount) / 3)
}

/**
 * PREPAREs that make a round prepared, with its proposal. A QBFT proposer prepares its own
 * proposal, so the quorum counts it; an IBFT 2.0 proposer sends no PREPARE (Besu's validators
 * refuse one from the proposer), so the proposal stands for it and one fewer is needed.
 */
export function prepareQuorum(kind: 'qbft' | 'ibft2', validatorCount: number): number {
  const quorum = quorumSize(validatorCount)
  return kind === 'ibft2' ? quorum - 1 : quorum
}

/** How many faulty validators `validatorCount` tolerate: (n - 1) / 3 rounded down. */
export function faultTolerance(validatorCount: number): number {
  return Math.floor((validatorCount - 1) / 3)
}

/**
 * The proposer of `round` at the height after a block proposed by `parentProposer` (its coinbase),
 * among `validators` (sorted): the parent's proposer moved on by 1 + round; when the parent's
 * proposer is no validator (genesis, or it was voted out), the first validator after it, moved on by
 * round.
 */
export function proposerFor(parentProposer: Uint8Array, validators: readonly Uint8Array[], round: number): Uint8Array {
  const list = validators.map(bytesToHex).sort()
  const prev = bytesToHex(parentProposer)
  const at = list.indexOf(prev)
  if (at >= 0) return hexToBytes(list[(at + 1 + round) % list.length])
  const next = list.findIndex((v) => v > prev)
  const start = Math.max(next, 0)
  return hexToBytes(list[(start + round) % list.length] as Hex)
}

/** How long round `round` lasts before a round change: requesttimeoutseconds × 2^round. */
export function roundTimeoutMs(requestTimeoutSeconds: number, round: number): number {
  return requestTimeoutSeconds * 1000 * 2 ** round
}
