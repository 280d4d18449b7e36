/**
 * Ethereum Classic's milestones as Besu schedules them (`ClassicProtocolSpecs`), mapped onto the
 * EVM library's hardforks. Each ETC milestone is Besu's spec of that name, which builds on the ones
 * before it; where it matches an Ethereum fork's EVM it is that fork (Atlantis = Spurious Dragon +
 * Byzantium, Agharta = Constantinople + Petersburg, Phoenix = Istanbul, Magneto = Berlin), and where
 * it does not it is a fork of its own: DieHard (EIP-160's EXP cost), Gotham (ECIP-1017 rewards),
 * ECIP-1041 (the difficulty bomb removed), Thanos (ECIP-1099 epochs: seals only), Mystique (London's
 * EIP-3529 and EIP-3541 without the EIP-1559 fee market) and Spiral (Shanghai's EIP-3651, EIP-3855
 * and EIP-3860 without withdrawals). Besu's difficulty calculators and ECIP-1017 era rewards are
 * applied here; what the library cannot express is refused with the key's name.
 */
import type { Common } from '@ethereumjs/common'
import { paramsTx } from '@ethereumjs/tx'
import { KECCAK256_RLP_ARRAY, TypeOutput, toType } from '@ethereumjs/util'
import type { BlockReward } from '../evm/blockReward.ts'
import { allowHardforkNames } from '../evm/forkNames.ts'
import { GenesisError, toMilestone } from './genesisValues.ts'

/** Config keys of ETC milestones (Besu's `GenesisConfigOptions`). */
export const CLASSIC_KEYS = [
  'classicForkBlock',
  'ecip1015Block',
  'diehardBlock',
  'gothamBlock',
  'ecip1041Block',
  'atlantisBlock',
  'aghartaBlock',
  'phoenixBlock',
  'thanosBlock',
  'magnetoBlock',
  'mystiqueBlock',
  'spiralBlock',
  'ecip1049Block',
]
/**
 * Ethereum keys whose milestones have no ETC twin. A config with one of them and ETC milestones
 * (Besu's `all_forks.json`) is a mixed schedule: Besu runs one list of milestones by block number,
 * each its own protocol spec, so the chain may go from London back to Classic Tangerine Whistle.
 */
const LATER_ETHEREUM_KEYS = [
  'daoForkBlock',
  'muirGlacierBlock',
  'londonBlock',
  'arrowGlacierBlock',
  'grayGlacierBlock',
  'mergeNetsplitBlock',
  'terminalTotalDifficulty',
  'shanghaiTime',
  'cancunTime',
  'pragueTime',
  'osakaTime',
  'amsterdamTime',
  'futureEipsTime',
  'experimentalEipsTime',
]

/**
 * The library forks of an ETC chain in order, each with the keys that schedule it (the earliest
 * one present wins: `eip158Block` at 0 and `atlantisBlock` later start Spurious Dragon at 0).
 */
const CLASSIC_FORKS: [keys: string[], fork: string][] = [
  [['homesteadBlock', 'classicForkBlock'], 'homestead'],
  [['eip150Block', 'ecip1015Block'], 'tangerineWhistle'],
  [['diehardBlock'], 'dieHard'],
  [['gothamBlock'], 'gotham'],
  [['ecip1041Block'], 'ecip1041'],
  [['eip158Block', 'atlantisBlock'], 'spuriousDragon'],
  [['byzantiumBlock', 'atlantisBlock'], 'byzantium'],
  [['constantinopleBlock', 'aghartaBlock'], 'constantinople'],
  [['petersburgBlock', 'aghartaBlock'], 'petersburg'],
  [['istanbulBlock', 'phoenixBlock'], 'istanbul'],
  [['thanosBlock'], 'thanos'],
  // Besu's ECIP-1049 is Thanos's spec with a keccak-256 seal (listed last by Besu, built on Thanos).
  [['ecip1049Block'], 'ecip1049'],
  [['berlinBlock', 'magnetoBlock'], 'berlin'],
  [['mystiqueBlock'], 'mystique'],
  [['spiralBlock'], 'spiral'],
]

