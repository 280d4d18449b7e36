/** `basalt run`: Besu's option names, validated here into a NodeConfig, then handed to the node. */
import { join } from 'node:path'
import type { CAC } from 'cac'
import type { NodeConfig } from '../node/config.ts'
import { hexToBytes } from '../primitives/hex.ts'
import { setLogColor, setLogLevel } from '../primitives/logger.ts'
import {
  BONSAI_ARCHIVE,
  DEFAULT_HISTORICAL_BLOCK_LIMIT,
  DEFAULT_STORAGE_FORMAT,
  parseStorageFormat,
  STORAGE_FORMAT_NAMES,
} from '../state/storageFormat.ts'
import { bad, intOpt, kzgTrustedSetupOpt, optBool, optString } from './argv.ts'
import { CliError } from './cliError.ts'
import { parseP2pOptions, registerP2pOptions } from './p2pOptions.ts'
import { checkConfigOut, checkListenerPorts } from './runChecks.ts'
import { parseTxPoolOptions, registerTxPoolOptions } from './txPoolOptions.ts'

const RPC_APIS = [
  ...['ETH', 'NET', 'WEB3', 'DEBUG', 'TRACE', 'TXPOOL', 'ADMIN', 'TESTING', 'MINER', 'ENGINE', 'DEV'],
  ...['EVM', 'HARDHAT', 'ANVIL', 'OTS', 'QBFT', 'IBFT', 'CLIQUE'],
  // Besu's groups of features Basalt does not have: answered as Besu answers with the feature off.
  ...['PERM', 'PRIV', 'EEA', 'PLUGINS'],
]
/**
 * The dev network's default groups add the test controls Hardhat and Foundry drive, and Otterscan's.
 * DEBUG, TRACE and TXPOOL stay off by default, as in Besu: they are asked for with --rpc-http-api.
 */
/**
 * Call workers are off unless asked for: on two cores a worker cost more CPU per call than it saved,
 * and no machine with spare cores has shown a gain yet (docs/performance.md, "Issue 18: eth_call on
 * both cores"), while each worker holds a second copy of the chain's libraries in memory.
 */
const DEFAULT_CALL_WORKERS = 0
const DEFAULT_APIS = 'ETH,NET,WEB3'
const DEFAULT_DEV_APIS = `${DEFAULT_APIS},EVM,HARDHAT,ANVIL,OTS`

