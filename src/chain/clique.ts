/**
 * Clique (EIP-225) as far as Basalt seals and checks it: the signer list of the last checkpoint
 * (every `epochlength` blocks a header lists the signers between its 32-byte vanity and its 65-byte
 * seal; the genesis is the first checkpoint), the in-turn signer of a height (difficulty 2, the others
 * 1), the signer list as votes changed it since (cliqueVotes.ts), and the header of a block to seal
 * with one of this node's proposals. The library seals and recovers signers.
 */
import type { BlockHeader } from '@ethereumjs/block'
import { cliqueEpochTransitionSigners, cliqueSigner } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { privateToAddress, setLengthLeft } from '@ethereumjs/util'
import { maxBigInt } from '../primitives/bigintMath.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import {
  CLIQUE_NONCE_ADD,
  CLIQUE_NONCE_DROP,
  CliqueTally,
  openProposals,
  pickProposal,
  voteOfHeader,
} from './cliqueVotes.ts'

export const CLIQUE_VANITY_BYTES = 32
export const CLIQUE_SEAL_BYTES = 65
/** Difficulty of a block sealed by the in-turn signer, and by any other signer. */
export const DIFF_IN_TURN = 2n
export const DIFF_NO_TURN = 1n

/** The node key may not seal the next block yet: another signer's block must come first. */
export class CliqueWaitError extends Error {}

/**
 * The node key is none of the signers at the parent (votes counted): the sealer stays idle and
 * tries again on the next block, since a vote may add it (as Besu's clique miner does).
 */
export class CliqueNotSignerError extends CliqueWaitError {}

/** What signer lookups need of the stored chain: headers by hash, so that a block on a side chain is checked against its own ancestors. */
export interface CheckpointReader {
  getHeaderByHash(hash: Uint8Array): BlockHeader | undefined
}

/** Clique's epoch length of `common` (blocks between checkpoints). */
export function cliqueEpoch(common: Common): bigint {
  return BigInt((common.consensusConfig() as { epoch?: number }).epoch ?? 30000)
}

/** The signers a checkpoint header lists, as lower-case hex addresses in ascending order. */
export function checkpointSigners(header: BlockHeader): string[] {
  return cliqueEpochTransitionSigners(header)
    .map((a) => a.toString().toLowerCase())
    .sort()
}

/** Tallies after recent blocks, by block hash, per chain: replaying an epoch of votes for every block would be slow. */
const tallyCache = new WeakMap<CheckpointReader, Map<string, CliqueTally>>()
const TALLY_CACHE_SIZE = 256

/** The parent of `header` as stored; throws when it is missing. */
function parentOf(chain: CheckpointReader, header: BlockHeader): BlockHeader {
  const parent = chain.getHeaderByHash(header.parentHash)
  if (!parent) throw new Error(`clique block ${header.number - 1n} (${bytesToHex(header.parentHash)}) is missing`)
  return parent
}

/**
 * The signers and pending votes after `header` (its own vote counted): the last checkpoint's list
 * among its ancestors, changed by the votes of the blocks since. A checkpoint starts afresh.
 */
export function cliqueTallyAfter(chain: CheckpointReader, header: BlockHeader): CliqueTally {
  const epoch = cliqueEpoch(header.common)
  const cache = tallyCache.get(chain) ?? new Map<string, CliqueTally>()
  tallyCache.set(chain, cache)
  const pending: BlockHeader[] = []
  let tally: CliqueTally | undefined
  let h = header
  while (tally === undefined) {
    const cached = cache.get(bytesToHex(h.hash()))
    if (cached) tally = cached.copy()
    else if (h.number % epoch === 0n) tally = new CliqueTally(checkpointSigners(h))
    else {
      pending.push(h)
      h = parentOf(chain, h)
    }
  }
  for (const h of pending.reverse()) {
    const vote = voteOfHeader(signerHex(cliqueSigner(h).bytes), signerHex(h.coinbase.bytes), h.nonce, false)
    if (vote) tally.apply(vote)
  }
  if (cache.size >= TALLY_CACHE_SIZE) cache.delete(cache.keys().next().value as string)
  cache.set(bytesToHex(header.hash()), tally.copy())
  return tally
}

/** The signers who may seal the block after `parent`. */
export function cliqueSignersFor(chain: CheckpointReader, parent: BlockHeader): string[] {
  return cliqueTallyAfter(chain, parent).signers()
}

/**
 * Whether `signer` sealed one of the blocks up to `parent` that EIP-225 leaves it out of: a signer
 * may seal only one of any floor(n/2) + 1 consecutive blocks (with one signer, every block).
 * Besu's miner waits and its importer refuses the block, as geth's.
 */
export function hasSignedRecently(
  chain: CheckpointReader,
  signers: string[],
  parent: BlockHeader,
  signer: string,
): boolean {
  let h = parent
  for (let i = 0; i < Math.floor(signers.length / 2) && h.number >= 1n; i++) {
    if (signerHex(cliqueSigner(h).bytes) === signer) return true
    h = parentOf(chain, h)
  }
  return false
}

/** Whether `signer` (lower-case hex) is the in-turn signer of `number` among `signers`. */
export function isInTurn(signers: string[], number: bigint, signer: string): boolean {
  return signers.length > 0 && signers[Number(number % BigInt(signers.length))] === signer
}

/** Besu's step of the out-of-turn delay (`CliqueBlockScheduler`), in milliseconds per half signer. */
const OUT_OF_TURN_DELAY_STEP_MS = 500

/**
 * How long `signer` waits before sealing block `number` (Besu's `CliqueBlockScheduler`): nothing in
 * turn; out of turn a random 1 to ⌊(signers / 2 + 1) × 500⌋ ms, so the in-turn block usually comes
 * first. `random` gives a number in [0, 1).
 */
