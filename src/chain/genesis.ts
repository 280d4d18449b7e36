/**
 * Genesis files with Besu's semantics (keys read case-insensitively, values as Besu parses them,
 * forks scheduled as Besu schedules them: forkSchedule.ts), the dev preset, and the Common and the
 * genesis block they define. Every error names the field; the file loader adds the file's name.
 */
import { type Block, createBlock } from '@ethereumjs/block'
import { Common, type GenesisState } from '@ethereumjs/common'
import { KECCAK256_RLP, KECCAK256_RLP_ARRAY } from '@ethereumjs/util'
import { sha256 } from '@noble/hashes/sha2.js'
import { setNoSystemCalls, skipsSystemCalls } from '../evm/poaSystemCalls.ts'
import { setChainStackSize } from '../evm/stackSize.ts'
import { SYSTEM_CONTRACTS } from '../evm/systemContracts.ts'
import { bytesToHex, type Hex, toQuantity } from '../primitives/hex.ts'
import { JsonNumber, type JsonValue, parseJsonText } from '../primitives/jsonText.ts'
import { type BaseFeeMarket, baseFeeMarketOf, DEFAULT_MIN_GAS_PRICE, INITIAL_BASE_FEE } from './baseFee.ts'
import { isClassicConfig, useClassicRules, useForkLineage } from './classicForks.ts'
import { DEV_ACCOUNT_BALANCE_WEI, devAccounts } from './devAccounts.ts'
import { DEV_CHAIN_ID } from './devIds.ts'
import { buildChainParams, useBesuForkRule } from './forkSchedule.ts'
import { canonicalKeys, checkConfigKeys } from './genesisKeys.ts'
import {
  GenesisError,
  toAddressHex,
  toBytes,
  toGenesisQuantity,
  toMilestone,
  toObject,
  toWord,
} from './genesisValues.ts'

export type GenesisJson = Record<string, unknown> & {
  config: Record<string, unknown>
  alloc: Record<string, AllocJson>
}
interface AllocJson {
  balance?: unknown
  nonce?: unknown
  code?: unknown
  storage?: Record<string, unknown>
  privateKey?: unknown
}

export const DEV_GAS_LIMIT = 60_000_000n
/** Marks a genesis `config` that had no `chainId` (Besu: no chain id, so no replay-protected transactions). */
const NO_CHAIN_ID = Symbol('noChainId')

/** False for a chain whose genesis has no `chainId`: Besu refuses EIP-155 and typed transactions there. */
export function hasChainId(common: Common): boolean {
  return (common as Common & { hasNoChainId?: boolean }).hasNoChainId !== true
}

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

/**
 * A genesis with its keys in one spelling, Besu's aliases applied and Besu-known keys Basalt cannot
 * run refused (GenesisError naming the key). Values are checked when the chain is built from it.
 */
export function normalizeGenesis(json: unknown): GenesisJson {
  const g = canonicalKeys(json) as GenesisJson
  if (typeof g !== 'object' || g === null || Array.isArray(g)) throw new GenesisError('a genesis file is a JSON object')
  // Besu reads a file without `config` (its Olympic test genesis) as one with no milestones: Frontier.
  g.config ??= {}
  toObject(g.config, 'config')
  g.alloc ??= {}
  toObject(g.alloc, 'alloc')
  // JSON nulls stand for absent fields (execution-apis genesis.json writes `"baseFeePerGas": null`).
  for (const o of [g, g.config]) for (const [k, v] of Object.entries(o)) if (v === null) delete o[k]
  for (const [addr, acct] of Object.entries(g.alloc)) {
    const key = addr.startsWith('0x') ? addr : `0x${addr}`
    if (key !== addr) {
      delete g.alloc[addr]
      g.alloc[key] = acct
    }
  }
  // Without a chain id Besu takes mainnet's network id (1); the EVM library needs a chain id, so
  // Basalt uses that one for both, and refuses EIP-155 transactions as Besu does (it has none).
  if (g.config.chainId === undefined) {
    g.config.chainId = 1
    Object.defineProperty(g.config, NO_CHAIN_ID, { value: true })
  }
  checkConfigKeys(g.config)
  for (const [k, v] of Object.entries(HEADER_DEFAULTS)) g[k] ??= v
  return g
}

