/**
 * The BFT parameters in force at each block: the genesis `config.qbft` / `config.ibft2` section,
 * then Besu's `config.transitions.qbft` / `config.transitions.ibft2` entries, each applying from its
 * `block` on and overriding only the fields it names (as Besu's forks schedule merges them):
 * - `blockperiodseconds`, `emptyblockperiodseconds` (QBFT; Besu's default 0: no wait),
 *   `requesttimeoutseconds`;
 * - `validators`: from that block on, the validator set is this list, whatever the votes say
 *   (Besu's validator overrides);
 * - `validatorselectionmode` `blockheader` | `contract` with `validatorcontractaddress` (QBFT):
 *   validators read by calling `getValidators()` on the contract at the parent's state;
 * - `blockreward` (wei, a `0x` hex or decimal string; default 0) and `miningbeneficiary` (an address;
 *   absent or blank in a transition: the block's coinbase, its proposer): see `rewardOf`.
 * Bad values, and transition fields it does not read, throw `BftScheduleError` naming the field, at start.
 *
 * A genesis with both sections and `qbft.startBlock` migrates, as Besu's consensus schedule: IBFT 2.0
 * (its section and the `transitions.ibft2` entries before the start block) rules the blocks below
 * `startBlock`, QBFT (its own section, with the `transitions.qbft` entries up to the start block
 * folded in, then the later ones) rules the blocks from it. Each block's parameters name the protocol
 * (`kind`) that encodes, hashes, seals and decides it.
 */
import type { BlockReward } from '../evm/blockReward.ts'
import { bytesToHex, type Hex, hexToBytes } from '../primitives/hex.ts'
import type { BftKind } from './bftExtraData.ts'

export type ValidatorSelection = { mode: 'blockheader' } | { mode: 'contract'; address: Uint8Array }

export interface BftParams {
  /** The protocol of the block: its extraData layout, hash, seals and consensus messages. */
  kind: BftKind
  blockPeriodSeconds: number
  emptyBlockPeriodSeconds: number
  requestTimeoutSeconds: number
  /** A validator set imposed by a transition, from its block on. */
  validators?: Uint8Array[]
  selection: ValidatorSelection
  /** Wei paid at the end of every block (empty ones too); 0: none. */
  blockReward: bigint
  /** Who is paid the reward; undefined: the block's coinbase. */
  miningBeneficiary?: Uint8Array
}

interface Fork {
  block: bigint
  params: BftParams
}

/**
 * The fields a transition may name: Besu's `BftFork` / `QbftFork` ones, plus `requesttimeoutseconds`.
 * Any other (`epochlength`, Besu's experimental `xblockperiodmilliseconds`, a misspelling) is refused
 * by name rather than ignored, so a transition never silently fails to apply.
 */
const TRANSITION_FIELDS = [
  'block',
  'blockperiodseconds',
  'emptyblockperiodseconds',
  'requesttimeoutseconds',
  'validators',
  'blockreward',
  'miningbeneficiary',
  'validatorselectionmode',
  'validatorcontractaddress',
]

export class BftScheduleError extends Error {
  override name = 'BftScheduleError'
}

const fail = (msg: string): never => {
  throw new BftScheduleError(msg)
}

function seconds(v: unknown, field: string, min: number): number | undefined {
  if (v === undefined) return undefined
  const n = typeof v === 'string' ? Number(v) : v
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min) fail(`${field} must be an integer of at least ${min}`)
  return n as number
}

function address(v: unknown, field: string): Uint8Array {
  if (typeof v !== 'string' || !/^(0x)?[0-9a-fA-F]{40}$/.test(v)) fail(`${field} must be a 20-byte hex address`)
  return hexToBytes((v as string).startsWith('0x') ? (v as Hex) : `0x${v}`)
}

/** Besu's reading of `blockreward`: a `0x` hex string, else a decimal one (a JSON number too). */
function wei(v: unknown, field: string): bigint | undefined {
  if (v === undefined) return undefined
  const bad = () => fail(`${field} must be a non-negative amount of wei (hex or decimal), got ${JSON.stringify(v)}`)
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? BigInt(v) : bad()
  if (typeof v !== 'string') return bad()
  const s = v.trim()
  if (/^0x[0-9a-f]*$/i.test(s)) return s.length === 2 ? 0n : BigInt(s)
  return /^[0-9]+$/.test(s) ? BigInt(s) : bad()
}

