/**
 * Besu's fork schedule of a genesis `config`, turned into the library's chain parameters. Besu
 * schedules each milestone on its own key (`eip158Block` alone is Spurious Dragon; `eip155Block` is
 * not read), and each milestone carries the rules of every earlier one: a fork left out takes the
 * activation of the next fork that is scheduled. The merge is decided by `terminalTotalDifficulty`
 * alone; `mergeNetsplitBlock` is a fork-id marker without rules. The library needs a block number
 * for the merge, so a chain whose genesis has not reached the TTD gets it later, from the stored
 * total difficulty (see mergeSchedule.ts).
 */
import { Common, type HardforkTransitionConfig, Mainnet } from '@ethereumjs/common'
import { type BigIntLike, TypeOutput, toType } from '@ethereumjs/util'

type ConsensusConfig = Record<string, unknown>

import { allowHardforkNames } from '../evm/forkNames.ts'
import {
  CLASSIC_FORK_DEFINITIONS,
  classicMilestones,
  isClassicConfig,
  isMixedClassicConfig,
  MIXED_CLASSIC_BASE_FORKS,
  mixedClassicMilestones,
  mixedLineage,
} from './classicForks.ts'
import { GenesisError, toAddressHex, toGenesisQuantity, toMilestone, toObject } from './genesisValues.ts'

type ForkKind = 'block' | 'time'
/** Config key and library hardfork of every milestone, in Besu's order. */
const MILESTONES: [key: string, fork: string, kind: ForkKind][] = [
  ['homesteadBlock', 'homestead', 'block'],
  ['eip150Block', 'tangerineWhistle', 'block'],
  ['eip158Block', 'spuriousDragon', 'block'],
  ['byzantiumBlock', 'byzantium', 'block'],
  ['constantinopleBlock', 'constantinople', 'block'],
  ['petersburgBlock', 'petersburg', 'block'],
  ['istanbulBlock', 'istanbul', 'block'],
  ['muirGlacierBlock', 'muirGlacier', 'block'],
  ['berlinBlock', 'berlin', 'block'],
  ['londonBlock', 'london', 'block'],
  ['arrowGlacierBlock', 'arrowGlacier', 'block'],
  ['grayGlacierBlock', 'grayGlacier', 'block'],
  ['shanghaiTime', 'shanghai', 'time'],
  ['cancunTime', 'cancun', 'time'],
  ['pragueTime', 'prague', 'time'],
  ['osakaTime', 'osaka', 'time'],
]
/** Milestones after the BPO forks (`bpo1Time`, `bpo2Time`, … come between Osaka and these), in Besu's order. */
const LATE_MILESTONES: [key: string, fork: string, kind: ForkKind][] = [
  ['amsterdamTime', 'amsterdam', 'time'],
  ['futureEipsTime', 'futureEips', 'time'],
  ['experimentalEipsTime', 'experimentalEips', 'time'],
]
/**
 * Forks whose EIP set Basalt takes from Besu rather than from the EVM library. Besu's Amsterdam is
 * the library's (`amsterdam`: EIPs 2780, 7708, 7778, 7843, 7928, 7954, 7976, 7981, 7997, 8024, 8037,
 * 8038, 8246, 8282), so it is not listed. Besu's FutureEips builds on Amsterdam (a FRAME transaction
 * type and a PAY opcode that the library does not have), and ExperimentalEips is FutureEips with an
 * EVM of Besu's own experiments, none of them in the library: both run Amsterdam's rules
 * (docs/genesis.md).
 */
const DEVELOPMENT_FORKS: Record<string, { eips: number[]; params?: Record<string, unknown> }> = {
  futureEips: { eips: [] },
  experimentalEips: { eips: [] },
}
/** Forks whose blob parameters `blobSchedule` sets (the BPO forks as well). */
const BLOB_FORKS = new Set(['cancun', 'prague', 'osaka'])
const GAS_PER_BLOB = 131072
/** Besu's blob parameters of Cancun and Prague when `blobSchedule` leaves them out (EIP-4844, EIP-7691). */
const BLOB_DEFAULTS: Record<string, Record<string, number>> = {
  cancun: { target: 3, max: 6, blobGasPriceUpdateFraction: 3338477 },
  prague: { target: 6, max: 9, blobGasPriceUpdateFraction: 5007716 },
}

/** Options the loader has read from `config`, besides the milestones. */
export interface ChainParamsInput {
  config: Record<string, unknown>
  /** Genesis header fields for the library (hex strings). */
  genesis: Record<string, string | undefined>
  genesisTimestamp: number
  genesisDifficulty: bigint
}