export function registerRunCommand(cli: CAC): void {
  const cmd = cli.command('run', 'Start the node: a dev chain by default, JSON-RPC on 127.0.0.1:8545')
  cmd
    .option(
      '--config-file <file>',
      'TOML file of options, as Besu reads it (rpc-http-api=["ETH","NET"]); the command line wins over it',
    )
    .option(
      '--profile <name>',
      "Besu's ENTERPRISE (or PRIVATE) profile: FULL sync, FOREST, the sequenced pool (0.15 per sender, no local priority), min gas price 0; DEV: the dev network",
    )
    .option('--network <name>', 'Network preset: dev', { default: 'dev' })
    .option('--genesis-file <file>', 'Genesis file (Besu/geth format) instead of a preset')
    .option('--network-id <id>', 'Network id answered by net_version')
    .option('--data-path <dir>', 'Directory of the SQLite database, or :memory:', { default: 'basalt-data' })
    .option(
      '--data-storage-format <format>',
      `State storage: FOREST (every state kept), BONSAI (flat head state, history window) or ${BONSAI_ARCHIVE} (BONSAI keeping every older state as a state history) (default ${DEFAULT_STORAGE_FORMAT} for a new data path, with the state history on the dev network)`,
    )
    .option('--bonsai-historical-block-limit <n>', 'BONSAI: how many blocks below the head keep their state', {
      default: String(DEFAULT_HISTORICAL_BLOCK_LIMIT),
    })
    .option('--identity <name>', 'Name added to web3_clientVersion')
    .option(
      '--anvil-client-version',
      'web3_clientVersion starts with anvil/ so Hardhat and Foundry helpers accept the node (default: true on the dev network)',
    )
    .option('--node-private-key-file <file>', 'Node key file (default: DATA_PATH/key, created when absent)')
    .option('--rpc-http-enabled', 'Serve JSON-RPC over HTTP (default true)')
    .option('--rpc-http-host <host>', 'HTTP JSON-RPC host', { default: '127.0.0.1' })
    .option('--rpc-http-port <port>', 'HTTP JSON-RPC port (0 picks a free one)', { default: '8545' })
    .option(
      '--rpc-http-api, --rpc-http-apis <list>',
      `Comma-separated API groups over HTTP (default ${DEFAULT_DEV_APIS} on the dev network, else ${DEFAULT_APIS})`,
    )
    .option(
      '--rpc-http-cors-origins <list>',
      'Comma-separated allowed CORS origins (regular expressions, as Besu), * or all, or none',
    )
    .option('--rpc-http-max-batch-size <n>', 'Largest JSON-RPC batch', { default: '1024' })
    .option('--rpc-http-max-request-content-length <bytes>', 'Largest JSON-RPC request body (HTTP 413 beyond it)', {
      default: '5242880',
    })
    .option('--rpc-ws-max-frame-size <bytes>', 'Largest WebSocket frame (the socket closes with 1009 beyond it)', {
      default: '1048576',
    })
    .option('--host-allowlist <list>', 'Comma-separated Host header values accepted, * or all, or none', {
      default: 'localhost,127.0.0.1',
    })
    .option('--rpc-ws-enabled', 'Serve JSON-RPC over WebSocket on its own port (default true)')
    .option('--rpc-ws-host <host>', 'WebSocket host', { default: '127.0.0.1' })
    .option('--rpc-ws-port <port>', 'WebSocket port (0 picks a free one)', { default: '8546' })
    .option(
      '--rpc-ws-api, --rpc-ws-apis <list>',
      'Comma-separated API groups over WebSocket (defaults as --rpc-http-api)',
    )
    .option('--min-gas-price <wei>', 'Smallest gas price the pool accepts', { default: '1000' })
    .option(
      '--min-priority-fee <wei>',
      'Smallest tip a block this node builds takes from a transaction without priority (default: 0)',
    )
    .option('--api-gas-price-blocks <n>', 'Blocks eth_gasPrice looks back over', { default: '100' })
    .option('--api-gas-price-percentile <p>', 'Percentile eth_gasPrice reports', { default: '50' })
    .option('--api-gas-price-max <wei>', 'Ceiling of eth_gasPrice', { default: '500000000000' })
    .option('--rpc-gas-cap <gas>', 'Gas cap of eth_call and eth_estimateGas (0: block gas limit)', { default: '0' })
    .option('--rpc-evm-timeout <seconds>', 'Time limit of one call, estimate, simulation or trace (0: none)', {
      default: '5',
    })
    .option(
      '--rpc-call-workers <n>',
      'Threads answering eth_call and eth_estimateGas while the main one is busy (default: 0, none)',
    )
    .option(
      '--rpc-listener-threads <n>',
      'Threads sharing the JSON-RPC HTTP port that answer head reads themselves, once clients are concurrent (default: 0, none)',
    )
    .option('--rpc-max-active-filters <n>', 'Most filters (eth_newFilter, …) alive at once', { default: '1000' })
    .option(
      '--rpc-max-logs-range <blocks>',
      'Widest block range of eth_getLogs (0: none; default: 5000 with --genesis-file, none on the dev network)',
    )
    .option('--rpc-max-trace-filter-range <blocks>', 'Widest block range of trace_filter (0: none)', {
      default: '1000',
    })
    .option('--tx-pool-max-size <n>', 'Most transactions the pool holds', { default: '4096' })
    .option(
      '--tx-pool-price-bump <percent>',
      'Price bump a replacement needs (default: 10; 0 with --min-gas-price 0 or on a zeroBaseFee chain)',
    )
    .option('--miner-coinbase <address>', 'Fee recipient of sealed blocks')
    .option(
      '--miner-enabled',
      'Seal blocks with the dev sealer (default: true on the dev network, false with --genesis-file)',
    )
    .option('--target-gas-limit <gas>', 'Gas limit that sealed blocks and built payloads move toward')
    .option(
      '--miner-extra-data <hex>',
      'extraData of the blocks this node builds, at most 32 bytes (the vanity of clique and BFT blocks)',
    )
    .option('--block-period <seconds>', 'Seal a block every period (fractions allowed); automine without it')
    .option('--logging <level>', 'OFF, ERROR, WARN, INFO, DEBUG, TRACE, ALL', { default: 'INFO' })
    .option('--color-enabled', 'Colour the log levels (default: only on a terminal, unless NO_COLOR is set)')
    .option('--config-out <file>', 'Write chain id, ports and dev accounts as JSON once listening')
    .option('--dev-accounts-unlocked', 'Let eth_sendTransaction and eth_sign* sign with the dev accounts')
    .option(
      '--auto-log-bloom-caching-enabled',
      'Index log bloom cache files of every 100,000 blocks as they fill (default: true)',
    )
    .option(
      '--revert-reason-enabled',
      "Record what reverted transactions returned and show it as their receipts' revertReason (default: false)",
    )
    .option(
      '--kzg-trusted-setup <file>',
      'KZG trusted setup file (the ceremony text format) instead of the mainnet setup, for blobs and the point-evaluation precompile',
    )
    .option(
      '--permissions-accounts-config-file-enabled',
      'Only the accounts of the accounts-allowlist may send transactions (Besu local permissioning)',
    )
    .option(
      '--permissions-accounts-config-file <file>',
      'TOML file with accounts-allowlist=[…] (default: DATA_PATH/permissions_config.toml)',
    )
    .option(
      '--permissions-nodes-config-file-enabled',
      'Only the nodes of the nodes-allowlist may be peers (Besu local permissioning)',
    )
    .option(
      '--permissions-nodes-config-file <file>',
      'TOML file with nodes-allowlist=[…] (default: DATA_PATH/permissions_config.toml)',
    )
    .option('--load-state <file>', 'Load a state dump (anvil_dumpState, --dump-state) on top of the head at start')
    .option('--dump-state <file>', 'Write the state after the head as a dump when the node stops')
    .option('--fork-url <url>', 'Start on top of the state of the chain at this JSON-RPC URL (dev network)')
    .option('--fork-block-number <n>', "The remote block to fork at (default: the remote's latest)")
    .option('--fork-cache <where>', 'Keep fetched remote state in: db (the data path), off, or an SQLite file', {
      default: 'db',
    })
    .option('--graphql-http-enabled', 'Serve GraphQL (EIP-1767) over HTTP at /graphql')
    .option('--graphql-http-host <host>', 'GraphQL host', { default: '127.0.0.1' })
    .option('--graphql-http-port <port>', 'GraphQL port (0 picks a free one)', { default: '8547' })
    .option(
      '--graphql-http-cors-origins <list>',
      'Comma-separated CORS origins GraphQL allows (as --rpc-http-cors-origins)',
    )
    .option('--metrics-enabled', 'Serve Prometheus metrics at /metrics')
    .option('--metrics-host <host>', 'Metrics host', { default: '127.0.0.1' })
    .option('--metrics-port <port>', 'Metrics port (0 picks a free one)', { default: '9545' })
    .option('--engine-rpc-enabled', 'Serve the Engine API for a consensus client (the dev sealer then stays off)')
    .option('--engine-rpc-port <port>', 'Engine API port', { default: '8550' })
    .option('--engine-host-allowlist <list>', 'Host header values the Engine API accepts, or *', {
      default: 'localhost,127.0.0.1',
    })
    .option(
      '--engine-jwt-secret <file>',
      'Hex JWT secret shared with the consensus client (generated in the data path if absent)',
    )
    .option('--engine-jwt-disabled', 'Serve the Engine API without JWT authentication')
  registerTxPoolOptions(registerP2pOptions(cmd)).action(async (options: Record<string, unknown>) => {
    const config = parseRunOptions(options)
    checkListenerPorts(config)
    checkConfigOut(config.configOut)
    const { launchNode } = await import('../node/launch.ts')
    await launchNode(config)
  })
}