/** `base` with the fields `section` (a genesis section or a transition) sets. */
function merge(kind: BftKind, base: BftParams, section: Record<string, unknown>, where: string): BftParams {
  const out = { ...base }
  out.blockPeriodSeconds =
    seconds(section.blockperiodseconds, `${where}.blockperiodseconds`, 1) ?? base.blockPeriodSeconds
  out.emptyBlockPeriodSeconds =
    seconds(section.emptyblockperiodseconds, `${where}.emptyblockperiodseconds`, 0) ?? base.emptyBlockPeriodSeconds
  out.requestTimeoutSeconds =
    seconds(section.requesttimeoutseconds, `${where}.requesttimeoutseconds`, 1) ?? base.requestTimeoutSeconds
  if (section.validators !== undefined) {
    if (!Array.isArray(section.validators) || section.validators.length === 0)
      fail(`${where}.validators must be a non-empty list of addresses`)
    const list = (section.validators as unknown[]).map((v, i) => address(v, `${where}.validators[${i}]`))
    out.validators = [...new Set(list.map(bytesToHex))].sort().map(hexToBytes)
  }
  const mode = section.validatorselectionmode
  if (mode !== undefined) {
    if (kind !== 'qbft') fail(`${where}.validatorselectionmode is QBFT's; IBFT 2.0 reads validators from headers only`)
    if (mode === 'blockheader') out.selection = { mode: 'blockheader' }
    else if (mode === 'contract') {
      const where2 = `${where}.validatorcontractaddress`
      out.selection = { mode: 'contract', address: address(section.validatorcontractaddress, where2) }
    } else fail(`${where}.validatorselectionmode must be "blockheader" or "contract", got ${JSON.stringify(mode)}`)
    out.validators = undefined
  } else if (section.validatorcontractaddress !== undefined && base.selection.mode === 'contract') {
    out.selection = {
      mode: 'contract',
      address: address(section.validatorcontractaddress, `${where}.validatorcontractaddress`),
    }
  }
  out.blockReward = wei(section.blockreward, `${where}.blockreward`) ?? base.blockReward
  const beneficiary = section.miningbeneficiary
  if (beneficiary !== undefined) {
    // As Besu: a blank value (a transition's way back to the coinbase) sets none.
    const isBlank = typeof beneficiary === 'string' && beneficiary.trim() === ''
    out.miningBeneficiary = isBlank ? undefined : address(beneficiary, `${where}.miningbeneficiary`)
  }
  return out
}

/**
 * `qbft.startBlock` of a config that names QBFT and IBFT 2.0 or legacy IBFT 1.0 (the genesis reader
 * has already refused a missing or non-positive one, as Besu does).
 */
export function qbftStartBlock(config: Record<string, unknown>): bigint | undefined {
  if ((config.ibft2 === undefined && config.ibft === undefined) || config.qbft === undefined) return undefined
  const start = (config.qbft as Record<string, unknown> | null)?.startBlock
  const n = typeof start === 'number' || typeof start === 'string' ? Number(start) : Number.NaN
  if (!Number.isSafeInteger(n) || n <= 0) fail('config.qbft.startBlock must be a positive block number')
  return BigInt(n)
}

/** The fields of a legacy `config.ibft` section the schedule reads (Besu's `IbftLegacyConfigOptions`). */
const LEGACY_FIELDS = ['blockperiodseconds', 'requesttimeoutseconds']

function pick(section: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((f) => section[f] !== undefined).map((f) => [f, section[f]]))
}

/** `ceil2Nby3Block` of a legacy section, any spelling (Besu's JSON reader ignores the case of keys). */
function legacyCeil2Nby3Block(section: Record<string, unknown>): bigint {
  const key = Object.keys(section).find((k) => k.toLowerCase() === 'ceil2nby3block')
  const v = key === undefined ? 0 : section[key]
  const n = typeof v === 'number' || typeof v === 'string' ? Number(v) : Number.NaN
  if (!Number.isSafeInteger(n) || n < 0) fail(`config.ibft.${key} must be a block number`)
  return BigInt(n)
}

const DEFAULTS: Omit<BftParams, 'kind'> = {
  blockPeriodSeconds: 1,
  emptyBlockPeriodSeconds: 0,
  requestTimeoutSeconds: 1,
  selection: { mode: 'blockheader' },
  blockReward: 0n,
}

/**
 * The forks of one protocol from block `from` (its section there, then its transitions) until
 * `until` (exclusive): transitions at or before `from` fold into its first fork, those from `until`
 * on are not its blocks.
 */