let builtinForks: Map<string, { eips?: number[]; params?: Record<string, unknown>; consensus?: unknown }> | undefined
/** The library's own definition of each named hardfork (read once from a mainnet Common). */
function builtin(fork: string): { eips?: number[]; params?: Record<string, unknown> } | undefined {
  builtinForks ??= new Map(
    (new Common({ chain: Mainnet }) as unknown as { HARDFORK_CHANGES: [string, never][] }).HARDFORK_CHANGES,
  )
  return builtinForks.get(fork)
}

/** Every milestone the config may name, with the BPO forks it schedules (`bpoNTime`) in order. */
function milestonesOf(config: Record<string, unknown>): [string, string, ForkKind][] {
  const bpos = new Set([1, 2, 3, 4, 5])
  for (const key of Object.keys(config)) {
    const m = /^bpo(\d+)Time$/.exec(key)
    if (m) bpos.add(Number(m[1]))
  }
  const bpoForks = [...bpos]
    .sort((a, b) => a - b)
    .map((n): [string, string, ForkKind] => [`bpo${n}Time`, `bpo${n}`, 'time'])
  return [...MILESTONES, ...bpoForks, ...LATE_MILESTONES]
}

interface Scheduled {
  fork: string
  block: number | null
  timestamp?: number
  /** An ETC milestone of a mixed schedule (unscheduled ones are listed too, with no block). */
  classic?: boolean
}

/** A milestone as Besu schedules it: the fork it runs, from a block number or a timestamp, at the configured value. */
export interface BesuMilestone {
  fork: string
  kind: ForkKind
  at: number
}

/**
 * Reads each milestone, checks their order as Besu does, and gives every fork before a scheduled
 * one that fork's activation (Besu's specs build on all earlier ones). Also gives the milestones
 * as configured, in Besu's order, for `besuForkAt`.
 */
function scheduleMilestones(
  config: Record<string, unknown>,
  genesisTimestamp: number,
): { scheduled: Scheduled[]; milestones: BesuMilestone[] } {
  const isMixed = isMixedClassicConfig(config)
  const set: { key: string; fork: string; kind: ForkKind; at?: number }[] =
    isClassicConfig(config) && !isMixed
      ? classicMilestones(config).map((m) => ({ ...m, kind: 'block' as ForkKind }))
      : milestonesOf(config).map(([key, fork, kind]) => {
          const at = config[key] === undefined ? undefined : toMilestone(config[key], `config.${key}`)
          return { key, fork, kind, at }
        })
  checkMilestoneOrder(config, set)
  const out: Scheduled[] = []
  let next: { kind: ForkKind; at: number } | undefined
  for (let i = set.length - 1; i >= 0; i--) {
    const m = set[i]
    if (m.at !== undefined) next = { kind: m.kind, at: m.at }
    if (!next) continue
    // Forks at or before the genesis time are active from genesis and out of the fork id (EIP-6122).
    if (next.kind === 'time')
      out.push({ fork: m.fork, block: null, timestamp: next.at <= genesisTimestamp ? 0 : next.at })
    else out.push({ fork: m.fork, block: next.at })
  }
  out.reverse()
  const configured: BesuMilestone[] = [{ fork: 'chainstart', kind: 'block', at: 0 }]
  for (const m of set) {
    if (m.at === undefined) continue
    configured.push({ fork: m.fork, kind: m.kind, at: m.at })
  }
  addNetsplit(config, configured)
  // A timestamp fork active at genesis outranks every block fork of a schedule that never goes back
  // (its number is the highest reached): all of them are active from genesis too.
  if (!goesBack(configured) && out.some((s) => s.timestamp === 0))
    for (const s of out) if (s.block !== null) s.block = 0
  // A mixed schedule's ETC milestones come after every Ethereum one (Besu's `MilestoneDefinitions`),
  // each its own spec: they take no activation from each other (see `mixedLineage`).
  if (isMixed) {
    for (const m of mixedClassicMilestones(config)) {
      out.push({ fork: m.fork, block: m.at ?? null, classic: true })
      if (m.at !== undefined) configured.push({ fork: m.fork, kind: 'block', at: m.at })
    }
  }
  return { scheduled: out, milestones: configured }
}

/** Adds Besu's Paris milestone (`mergeNetsplitBlock`, a fork-id marker in Basalt) after the block forks. */
function addNetsplit(config: Record<string, unknown>, configured: BesuMilestone[]): void {
  if (config.mergeNetsplitBlock === undefined) return
  const at = toMilestone(config.mergeNetsplitBlock, 'config.mergeNetsplitBlock')
  const firstTime = configured.findIndex((c) => c.kind === 'time')
  const m: BesuMilestone = { fork: 'mergeNetsplitBlock', kind: 'block', at }
  if (firstTime === -1) configured.push(m)
  else configured.splice(firstTime, 0, m)
}

