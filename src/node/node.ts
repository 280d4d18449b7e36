/**
 * The composition root: opens storage, builds the chain, pool, producer and RPC services from a
 * validated NodeConfig, starts the listeners and stops everything in order on SIGINT/SIGTERM.
 * The only module that constructs concrete classes of several layers.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Address, KECCAK256_RLP } from '@ethereumjs/util'
import { Chain } from '../chain/chain.ts'
import { devAccounts } from '../chain/devAccounts.ts'
import {
  type CryptoHolder,
  createChainCommon,
  createGenesisBlock,
  DEV_NETWORK_ID,
  devGenesis,
  type GenesisJson,
  genesisState,
  normalizeGenesis,
} from '../chain/genesis.ts'
import { LogBloomCache } from '../chain/logBloomCache.ts'
import { recoverHeadState } from '../chain/stateRecovery.ts'
import { engineGroup } from '../engine/engineMethods.ts'
import type { EngineContext } from '../engine/engineOf.ts'
import { EngineService } from '../engine/engineService.ts'
import { installCommonParamsMemo } from '../evm/commonParamsMemo.ts'
import { RpcDispatcher } from '../jsonrpc/dispatcher.ts'
import { systemClock } from '../primitives/clock.ts'
import { bytesToHex } from '../primitives/hex.ts'
import { loadKeccak256 } from '../primitives/keccak.ts'
import { createLogger } from '../primitives/logger.ts'
import { genesisEcCurve, loadOrCreateNodeKey } from '../primitives/nodeKey.ts'
import { clientVersion } from '../primitives/version.ts'
import { DevSealer } from '../producer/devSealer.ts'
import { PayloadBuilder } from '../producer/payloadBuilder.ts'
import type { RpcContext, RpcServices, RpcSettings } from '../rpc/context.ts'
import { FilterManager } from '../rpc/eth/filterManager.ts'
import { ALWAYS_ENABLED_GROUP, methodGroups } from '../rpc/methodGroups.ts'
import { loadJwtSecret, startEngineListener } from '../server/engineListener.ts'
import { startGraphqlListener } from '../server/graphqlListener.ts'
import { type RunningListener, startRpcListener } from '../server/rpcListener.ts'
import { installDecodedNodeCache } from '../state/decodedNodeCache.ts'
import { TrieDb } from '../state/trieDb.ts'
import { openState } from '../state/worldState.ts'
import { ChainStore } from '../storage/chainStore.ts'
import { migrate } from '../storage/schema.ts'
import { openSqlite, skipCheckpointSyncs } from '../storage/sqlite.ts'
import { type PoolChainView, TxPool } from '../txpool/txPool.ts'
import type { NodeConfig } from './config.ts'
import { dropNodeGauges, registerNodeGauges } from './nodeGauges.ts'

const log = createLogger('node')
const DB_FILE = 'basalt.sqlite'

export interface RunningNode {
  services: RpcServices
  listeners: RunningListener[]
  stop(): Promise<void>
}

function loadGenesis(config: NodeConfig): GenesisJson {
  if (!config.genesisFile) return devGenesis()
  let text: string
  try {
    text = readFileSync(config.genesisFile, 'utf8')
  } catch (e) {
    throw new Error(`cannot read genesis file ${config.genesisFile}: ${(e as Error).message}`)
  }
  try {
    return normalizeGenesis(JSON.parse(text))
  } catch (e) {
    throw new Error(`invalid genesis file ${config.genesisFile}: ${(e as Error).message}`)
  }
}

/** Opens the chain described by `config` (creating its database on first use). */
export async function openChain(
  config: Pick<NodeConfig, 'genesisFile' | 'dataPath'>,
): Promise<{ chain: Chain; genesis: GenesisJson; close(): void }> {
  installCommonParamsMemo()
  installDecodedNodeCache()
  const genesis = loadGenesis(config as NodeConfig)
  const crypto: CryptoHolder = { keccak256: await loadKeccak256() }
  const common = createChainCommon(genesis, crypto)
  const isMemory = config.dataPath === ':memory:'
  if (!isMemory) mkdirSync(config.dataPath, { recursive: true })
  const db = await openSqlite(isMemory ? ':memory:' : join(config.dataPath, DB_FILE))
  migrate(db, isMemory)
  if (!config.genesisFile) skipCheckpointSyncs(db)
  const store = new ChainStore(db)
  const trieDb = new TrieDb(store)
  const state = openState(trieDb, common, KECCAK256_RLP, true)
  await state.generateCanonicalGenesis(genesisState(genesis))
  const genesisBlock = createGenesisBlock(common, await state.getStateRoot())
  const chain = new Chain(common, store, trieDb)
  await chain.open(genesisBlock)
  await recoverHeadState(chain)
  const close = () => {
    chain.flushState()
    db.close()
  }
  return { chain, genesis, close }
}