/** Turns raw cac options into a NodeConfig; throws CliError naming the first bad option. */
export function parseRunOptions(o: Record<string, unknown>): NodeConfig {
  const s = (key: string) => optString(o, key)
  const level = s('logging') ?? 'INFO'
  if (!setLogLevel(level)) throw new CliError(`Invalid value for option --logging: '${level}'`)
  if (o.colorEnabled !== undefined) setLogColor(optBool(o, 'colorEnabled', 'color-enabled', false))
  const network = s('network')?.toLowerCase() ?? 'dev'
  const genesisFile = s('genesisFile')
  if (network !== 'dev') throw new CliError(`Invalid value for option --network: '${network}' (supported: dev)`)
  const blockPeriod = s('blockPeriod')
  const defaultApis = genesisFile ? DEFAULT_APIS : DEFAULT_DEV_APIS
  const dataPath = nonEmpty('data-path', s('dataPath') ?? 'basalt-data')
  return {
    network: genesisFile ? 'custom' : 'dev',
    genesisFile,
    networkId: s('networkId') === undefined ? undefined : bigintOpt('network-id', s('networkId')),
    dataPath,
    ...parseStorageOptions(o),
    identity: s('identity'),
    isAnvilClientVersion: optBool(o, 'anvilClientVersion', 'anvil-client-version', !genesisFile),
    nodePrivateKeyFile: s('nodePrivateKeyFile'),
    http: {
      isEnabled: optBool(o, 'rpcHttpEnabled', 'rpc-http-enabled', true),
      host: nonEmpty('rpc-http-host', s('rpcHttpHost')),
      port: portOpt('rpc-http-port', s('rpcHttpPort')),
      apis: apiList('rpc-http-api', s('rpcHttpApis') ?? s('rpcHttpApi') ?? defaultApis),
      corsOrigins: allowlist('rpc-http-cors-origins', s('rpcHttpCorsOrigins'), 'domains'),
      maxBatchSize: intOpt('rpc-http-max-batch-size', s('rpcHttpMaxBatchSize'), 1),
      maxRequestBytes: intOpt('rpc-http-max-request-content-length', s('rpcHttpMaxRequestContentLength'), 1),
    },
    ws: {
      isEnabled: optBool(o, 'rpcWsEnabled', 'rpc-ws-enabled', true),
      host: nonEmpty('rpc-ws-host', s('rpcWsHost')),
      port: portOpt('rpc-ws-port', s('rpcWsPort')),
      apis: apiList('rpc-ws-api', s('rpcWsApis') ?? s('rpcWsApi') ?? defaultApis),
      maxFrameBytes: intOpt('rpc-ws-max-frame-size', s('rpcWsMaxFrameSize'), 1),
    },
    hostAllowlist: allowlist('host-allowlist', s('hostAllowlist'), 'hostnames'),
    minGasPrice: bigintOpt('min-gas-price', s('minGasPrice')),
    minPriorityFee: bigintOpt('min-priority-fee', s('minPriorityFee') ?? '0'),
    gasPriceBlocks: intOpt('api-gas-price-blocks', s('apiGasPriceBlocks'), 1),
    gasPricePercentile: intOpt('api-gas-price-percentile', s('apiGasPricePercentile'), 0, 100),
    gasPriceMax: bigintOpt('api-gas-price-max', s('apiGasPriceMax')),
    // Besu's 5000; none on the dev network, as Anvil and Hardhat (test suites read a whole chain's logs).
    maxLogsRange: bigintOpt('rpc-max-logs-range', s('rpcMaxLogsRange') ?? (genesisFile ? '5000' : '0')),
    maxTraceFilterRange: bigintOpt('rpc-max-trace-filter-range', s('rpcMaxTraceFilterRange')),
    rpcGasCap: bigintOpt('rpc-gas-cap', s('rpcGasCap')),
    rpcEvmTimeoutMs: secondsOpt('rpc-evm-timeout', s('rpcEvmTimeout')),
    rpcCallWorkers: intOpt('rpc-call-workers', s('rpcCallWorkers') ?? String(DEFAULT_CALL_WORKERS), 0, 64),
    rpcListenerThreads: intOpt('rpc-listener-threads', s('rpcListenerThreads') ?? '0', 0, 64),
    maxActiveFilters: intOpt('rpc-max-active-filters', s('rpcMaxActiveFilters'), 1),
    txPoolMaxSize: intOpt('tx-pool-max-size', s('txPoolMaxSize'), 1),
    txPool: parseTxPoolOptions(
      o,
      intOpt('tx-pool-max-size', s('txPoolMaxSize'), 1),
      genesisFile !== undefined,
      dataPath,
    ),
    // Besu: without the option, a node that takes free transactions needs no bump to replace one.
    txPoolPriceBumpPercent:
      s('txPoolPriceBump') === undefined && bigintOpt('min-gas-price', s('minGasPrice')) === 0n
        ? 0
        : intOpt('tx-pool-price-bump', s('txPoolPriceBump') ?? '10', 0, 1000),
    minerCoinbase: s('minerCoinbase') === undefined ? undefined : addressOpt('miner-coinbase', s('minerCoinbase')),
    blockPeriodMs: blockPeriod === undefined ? undefined : periodOpt(blockPeriod),
    targetGasLimit: s('targetGasLimit') === undefined ? undefined : bigintOpt('target-gas-limit', s('targetGasLimit')),
    minerExtraData: extraDataOpt(s('minerExtraData')),
    configOut: s('configOut'),
    loadStateFile: s('loadState'),
    dumpStateFile: s('dumpState'),
    isMinerEnabled: optBool(o, 'minerEnabled', 'miner-enabled', !genesisFile),
    isDevAccountsUnlocked: optBool(o, 'devAccountsUnlocked', 'dev-accounts-unlocked', false),
    isAutoLogBloomCaching: optBool(o, 'autoLogBloomCachingEnabled', 'auto-log-bloom-caching-enabled', true),
    isRevertReasonEnabled: optBool(o, 'revertReasonEnabled', 'revert-reason-enabled', false),
    kzgTrustedSetup: kzgTrustedSetupOpt(s('kzgTrustedSetup')),
    permissions: parsePermissionsOptions(o, dataPath),
    graphql: {
      isEnabled: optBool(o, 'graphqlHttpEnabled', 'graphql-http-enabled', false),
      host: nonEmpty('graphql-http-host', s('graphqlHttpHost')),
      port: portOpt('graphql-http-port', s('graphqlHttpPort')),
      corsOrigins: allowlist('graphql-http-cors-origins', s('graphqlHttpCorsOrigins'), 'domains'),
    },
    metrics: {
      isEnabled: optBool(o, 'metricsEnabled', 'metrics-enabled', false),
      host: nonEmpty('metrics-host', s('metricsHost')),
      port: portOpt('metrics-port', s('metricsPort')),
    },
    fork: parseForkOptions(o, genesisFile),
    p2p: parseP2pOptions(o, dataPath, genesisFile !== undefined),
    engine: {
      isEnabled: optBool(o, 'engineRpcEnabled', 'engine-rpc-enabled', false),
      port: portOpt('engine-rpc-port', s('engineRpcPort')),
      hostAllowlist: allowlist('engine-host-allowlist', s('engineHostAllowlist'), 'hostnames'),
      jwtSecretFile: s('engineJwtSecret'),
      isJwtDisabled: optBool(o, 'engineJwtDisabled', 'engine-jwt-disabled', false),
    },
  }
}