/**
 * Reads a genesis file's text: strict JSON (syntax errors give line and column), numbers kept
 * exact, every key and value checked. Errors name the file and the field.
 */
export function parseGenesisText(text: string, file: string): GenesisJson {
  try {
    const g = normalizeGenesis(plainJson(parseJsonText(text)))
    checkGenesisHeader(createChainCommon(g, {}))
    genesisState(g)
    return g
  } catch (e) {
    throw new GenesisError(`invalid genesis file ${file}: ${(e as Error).message}`)
  }
}

/** Refuses a genesis header the library cannot build, naming the header. */
function checkGenesisHeader(common: Common): void {
  try {
    createGenesisBlock(common, KECCAK256_RLP)
  } catch (e) {
    throw new GenesisError(`the genesis header: ${(e as Error).message.split('\n')[0]}`)
  }
}

/** Objects for maps; integers as numbers, or bigints past 2^53 (a mainnet-sized TTD). */
function plainJson(v: JsonValue): unknown {
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [k, plainJson(x)]))
  if (Array.isArray(v)) return v.map(plainJson)
  if (v instanceof JsonNumber) {
    if (!/^-?\d+$/.test(v.text)) return Number(v.text)
    const n = BigInt(v.text)
    return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n
  }
  return v
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
 * keccak-256, public-key recovery and SHA-256 when the caller loaded them.
 */
export interface CryptoHolder {
  kzg?: unknown
  keccak256?: (data: Uint8Array) => Uint8Array
  ecrecover?: (msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint) => Uint8Array
  sha256?: (data: Uint8Array) => Uint8Array
}

/** The genesis header fields of `genesis` as the library takes them (hex strings). */
function genesisHeader(g: GenesisJson): Record<string, string | undefined> {
  const quantity = (key: string) => (g[key] === undefined ? undefined : toQuantity(toGenesisQuantity(g[key], key)))
  const bytes = (key: string, length?: number) => {
    if (g[key] === undefined) return undefined
    return bytesToHex(length === undefined ? toBytes(g[key], key) : toWord(g[key], key, length))
  }
  const nonce = toGenesisQuantity(g.nonce, 'nonce')
  if (nonce >= 2n ** 64n) throw new GenesisError(`nonce does not fit 8 bytes: ${nonce}`)
  return {
    nonce: `0x${nonce.toString(16).padStart(16, '0')}`,
    timestamp: quantity('timestamp'),
    gasLimit: quantity('gasLimit'),
    difficulty: quantity('difficulty'),
    extraData: bytes('extraData'),
    mixHash: bytes('mixHash', 32),
    coinbase: bytes('coinbase', 20),
    parentHash: bytes('parentHash', 32),
    baseFeePerGas: genesisBaseFee(g),
    excessBlobGas: quantity('excessBlobGas'),
    blobGasUsed: quantity('blobGasUsed'),
    parentBeaconBlockRoot: bytes('parentBeaconBlockRoot', 32),
    // EIP-7843: Besu's GenesisConfig.getSlotNumber, 0 when absent; only an Amsterdam header has it.
    slotNumber: quantity('slotNumber'),
  }
}

/**
 * The genesis base fee as Besu gives it (`GenesisConfig.getGenesisBaseFeePerGas`): the file's, else
 * 1 gwei when `londonBlock` is 0, else none (whatever fork the genesis block runs).
 */
function genesisBaseFee(g: GenesisJson): Hex | undefined {
  if (g.baseFeePerGas !== undefined) return toQuantity(toGenesisQuantity(g.baseFeePerGas, 'baseFeePerGas'))
  const london = g.config.londonBlock
  if (london !== undefined && toMilestone(london, 'config.londonBlock') === 0) return toQuantity(INITIAL_BASE_FEE)
  return undefined
}

/**
 * The fork schedule of a genesis, with Besu's rules (see forkSchedule.ts); `baseFeeMarket` is the
 * chain's fee market (baseFee.ts), by default the genesis's with Besu's default minimum gas price.
 */