function kindForks(kind: BftKind, config: Record<string, unknown>, from: bigint, until?: bigint): Fork[] {
  const section = (config[kind] ?? {}) as Record<string, unknown>
  const first: Fork = { block: from, params: merge(kind, { ...DEFAULTS, kind }, section, `config.${kind}`) }
  const forks: Fork[] = [first]
  const transitions = (config.transitions as Record<string, unknown> | undefined)?.[kind]
  if (transitions !== undefined && !Array.isArray(transitions)) fail(`config.transitions.${kind} must be a list`)
  const entries = ((transitions ?? []) as Record<string, unknown>[]).map((t, i) => {
    const where = `config.transitions.${kind}[${i}]`
    if (typeof t !== 'object' || t === null) fail(`${where} must be an object`)
    const unknown = Object.keys(t).find((k) => !TRANSITION_FIELDS.includes(k))
    if (unknown !== undefined)
      fail(`${where}.${unknown} is not supported in a transition (fields read: ${TRANSITION_FIELDS.join(', ')})`)
    const block = seconds(t.block, `${where}.block`, 1) ?? fail(`${where}.block is required`)
    return { block: BigInt(block), t, where }
  })
  entries.sort((a, b) => (a.block < b.block ? -1 : a.block > b.block ? 1 : 0))
  let last = -1n
  for (const { block, t, where } of entries) {
    if (last === block) fail(`${where}: two transitions at block ${block}`)
    last = block
    if (until !== undefined && block >= until) continue
    const prev = forks[forks.length - 1]
    if (block <= from) prev.params = merge(kind, prev.params, t, where)
    else forks.push({ block, params: merge(kind, prev.params, t, where) })
  }
  return forks
}

export class BftSchedule {
  private readonly forks: Fork[]

  /** The protocol of the genesis block. */
  readonly kind: BftKind
  /** Where QBFT takes over from IBFT 2.0 or IBFT 1.0 (`qbft.startBlock`), on a migrating chain. */
  readonly migrationBlock?: bigint
  /** On a chain migrating from legacy IBFT 1.0: its blocks are those below `migrationBlock`. */
  readonly isLegacyIbft: boolean
  /** IBFT 1.0's `ceil2Nby3Block`: from it on, ceil(2n/3) committed seals rather than 2F + 1 (default 0). */
  readonly ceil2Nby3Block: bigint

  /**
   * The schedule of a genesis `config` whose consensus is `kind` (the genesis block's: IBFT 2.0 on
   * a migrating chain); the migration, when the config has one, is read from the config.
   */
  constructor(kind: BftKind, config: Record<string, unknown>) {
    this.migrationBlock = qbftStartBlock(config)
    // Besu reads IBFT 2.0 first when a config names both it and IBFT 1.0.
    this.isLegacyIbft = this.migrationBlock !== undefined && config.ibft2 === undefined
    const legacy = (this.isLegacyIbft ? config.ibft : undefined) as Record<string, unknown> | undefined
    this.ceil2Nby3Block = legacy ? legacyCeil2Nby3Block(legacy) : 0n
    // A legacy chain's only protocol is QBFT: its IBFT 1.0 blocks are imported, never decided here.
    this.kind = legacy ? 'qbft' : this.migrationBlock === undefined ? kind : 'ibft2'
    const forks = legacy
      ? [
          {
            block: 0n,
            params: merge('qbft', { ...DEFAULTS, kind: 'qbft' }, pick(legacy, LEGACY_FIELDS), 'config.ibft'),
          },
        ]
      : kindForks(this.kind, config, 0n, this.migrationBlock)
    if (this.migrationBlock !== undefined) forks.push(...kindForks('qbft', config, this.migrationBlock))
    this.forks = forks
  }

  /** Whether block `number` is a legacy IBFT 1.0 block (imported only, in its own layout and hash). */
  isLegacyBlock(number: bigint): boolean {
    return this.isLegacyIbft && number < (this.migrationBlock as bigint)
  }

  /** The format of block `number`: `ibft` for a legacy IBFT 1.0 block, else its protocol. */
  formatAt(number: bigint): BftKind | 'ibft' {
    return this.isLegacyBlock(number) ? 'ibft' : this.kindAt(number)
  }

  /** The protocol of block `number`. */
  kindAt(number: bigint): BftKind {
    return this.at(number).kind
  }

  /** The protocols of the chain, in order (two on a chain migrating from IBFT 2.0). */
  get kinds(): BftKind[] {
    return this.migrationBlock === undefined || this.isLegacyIbft ? [this.kind] : ['ibft2', 'qbft']
  }

  /** The parameters of block `number`. */
  at(number: bigint): BftParams {
    for (let i = this.forks.length - 1; i > 0; i--) if (this.forks[i].block <= number) return this.forks[i].params
    return this.forks[0].params
  }

  /**
   * The reward of block `number` proposed by `coinbase`: `blockreward` wei to `miningbeneficiary`,
   * else to the coinbase; none when the reward is 0 (Besu skips a zero reward: no account touched).
   */
  rewardOf(number: bigint, coinbase: Uint8Array): BlockReward | undefined {
    const { blockReward, miningBeneficiary } = this.at(number)
    return blockReward === 0n ? undefined : { beneficiary: miningBeneficiary ?? coinbase, amount: blockReward }
  }

  /** Whether any block is ruled by validators other than the headers' votes. */
  get hasContractValidators(): boolean {
    return this.forks.some((f) => f.params.selection.mode === 'contract')
  }
}
