/**
 * The BFT parts of a node on an IBFT 2.0 / QBFT genesis: block hashes and header rules for the
 * chain (also for `blocks import`), the consensus subprotocol (`istanbul/100`, IBFT 2.0's `IBF/1`)
 * that carries the validators' messages between nodes, and the validator that runs the rounds. A
 * node without a peer-to-peer network has the transport of a network of one validator. A chain
 * migrating from IBFT 2.0 to QBFT (`qbft.startBlock`) has each of these follow the protocol of the
 * block's number, and offers both subprotocols, as Besu's consensus schedule does. A chain migrating
 * from legacy IBFT 1.0 hashes and checks its blocks below the start block by IBFT 1.0's rules and runs
 * QBFT only (the IBFT 1.0 blocks are imported, never produced).
 */
import type { BlockHeader } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { Chain } from '../chain/chain.ts'
import type { BftGenesisOptions, GenesisJson } from '../chain/genesis.ts'
import type { SealRules } from '../chain/headerValidation.ts'
import { type BftKind, type BftKindOf, decodeBftExtraData } from '../consensus/bftExtraData.ts'
import { addressOf, bftBlockHash, installBftBlockHash, installBlockHasher } from '../consensus/bftHashing.ts'
import { bftSealRules } from '../consensus/bftHeaderRules.ts'
import { BftSchedule } from '../consensus/bftSchedule.ts'
import { decodeLegacyExtraData, legacyBlockHash, validateLegacyHeader } from '../consensus/ibftLegacy.ts'
import { type BftTransport, soloTransport } from '../consensus/qbft/transport.ts'
import { type BlockFormatOf, ValidatorTracker } from '../consensus/voteTally.ts'
import { BftProtocol } from '../p2p/bft/bftProtocol.ts'
import type { Clock } from '../primitives/clock.ts'
import { hexToBytes } from '../primitives/hex.ts'
import { ContractValidators } from '../producer/bftContractValidators.ts'
import { BftValidator, type BftValidatorOptions } from '../producer/bftValidator.ts'
import type { TxPool } from '../txpool/txPool.ts'

export interface BftChain {
  options: BftGenesisOptions
  tracker: ValidatorTracker
  /** The parameters of each block: the genesis section and its `transitions`. */
  schedule: BftSchedule
  /** QBFT validators read from a contract, where the schedule says so. */
  contract: ContractValidators
}

/**
 * Makes `common`'s headers hash as BFT blocks do; call before any header of the chain is built.
 * Refuses a genesis whose extraData does not list the validators in `options.kind`'s layout, as
 * Besu refuses to start on it: no block could ever be validated.
 */
export function prepareBftCommon(common: Common, options: BftGenesisOptions, genesis: GenesisJson): void {
  // Refuses bad timing, validator or transition settings before anything is opened.
  const schedule = new BftSchedule(options.kind, genesis.config as Record<string, unknown>)
  const extraData = typeof genesis.extraData === 'string' ? genesis.extraData : '0x'
  const kind = schedule.formatAt(0n)
  try {
    if (kind === 'ibft') decodeLegacyExtraData(hexToBytes(extraData))
    else decodeBftExtraData(kind, hexToBytes(extraData))
  } catch (e) {
    const hint = kind === 'ibft' ? '' : '; basalt operator generate-blockchain-config writes one'
    throw new Error(`the genesis extraData is not ${kind} extraData (${(e as Error).message})${hint}`)
  }
  if (schedule.isLegacyIbft)
    installBlockHasher(common, (h) =>
      schedule.isLegacyBlock(h.number) ? legacyBlockHash(h) : bftBlockHash(schedule.kindAt(h.number), h),
    )
  else installBftBlockHash(common, kindsOf(schedule))
}

/**
 * Blocks per epoch: the genesis section's, or on a migrating chain each protocol's own section's
 * (Besu's default 30000) for its blocks.
 */
function epochLengthsOf(
  schedule: BftSchedule,
  options: BftGenesisOptions,
  genesis: GenesisJson,
): bigint | ((number: bigint) => bigint) {
  const start = schedule.migrationBlock
  if (start === undefined) return options.epochLength
  const qbft = (genesis.config.qbft ?? {}) as Record<string, unknown>
  const qbftEpoch = qbft.epochlength === undefined ? 30_000n : BigInt(Number(qbft.epochlength))
  return (n) => (n < start ? options.epochLength : qbftEpoch)
}

/** The protocol of each block: one, or (a migrating chain) the schedule's by number. */
function kindsOf(schedule: BftSchedule): BftKindOf {
  return schedule.migrationBlock === undefined ? schedule.kind : (n) => schedule.kindAt(n)
}

