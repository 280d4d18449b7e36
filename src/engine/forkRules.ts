/** Which Engine API fork a timestamp falls in, for the per-version "Unsupported fork" checks. */
import type { Common } from '@ethereumjs/common'
import { engineError } from './errors.ts'

export const ENGINE_FORKS = ['paris', 'shanghai', 'cancun', 'prague', 'osaka'] as const
export type EngineFork = (typeof ENGINE_FORKS)[number]

/** The newest Engine API fork active at `timestamp` (BPO forks count as Osaka). */
export function engineForkAt(common: Common, timestamp: bigint): EngineFork {
  for (let i = ENGINE_FORKS.length - 1; i > 0; i--) {
    const at = common.hardforkTimestamp(ENGINE_FORKS[i])
    if (at !== null && at !== undefined && timestamp >= BigInt(at)) return ENGINE_FORKS[i]
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
