/**
 * Genesis files in Besu's/geth's format (keys read case-insensitively, as Besu does), the dev preset,
 * and the Common (fork schedule) and genesis block they define.
 */
import { type Block, createBlock } from '@ethereumjs/block'
import {
  Common,
  type GenesisState,
  type GethGenesis,
  parseGethGenesis,
  parseGethGenesisState,
} from '@ethereumjs/common'
import { KECCAK256_RLP } from '@ethereumjs/util'
import { sha256 } from '@noble/hashes/sha2.js'
import { DEV_ACCOUNT_BALANCE_WEI, devAccounts } from './devAccounts.ts'
import { SYSTEM_CONTRACTS } from './systemContracts.ts'

export type GenesisJson = Record<string, unknown> & {
  config: Record<string, unknown>
  alloc: Record<string, AllocJson>
}
interface AllocJson {
  balance?: string
  nonce?: string
  code?: string
  storage?: Record<string, string>
}

export const DEV_CHAIN_ID = 1337n
/** Besu's dev network answers net_version 2018. */
export const DEV_NETWORK_ID = 2018n
export const DEV_GAS_LIMIT = 60_000_000n

/** Keys of a geth genesis in their canonical spelling; input keys are matched case-insensitively. */
const CANONICAL_KEYS = [
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
  'bpo1Time',
  'bpo2Time',
  'bpo3Time',
  'bpo4Time',
  'bpo5Time',
  'terminalTotalDifficulty',
  'terminalTotalDifficultyPassed',
  'depositContractAddress',
  'ethash',
  'clique',
  'ibft2',
  'qbft',
  'blobSchedule',
  'target',
  'max',
  'baseFeeUpdateFraction',
  'balance',
  'code',
  'storage',
  'ecCurve',
  'period',
  'epoch',
  'blockperiodseconds',
  'epochlength',
  'requesttimeoutseconds',
  'fixeddifficulty',
  'contractSizeLimit',
]
const BY_LOWER = new Map(CANONICAL_KEYS.map((k) => [k.toLowerCase(), k]))
/** Header fields a genesis may leave out, with the values Besu assumes. */
const HEADER_DEFAULTS: Record<string, string> = {
  nonce: '0x0',
  timestamp: '0x0',
  extraData: '0x',
  gasLimit: '0x1fffffffffffff',
  difficulty: '0x1',
  mixHash: `0x${'00'.repeat(32)}`,
  coinbase: `0x${'00'.repeat(20)}`,
}
/** Objects whose keys are data (addresses, storage slots, fork names), not field names. */
const DATA_KEYED = new Set(['alloc', 'storage', 'blobSchedule'])

/** Rewrites keys to their canonical spelling, recursively; data-keyed maps keep their keys. */
export function normalizeGenesis(json: unknown): GenesisJson {
  const walk = (v: unknown, isDataKeyed: boolean): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, false))
    if (v === null || typeof v !== 'object') return v
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) {
      const key = isDataKeyed ? k.toLowerCase() : (BY_LOWER.get(k.toLowerCase()) ?? k)
      out[key] = walk(x, isDataKeyed ? false : DATA_KEYED.has(key))
    }
    return out
  }
  const g = walk(json, false) as GenesisJson
  if (typeof g.config !== 'object' || g.config === null) throw new Error('genesis file has no "config" object')
  g.alloc ??= {}
  // JSON nulls stand for absent fields (execution-apis genesis.json writes `"baseFeePerGas": null`).
  for (const [k, v] of Object.entries(g)) if (v === null) delete g[k]
  for (const [addr, acct] of Object.entries(g.alloc)) {
    const key = addr.startsWith('0x') ? addr : `0x${addr}`
    if (key !== addr) {
      delete g.alloc[addr]
      g.alloc[key] = acct
    }
  }
  if (g.config.chainId === undefined) throw new Error('genesis config has no chainId')
  for (const [k, v] of Object.entries(HEADER_DEFAULTS)) g[k] ??= v
  return g
}

