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

/** When Engine fork `fork` starts (its first scheduled library fork), or null when it is not scheduled. */
function engineForkStart(common: Common, fork: EngineFork): bigint | null {
  for (const f of STARTS[fork] ?? [fork]) {
    const at = common.hardforkTimestamp(f)
    if (at !== null && at !== undefined) return BigInt(at)
  }
  return null
}

/**
 * Throws -38005 unless `timestamp` falls in one of `forks` (consecutive), with Besu's data
 * (`ForkWindow.validate`): `CANCUN configured to start at timestamp: 20` before the first,
 * `block timestamp 32 is after the first unsupported milestone: OSAKA at timestamp 32` from the fork
 * after the last, `Configuration error, no schedule for CANCUN fork set` when the first is not
 * scheduled at all.
 */
export function requireFork(common: Common, timestamp: bigint, forks: readonly EngineFork[]): void {
  const at = ENGINE_FORKS.indexOf(engineForkAt(common, timestamp))
  const first = forks[0]
  const last = ENGINE_FORKS.indexOf(forks[forks.length - 1])
  if (at < ENGINE_FORKS.indexOf(first)) {
    const start = engineForkStart(common, first)
    throw engineError(
      'unsupportedFork',
      start === null
        ? `Configuration error, no schedule for ${first.toUpperCase()} fork set`
        : `${first.toUpperCase()} configured to start at timestamp: ${start}`,
    )
  }
  if (at > last) {
    const until = ENGINE_FORKS[last + 1]
    throw engineError(
      'unsupportedFork',
      `block timestamp ${timestamp} is after the first unsupported milestone: ${until.toUpperCase()} at timestamp ${engineForkStart(common, until)}`,
    )
  }
}