/** The pool's view of the chain: the head's gas limit, base fee and account state. */
export function poolChainView(chain: Chain): PoolChainView {
  return {
    chainId: chain.common.chainId(),
    headGasLimit: () => chain.head.header.gasLimit,
    headBaseFee: () => chain.head.header.baseFeePerGas ?? 0n,
    account: async (address) => {
      const a = await chain.stateAt(chain.head).getAccount(new Address(address))
      return { nonce: a?.nonce ?? 0n, balance: a?.balance ?? 0n }
    },
    onHeadReset: (fn) => void chain.onHeadReset(fn),
  }
}

export async function startNode(config: NodeConfig): Promise<RunningNode> {
  const startedMs = Date.now()
  const { chain, genesis, close } = await openChain(config)
  const chainId = chain.common.chainId()
  const pool = new TxPool(poolChainView(chain), {
    minGasPrice: config.minGasPrice,
    maxSize: config.txPoolMaxSize,
    priceBumpPercent: config.txPoolPriceBumpPercent,
  })
  registerNodeGauges(chain, pool)
  const coinbase = config.minerCoinbase ?? new Uint8Array(20)
  const sealer = new DevSealer(chain, pool, { coinbase, blockPeriodMs: config.blockPeriodMs, clock: systemClock })
  const accounts = config.network === 'dev' ? devAccounts() : []
  const settings: RpcSettings = {
    chainId,
    networkId: config.networkId ?? (config.network === 'dev' ? DEV_NETWORK_ID : chainId),
    clientVersion: clientVersion(config.identity),
    coinbase,
    minGasPrice: config.minGasPrice,
    gasPriceBlocks: config.gasPriceBlocks,
    gasPricePercentile: config.gasPricePercentile,
    gasPriceMax: config.gasPriceMax,
    rpcGasCap: config.rpcGasCap,
    enabledHttpApis: config.http.apis,
    enabledWsApis: config.ws.apis,
    devAccounts: accounts,
    isDevAccountsUnlocked: config.isDevAccountsUnlocked,
    nodeKey: loadOrCreateNodeKey(config.dataPath, config.nodePrivateKeyFile, genesisEcCurve(genesis.config)),
    ports: {},
    filesDir: scratchDir(config.dataPath),
  }
  const engine = config.engine.isEnabled
    ? new EngineService(chain, pool, new PayloadBuilder(chain, pool), systemClock)
    : undefined
  const logBloomCache = new LogBloomCache(chain, join(scratchDir(config.dataPath), 'caches'))
  if (config.isAutoLogBloomCaching) autoIndexLogBlooms(chain, logBloomCache)
  const services: RpcServices & Pick<EngineContext, 'engine'> = {
    chain,
    pool,
    sealer,
    engine,
    filters: new FilterManager(chain, pool, { logBloomCache }),
    logBloomCache,
    settings,
  }
  const dispatcher = new RpcDispatcher<RpcContext>([...methodGroups(), engineGroup])
  const listeners: RunningListener[] = []
  const common = {
    hostAllowlist: config.hostAllowlist,
    corsOrigins: config.http.corsOrigins,
    maxBatchSize: config.http.maxBatchSize,
  }
  if (config.http.isEnabled) {
    const l = startRpcListener(dispatcher, services, {
      ...common,
      host: config.http.host,
      port: config.http.port,
      apis: [...config.http.apis, ALWAYS_ENABLED_GROUP],
      isHttpServed: true,
    })
    settings.ports.http = l.port
    listeners.push(l)
  }
  if (config.ws.isEnabled) {
    const l = startRpcListener(dispatcher, services, {
      ...common,
      host: config.ws.host,
      port: config.ws.port,
      apis: [...config.ws.apis, ALWAYS_ENABLED_GROUP],
      isHttpServed: false,
    })
    settings.ports.ws = l.port
    listeners.push(l)
  }
  if (engine) {
    const jwtSecret = config.engine.isJwtDisabled
      ? undefined
      : loadJwtSecret(config.engine.jwtSecretFile, config.dataPath)
    const l = startEngineListener(dispatcher, services, {
      host: config.http.host,
      port: config.engine.port,
      hostAllowlist: config.engine.hostAllowlist,
      jwtSecret,
    })
    settings.ports.engine = l.port
    listeners.push(l)
    engine.startIdleWarnings()
  }
  if (config.isMinerEnabled && !engine) sealer.start()
  if (config.graphql.isEnabled) {
    // The graphql package takes tens of ms to evaluate; a node without the listener never loads it.
    const { GraphqlService } = await import('../graphql/graphqlService.ts')
    const { host, port, corsOrigins } = config.graphql
    const l = startGraphqlListener(new GraphqlService(services), {
      host,
      port,
      corsOrigins,
      hostAllowlist: config.hostAllowlist,
    })
    settings.ports.graphql = l.port
    listeners.push(l)
  }
  printBanner(config, settings, accounts)
  if (config.configOut) writeConfigOut(config.configOut, settings, chain, accounts)
  log.info('node started', { chainId, head: chain.head.header.number, ms: Date.now() - startedMs })

  let stopping: Promise<void> | undefined
  const stop = () => {
    stopping ??= (async () => {
      await sealer.stop()
      engine?.stop()
      services.filters.stop()
      await Promise.all(listeners.map((l) => l.stop()))
      await logBloomCache.idle()
      if (config.dataPath === ':memory:') rmSync(scratchDir(config.dataPath), { recursive: true, force: true })
      dropNodeGauges()
      close()
      log.info('stopped')
    })()
    return stopping
  }
  const onSignal = () => void stop().then(() => process.exit(0))
  process.once('SIGINT', onSignal)
  process.once('SIGTERM', onSignal)
  return { services, listeners, stop }
}

