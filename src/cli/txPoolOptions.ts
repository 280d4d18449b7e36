/**
 * The transaction pool options of `basalt run` beyond its size and price bump, with Besu's names
 * and Besu's rules: `--tx-pool` picks the layered pool (the default) or the sequenced one (`LEGACY`
 * is its older name), and each kind's own options are refused with the other, in Besu's words.
 */
import { join } from 'node:path'
import type { Command } from 'cac'
import type { NodeConfig } from '../node/config.ts'
import { DEFAULT_MAX_FUTURE_BY_SENDER } from '../txpool/txPool.ts'
import { bad, intOpt, optBool, optString } from './argv.ts'
import { CliError } from './cliError.ts'

const KINDS = ['LAYERED', 'SEQUENCED', 'LEGACY'] as const
/** Besu's defaults for the sequenced pool: 0.1 % of the pool per sender, 13 hours. */
const DEFAULT_LIMIT_BY_ACCOUNT = 0.001
const DEFAULT_RETENTION_HOURS = 13

export function registerTxPoolOptions(cmd: Command): Command {
  return cmd
    .option('--tx-pool <kind>', 'LAYERED (default) or SEQUENCED: which per-sender limits apply')
    .option(
      '--tx-pool-max-future-by-sender <n>',
      'LAYERED: how far past its account nonce a sender may queue (default: 200)',
    )
    .option(
      '--tx-pool-limit-by-account-percentage <fraction>',
      "SEQUENCED: the share of --tx-pool-max-size one sender's queue may reach (default: 0.001)",
    )
    .option('--tx-pool-retention-hours <hours>', 'SEQUENCED: drop transactions older than this (default: 13)')
    .option(
      '--tx-pool-no-local-priority',
      'Order transactions sent over JSON-RPC by tip alone, not before those from peers',
    )
    .option('--tx-pool-priority-senders <list>', 'Comma-separated addresses whose transactions go into blocks first')
    .option(
      '--rpc-tx-feecap <wei>',
      'Most a transaction sent over JSON-RPC may offer to pay, gas limit × max fee (0: no cap; default: 1 ETH with --genesis-file, none on the dev network)',
    )
    .option(
      '--strict-tx-replay-protection-enabled',
      'Refuse transactions sent over JSON-RPC that are not signed for a chain id',
    )
    .option('--tx-pool-enable-save-restore', 'Write the pool to a file when the node stops, and read it back at start')
    .option('--tx-pool-save-file <file>', 'The file of --tx-pool-enable-save-restore (default: DATA_PATH/txpool.dump)')
}

/** Besu's `--rpc-tx-feecap` default: 1 ETH. */
const DEFAULT_TX_FEE_CAP = 10n ** 18n

/**
 * The `txPool` part of a NodeConfig; `maxSize` is --tx-pool-max-size's value. The dev network has no
 * fee cap by default: Anvil and Hardhat have none, and test suites send at any price.
 */
export function parseTxPoolOptions(
  o: Record<string, unknown>,
  maxSize: number,
  hasGenesisFile: boolean,
  dataPath: string,
): NodeConfig['txPool'] {
  const s = (key: string) => optString(o, key)
  const kind = (s('txPool') ?? 'LAYERED').toUpperCase()
  if (!(KINDS as readonly string[]).includes(kind)) bad('tx-pool', s('txPool'), KINDS.join(', '))
  const isSequenced = kind !== 'LAYERED'
  const given = (keys: string[]) => keys.filter((k) => s(k) !== undefined)
  if (!isSequenced && given(['txPoolLimitByAccountPercentage', 'txPoolRetentionHours']).length > 0)
    throw new CliError('Could not use legacy or sequenced transaction pool options with layered implementation')
  if (isSequenced && given(['txPoolMaxFutureBySender']).length > 0)
    throw new CliError('Could not use layered transaction pool options with legacy or sequenced implementation')
  const prioritySenders = (s('txPoolPrioritySenders') ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x.length > 0)
  for (const a of prioritySenders) if (!/^0x[0-9a-fA-F]{40}$/.test(a)) bad('tx-pool-priority-senders', a, 'an address')
  const cap = s('rpcTxFeecap')
  if (cap !== undefined && !/^(\d+|0x[0-9a-fA-F]+)$/.test(cap)) bad('rpc-tx-feecap', cap, 'an amount of wei')
  const common = {
    isLocalPriority: !optBool(o, 'txPoolNoLocalPriority', 'tx-pool-no-local-priority', false),
    prioritySenders: prioritySenders.map((a) => a.toLowerCase()),
    txFeeCap: cap === undefined ? (hasGenesisFile ? DEFAULT_TX_FEE_CAP : 0n) : BigInt(cap),
    isReplayProtectionRequired: optBool(
      o,
      'strictTxReplayProtectionEnabled',
      'strict-tx-replay-protection-enabled',
      false,
    ),
    saveFile: optBool(o, 'txPoolEnableSaveRestore', 'tx-pool-enable-save-restore', false)
      ? (s('txPoolSaveFile') ?? join(dataPath === ':memory:' ? '.' : dataPath, 'txpool.dump'))
      : undefined,
  }
  if (!isSequenced) {
    const limit = s('txPoolMaxFutureBySender') ?? String(DEFAULT_MAX_FUTURE_BY_SENDER)
    return { kind: 'LAYERED', maxFutureBySender: intOpt('tx-pool-max-future-by-sender', limit, 1), ...common }
  }
  const share = s('txPoolLimitByAccountPercentage') ?? String(DEFAULT_LIMIT_BY_ACCOUNT)
  const fraction = /^(\d+(\.\d*)?|\.\d+)$/.test(share) ? Number(share) : Number.NaN
  if (!(fraction > 0 && fraction <= 1)) bad('tx-pool-limit-by-account-percentage', share, 'a fraction in (0, 1]')
  const hours = intOpt('tx-pool-retention-hours', s('txPoolRetentionHours') ?? String(DEFAULT_RETENTION_HOURS), 1)
  return {
    kind: 'SEQUENCED',
    // Besu: ceil(fraction × max size), at least 1.
    maxFutureBySender: Math.max(1, Math.ceil(fraction * maxSize)),
    retentionMs: hours * 3_600_000,
    ...common,
  }
}