/** True when a milestone is scheduled at a lower number than one before it (Besu then goes back). */
function goesBack(milestones: BesuMilestone[]): boolean {
  return milestones.some((m, i) => i > 0 && m.at < milestones[i - 1].at)
}

/**
 * The fork Besu runs for a header (`DefaultProtocolSchedule.getByBlockHeader`): the milestones are
 * one list ordered by their configured number, block numbers and timestamps alike, where a later
 * milestone replaces an earlier one at the same number; the header runs the highest one it has
 * reached (a block milestone by its number, a timestamp milestone by its time). On a schedule that
 * never goes back this is the usual rule; on one that does, a later fork can hand over to an earlier.
 */
export function besuForkRule(milestones: BesuMilestone[]): (blockNumber?: bigint, timestamp?: bigint) => string {
  const byValue = new Map<number, BesuMilestone>()
  for (const m of milestones) byValue.set(m.at, m)
  const highestFirst = [...byValue.values()]
    .sort((a, b) => b.at - a.at)
    .map((m) => ({ fork: m.fork, isBlock: m.kind === 'block', at: BigInt(m.at) }))
  // Frontier at 0 (or the milestone that replaced it) is reached by every block.
  const lowest = highestFirst[highestFirst.length - 1].fork
  return (blockNumber, timestamp) => {
    for (const m of highestFirst) {
      const value = m.isBlock ? blockNumber : timestamp
      if (value !== undefined && value >= m.at) return m.fork
    }
    return lowest
  }
}

/**
 * Makes `common` and its copies (own properties survive `copy()`) choose each header's fork with
 * Besu's rule (`besuForkRule`). After the merge (Paris has a block and the header reached it) a fork
 * listed before Paris gives way to Paris, which brings its rules and the merge's.
 */
export function useBesuForkRule(common: Common, milestones: BesuMilestone[]): void {
  const forkAt = besuForkRule(milestones)
  const getHardforkBy = function (this: Common, opts: { blockNumber?: BigIntLike; timestamp?: BigIntLike }): string {
    const n = opts.blockNumber === undefined ? undefined : toType(opts.blockNumber, TypeOutput.BigInt)
    const t = opts.timestamp === undefined ? undefined : toType(opts.timestamp, TypeOutput.BigInt)
    const fork = forkAt(n, t)
    if (n === undefined) return fork
    const hfs = this.hardforks()
    const paris = hfs.findIndex((h) => h.name === 'paris')
    if (paris === -1 || hfs[paris].block === null || hfs[paris].block === undefined) return fork
    if (n < BigInt(hfs[paris].block) || hfs.findIndex((h) => h.name === fork) > paris) return fork
    return 'paris'
  }
  Object.assign(common, { getHardforkBy })
}

/** Besu's name of a milestone in its ordering error, from its config key (`londonBlock` → `London`). */
function besuForkName(key: string): string {
  const names: Record<string, string> = {
    eip150Block: 'TangerineWhistle',
    eip158Block: 'SpuriousDragon',
    daoForkBlock: 'DaoFork',
  }
  return names[key] ?? key.replace(/(Block|Time)$/, '').replace(/^./, (c) => c.toUpperCase())
}

/**
 * Besu checks the order of the milestones only on a chain with a DAO fork block: then each one,
 * block forks first and timestamp forks after them, must be on or after the one before it, with
 * Besu's message. Without one it checks nothing and runs any order (see `besuForkAt`).
 */
function checkMilestoneOrder(config: Record<string, unknown>, set: { key: string; at?: number }[]): void {
  const dao = config.daoForkBlock === undefined ? 0 : toMilestone(config.daoForkBlock, 'config.daoForkBlock')
  if (dao <= 0) return
  let last = 0
  for (const m of [set[0], { key: 'daoForkBlock', at: dao }, ...set.slice(1)]) {
    if (m.at === undefined) continue
    if (m.at < last) {
      throw new GenesisError(
        `Genesis Config Error: '${besuForkName(m.key)}' is scheduled for milestone ${m.at} but it must be on or after milestone ${last}.`,
      )
    }
    last = m.at
  }
}

