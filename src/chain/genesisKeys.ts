/**
 * The keys of a genesis file. Besu reads every key case-insensitively; Basalt rewrites them to
 * one spelling, refuses with the key's name what Besu knows but Basalt cannot run, and ignores
 * what Besu ignores. Objects keyed by data (alloc addresses, storage slots, blob schedule forks)
 * keep their keys.
 */
import { CLASSIC_KEYS } from './classicForks.ts'
import { GenesisError } from './genesisValues.ts'

/** Keys in their canonical spelling, at any level of the file. */
const CANONICAL_KEYS = [
  // top level
  'config',
  'alloc',
  'nonce',
  'timestamp',
  'extraData',
  'gasLimit',
  'difficulty',
  'mixHash',
  'coinbase',
  'number',
  'gasUsed',
  'parentHash',
  'baseFeePerGas',
  'excessBlobGas',
  'blobGasUsed',
  'parentBeaconBlockRoot',
  'requestsHash',
  'slotNumber',
  // config: milestones
  'chainId',
  'homesteadBlock',
  'daoForkBlock',
  'daoForkSupport',
  'eip150Block',
  'eip150Hash',
  'eip155Block',
  'eip158Block',
  'byzantiumBlock',
  'constantinopleBlock',
  'constantinopleFixBlock',
  'petersburgBlock',
  'istanbulBlock',
  'muirGlacierBlock',
  'berlinBlock',
  'londonBlock',
  'arrowGlacierBlock',
  'grayGlacierBlock',
  'mergeNetsplitBlock',
  'shanghaiTime',
  'cancunTime',
  'pragueTime',
  'osakaTime',
  'amsterdamTime',
  'futureEipsTime',
  'experimentalEipsTime',
  'terminalTotalDifficulty',
  'terminalTotalDifficultyPassed',
  'terminalBlockNumber',
  'terminalBlockHash',
  // config: Ethereum Classic milestones (classicForks.ts)
  ...CLASSIC_KEYS,
  'ecip1017EraRounds',
  // config: other settings
  'depositContractAddress',
  'withdrawalRequestContractAddress',
  'consolidationRequestContractAddress',
  'builderDepositRequestContractAddress',
  'builderExitRequestContractAddress',
  'ethash',
  'fixeddifficulty',
  'keccak256',
  'clique',
  'ibft',
  'ibft2',
  'qbft',
  'blobSchedule',
  'target',
  'max',
  'baseFeeUpdateFraction',
  'contractSizeLimit',
  'evmStackSize',
  'zeroBaseFee',
  'fixedBaseFee',
  'ecCurve',
  'discovery',
  'checkpoint',
  // alloc entries
  'balance',
  'code',
  'storage',
  'privateKey',
  // consensus sections
  'period',
  'epoch',
  'blockperiodseconds',
  'epochlength',
  'requesttimeoutseconds',
  'createemptyblocks',
  'startBlock',
  'ceil2Nby3Block',
]
const BY_LOWER = new Map(CANONICAL_KEYS.map((k) => [k.toLowerCase(), k]))
/** Objects whose keys are data (addresses, storage slots, fork names), not field names. */
const DATA_KEYED = new Set(['alloc', 'storage', 'blobSchedule'])

/** Boolean `config` switches (Besu's fee markets, see baseFee.ts). */
const SWITCHES = ['zeroBaseFee', 'fixedBaseFee']

/** Rewrites keys to their canonical spelling, recursively; data-keyed maps keep their keys (lower-cased). */
export function canonicalKeys(json: unknown): unknown {
  const walk = (v: unknown, isDataKeyed: boolean): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, false))
    if (v === null || typeof v !== 'object') return v
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) {
      const key = isDataKeyed ? k.toLowerCase() : (BY_LOWER.get(k.toLowerCase()) ?? canonicalBpo(k))
      out[key] = walk(x, isDataKeyed ? false : DATA_KEYED.has(key))
    }
    return out
  }
  return walk(json, false)
}

/** `BPO3TIME` → `bpo3Time`: any number of BPO forks. */
function canonicalBpo(key: string): string {
  const m = /^bpo(\d+)time$/i.exec(key)
  return m ? `bpo${m[1]}Time` : key
}

/**
 * Refuses `config` values Besu refuses; applies Besu's aliases. (`cancunEOFTime`, read by older Besu
 * releases only and scheduled by none today, and `verkleTime`, by none, are ignored as Besu ignores
 * them; docs/genesis.md.)
 */
export function checkConfigKeys(config: Record<string, unknown>): void {
  checkConsensusMigration(config)
  checkEpochLengths(config)
  for (const key of SWITCHES) {
    const v = config[key]
    if (v !== undefined && typeof v !== 'boolean')
      throw new GenesisError(`config.${key} must be true or false, got ${JSON.stringify(v)}`)
  }
  if (config.constantinopleFixBlock !== undefined) {
    if (config.petersburgBlock !== undefined) {
      throw new GenesisError(
        'config.constantinopleFixBlock: genesis files cannot specify both petersburgBlock and constantinopleFixBlock',
      )
    }
    config.petersburgBlock = config.constantinopleFixBlock
    delete config.constantinopleFixBlock
  }
}

/**
 * Besu refuses an epoch of no blocks in each PoA engine's section (its protocol schedules' `Epoch
 * length in config must be greater than zero`); a fraction or a non-number is refused here too, where
 * Besu's JSON reader would fail on it. Clique's older name `epoch` is checked alike.
 */
function checkEpochLengths(config: Record<string, unknown>): void {
  for (const kind of ['clique', 'ibft', 'ibft2', 'qbft']) {
    const section = config[kind]
    if (section === null || typeof section !== 'object') continue
    for (const key of kind === 'clique' ? ['epochlength', 'epoch'] : ['epochlength']) {
      const v = (section as Record<string, unknown>)[key]
      if (v === undefined) continue
      const n = typeof v === 'number' || (typeof v === 'string' && v.trim() !== '') ? Number(v) : Number.NaN
      if (!Number.isSafeInteger(n))
        throw new GenesisError(`config.${kind}.${key} must be a whole number of blocks, got ${JSON.stringify(v)}`)
      if (n <= 0) throw new GenesisError(`config.${kind}.${key}: Epoch length in config must be greater than zero`)
    }
  }
}

/**
 * Besu's consensus migration: a config with `qbft` and `ibft2` (or legacy IBFT 1.0's `ibft`) runs the
 * older protocol from the genesis and QBFT from `qbft.startBlock` (`ConsensusScheduleBesuControllerBuilder`;
 * the BFT schedule reads it). Besu's own refusals of a missing or non-positive start block, and of
 * IBFT 1.0 without QBFT to move to (Besu produces no IBFT 1.0 block).
 */
function checkConsensusMigration(config: Record<string, unknown>): void {
  if (config.ibft !== undefined && config.ibft2 === undefined && config.qbft === undefined)
    throw new GenesisError('config.ibft: IBFT1 (legacy) is no longer supported. Consider using IBFT2 or QBFT.')
  if ((config.ibft2 === undefined && config.ibft === undefined) || config.qbft === undefined) return
  const start = (config.qbft as Record<string, unknown> | null)?.startBlock
  if (start === undefined || start === null) throw new GenesisError('Missing QBFT startBlock config in genesis file')
  const n = typeof start === 'number' || typeof start === 'string' ? Number(start) : Number.NaN
  if (!Number.isSafeInteger(n) || n <= 0) throw new GenesisError('Invalid QBFT startBlock config in genesis file')
}