/** The format of each block: its protocol's, or legacy IBFT 1.0's below the start block of QBFT. */
function formatsOf(schedule: BftSchedule): BlockFormatOf {
  return schedule.isLegacyIbft ? (n) => schedule.formatAt(n) : kindsOf(schedule)
}

/**
 * The header rules of a chain migrating from legacy IBFT 1.0: Besu's IBFT 1.0 rules below the QBFT
 * start block (blocks imported only), `rules` from it on.
 */
function withLegacyRules(rules: SealRules, schedule: BftSchedule, tracker: ValidatorTracker): SealRules {
  return {
    prepare: rules.prepare,
    validate: (header, parent) => {
      if (!schedule.isLegacyBlock(header.number)) return rules.validate(header, parent)
      validateLegacyHeader(header, parent, {
        blockPeriodSeconds: schedule.at(header.number).blockPeriodSeconds,
        ceil2Nby3Block: schedule.ceil2Nby3Block,
        validators: tracker.validatorsAfter(parent),
        nowSec: BigInt(Math.floor(Date.now() / 1000)),
      })
    },
  }
}

/** Gives the opened chain its BFT header rules; answers what the validator and the RPC methods need. */
export function attachBftRules(chain: Chain, options: BftGenesisOptions, genesis: GenesisJson): BftChain {
  const schedule = new BftSchedule(options.kind, genesis.config as Record<string, unknown>)
  const contract = new ContractValidators(chain, schedule)
  const overrideAfter = (parent: BlockHeader) =>
    contract.validatorsAfter(parent) ?? schedule.at(parent.number + 1n).validators
  const tracker = new ValidatorTracker(
    formatsOf(schedule),
    epochLengthsOf(schedule, options, genesis),
    chain,
    overrideAfter,
  )
  const rules = bftSealRules(
    (n) => schedule.at(n),
    tracker,
    (parent) => contract.prepare(parent),
  )
  chain.sealRules = schedule.isLegacyIbft ? withLegacyRules(rules, schedule, tracker) : rules
  chain.blockReward = (number, coinbase) => schedule.rewardOf(number, coinbase)
  return { options, tracker, schedule, contract }
}

export interface BftProtocols {
  /** The subprotocols the node offers: one per protocol of the chain (IBFT 2.0's then QBFT's). */
  protocols: BftProtocol[]
  /** The validator's transport: a message goes out by the subprotocol of its height's protocol. */
  transport: BftTransport
}

/** The consensus subprotocols of the chain, routing to the validators of the height above the head. */
export function createBftProtocol(chain: Chain, bft: BftChain, privateKey: Uint8Array): BftProtocols {
  const protocols = bft.schedule.kinds.map(
    (kind) =>
      new BftProtocol({
        kind,
        validators: () => bft.tracker.validatorsAfter(chain.head.header),
        height: () => chain.head.header.number + 1n,
        address: addressOf(privateKey),
      }),
  )
  chain.onNewBlock(() => {
    for (const p of protocols) p.heightStarted()
  })
  const byKind = new Map<BftKind, BftProtocol>(protocols.map((p, i) => [bft.schedule.kinds[i], p]))
  const transport: BftTransport = {
    broadcast: (code, data, kind) =>
      byKind.get(kind ?? bft.schedule.kindAt(chain.head.header.number + 1n))?.broadcast(code, data),
    onMessage: (handler) => {
      const offs = protocols.map((p) => p.onMessage(handler))
      return () => {
        for (const off of offs) off()
      }
    },
  }
  return { protocols, transport }
}

export interface BftValidatorNetwork {
  transport: BftTransport
  /** Starts a sync from the peers: the cue that a validator is at a later height than our head. */
  syncFromPeers(): void
}

/**
 * The validator of this node; `privateKey` is the node key, which is the validator key. Without a
 * network it is alone.
 */
export function createBftValidator(
  chain: Chain,
  pool: TxPool,
  bft: BftChain,
  privateKey: Uint8Array,
  clock: Clock,
  network?: BftValidatorNetwork,
  blocks?: BftValidatorOptions['blocks'],
): BftValidator {
  return new BftValidator(chain, pool, bft.tracker, {
    bft: bft.options,
    schedule: bft.schedule,
    contract: bft.contract,
    privateKey,
    clock,
    transport: network?.transport ?? soloTransport,
    hasPeers: network !== undefined,
    onBehind: network && (() => network.syncFromPeers()),
    blocks,
  })
}