export function createChainCommon(
  genesis: GenesisJson,
  customCrypto: CryptoHolder,
  baseFeeMarket: BaseFeeMarket = baseFeeMarketOf(genesis.config, DEFAULT_MIN_GAS_PRICE),
): Common {
  const header = genesisHeader(genesis)
  const { hardfork, milestones, lineage, ...chain } = buildChainParams({
    config: genesis.config,
    genesis: header,
    genesisTimestamp: Number(BigInt(header.timestamp ?? 0)),
    genesisDifficulty: BigInt(header.difficulty ?? 0),
  })
  if (baseFeeMarket.kind === 'fixed') setFixedMarketParams(chain, baseFeeMarket.fee)
  const common = new Common({
    chain: chain as never,
    hardfork: hardfork as string,
    customCrypto: customCrypto as never,
  })
  useBesuForkRule(common, milestones)
  if (lineage) useForkLineage(common, lineage)
  if (isClassicConfig(genesis.config)) useClassicRules(common, genesis.config)
  const bft = bftConsensusOf(genesis)
  // The library knows ethash, clique and casper only: its PoS rules (difficulty 0, extraData of at
  // most 32 bytes) would refuse every BFT header, its PoW rules would pay a block reward and its PoA
  // rules expect a clique signer. A consensus type it does not know switches all three off; the BFT
  // header rules live in consensus/. Own properties survive `common.copy()`.
  if (bft) Object.assign(common, { consensusType: () => 'bft', consensusAlgorithm: () => bft.kind })
  if ((genesis.config as Record<symbol, unknown>)[NO_CHAIN_ID] === true) Object.assign(common, { hasNoChainId: true })
  if (genesis.config.evmStackSize !== undefined) setChainStackSize(common, evmStackSizeOf(genesis.config.evmStackSize))
  // Besu's PoA chains without all three request contract addresses make no system calls.
  if (skipsSystemCalls(genesis.config)) setNoSystemCalls(common)
  return common
}

/** Besu reads `evmStackSize` as a Java int. */
function evmStackSizeOf(v: unknown): number {
  const size = toMilestone(v, 'config.evmStackSize')
  if (size > 2 ** 31 - 1) throw new GenesisError(`config.evmStackSize is too large: ${size}`)
  return size
}

/**
 * Besu's fixed and zero base fee markets give the first London block after the genesis their fee,
 * and price blob gas at 0 (their blob gas price per gas is Besu's default, zero). The EVM library
 * refuses a first London block whose base fee is not its `initialBaseFee` (1 gwei), and prices blob
 * gas from `minBlobGas` (1 wei); its own params tables would reset both on every header, but a
 * fork's own params override them, so every fork carries the market's values. London at genesis
 * keeps the library's initial base fee: the genesis header's base fee defaults to 1 gwei, as in Besu.
 */
function setFixedMarketParams(chain: Record<string, unknown>, fee: bigint): void {
  const hardforks = chain.hardforks as { name: string; block: number | null }[]
  const forks = chain.customHardforks as Record<string, { params?: Record<string, unknown> }>
  const london = hardforks.find((h) => h.name === 'london')
  const isLondonLater = london !== undefined && london.block !== 0
  for (const [name, fork] of Object.entries(forks)) {
    const params: Record<string, unknown> = { ...fork.params, minBlobGas: 0 }
    if (name === 'london' && isLondonLater) params.initialBaseFee = toQuantity(fee)
    forks[name] = { ...fork, params }
  }
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
  // With both sections the chain migrates (`qbft.startBlock`): its genesis and first blocks are IBFT 2.0's.
  const kind = genesis.config.ibft2 !== undefined ? 'ibft2' : genesis.config.qbft !== undefined ? 'qbft' : undefined
  if (!kind) return undefined
  // A legacy IBFT 1.0 chain moving to QBFT: its first blocks (and their epochs) are IBFT 1.0's.
  const isLegacy = kind === 'qbft' && genesis.config.ibft !== undefined
  const o = (genesis.config[isLegacy ? 'ibft' : kind] ?? {}) as Record<string, unknown>
  const num = (v: unknown, fallback: number) => (v === undefined ? fallback : Number(v))
  return {
    kind,
    blockPeriodSeconds: num(o.blockperiodseconds, 1),
    requestTimeoutSeconds: num(o.requesttimeoutseconds, 1),
    epochLength: BigInt(num(o.epochlength, 30_000)),
  }
}