/** The consensus engine of `config`: clique, ethash (with Besu's fixed difficulty) or none (ethash rules). */
function consensusOf(config: Record<string, unknown>): ConsensusConfig {
  if (config.clique !== undefined) {
    const c = toObject(config.clique, 'config.clique')
    const period = c.blockperiodseconds ?? c.period ?? 15
    const epoch = c.epochlength ?? c.epoch ?? 30000
    return {
      type: 'poa',
      algorithm: 'clique',
      clique: {
        period: toMilestone(period, 'config.clique.blockperiodseconds'),
        epoch: toMilestone(epoch, 'config.clique.epochlength'),
      },
    }
  }
  const ethash: Record<string, unknown> = {}
  // No BFT engine yet: an IBFT 2.0 / QBFT chain runs on ethash rules with BFT's difficulty of 1.
  if (config.ibft2 !== undefined || config.qbft !== undefined) ethash.fixedDifficulty = '1'
  // Besu reads `fixeddifficulty` from `config.fixeddifficulty`, else from `config.ethash`.
  for (const key of ['ethash', 'fixeddifficulty']) {
    if (config[key] === undefined) continue
    const o = toObject(config[key], `config.${key}`)
    if (o.fixeddifficulty !== undefined)
      ethash.fixedDifficulty = toGenesisQuantity(o.fixeddifficulty, `config.${key}.fixeddifficulty`).toString()
  }
  return { type: 'pow', algorithm: 'ethash', ethash } as ConsensusConfig
}

/** The `blobSchedule` entry of `fork`, as the library's parameters. */
function blobParams(config: Record<string, unknown>, fork: string): Record<string, unknown> | undefined {
  if (config.blobSchedule === undefined) return undefined
  const schedule = toObject(config.blobSchedule, 'config.blobSchedule')
  const raw = schedule[fork]
  if (raw === undefined) return undefined
  const field = `config.blobSchedule.${fork}`
  const e = toObject(raw, field)
  const target = Number(toGenesisQuantity(e.target, `${field}.target`))
  const max = Number(toGenesisQuantity(e.max, `${field}.max`))
  const params: Record<string, unknown> = { target, max }
  Object.assign(params, { targetBlobGasPerBlock: target * GAS_PER_BLOB, maxBlobGasPerBlock: max * GAS_PER_BLOB })
  if (e.baseFeeUpdateFraction !== undefined) {
    params.blobGasPriceUpdateFraction = Number(
      toGenesisQuantity(e.baseFeeUpdateFraction, `${field}.baseFeeUpdateFraction`),
    )
  }
  return params
}

/** Parameters that apply from genesis on (Besu's `contractSizeLimit`; `evmStackSize`: genesis.ts). */
function chainWideParams(config: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (config.contractSizeLimit !== undefined)
    out.maxCodeSize = toMilestone(config.contractSizeLimit, 'config.contractSizeLimit')
  return out
}

/** Prague's request contracts at the addresses the config names. */
function requestContractParams(config: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  if (config.withdrawalRequestContractAddress !== undefined) {
    out.withdrawalRequestPredeployAddress = toAddressHex(
      config.withdrawalRequestContractAddress,
      'config.withdrawalRequestContractAddress',
    )
  }
  if (config.consolidationRequestContractAddress !== undefined) {
    out.consolidationRequestPredeployAddress = toAddressHex(
      config.consolidationRequestContractAddress,
      'config.consolidationRequestContractAddress',
    )
  }
  return out
}

/**
 * Amsterdam's builder request contracts (EIP-8282) at the addresses the config names; without them,
 * the library's addresses, which are Besu's defaults too (`RequestContractAddresses`).
 */
function builderContractParams(config: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, param] of [
    ['builderDepositRequestContractAddress', 'builderDepositContractAddress'],
    ['builderExitRequestContractAddress', 'builderExitContractAddress'],
  ]) {
    if (config[key] !== undefined) out[param] = toAddressHex(config[key], `config.${key}`)
  }
  return out
}

/** Each scheduled fork's definition with the parameters the config adds to it. */
function customForks(config: Record<string, unknown>, forks: string[]): Record<string, object> {
  const everywhere = chainWideParams(config)
  const requests = requestContractParams(config)
  const out: Record<string, object> = {}
  // The blob schedule in force so far: a BPO fork without an entry keeps it (Amsterdam alone does not
  // bring the library's mainnet BPO values with the BPO forks it fills in).
  let current: Record<string, unknown> | undefined
  for (const fork of forks) {
    const base = DEVELOPMENT_FORKS[fork] ?? builtin(fork) ?? CLASSIC_FORK_DEFINITIONS[fork] ?? { eips: [] }
    const params: Record<string, unknown> = { ...base.params, ...everywhere }
    const isBpo = /^bpo\d+$/.test(fork)
    const defaults = BLOB_DEFAULTS[fork]
    if (defaults) current = { ...defaults }
    const blob = BLOB_FORKS.has(fork) || isBpo ? blobParams(config, fork) : undefined
    if (blob) current = { ...current, ...blob }
    if (isBpo && current) Object.assign(params, current)
    else if (blob) Object.assign(params, blob)
    if (fork === 'prague') Object.assign(params, requests)
    if (fork === 'amsterdam') Object.assign(params, builderContractParams(config))
    out[fork] = { ...base, params }
  }
  return out
}