/** Besu's local permissioning files; each list's file defaults to `permissions_config.toml` in the data path. */
function parsePermissionsOptions(o: Record<string, unknown>, dataPath: string): NodeConfig['permissions'] {
  const fallback = join(dataPath === ':memory:' ? '.' : dataPath, 'permissions_config.toml')
  const fileOf = (key: string, flag: string) =>
    optBool(o, `${key}Enabled`, `${flag}-enabled`, false) ? (optString(o, key) ?? fallback) : undefined
  return {
    accountsFile: fileOf('permissionsAccountsConfigFile', 'permissions-accounts-config-file'),
    nodesFile: fileOf('permissionsNodesConfigFile', 'permissions-nodes-config-file'),
  }
}

/** Besu's --miner-extra-data: hex (0x optional) of at most 32 bytes. */
function extraDataOpt(v: string | undefined): Uint8Array | undefined {
  if (v === undefined) return undefined
  const digits = v.replace(/^0x/i, '')
  if (!/^([0-9a-fA-F]{2}){0,32}$/.test(digits)) bad('miner-extra-data', v, 'hex of at most 32 bytes')
  return hexToBytes(`0x${digits}`)
}

function parseStorageOptions(
  o: Record<string, unknown>,
): Pick<NodeConfig, 'dataStorageFormat' | 'bonsaiHistoricalBlockLimit' | 'isBonsaiArchive'> {
  const raw = optString(o, 'dataStorageFormat')
  const parsed = raw === undefined ? undefined : parseStorageFormat(raw)
  if (raw !== undefined && !parsed) bad('data-storage-format', raw, STORAGE_FORMAT_NAMES)
  const format = parsed?.format
  if (format === 'BONSAI' && optString(o, 'forkUrl') !== undefined) {
    throw new CliError(
      'Option --fork-url keeps its state as FOREST; it cannot be used with --data-storage-format=BONSAI',
    )
  }
  const limit = optString(o, 'bonsaiHistoricalBlockLimit') ?? String(DEFAULT_HISTORICAL_BLOCK_LIMIT)
  return {
    dataStorageFormat: format,
    bonsaiHistoricalBlockLimit: intOpt('bonsai-historical-block-limit', limit, 1),
    // Plain BONSAI asked by name keeps no state history; without the option the data path decides.
    isBonsaiArchive: parsed?.isBonsaiArchive,
  }
}