/** The forks of Classic's own, as the library's hardfork definitions (the last five name mixed schedules' milestones). */
export const CLASSIC_FORK_DEFINITIONS: Record<string, { eips: number[]; params?: Record<string, unknown> }> = {
  dieHard: { eips: [], params: { expByteGas: 50 } },
  gotham: { eips: [] },
  ecip1041: { eips: [] },
  thanos: { eips: [] },
  ecip1049: { eips: [] },
  mystique: { eips: [3529, 3541] },
  spiral: { eips: [3651, 3855, 3860] },
  classicTangerineWhistle: { eips: [] },
  atlantis: { eips: [] },
  agharta: { eips: [] },
  phoenix: { eips: [] },
  magneto: { eips: [] },
}

/**
 * The ETC milestones of a mixed schedule, in Besu's order (`MilestoneDefinitions`, after every
 * Ethereum milestone): key, fork name, the milestone whose spec it builds on
 * (`ClassicProtocolSpecs`) and the library forks it adds to it.
 */
const MIXED_CLASSIC: [key: string, fork: string, base: string | undefined, adds: string[]][] = [
  ['ecip1015Block', 'classicTangerineWhistle', undefined, ['homestead', 'tangerineWhistle']],
  ['diehardBlock', 'dieHard', 'classicTangerineWhistle', []],
  ['gothamBlock', 'gotham', 'dieHard', []],
  ['ecip1041Block', 'ecip1041', 'gotham', []],
  ['atlantisBlock', 'atlantis', 'gotham', ['spuriousDragon', 'byzantium']],
  ['aghartaBlock', 'agharta', 'atlantis', ['constantinople', 'petersburg']],
  ['phoenixBlock', 'phoenix', 'agharta', ['istanbul']],
  ['thanosBlock', 'thanos', 'phoenix', []],
  ['magnetoBlock', 'magneto', 'thanos', ['berlin']],
  ['mystiqueBlock', 'mystique', 'magneto', []],
  ['spiralBlock', 'spiral', 'mystique', []],
  ['ecip1049Block', 'ecip1049', 'thanos', []],
]
/** Library forks an ETC milestone's spec needs in the fork list, scheduled or not. */
export const MIXED_CLASSIC_BASE_FORKS = [
  'homestead',
  'tangerineWhistle',
  'spuriousDragon',
  'byzantium',
  'constantinople',
  'petersburg',
  'istanbul',
  'berlin',
]

/** True when `config` mixes ETC milestones with Ethereum milestones that have no ETC twin. */
export function isMixedClassicConfig(config: Record<string, unknown>): boolean {
  if (!isClassicConfig(config)) return false
  return (
    LATER_ETHEREUM_KEYS.some((k) => config[k] !== undefined) || Object.keys(config).some((k) => /^bpo\d+Time$/.test(k))
  )
}

/** The ETC milestones of a mixed schedule in Besu's order, each at its own key (undefined when absent). */
export function mixedClassicMilestones(config: Record<string, unknown>): ClassicMilestone[] {
  return MIXED_CLASSIC.map(([key, fork]) => ({
    key,
    fork,
    at: config[key] === undefined ? undefined : toMilestone(config[key], `config.${key}`),
  }))
}

/**
 * The library forks each fork of a mixed schedule runs (itself included): an Ethereum fork runs
 * every scheduled Ethereum fork listed before it, an ETC milestone the forks of the spec it builds
 * on (`unscheduled`: Ethereum forks listed only for those specs).
 */
export function mixedLineage(forks: string[], unscheduled: Set<string>): Map<string, Set<string>> {
  const classic = new Set(MIXED_CLASSIC.map(([, fork]) => fork))
  const out = new Map<string, Set<string>>()
  const ethereum: string[] = []
  for (const fork of forks) {
    if (classic.has(fork) || unscheduled.has(fork)) continue
    ethereum.push(fork)
    out.set(fork, new Set(ethereum))
  }
  for (const [, fork, base, adds] of MIXED_CLASSIC) {
    const from = base === undefined ? ['chainstart'] : [...(out.get(base) ?? [])]
    out.set(fork, new Set([...from, ...adds, fork]))
  }
  return out
}

