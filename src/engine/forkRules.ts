/** Which Engine API fork a timestamp falls in, for the per-version "Unsupported fork" checks. */
import type { Common } from '@ethereumjs/common'
import { engineError } from './errors.ts'

export const ENGINE_FORKS = ['paris', 'shanghai', 'cancun', 'prague', 'osaka', 'amsterdam'] as const
export type EngineFork = (typeof ENGINE_FORKS)[number]

/**
 * The library forks each Engine API fork starts with. Besu's FutureEips and ExperimentalEips carry
 * block access lists as its Amsterdam does, so their payloads take Amsterdam's versions.
 */
const STARTS: Partial<Record<EngineFork, string[]>> = { amsterdam: ['amsterdam', 'futureEips', 'experimentalEips'] }

/** The newest Engine API fork active at `timestamp` (BPO forks count as Osaka). */
export function engineForkAt(common: Common, timestamp: bigint): EngineFork {
  for (let i = ENGINE_FORKS.length - 1; i > 0; i--) {
    for (const fork of STARTS[ENGINE_FORKS[i]] ?? [ENGINE_FORKS[i]]) {
      const at = common.hardforkTimestamp(fork)
      if (at !== null && at !== undefined && timestamp >= BigInt(at)) return ENGINE_FORKS[i]
    }
  }
  return 'paris'
}

export function isForkActive(common: Common, fork: EngineFork, timestamp: bigint): boolean {
  return ENGINE_FORKS.indexOf(engineForkAt(common, timestamp)) >= ENGINE_FORKS.indexOf(fork)
}

/** Throws -38005 unless `timestamp` falls in one of `forks`. */
export function requireFork(common: Common, timestamp: bigint, forks: readonly EngineFork[]): void {
  const fork = engineForkAt(common, timestamp)
  if (!forks.includes(fork)) throw engineError('unsupportedFork', `timestamp ${timestamp} falls in ${fork}`)
}