function parseForkOptions(o: Record<string, unknown>, genesisFile: string | undefined): NodeConfig['fork'] {
  const url = optString(o, 'forkUrl')
  const blockNumber = optString(o, 'forkBlockNumber')
  if (url === undefined) {
    if (blockNumber !== undefined) throw new CliError('Option --fork-block-number needs --fork-url')
    return undefined
  }
  if (genesisFile) throw new CliError('Option --fork-url starts a dev chain; it cannot be used with --genesis-file')
  if (!/^https?:\/\/\S+$/.test(url)) bad('fork-url', url, 'an http:// or https:// URL')
  return {
    url,
    blockNumber: blockNumber === undefined ? undefined : bigintOpt('fork-block-number', blockNumber),
    cache: nonEmpty('fork-cache', optString(o, 'forkCache') ?? 'db'),
  }
}

function nonEmpty(flag: string, v: string | undefined): string {
  if (!v) bad(flag, v, 'a non-empty value')
  return v
}

function portOpt(flag: string, v: string | undefined): number {
  return intOpt(flag, v, 0, 65535)
}

function bigintOpt(flag: string, v: string | undefined): bigint {
  if (v === undefined || !/^(\d+|0x[0-9a-fA-F]+)$/.test(v)) bad(flag, v, 'a non-negative integer')
  return BigInt(v)
}

