/**
 * The merge of a chain whose genesis has a terminal total difficulty it has not reached: as in
 * Besu, a block is proof-of-stake when its parent's total difficulty is at least the TTD. The
 * library schedules Paris by block number, so the number is filled in once known — when a block
 * reaching the TTD is stored, and at start from the stored total difficulties. Copies of the Common
 * share its chain parameters and fork list, so all of them see the change.
 */
import type { Common } from '@ethereumjs/common'

interface ForkEntry {
  name: string
  block: number | null
  timestamp?: number | string
  ttd?: string
}
interface CommonInternals {
  _chainParams: { hardforks: ForkEntry[] }
}

function parisOf(common: Common): ForkEntry | undefined {
  return (common as unknown as CommonInternals)._chainParams.hardforks.find((h) => h.name === 'paris')
}

/** The TTD of the chain, when its genesis sets one. */
export function terminalTotalDifficulty(common: Common): bigint | undefined {
  const ttd = parisOf(common)?.ttd
  return ttd === undefined ? undefined : BigInt(ttd)
}

/** True when the chain has a TTD whose merge block is not known yet. */
export function isMergePending(common: Common): boolean {
  const paris = parisOf(common)
  return paris !== undefined && paris.ttd !== undefined && paris.block === null
}

/**
 * Makes `blockNumber` the first proof-of-stake block: Paris keeps its place in the fork list (after
 * the block forks and `mergeNetsplitBlock`), and a block at or after it runs at least Paris's rules
 * (see `useBesuForkRule`).
 */
export function scheduleMerge(common: Common, blockNumber: bigint): void {
  const c = common as unknown as CommonInternals
  const paris = parisOf(common)
  if (!paris || paris.block !== null) return
  paris.block = Number(blockNumber)
  // A new array: the fork-list memo is keyed by the array, so it cannot serve the old entries.
  c._chainParams.hardforks = [...c._chainParams.hardforks]
}

/** What finding the merge among stored blocks needs. */
export interface TotalDifficultyReader {
  readCanonicalHash(number: bigint): Uint8Array | undefined
  readTotalDifficulty(hash: Uint8Array): bigint | undefined
}

/** The first canonical block whose parent reached `ttd`, or undefined when none is stored yet. */
export function findStoredMergeBlock(store: TotalDifficultyReader, ttd: bigint): bigint | undefined {
  const tdAt = (n: bigint) => {
    const hash = store.readCanonicalHash(n)
    return hash === undefined ? undefined : store.readTotalDifficulty(hash)
  }
  let high = 1n
  while (tdAt(high) !== undefined) high *= 2n
  // The canonical chain is stored from 0 to the head: the last stored number is below `high`.
  let low = 0n
  while (high - low > 1n) {
    const mid = (low + high) / 2n
    if (tdAt(mid) === undefined) high = mid
    else low = mid
  }
  const head = low
  if ((tdAt(head) ?? 0n) < ttd) return undefined
  let first = 0n
  let last = head
  while (first < last) {
    const mid = (first + last) / 2n
    if ((tdAt(mid) ?? 0n) >= ttd) last = mid
    else first = mid + 1n
  }
  return first + 1n
}