/** The dev preset: chain id 1337, every fork up to Osaka at genesis, post-merge, funded dev accounts. */
export function devGenesis(): GenesisJson {
  const alloc: Record<string, AllocJson> = {}
  for (const c of SYSTEM_CONTRACTS) alloc[c.address] = { balance: '0x0', nonce: '0x1', code: c.code }
  for (const a of devAccounts()) alloc[a.address] = { balance: `0x${DEV_ACCOUNT_BALANCE_WEI.toString(16)}` }
  const forks = [
    'homestead',
    'eip150',
    'eip155',
    'eip158',
    'byzantium',
    'constantinople',
    'petersburg',
    'istanbul',
    'muirGlacier',
    'berlin',
    'london',
    'arrowGlacier',
    'grayGlacier',
    'mergeNetsplit',
  ]
  const config: Record<string, unknown> = { chainId: Number(DEV_CHAIN_ID) }
  for (const f of forks) config[`${f}Block`] = 0
  Object.assign(config, {
    shanghaiTime: 0,
    cancunTime: 0,
    pragueTime: 0,
    osakaTime: 0,
    terminalTotalDifficulty: 0,
    terminalTotalDifficultyPassed: true,
    depositContractAddress: '0x00000000219ab540356cbb839cbe05303d7705fa',
    blobSchedule: {
      cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
      prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
    },
  })
  return {
    config,
    alloc,
    nonce: '0x0',
    timestamp: '0x0',
    extraData: '0x',
    gasLimit: `0x${DEV_GAS_LIMIT.toString(16)}`,
    difficulty: '0x0',
    mixHash: `0x${'00'.repeat(32)}`,
    coinbase: `0x${'00'.repeat(20)}`,
    baseFeePerGas: '0x3b9aca00',
  }
}

/**
 * A holder for optional crypto: KZG, filled in later, when a blob transaction needs it; a faster
 * keccak-256 when the caller loaded one.
 */
export interface CryptoHolder {
  kzg?: unknown
  keccak256?: (data: Uint8Array) => Uint8Array
}

/**
 * The fork schedule of a genesis. The library's geth parser turns a BPO `blobSchedule` entry into
 * Cancun-style params and drops the `target`/`max` that BPO forks read, so those are put back here.
 */
export function createChainCommon(genesis: GenesisJson, customCrypto: CryptoHolder): Common {
  const params = parseGethGenesis(genesis as unknown as GethGenesis, 'custom') as ReturnType<
    typeof parseGethGenesis
  > & {
    customHardforks?: Record<string, { params?: Record<string, unknown> }>
  }
  const schedule = (genesis.config.blobSchedule ?? {}) as Record<string, { target: number; max: number }>
  for (const [fork, entry] of Object.entries(schedule)) {
    const custom = params.customHardforks?.[fork]
    if (fork.startsWith('bpo') && custom?.params) Object.assign(custom.params, { target: entry.target, max: entry.max })
  }
  const common = new Common({
    chain: { ...params, name: 'custom' } as never,
    hardfork: params.hardfork,
    customCrypto: customCrypto as never,
  })
  const bft = bftConsensusOf(genesis)
  // The library knows ethash, clique and casper only: its PoS rules (difficulty 0, extraData of at
  // most 32 bytes) would refuse every BFT header, its PoW rules would pay a block reward and its PoA
  // rules expect a clique signer. A consensus type it does not know switches all three off; the BFT
  // header rules live in consensus/. Own properties survive `common.copy()`.
  if (bft) Object.assign(common, { consensusType: () => 'bft', consensusAlgorithm: () => bft.kind })
  return common
}

/** The BFT options of a genesis `config.qbft` / `config.ibft2`, with Besu's defaults. */
export interface BftGenesisOptions {
  kind: 'qbft' | 'ibft2'
  blockPeriodSeconds: number
  requestTimeoutSeconds: number
  epochLength: bigint
}

/** The BFT consensus a genesis names (`qbft` or `ibft2` in its config), or undefined for any other. */
export function bftConsensusOf(genesis: GenesisJson): BftGenesisOptions | undefined {
  const kind = genesis.config.qbft !== undefined ? 'qbft' : genesis.config.ibft2 !== undefined ? 'ibft2' : undefined
  if (!kind) return undefined
  const o = (genesis.config[kind] ?? {}) as Record<string, unknown>
  const num = (v: unknown, fallback: number) => (v === undefined ? fallback : Number(v))
  return {
    kind,
    blockPeriodSeconds: num(o.blockperiodseconds, 1),
    requestTimeoutSeconds: num(o.requesttimeoutseconds, 1),
    epochLength: BigInt(num(o.epochlength, 30_000)),
  }
}

/** The alloc of a genesis in the library's form. */
export function genesisState(genesis: GenesisJson): GenesisState {
  return parseGethGenesisState(genesis as unknown as GethGenesis)
}

/** The genesis block of `common`'s chain over a state root. */
export function createGenesisBlock(common: Common, stateRoot: Uint8Array): Block {
  const c = common.copy()
  c.setHardforkBy({ blockNumber: 0, timestamp: c.genesis().timestamp })
  return createBlock(
    {
      header: {
        ...c.genesis(),
        number: 0,
        stateRoot,
        withdrawalsRoot: c.isActivatedEIP(4895) ? KECCAK256_RLP : undefined,
        requestsHash: c.isActivatedEIP(7685) ? sha256(new Uint8Array(0)) : undefined,
      },
      withdrawals: c.isActivatedEIP(4895) ? [] : undefined,
    },
    { common: c },
  )
}