function addressOpt(flag: string, v: string | undefined): Uint8Array {
  if (v === undefined || !/^(0x)?[0-9a-fA-F]{40}$/.test(v)) bad(flag, v, 'a 20-byte hex address')
  return hexToBytes(v)
}

function periodOpt(v: string): number {
  if (!/^\d+(\.\d+)?$/.test(v) || Number(v) <= 0) bad('block-period', v, 'a positive number of seconds')
  return Math.max(1, Math.round(Number(v) * 1000))
}

/** A non-negative number of seconds (fractions allowed), in milliseconds. */
function secondsOpt(flag: string, v: string | undefined): number {
  if (v === undefined || !/^\d+(\.\d+)?$/.test(v)) bad(flag, v, 'a non-negative number of seconds')
  return Math.round(Number(v) * 1000)
}

/**
 * A host allowlist or CORS origins as Besu reads them (`JsonRPCAllowlistHostsProperty`,
 * `CorsAllowedOriginsProperty`): comma-separated, `all` meaning `*`, `none` meaning nothing, and
 * neither of those beside other entries; CORS origins are regular expressions, checked here.
 */
function allowlist(flag: string, v: string | undefined, kind: 'hostnames' | 'domains'): string[] {
  if (v === undefined) return []
  const noun = kind === 'hostnames' ? 'Hostname' : 'Domain'
  const items = v
    .split(/\s*,+\s*/)
    .filter((x) => x !== '')
    .map((x) => (x === 'all' ? '*' : x))
  const fail = (why: string): never => {
    throw new CliError(`Invalid value for option --${flag}: '${v}' (${why})`)
  }
  if (v.trim() === '') fail(`${noun} cannot be empty string or null string.`)
  if (items.includes('none')) {
    if (items.length > 1) fail(`Value 'none' can't be used with other ${kind}`)
    return []
  }
  if (items.includes('*') && items.length > 1) fail(`Values '*' or 'all' can't be used with other ${kind}`)
  if (kind === 'domains' && !items.includes('*')) {
    try {
      new RegExp(items.join('|'))
    } catch {
      fail('Domain values result in invalid regex pattern')
    }
  }
  return items
}

function list(v: string | undefined): string[] {
  return (v ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x.length > 0)
}

function apiList(flag: string, v: string | undefined): string[] {
  const apis = list(v).map((x) => x.toUpperCase())
  for (const api of apis) if (!RPC_APIS.includes(api)) bad(flag, api, `one of ${RPC_APIS.join(', ')}`)
  return apis
}