/**
 * Makes `common` and its copies (own properties survive `copy()`) run each fork with the rules of
 * its lineage (`mixedLineage`) instead of every fork listed before it: fork checks
 * (`gteHardfork`), activated EIPs and parameters follow the lineage.
 */
export function useForkLineage(common: Common, lineage: Map<string, Set<string>>): void {
  type Internals = Common & { _hardfork: string; HARDFORK_CHANGES: [string, unknown][]; _buildParamsCache(): void }
  const proto = Object.getPrototypeOf(common) as Internals
  const hardforkGteHardfork = function (this: Internals, a: string | null, b: string) {
    const forks = lineage.get(a ?? this._hardfork)
    return forks === undefined ? proto.hardforkGteHardfork.call(this, a, b) : forks.has(b)
  }
  const buildParamsCache = function (this: Internals) {
    const all = this.HARDFORK_CHANGES
    const forks = lineage.get(this._hardfork)
    if (forks !== undefined) this.HARDFORK_CHANGES = all.filter(([name]) => forks.has(name))
    try {
      proto._buildParamsCache.call(this)
    } finally {
      this.HARDFORK_CHANGES = all
    }
  }
  Object.assign(common, { hardforkGteHardfork, _buildParamsCache: buildParamsCache, mixedClassic: true })
  // The constructor built the current fork's caches with every fork listed before it.
  const built = common as Internals & { _buildActivatedEIPsCache(): void }
  built._buildParamsCache()
  built._buildActivatedEIPsCache()
}

/** True when `common`'s current fork seals with ECIP-1049's keccak-256 proof of work (keccakPow.ts). */
export function hasKeccakSeal(common: Common): boolean {
  return isKeccakSealFork(common.hardfork())
}

/** True for the fork of ECIP-1049's keccak-256 proof of work. */
export function isKeccakSealFork(fork: string): boolean {
  return fork === 'ecip1049'
}

/** True when `config` schedules any Ethereum Classic milestone. */
export function isClassicConfig(config: Record<string, unknown>): boolean {
  return CLASSIC_KEYS.some((k) => config[k] !== undefined) || config.ecip1017EraRounds !== undefined
}

/** A milestone read from the config: its first key present, the fork it runs and its block. */
export interface ClassicMilestone {
  key: string
  fork: string
  at?: number
}

/** The ETC chain's forks in order, each at the earliest of its keys (undefined when none is set). */
export function classicMilestones(config: Record<string, unknown>): ClassicMilestone[] {
  return CLASSIC_FORKS.map(([keys, fork]) => {
    let at: number | undefined
    let key = keys[keys.length - 1]
    for (const k of keys) {
      if (config[k] === undefined) continue
      const v = toMilestone(config[k], `config.${k}`)
      if (at === undefined || v < at) {
        at = v
        key = k
      }
    }
    return { key, fork, at }
  })
}

const ERA_LENGTH = 5_000_000n
const MAX_BLOCK_REWARD = 5_000_000_000_000_000_000n

/**
 * The zero-based ECIP-1017 era of block `number` as Besu's `ClassicBlockProcessor` counts it:
 * `(number - 1) / eraLength` for a block after the genesis (with Java's remainder, so an era length
 * of 1 puts block n in era n).
 */
function classicEra(number: bigint, eraLength: bigint): bigint {
  if (number < 0n) return 0n
  // BigInt's % truncates toward zero like Java's.
  return (number - ((number - 1n) % eraLength)) / eraLength
}

/** ECIP-1017's reward of a block winner in `number`'s era (Besu's `ClassicBlockProcessor`). */
export function classicWinnerReward(number: bigint, eraLength: bigint): bigint {
  const era = classicEra(number, eraLength)
  return (MAX_BLOCK_REWARD * 4n ** era) / 5n ** era
}