export function cliqueOutOfTurnDelayMs(
  signers: string[],
  number: bigint,
  signer: string,
  random: () => number = Math.random,
): number {
  if (isInTurn(signers, number, signer)) return 0
  const maxDelay = Math.floor((signers.length / 2 + 1) * OUT_OF_TURN_DELAY_STEP_MS)
  return Math.min(maxDelay, Math.floor(random() * maxDelay) + 1)
}

/** The difficulty `signer` seals block `number` with. */
export function cliqueDifficulty(signers: string[], number: bigint, signer: string): bigint {
  return isInTurn(signers, number, signer) ? DIFF_IN_TURN : DIFF_NO_TURN
}

/**
 * The extraData of block `number` before its seal: the vanity (`vanity` zero-padded on the left, as
 * Besu puts its --miner-extra-data; zeros without it), at a checkpoint the signer list, and 65 zero
 * bytes the seal replaces.
 */
export function cliqueExtraData(
  common: Common,
  number: bigint,
  signers: string[],
  vanity: Uint8Array = new Uint8Array(0),
): Uint8Array {
  const isCheckpoint = number % cliqueEpoch(common) === 0n
  const list = isCheckpoint ? signers : []
  const out = new Uint8Array(CLIQUE_VANITY_BYTES + list.length * 20 + CLIQUE_SEAL_BYTES)
  out.set(setLengthLeft(vanity, CLIQUE_VANITY_BYTES))
  list.forEach((s, i) => {
    out.set(hexToBytes(s), CLIQUE_VANITY_BYTES + i * 20)
  })
  return out
}

/** A lower-case hex address, as the signer lists hold them. */
export function signerHex(address: Uint8Array): string {
  return bytesToHex(address).toLowerCase()
}

/**
 * The seal rules of a clique header (EIP-225): signed by a signer as the list stands at its parent, with the
 * difficulty of its turn, and at a checkpoint listing exactly those signers. Throws the reason.
 * The library has already checked the extraData layout (97 bytes, or 97 + 20·n at a checkpoint).
 */
export async function validateCliqueSeal(chain: CheckpointReader, header: BlockHeader): Promise<void> {
  const parent = parentOf(chain, header)
  const signers = cliqueSignersFor(chain, parent)
  const signer = cliqueSigner(header).toString().toLowerCase()
  if (!signers.includes(signer)) throw new Error(`invalid clique seal: ${signer} is not a signer`)
  if (hasSignedRecently(chain, signers, parent, signer))
    throw new Error(`invalid clique seal: ${signer} signed one of the last ${Math.floor(signers.length / 2)} blocks`)
  const expected = cliqueDifficulty(signers, header.number, signer)
  if (header.difficulty !== expected) {
    const turn = expected === DIFF_IN_TURN ? 'in turn' : 'out of turn'
    throw new Error(`invalid difficulty: ${header.difficulty}, the signer ${signer} is ${turn} (expected ${expected})`)
  }
  if (header.number % cliqueEpoch(header.common) !== 0n) return
  // A checkpoint votes for nobody (EIP-225; Besu's coinbase rule).
  if (header.coinbase.bytes.some((b) => b !== 0))
    throw new Error('invalid checkpoint: its coinbase must be zero (no vote)')
  if (checkpointSigners(header).join() !== signers.join())
    throw new Error('invalid checkpoint: its signer list differs from the current signers')
}

/** Why `signer` (lower-case hex) may not seal: it is none of the signers. */
export function cliqueNotSignerReason(signer: string): string {
  return `the node key's address ${signer} is not a clique signer`
}

/** The header fields clique sets on a block it seals. */
export interface CliqueHeaderFields {
  timestamp: bigint
  difficulty: bigint
  extraData: Uint8Array
  coinbase: Uint8Array
  mixHash: Uint8Array
  nonce: Uint8Array
}

/**
 * Clique's header fields for the block after `parent`, sealed with `key`: difficulty 2 in turn (1
 * otherwise), the signer list at a checkpoint, one of `proposals` (subject → add) that still changes
 * something as coinbase and nonce (else zero ones: no vote; never at a checkpoint), zero mix hash,
 * and a timestamp at least the block period after the parent's. Throws when `key` is not a signer's.
 */
export async function cliqueHeaderFields(
  chain: CheckpointReader,
  common: Common,
  parent: BlockHeader,
  key: Uint8Array,
  timestamp: bigint,
  proposals: ReadonlyMap<string, boolean> = new Map(),
  vanity?: Uint8Array,
): Promise<CliqueHeaderFields> {
  const number = parent.number + 1n
  const signer = signerHex(privateToAddress(key))
  const tally = cliqueTallyAfter(chain, parent)
  const signers = tally.signers()
  if (!signers.includes(signer)) throw new CliqueNotSignerError(cliqueNotSignerReason(signer))
  if (hasSignedRecently(chain, signers, parent, signer))
    throw new CliqueWaitError(`the signer ${signer} sealed one of the last ${Math.floor(signers.length / 2)} blocks`)
  const period = BigInt((common.consensusConfig() as { period?: number }).period ?? 0)
  const isCheckpoint = number % cliqueEpoch(common) === 0n
  const vote = isCheckpoint ? undefined : pickProposal(openProposals(proposals, tally, signer))
  return {
    timestamp: maxBigInt(timestamp, parent.timestamp + period),
    difficulty: cliqueDifficulty(signers, number, signer),
    extraData: cliqueExtraData(common, number, signers, vanity),
    coinbase: vote ? hexToBytes(vote.subject) : new Uint8Array(20),
    mixHash: new Uint8Array(32),
    nonce: vote?.isAdd ? CLIQUE_NONCE_ADD : CLIQUE_NONCE_DROP,
  }
}