/** The TTD of `config`, if it has one (decimal or 0x-hex; JSON numbers of any size). */
export function terminalTotalDifficultyOf(config: Record<string, unknown>): bigint | undefined {
  const v = config.terminalTotalDifficulty
  return v === undefined ? undefined : toGenesisQuantity(v, 'config.terminalTotalDifficulty')
}

/**
 * Library chain parameters for a genesis: fork list, per-fork parameters, consensus, genesis header,
 * and Besu's milestones (`besuForkAt`). The fork list is in Besu's milestone order (block forks, the
 * DAO fork at its block, `mergeNetsplitBlock`, Paris, then the timestamp forks), so each fork brings
 * the rules of every one before it even when the schedule goes back.
 */
export function buildChainParams(
  input: ChainParamsInput,
): Record<string, unknown> & { milestones: BesuMilestone[]; lineage?: Map<string, Set<string>> } {
  const { config } = input
  allowHardforkNames(Object.keys(DEVELOPMENT_FORKS))
  const { scheduled, milestones } = scheduleMilestones(config, input.genesisTimestamp)
  const blockForks: HardforkTransitionConfig[] = [{ name: 'chainstart', block: 0 }]
  for (const s of scheduled) if (s.block !== null && !s.classic) blockForks.push({ name: s.fork, block: s.block })
  const classicForks = scheduled.filter((s) => s.classic).map((s) => ({ name: s.fork, block: s.block }))
  // The Ethereum forks the ETC milestones' specs build on, unscheduled when the config leaves them out.
  const unscheduled = new Set(
    classicForks.length === 0 ? [] : MIXED_CLASSIC_BASE_FORKS.filter((f) => !blockForks.some((h) => h.name === f)),
  )
  for (const fork of unscheduled) blockForks.push({ name: fork, block: null })
  const daoBlock = config.daoForkBlock === undefined ? 0 : toMilestone(config.daoForkBlock, 'config.daoForkBlock')
  if (daoBlock > 0) {
    // Besu checks the order of a chain with a DAO fork: the DAO fork goes before the first later block fork.
    const after = blockForks.findIndex((h) => (h.block ?? 0) > daoBlock)
    blockForks.splice(after === -1 ? blockForks.length : after, 0, { name: 'dao', block: daoBlock })
  }
  if (config.mergeNetsplitBlock !== undefined) {
    blockForks.push({
      name: 'mergeNetsplitBlock',
      block: toMilestone(config.mergeNetsplitBlock, 'config.mergeNetsplitBlock'),
    })
  }
  blockForks.push(...classicForks)
  const ttd = terminalTotalDifficultyOf(config)
  if (ttd !== undefined) {
    const block = ttd <= input.genesisDifficulty ? 0 : null
    blockForks.push({ name: 'paris', block, ttd: ttd.toString() } as HardforkTransitionConfig)
  }
  const timeForks = scheduled
    .filter((s) => s.block === null && !s.classic)
    .map((s) => ({ name: s.fork, block: null, timestamp: s.timestamp }))
  const hardforks = [...blockForks, ...timeForks]
  const names = hardforks.map((h) => h.name)
  const active = hardforks.filter((h) => h.block !== null || h.timestamp !== undefined)
  return {
    name: 'custom',
    chainId: toGenesisQuantity(config.chainId, 'config.chainId').toString(),
    genesis: input.genesis,
    hardforks,
    customHardforks: customForks(config, names),
    bootstrapNodes: [],
    consensus: consensusOf(config),
    depositContractAddress:
      config.depositContractAddress === undefined
        ? undefined
        : toAddressHex(config.depositContractAddress, 'config.depositContractAddress'),
    hardfork: active[active.length - 1].name,
    milestones,
    lineage: classicForks.length > 0 ? mixedLineage(names, unscheduled) : undefined,
  }
}

/** Besu's fixed difficulty (`fixeddifficulty`) of a proof-of-work chain, if its genesis sets one. */
export function fixedDifficulty(common: Common): bigint | undefined {
  const params = (common as unknown as { _chainParams: { consensus: { ethash?: { fixedDifficulty?: string } } } })
    ._chainParams
  const v = params.consensus.ethash?.fixedDifficulty
  return v === undefined ? undefined : BigInt(v)
}