/** Where files of the node go (trace files, log bloom caches): the data path, or a temp directory for `:memory:`. */
function scratchDir(dataPath: string): string {
  return dataPath === ':memory:' ? join(tmpdir(), `basalt-${process.pid}`) : dataPath
}

/** Writes the log bloom segments missing at start, and each one as the chain completes it. */
function autoIndexLogBlooms(chain: Chain, cache: LogBloomCache): void {
  cache.ensureComplete()
  chain.onNewBlock(({ block }) => {
    if ((block.header.number + 1n) % BigInt(cache.blocksPerSegment) === 0n) cache.ensureComplete()
  })
}

function printBanner(config: NodeConfig, s: RpcSettings, accounts: { address: string; privateKey: string }[]): void {
  if (accounts.length === 0) return
  const lines = [
    '',
    `Basalt dev chain — chain id ${s.chainId}, data path ${config.dataPath}`,
    '',
    'Accounts (10000 ETH each):',
  ]
  for (const [i, a] of accounts.entries()) lines.push(`  (${i}) ${a.address}  key ${a.privateKey}`)
  if (s.ports.http !== undefined) lines.push('', `JSON-RPC: http://${config.http.host}:${s.ports.http}`)
  if (s.ports.ws !== undefined) lines.push(`WebSocket: ws://${config.ws.host}:${s.ports.ws}`)
  if (s.ports.graphql !== undefined) lines.push(`GraphQL: http://${config.graphql.host}:${s.ports.graphql}/graphql`)
  process.stdout.write(`${lines.join('\n')}\n\n`)
}

function writeConfigOut(
  file: string,
  s: RpcSettings,
  chain: Chain,
  accounts: { address: string; privateKey: string }[],
): void {
  const out = {
    chainId: Number(s.chainId),
    networkId: s.networkId.toString(),
    genesisHash: bytesToHex(chain.genesis.hash()),
    rpcHttpPort: s.ports.http ?? null,
    rpcWsPort: s.ports.ws ?? null,
    graphqlHttpPort: s.ports.graphql ?? null,
    engineRpcPort: s.ports.engine ?? null,
    accounts: accounts.map((a) => ({ address: a.address, privateKey: a.privateKey })),
  }
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`)
}