/**
 * The rewards a Classic block with ommers pays from Gotham on, beyond the winner's own reward, or
 * undefined where the EVM library's rule is Besu's (no ommers, before Gotham, not ETC or not proof
 * of work). Besu's `ClassicBlockProcessor` pays the coinbase `winner × ommers / 32` more and each
 * ommer `winner − winner × distance / 8` in the first era, `winner / 32` after it; the library pays
 * `(8 − distance) / 8` in every era, so the caller runs the block without its ommers (the library
 * then pays the winner's reward alone) and pays these.
 */
export function classicOmmerRewards(
  common: Common,
  number: bigint,
  coinbase: Uint8Array,
  ommers: readonly { number: bigint; coinbase: { bytes: Uint8Array } }[],
): BlockReward[] | undefined {
  const eraLength = (common as Common & { classicEraLength?: bigint }).classicEraLength
  if (ommers.length === 0 || eraLength === undefined || common.consensusType() !== 'pow') return undefined
  if (!common.hardforkGteHardfork(common.getHardforkBy({ blockNumber: number }), 'gotham')) return undefined
  const winner = classicWinnerReward(number, eraLength)
  const firstEra = classicEra(number, eraLength) < 1n
  const rewards = [{ beneficiary: coinbase, amount: (winner * BigInt(ommers.length)) / 32n }]
  for (const ommer of ommers) {
    const distance = number - ommer.number
    const amount = firstEra ? winner - (winner * distance) / 8n : winner / 32n
    rewards.push({ beneficiary: ommer.coinbase.bytes, amount })
  }
  return rewards.filter((r) => r.amount > 0n)
}

/**
 * Applies Classic's rules to `common` and its copies (own properties survive `copy()`): the EVM
 * accepts its forks, and the miner reward from Gotham on follows ECIP-1017's eras (`ecip1017EraRounds`
 * blocks each, 5,000,000 by default). The block number comes from `setHardforkBy`, which every
 * block's execution calls first.
 */
export function useClassicRules(common: Common, config: Record<string, unknown>): void {
  allowHardforkNames(Object.keys(CLASSIC_FORK_DEFINITIONS))
  const eraLength =
    config.ecip1017EraRounds === undefined
      ? ERA_LENGTH
      : BigInt(toMilestone(config.ecip1017EraRounds, 'config.ecip1017EraRounds'))
  if (eraLength <= 0n) throw new GenesisError('config.ecip1017EraRounds must be positive')
  const proto = Object.getPrototypeOf(common) as Common
  type Tracked = Common & { classicBlockNumber?: bigint }
  const setHardforkBy = function (this: Tracked, opts: Parameters<Common['setHardforkBy']>[0]) {
    this.classicBlockNumber = opts.blockNumber === undefined ? undefined : toType(opts.blockNumber, TypeOutput.BigInt)
    return proto.setHardforkBy.call(this, opts)
  }
  // Besu's Agharta runs Istanbul's precompiles: BLAKE2f from `aghartaBlock` (evm/classicPrecompiles.ts).
  const agharta =
    config.aghartaBlock === undefined ? undefined : BigInt(toMilestone(config.aghartaBlock, 'config.aghartaBlock'))
  const hasEarlyBlake2f = function (this: Tracked) {
    if (agharta === undefined || this.classicBlockNumber === undefined || this.classicBlockNumber < agharta)
      return false
    // In a mixed schedule an Ethereum milestone may run at or after Agharta's block.
    return (this as Tracked & { mixedClassic?: boolean }).mixedClassic !== true || this.gteHardfork('agharta')
  }
  const param = function (this: Tracked, name: string) {
    if (name === 'blake2RoundGas' && hasEarlyBlake2f.call(this)) return BLAKE2_ROUND_GAS
    if (name !== 'minerReward' || this.classicBlockNumber === undefined) return proto.param.call(this, name)
    if (!this.gteHardfork('gotham')) return proto.param.call(this, name)
    return classicWinnerReward(this.classicBlockNumber, eraLength)
  }
  // A transaction's rules: its constructor copies the common and gives the copy the transaction
  // parameters, and asks `gteHardfork('spuriousDragon')` only to accept EIP-155 signatures, which
  // Besu accepts on ETC from Classic Tangerine Whistle (`ecip1015Block`), not from Atlantis.
  type TxTracked = Common & { classicTxRules?: boolean }
  const updateParams = function (this: TxTracked, params: Parameters<Common['updateParams']>[0]) {
    if (params === paramsTx) this.classicTxRules = true
    return proto.updateParams.call(this, params)
  }
  const isMixed = isMixedClassicConfig(config)
  const gteHardfork = function (this: TxTracked, name: string) {
    if (this.classicTxRules !== true || name !== 'spuriousDragon') return proto.gteHardfork.call(this, name)
    // A mixed schedule's Ethereum milestones take them from Spurious Dragon, its ETC ones from Classic Tangerine Whistle.
    if (!isMixed) return proto.gteHardfork.call(this, 'tangerineWhistle')
    return proto.gteHardfork.call(this, name) || proto.gteHardfork.call(this, 'classicTangerineWhistle')
  }
  Object.assign(common, {
    setHardforkBy,
    param,
    updateParams,
    gteHardfork,
    hasEarlyBlake2f,
    classicEraLength: eraLength,
  })
}