/**
 * The alloc as Besu reads it: balances and nonces in hex or decimal (absent: 0), storage slots and
 * values as hex of up to 32 bytes (`"0x01"` is slot 1), `privateKey` and unknown fields ignored.
 */
export function genesisState(genesis: GenesisJson): GenesisState {
  const out: GenesisState = {}
  for (const [address, raw] of Object.entries(genesis.alloc)) {
    const field = `alloc.${address}`
    const key = toAddressHex(address, field)
    const a = toObject(raw, field) as AllocJson
    const balance = a.balance == null ? 0n : toGenesisQuantity(a.balance, `${field}.balance`)
    const nonce = a.nonce == null ? 0n : toGenesisQuantity(a.nonce, `${field}.nonce`)
    const code = a.code == null ? undefined : bytesToHex(toBytes(a.code, `${field}.code`))
    const storage: [Hex, Hex][] = Object.entries(a.storage == null ? {} : toObject(a.storage, `${field}.storage`)).map(
      ([slot, value]) => [
        bytesToHex(toWord(slot, `${field}.storage key`)),
        bytesToHex(toWord(value, `${field}.storage.${slot}`)),
      ],
    )
    ;(out as Record<string, unknown>)[key] = [toQuantity(balance), code ?? '0x', storage, toQuantity(nonce)]
  }
  return out
}

/**
 * The genesis block of `common`'s chain over a state root, with Besu's header. Besu writes the
 * genesis base fee (`genesisBaseFee`) whatever fork the genesis runs, and its header encoding stops
 * at the first absent field of London and later forks: a genesis before London with a base fee
 * (Besu's old `shanghai.json`) has a header of London's shape, and a genesis on London or later
 * without one (`shanghaiTime: 0` without `londonBlock: 0`, Besu's `future.json`) has the 15 fields
 * of a header before London. The blocks after it keep their own fork's shape.
 */
export function createGenesisBlock(common: Common, stateRoot: Uint8Array): Block {
  const c = common.copy()
  c.setHardforkBy({ blockNumber: 0, timestamp: c.genesis().timestamp })
  const hasBaseFee = c.genesis().baseFeePerGas !== undefined
  const rules = hasBaseFee === c.isActivatedEIP(1559) ? c : withGenesisHeaderShape(c, hasBaseFee)
  const fields: Record<string, unknown> = { ...c.genesis() }
  // Fields after the base fee that a 15-field header cannot carry (Besu does not encode them either).
  if (!rules.isActivatedEIP(4844)) for (const k of ['excessBlobGas', 'blobGasUsed']) delete fields[k]
  if (!rules.isActivatedEIP(4788)) delete fields.parentBeaconBlockRoot
  if (!rules.isActivatedEIP(7843)) delete fields.slotNumber
  return createBlock(
    {
      header: {
        ...fields,
        number: 0,
        stateRoot,
        withdrawalsRoot: rules.isActivatedEIP(4895) ? KECCAK256_RLP : undefined,
        requestsHash: rules.isActivatedEIP(7685) ? sha256(new Uint8Array(0)) : undefined,
        // EIP-7928: the genesis executes nothing, its access list is the empty list.
        blockAccessListHash: rules.isActivatedEIP(7928) ? KECCAK256_RLP_ARRAY : undefined,
      },
      withdrawals: rules.isActivatedEIP(4895) ? [] : undefined,
    },
    { common: rules },
  )
}

/** Header fields of London and the forks after it, in their encoding order (all follow the base fee). */
const LONDON_AND_LATER_HEADER_EIPS = new Set([1559, 4895, 4844, 4788, 7685, 7928, 7843])

/**
 * A copy of the genesis rules whose header has the base fee field (`hasBaseFee`, on a fork before
 * London) or none of London's and later fields (on London or later without a base fee). Own
 * properties survive the copies the header makes; nothing else of the fork changes.
 */
function withGenesisHeaderShape(common: Common, hasBaseFee: boolean): Common {
  const c = common.copy()
  const isActivated = Common.prototype.isActivatedEIP
  const isActivatedEIP = function (this: Common, eip: number): boolean {
    if (hasBaseFee) return eip === 1559 || isActivated.call(this, eip)
    return !LONDON_AND_LATER_HEADER_EIPS.has(eip) && isActivated.call(this, eip)
  }
  Object.assign(c, { isActivatedEIP })
  return c
}