/** EIP-152's gas per BLAKE2f round. */
const BLAKE2_ROUND_GAS = 1n
const MINIMUM_DIFFICULTY = 131_072n
const BOUND_DIVISOR = 2_048n
const PERIOD = 100_000n
/** ECIP-1010: the bomb paused at block 3,000,000 and continued at 5,000,000. */
const PAUSED_PERIODS = 30n
const DELAY_PERIODS = 20n

interface DifficultyHeader {
  timestamp: bigint
  common: Common
}
interface DifficultyParent {
  number: bigint
  timestamp: bigint
  difficulty: bigint
  uncleHash: Uint8Array
}

/**
 * Besu's ETC difficulty of a header (`ClassicDifficultyCalculators`), or undefined where it is
 * Ethereum's (before DieHard, or not an ETC chain): DieHard pauses the bomb, Gotham delays it,
 * ECIP-1041 removes it, and from Atlantis on it is EIP-100 without a bomb.
 */
export function classicDifficulty(header: DifficultyHeader, parent: DifficultyParent): bigint | undefined {
  const c = header.common
  const since = (name: string) => c.gteHardfork(name)
  if (!since('dieHard')) return undefined
  const atLeastMinimum = (d: bigint) => (d < MINIMUM_DIFFICULTY ? MINIMUM_DIFFICULTY : d)
  const step = parent.difficulty / BOUND_DIVISOR
  const elapsed = header.timestamp - parent.timestamp
  if (since('byzantium')) {
    const hasOmmers = !parent.uncleHash.every((b, i) => b === KECCAK256_RLP_ARRAY[i])
    let x = (hasOmmers ? 2n : 1n) - elapsed / 9n
    if (x < -99n) x = -99n
    return atLeastMinimum(parent.difficulty + x * step)
  }
  let x = 1n - elapsed / 10n
  if (x < -99n) x = -99n
  const base = atLeastMinimum(parent.difficulty + x * step)
  if (since('ecip1041')) return base
  if (since('gotham')) {
    const periods = (parent.number + 1n) / PERIOD
    // Besu's calculator raises 2 to a negative power here and fails: no block of it imports or seals.
    if (periods < DELAY_PERIODS + 2n) {
      throw new Error(
        `invalid difficulty: Gotham's delayed difficulty bomb (ECIP-1010) has no value before block 2200000 (block ${parent.number + 1n}); Besu cannot build or import this block either`,
      )
    }
    return base + pow2(periods - DELAY_PERIODS - 2n)
  }
  return base + pow2(PAUSED_PERIODS - 2n)
}

/** 2^n for the bomb (n is never negative: Gotham's negative periods are refused above). */
function pow2(n: bigint): bigint {
  return 2n ** n
}
