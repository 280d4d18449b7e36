/**
 * The composition root: opens storage, builds the chain, pool, producer and RPC services from a
 * validated NodeConfig, starts the listeners and stops everything in order on SIGINT/SIGTERM.
 * The only module that constructs concrete classes of several layers.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Block } from '@ethereumjs/block'
import { Address } from '@ethereumjs/util'
import { baseFeeMarketOf, DEFAULT_MIN_GAS_PRICE, DEV_BASE_FEE_FLOOR } from '../chain/baseFee.ts'
import { Chain, storedStorageFormat } from '../chain/chain.ts'
import { devAccounts } from '../chain/devAccounts.ts'
import { DEV_NETWORK_ID } from '../chain/devIds.ts'
import { terminalTotalDifficultyOf } from '../chain/forkSchedule.ts'
import {
  bftConsensusOf,
  type CryptoHolder,
  createChainCommon,
  createGenesisBlock,
  devGenesis,
  type GenesisJson,
  hasChainId,
  parseGenesisText,
} from '../chain/genesis.ts'
import { toGenesisQuantity } from '../chain/genesisValues.ts'
import { ensureKzgFor, useKzgTrustedSetup } from '../chain/kzg.ts'
import { LogBloomCache } from '../chain/logBloomCache.ts'
import { recoverHeadState, writeGenesisState } from '../chain/stateRecovery.ts'
import { engineGroup } from '../engine/engineMethods.ts'
import type { EngineContext } from '../engine/engineOf.ts'
import { EngineService } from '../engine/engineService.ts'
import { installCommonParamsMemo } from '../evm/commonParamsMemo.ts'
import { installDebugColorsMemo } from '../evm/debugColorsMemo.ts'
import { withExecutionDeadline } from '../evm/executionDeadline.ts'
import { poaSystemCallsWarning } from '../evm/poaSystemCalls.ts'
import { RpcDispatcher } from '../jsonrpc/dispatcher.ts'
import { LocalPermissioning } from '../p2p/localPermissioning.ts'
import type { P2pNetwork } from '../p2p/network.ts'
import type { SubProtocol } from '../p2p/peerManager.ts'
import { systemClock } from '../primitives/clock.ts'
import { nativeEcrecover } from '../primitives/ecrecover.ts'
import { installFastRlp } from '../primitives/fastRlp.ts'
import { bytesToHex } from '../primitives/hex.ts'
import { loadKeccak256 } from '../primitives/keccak.ts'
import { createLogger } from '../primitives/logger.ts'
import { genesisEcCurve, loadOrCreateNodeKey } from '../primitives/nodeKey.ts'
import { clientVersion } from '../primitives/version.ts'
import type { MinerSettings } from '../producer/blockAssembler.ts'
import { CliqueSignerWatch } from '../producer/cliqueSignerWatch.ts'
import { DevSealer } from '../producer/devSealer.ts'
import { DevTools } from '../producer/devTools.ts'
import { PayloadBuilder } from '../producer/payloadBuilder.ts'
import { decodeDump, dumpState, loadState } from '../producer/stateDump.ts'
import {
  ALWAYS_ENABLED_GROUP,
  type MiningControl,
  type RpcContext,
  type RpcServices,
  type RpcSettings,
} from '../rpc/context.ts'
import { executionTimeoutError } from '../rpc/eth/callErrors.ts'
import { FilterManager } from '../rpc/eth/filterManager.ts'
import { methodGroups } from '../rpc/methodGroups.ts'
import { every, type LongTimer } from '../runtime/eventLoop.ts'
import { isPortShared } from '../runtime/httpServer.ts'
import { loadJwtSecret, startEngineListener } from '../server/engineListener.ts'
import { startGraphqlListener } from '../server/graphqlListener.ts'
import { startMetricsListener } from '../server/metricsListener.ts'
import type { RunningListener } from '../server/rpcListener.ts'
import { BonsaiState } from '../state/bonsaiState.ts'
import { installDecodedNodeCache } from '../state/decodedNodeCache.ts'
import { CachedForkSource } from '../state/forkSource.ts'
import { StateHistory } from '../state/stateHistory.ts'
import { DEFAULT_STORAGE_FORMAT } from '../state/storageFormat.ts'
import { TrieDb } from '../state/trieDb.ts'
import { ChainStore } from '../storage/chainStore.ts'
import { type ForkCacheStore, readForkRemote } from '../storage/forkCache.ts'
import { migrate } from '../storage/schema.ts'
import { openSqlite, type SqlDatabase, skipCheckpointSyncs } from '../storage/sqlite.ts'
import { type PoolChainView, TxPool } from '../txpool/txPool.ts'
import { attachBftRules, type BftChain, createBftProtocol, createBftValidator, prepareBftCommon } from './bftNode.ts'
import { CallPool } from './callPool.ts'
import { chainRules, loadGenesis } from './chainRules.ts'
import { recordChainSource } from './chainSource.ts'
import type { NodeConfig } from './config.ts'
import { databaseFile, isReadBeside, openDataPath } from './dataPath.ts'
import {
  type ForkConfig,
  forkAnchorBlock,
  fundDevAccounts,
  openForkCache,
  refork,
  resolveForkPoint,
} from './forkPoint.ts'
import type { EarlyListeners } from './launch.ts'
import { ListenerThreads } from './listenerThreads.ts'
import { dropNodeGauges, registerCallGauges, registerListenerGauges, registerNodeGauges } from './nodeGauges.ts'
import { NodeMetrics } from './nodeMetrics.ts'
import { restorePool, savePool } from './txPoolDump.ts'

const log = createLogger('node')

export interface RunningNode {
  services: RpcServices
  listeners: RunningListener[]
  stop(): Promise<void>
}

/**
 * Opens the chain described by `config` (creating its database on first use), in `opened` when the
 * caller has already opened, locked and migrated the data path's database.
 */
export async function openChain(
  config: Pick<NodeConfig, 'genesisFile' | 'dataPath' | 'fork' | 'dataStorageFormat' | 'bonsaiHistoricalBlockLimit'> &
    Partial<
      Pick<
        NodeConfig,
        | 'minGasPrice'
        | 'isBonsaiArchive'
        | 'rpcCallWorkers'
        | 'rpcListenerThreads'
        | 'isRevertReasonEnabled'
        | 'kzgTrustedSetup'
      >
    >,
  opened?: SqlDatabase,
): Promise<{
  chain: Chain
  genesis: GenesisJson
  bft?: BftChain
  forkCache?: ForkCacheStore
  /** The fork options in force: `config.fork`, else those a forked data path recorded. */
  fork?: ForkConfig
  close(): void
}> {
  const genesis = loadGenesis(config as NodeConfig)
  const isMemory = config.dataPath === ':memory:'
  const db =
    opened ??
    (isMemory ? await openSqlite(':memory:') : await openDataPath(config.dataPath, { isShared: isReadBeside(config) }))
  if (!opened) migrate(db, isMemory)
  if (config.kzgTrustedSetup) useKzgTrustedSetup(config.kzgTrustedSetup.setup, config.kzgTrustedSetup.file)
  if (!config.genesisFile) skipCheckpointSyncs(db)
  const store = new ChainStore(db)
  // A forked data path restarted without --fork-url reads from the remote it was last told.
  const stored = config.genesisFile ? undefined : readForkRemote(store)
  const fork = config.fork ?? (stored && { url: stored.url, cache: stored.cache })
  const forkCache = fork ? await openForkCache(fork, db) : undefined
  const forkPoint = fork && forkCache ? await resolveForkPoint(fork, store, forkCache.cache) : undefined
  if (forkPoint) genesis.config.chainId = Number(forkPoint.chainId)
  const { crypto, baseFeeMarket, common, bftOptions } = await chainRules(genesis, config)
  const trieDb = new TrieDb(store)
  if (trieDb.preimages && crypto.keccak256) trieDb.preimages.hash = crypto.keccak256
  // A forked chain's state stays FOREST (the CLI refuses BONSAI with --fork-url).
  trieDb.storageFormat = forkPoint
    ? 'FOREST'
    : (config.dataStorageFormat ?? storedStorageFormat(store) ?? DEFAULT_STORAGE_FORMAT)
  let genesisBlock: Block
  if (forkPoint && forkCache) {
    genesisBlock = forkAnchorBlock(forkPoint, common)
    trieDb.fork = new CachedForkSource(forkPoint.remote, forkCache.cache, genesisBlock.hash(), forkPoint.number)
  } else {
    genesisBlock = createGenesisBlock(common, await writeGenesisState(trieDb, common, genesis))
  }
  const chain = new Chain(common, store, trieDb, baseFeeMarket)
  chain.recordRevertReasons = config.isRevertReasonEnabled === true
  if (trieDb.storageFormat === 'BONSAI') {
    chain.bonsai = new BonsaiState(store, trieDb, config.bonsaiHistoricalBlockLimit, isBonsaiArchive(config, store))
    // debug_resyncWorldstate writes the genesis state again once the window has pruned it.
    chain.bonsai.genesisState = () => writeGenesisState(trieDb, common, genesis)
  }
  const bft = bftOptions ? attachBftRules(chain, bftOptions, genesis) : undefined
  // A forked chain's local state starts with the dev accounts funded: the rest comes from the remote.
  try {
    await chain.open(genesisBlock, forkPoint ? () => fundDevAccounts(trieDb, common) : undefined)
    const bonsai = chain.bonsai
    if (bonsai) {
      db.transaction(() => {
        bonsai.recoverDeferred(chain.head.header.number)
        bonsai.settleHistory(chain.head.header.number)
      })
    }
    await recoverHeadState(chain)
    // A restart with the same genesis answers eth_chainId before opening the chain (launch.ts).
    recordChainSource(store, config, fork !== undefined, chain.rulesAt(0n).chainId())
  } catch (e) {
    // Refused (another genesis, another storage format): release the data path's lock.
    db.close()
    forkCache?.close()
    throw e
  }
  const close = () => {
    chain.flushState()
    db.close()
    forkCache?.close()
  }
  return { chain, genesis, bft, forkCache: forkCache?.cache, fork, close }
}

/**
 * Whether a BONSAI data path keeps every state beyond its window (the state history): as asked
 * (`--data-storage-format=X_BONSAI_ARCHIVE` or `BONSAI`), else as the data path did, else on for the
 * dev chain and off elsewhere (Besu's behaviour). docs/state-storage.md, "State history".
 */
function isBonsaiArchive(
  config: Partial<Pick<NodeConfig, 'isBonsaiArchive' | 'genesisFile'>>,
  store: ChainStore,
): boolean {
  return config.isBonsaiArchive ?? (StateHistory.isKeptIn(store) || !config.genesisFile)
}

/** How often the sequenced pool looks for transactions past `--tx-pool-retention-hours` (Besu: every minute). */
const RETENTION_CHECK_MS = 60_000

/** Drops, every minute, the pool's transactions older than `retentionMs` (Besu's sequenced pool). */
function dropExpired(pool: TxPool, retentionMs: number): LongTimer {
  return every(
    RETENTION_CHECK_MS,
    () => {
      const dropped = pool.dropAddedBefore(Date.now() - retentionMs)
      if (dropped > 0) log.info('dropped transactions past the retention period', { count: dropped })
    },
    { unref: true },
  )
}

/** The pool's view of the chain: the head's gas limit, base fee and account state. */
export function poolChainView(chain: Chain): PoolChainView {
  return {
    get chainId() {
      return chain.common.chainId()
    },
    hasChainId: hasChainId(chain.common),
    headGasLimit: () => chain.head.header.gasLimit,
    headBaseFee: () => chain.head.header.baseFeePerGas ?? 0n,
    account: async (address) => {
      const a = await chain.stateAt(chain.head).getAccount(new Address(address))
      return { nonce: a?.nonce ?? 0n, balance: a?.balance ?? 0n }
    },
    onHeadReset: (fn) => void chain.onHeadReset(fn),
  }
}

/** Builds the node behind the JSON-RPC listeners `launchNode` started, and opens their gate. */
export async function startNode(config: NodeConfig, early: EarlyListeners): Promise<RunningNode> {
  const startedMs = Date.now()
  // Read before the chain opens: a bad allowlist file stops the start with Besu's message.
  const permissioning = openPermissioning(config)
  const { chain, genesis, bft, forkCache, fork, close } = await openChain(config, early.db)
  const chainId = chain.common.chainId()
  // Besu: a replacement on a zero base fee network needs no higher price, whatever --tx-pool-price-bump says.
  const isZeroBaseFee = genesis.config.zeroBaseFee === true
  if (isZeroBaseFee)
    log.warn('Forcing price bump for transaction replacement to 0, since we are on a zero basefee network')
  const poaWarning = poaSystemCallsWarning(chain.common)
  if (poaWarning) log.warn(poaWarning)
  const pool = new TxPool(poolChainView(chain), {
    minGasPrice: config.minGasPrice,
    minPriorityFee: config.minPriorityFee,
    maxSize: config.txPoolMaxSize,
    priceBumpPercent: isZeroBaseFee ? 0 : config.txPoolPriceBumpPercent,
    maxFutureBySender: config.txPool.maxFutureBySender,
    isLocalPriority: config.txPool.isLocalPriority,
    prioritySenders: new Set(config.txPool.prioritySenders),
    isPermittedSender: permissioning?.accounts && ((sender) => permissioning.isSenderPermitted(sender)),
    txFeeCap: config.txPool.txFeeCap,
    isReplayProtectionRequired: config.txPool.isReplayProtectionRequired,
  })
  const stopRetention =
    config.txPool.retentionMs === undefined ? undefined : dropExpired(pool, config.txPool.retentionMs)
  registerNodeGauges(chain, pool)
  const coinbase = config.minerCoinbase ?? new Uint8Array(20)
  const accounts = config.network === 'dev' ? devAccounts() : []
  const curve = genesisEcCurve(genesis.config)
  const nodeKey = loadOrCreateNodeKey(config.dataPath, config.nodePrivateKeyFile, curve)
  // Shared by every producer below; the MINER methods change it while the node runs.
  const miner: MinerSettings = { targetGasLimit: config.targetGasLimit, extraData: config.minerExtraData }
  const clique = cliqueSealing(genesis, curve, nodeKey.privateKey)
  const blockPeriodMs = config.blockPeriodMs ?? clique?.periodMs
  const cliqueProposals = genesis.config.clique !== undefined ? new Map<string, boolean>() : undefined
  const sealer = new DevSealer(chain, pool, {
    coinbase,
    blockPeriodMs,
    miner,
    cliqueKey: clique?.key,
    cliqueProposals,
    isEmptyBlockSealed: clique?.isEmptyBlockSealed,
    clock: systemClock,
  })
  if (bft && curve !== 'secp256k1')
    log.warn('BFT validators sign with secp256k1 only: this node seals no blocks', { curve })
  const isBftValidating = bft !== undefined && curve === 'secp256k1'
  // Every node of a BFT chain offers the consensus subprotocol; only validators are sent messages.
  const bftProtocol =
    isBftValidating && config.p2p.isEnabled ? createBftProtocol(chain, bft, nodeKey.privateKey) : undefined
  let network: P2pNetwork | undefined
  const validator = isBftValidating
    ? createBftValidator(
        chain,
        pool,
        bft,
        nodeKey.privateKey,
        systemClock,
        bftProtocol && { transport: bftProtocol.transport, syncFromPeers: () => network?.syncFromPeers() },
        miner,
      )
    : undefined
  const forkHistory = chain.trieDb.fork instanceof CachedForkSource ? chain.trieDb.fork : undefined
  const settings: RpcSettings = {
    fork: fork && forkHistory ? { url: fork.url, blockNumber: forkHistory.number } : undefined,
    chainId,
    networkId: config.networkId ?? (config.network === 'dev' ? DEV_NETWORK_ID : chainId),
    clientVersion: clientVersion(config.identity, config.isAnvilClientVersion),
    coinbase,
    gasPriceBlocks: config.gasPriceBlocks,
    gasPricePercentile: config.gasPricePercentile,
    gasPriceMax: config.gasPriceMax,
    maxLogsRange: config.maxLogsRange,
    maxTraceFilterRange: config.maxTraceFilterRange,
    rpcGasCap: config.rpcGasCap,
    rpcEvmTimeoutMs: config.rpcEvmTimeoutMs,
    enabledHttpApis: config.http.apis,
    enabledWsApis: config.ws.apis,
    devAccounts: accounts,
    isDevAccountsUnlocked: config.isDevAccountsUnlocked,
    nodeKey,
    ports: {},
    hosts: { http: config.http.host, ws: config.ws.host, graphql: config.graphql.host, metrics: config.metrics.host },
    filesDir: scratchDir(config.dataPath),
  }
  const isDevToolkit = config.isMinerEnabled && !config.engine.isEnabled
  const devTools = isDevToolkit ? new DevTools(chain, pool, sealer) : undefined
  const engine = config.engine.isEnabled
    ? new EngineService(chain, pool, new PayloadBuilder(chain, pool, { miner }), systemClock)
    : undefined
  const logBloomCache = new LogBloomCache(chain, join(scratchDir(config.dataPath), 'caches'))
  if (config.isAutoLogBloomCaching) autoIndexLogBlooms(chain, logBloomCache)
  // The MINER methods: this node's own sealing is the dev sealer's (dev and clique chains); a clique
  // node seals only with --miner-enabled (its signer key watched), and the beneficiary of its blocks
  // is the vote, not a coinbase. Blocks from the Engine API or BFT rounds are not this node's to stop.
  const isSealedElsewhere = engine !== undefined || validator !== undefined
  const mining: MiningControl = {
    miner,
    start: () => {
      if (isSealedElsewhere || (clique && !config.isMinerEnabled)) return false
      sealer.start()
      return true
    },
    stop: async () => {
      if (!isSealedElsewhere) await sealer.stop()
    },
    setCoinbase: (address) => {
      if (isSealedElsewhere || clique) return false
      sealer.coinbase = address
      return true
    },
  }
  const services: RpcServices & Pick<EngineContext, 'engine'> & { callWorkers?: CallPool } = {
    chain,
    pool,
    sealer,
    mining,
    devTools,
    validator,
    cliqueProposals,
    engine,
    filters: new FilterManager(chain, pool, { maxFilters: config.maxActiveFilters, logBloomCache }),
    logBloomCache,
    settings,
    permissioning,
    forkHistory,
    refork:
      forkHistory && forkCache && devTools
        ? (url, blockNumber) => refork(chain, forkHistory, forkCache, url, blockNumber)
        : undefined,
    callWorkers: startCallPool(config, chain),
  }
  if (config.p2p.isEnabled && config.p2p.syncMode !== 'FULL')
    log.warn(`--sync-mode=${config.p2p.syncMode} is not available: blocks from peers are synced in full (FULL)`)
  if (config.p2p.isEnabled) {
    network = await startP2p(config, services, curve, !engine, bftProtocol?.protocols ?? [])
    services.network = network
  }
  let listenerThreads: ListenerThreads | undefined
  const dispatcher = new RpcDispatcher<RpcContext>(
    [...methodGroups(), engineGroup],
    executionTimeoutError,
    (handle) => withExecutionDeadline(settings.rpcEvmTimeoutMs, handle),
    // Automine seals a burst of sends together, and before any other request is answered.
    // Listener threads learn at once whether automine now holds a run of sends (they relay reads then).
    (method) => {
      const wait = sealer.onRequest(method === 'eth_sendRawTransaction' || method === 'eth_sendTransaction')
      listenerThreads?.publish()
      return wait
    },
  )
  const listeners: RunningListener[] = []
  if (early.http) {
    settings.ports.http = early.http.port
    listeners.push(early.http)
  }
  if (early.ws) {
    settings.ports.ws = early.ws.port
    listeners.push(early.ws)
  }
  if (engine) {
    const jwtSecret = config.engine.isJwtDisabled
      ? undefined
      : loadJwtSecret(config.engine.jwtSecretFile, config.dataPath)
    const l = await startEngineListener(dispatcher, services, {
      host: config.http.host,
      port: config.engine.port,
      hostAllowlist: config.engine.hostAllowlist,
      jwtSecret,
    })
    settings.ports.engine = l.port
    listeners.push(l)
    engine.startIdleWarnings()
  }
  // As in Besu, a BFT validator seals without --miner-enabled; the dev sealer never runs on a BFT chain.
  // A clique node seals while its key is a signer at the head, and the votes may change that at any block.
  const signerWatch =
    clique && config.isMinerEnabled && !engine && !validator ? watchCliqueSigner(chain, clique.key) : undefined
  const saveFile = config.txPool.saveFile
  if (saveFile) {
    // Before the sealer starts: automine seals what the file held at once.
    const restored = await restorePool(pool, chain, saveFile)
    if (restored.added + restored.skipped > 0) log.info('transaction pool restored', { file: saveFile, ...restored })
  }
  if (validator && !engine) validator.start()
  else if (config.isMinerEnabled && !engine) sealer.start()
  else if (!engine && !bft) log.warn('no block will be produced', { reason: idleReason(genesis) })
  if (devTools && config.loadStateFile) await loadStateFile(devTools, config.loadStateFile)
  devTools?.markInitial()
  early.gate.open({ dispatcher, services })
  listenerThreads = startListenerThreads(config, early, chain, sealer, dispatcher, services, settings)
  if (config.graphql.isEnabled) {
    // The graphql package takes tens of ms to evaluate; a node without the listener never loads it.
    const { GraphqlService } = await import('../graphql/graphqlService.ts')
    const { host, port, corsOrigins } = config.graphql
    // A GraphQL read, like any JSON-RPC request other than a send, sees a held-back burst sealed.
    const service = new GraphqlService(services, () => sealer.onRequest(false))
    const l = await startGraphqlListener(service, {
      host,
      port,
      corsOrigins,
      hostAllowlist: config.hostAllowlist,
    })
    settings.ports.graphql = l.port
    listeners.push(l)
  }
  if (config.metrics.isEnabled) {
    const nodeMetrics = new NodeMetrics(services, config.p2p.maxPeers)
    const l = await startMetricsListener(() => nodeMetrics.collect(), {
      ...config.metrics,
      hostAllowlist: config.hostAllowlist,
    })
    settings.ports.metrics = l.port
    listeners.push(l)
  }
  printBanner(config, settings, accounts)
  if (config.configOut) writeConfigOut(config.configOut, settings, chain, accounts)
  log.info('node started', { chainId, head: chain.head.header.number, ms: Date.now() - startedMs })
  preloadKzg(config, chain)

  let stopping: Promise<void> | undefined
  const stop = () => {
    stopping ??= (async () => {
      signerWatch?.()
      stopRetention?.cancel()
      await sealer.stop()
      await validator?.stop()
      if (saveFile) log.info('transaction pool saved', { file: saveFile, transactions: savePool(pool, saveFile) })
      if (devTools && config.dumpStateFile) writeFileSync(config.dumpStateFile, JSON.stringify(dumpState(devTools)))
      await services.network?.stop()
      engine?.stop()
      services.filters.stop()
      await Promise.all(listeners.map((l) => l.stop()))
      services.callWorkers?.close()
      listenerThreads?.close()
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

/**
 * The call workers, on a BONSAI data path of its own (a worker reads the flat head state from the
 * database file; `:memory:` has no file, a forked chain keeps FOREST state); none with
 * `--rpc-call-workers 0`.
 */
function startCallPool(config: NodeConfig, chain: Chain): CallPool | undefined {
  if (config.rpcCallWorkers <= 0 || config.dataPath === ':memory:' || !chain.bonsai || chain.trieDb.fork) return
  const init = {
    dbFile: databaseFile(config.dataPath),
    genesisFile: config.genesisFile,
    minGasPrice: config.minGasPrice,
    rpcGasCap: config.rpcGasCap,
    rpcEvmTimeoutMs: config.rpcEvmTimeoutMs,
  }
  const pool = new CallPool(chain, init, { size: config.rpcCallWorkers })
  registerCallGauges(pool)
  return pool
}

/**
 * The listener threads (`--rpc-listener-threads`), when the HTTP listener shares its port with them
 * (launch.ts) and the chain keeps BONSAI state of its own (a thread reads the flat head tables, as a
 * call worker does); they start on the first concurrent requests.
 */
function startListenerThreads(
  config: NodeConfig,
  early: EarlyListeners,
  chain: Chain,
  sealer: DevSealer | undefined,
  dispatcher: RpcDispatcher<RpcContext>,
  services: RpcServices,
  settings: RpcSettings,
): ListenerThreads | undefined {
  if (!early.http || config.rpcListenerThreads <= 0) return
  const unserved =
    config.dataPath === ':memory:'
      ? 'the data path is :memory:'
      : !isPortShared()
        ? 'this runtime does not share ports'
        : !chain.bonsai || chain.trieDb.fork
          ? 'the chain keeps no BONSAI state of its own'
          : undefined
  if (unserved) {
    log.warn('--rpc-listener-threads ignored', { reason: unserved })
    early.concurrency.start = () => true
    return
  }
  const threads = new ListenerThreads(chain, sealer, dispatcher, services, {
    count: config.rpcListenerThreads,
    worker: {
      dbFile: databaseFile(config.dataPath),
      genesisFile: config.genesisFile,
      minGasPrice: config.minGasPrice,
      rpcGasCap: config.rpcGasCap,
      rpcEvmTimeoutMs: config.rpcEvmTimeoutMs,
    },
    host: config.http.host,
    port: early.http.port,
    apis: [...config.http.apis, ALWAYS_ENABLED_GROUP],
    hostAllowlist: config.hostAllowlist,
    corsOrigins: config.http.corsOrigins,
    maxBatchSize: config.http.maxBatchSize,
    maxRequestBytes: config.http.maxRequestBytes,
    maxFrameBytes: config.ws.maxFrameBytes,
    chainId: settings.chainId,
  })
  early.concurrency.start = () => {
    threads.start()
    return true
  }
  registerListenerGauges(threads)
  return threads
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

/**
 * On a network from a genesis file whose next block takes blob transactions, the KZG setup starts
 * loading (in a worker) as soon as the node serves, as Besu loads it at start: the first blob
 * transaction then finds it ready. The dev chain loads it on first need, so that a chain that never
 * sees a blob does not spend seconds of a core on it at every start.
 */
function preloadKzg(config: NodeConfig, chain: Chain): void {
  if (!config.genesisFile || !chain.commonForNextBlock().isActivatedEIP(4844)) return
  ensureKzgFor(chain.common).catch((e) => log.warn('KZG setup did not load', { error: (e as Error).message }))
}

async function loadStateFile(devTools: DevTools, file: string): Promise<void> {
  try {
    await loadState(devTools, decodeDump(readFileSync(file, 'utf8')))
  } catch (e) {
    throw new Error(`cannot load the state in ${file}: ${(e as Error).message}`)
  }
  log.info('loaded state', { file, head: devTools.chain.head.header.number })
}

/** Besu's local permissioning of `config`, when a list is enabled; throws Besu's message for a bad file. */
function openPermissioning(config: NodeConfig): LocalPermissioning | undefined {
  const { accountsFile, nodesFile } = config.permissions
  if (!accountsFile && !nodesFile) return undefined
  const permissioning = new LocalPermissioning({ accountsFile, nodesFile, bootnodes: config.p2p.bootnodes })
  log.info('local permissioning', {
    accounts: permissioning.accounts?.list().length,
    nodes: permissioning.nodes?.list().length,
  })
  return permissioning
}

/** The P2P network on the node key; none (with a warning) for a secp256r1 chain, as RLPx needs secp256k1. */
async function startP2p(
  config: NodeConfig,
  { chain, pool, settings, permissioning }: RpcServices,
  curve: string,
  isFollowingPeers: boolean,
  protocols: SubProtocol[],
): Promise<P2pNetwork | undefined> {
  if (curve !== 'secp256k1') {
    log.warn('peer-to-peer networking stays off: RLPx needs a secp256k1 node key', { curve })
    return undefined
  }
  // The devp2p library takes tens of ms to load; a node without P2P (the dev chain, `blocks`) never loads it.
  const { P2pNetwork, readStaticNodes } = await import('../p2p/network.ts')
  const { formatEnode } = await import('../p2p/enode.ts')
  const nodes = permissioning?.nodes
  const network = new P2pNetwork(
    {
      chain,
      pool,
      networkId: settings.networkId,
      nodeKey: settings.nodeKey!,
      clientName: settings.clientVersion,
      clock: systemClock,
      isFollowingPeers,
      isNodePermitted: nodes && ((e) => permissioning!.isNodePermitted(e)),
    },
    config.p2p,
  )
  if (nodes) {
    // Besu's start-up check: the nodes this node keeps dialing must be on the allowlist.
    const kept = [...config.p2p.bootnodes, ...readStaticNodes(config.p2p.staticNodesFile).map(formatEnode)]
    permissioning!.checkNodesAllowed(kept)
    nodes.onChange(() => network.enforcePermissions())
  }
  for (const p of protocols) network.register(p)
  await network.start()
  settings.ports.p2p = network.port
  return network
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
    p2pPort: s.ports.p2p ?? null,
    metricsPort: s.ports.metrics ?? null,
    accounts: accounts.map((a) => ({ address: a.address, privateKey: a.privateKey })),
  }
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`)
}

/**
 * How a clique genesis is sealed with --miner-enabled, as Besu does: by the node key (a secp256k1
 * key), one block every `blockperiodseconds` (automine when the period is 0), empty ones only when
 * `createemptyblocks` is not false.
 */
function cliqueSealing(
  genesis: GenesisJson,
  curve: string,
  key: Uint8Array,
): { key: Uint8Array; periodMs?: number; isEmptyBlockSealed: boolean } | undefined {
  const c = genesis.config.clique as Record<string, unknown> | undefined
  if (c === undefined || curve !== 'secp256k1') return undefined
  const period = Number(c.blockperiodseconds ?? c.period ?? 15)
  // Merged at genesis (a TTD of 0): proof-of-stake blocks, sealed as on any other genesis.
  const ttd = terminalTotalDifficultyOf(genesis.config)
  const isMergedAtGenesis = ttd !== undefined && ttd <= toGenesisQuantity(genesis.difficulty ?? 1, 'difficulty')
  const isEmptyBlockSealed = c.createemptyblocks !== false && c.createemptyblocks !== 'false'
  return { key, periodMs: period > 0 && !isMergedAtGenesis ? period * 1000 : undefined, isEmptyBlockSealed }
}

/** Logs now, and at each new head, whether the node key is a clique signer (once per change); returns the unsubscriber. */
function watchCliqueSigner(chain: Chain, key: Uint8Array): () => void {
  const watch = new CliqueSignerWatch(chain, key)
  watch.check()
  const offBlock = chain.onNewBlock(() => watch.check())
  const offReset = chain.onHeadReset(() => {
    watch.check()
  })
  return () => {
    offBlock()
    offReset()
  }
}

/** Why a node with neither the dev sealer nor the Engine API makes no blocks, for its start-up log. */
function idleReason(genesis: GenesisJson): string {
  const options =
    'start with --miner-enabled to seal with the dev sealer, or --engine-rpc-enabled to follow a consensus client'
  return genesis.config.clique !== undefined
    ? 'the genesis asks for clique sealing; start with --miner-enabled to seal with the node key (one of the signers), or --engine-rpc-enabled to follow a consensus client after the merge'
    : `the dev sealer is off for a custom genesis; ${options}`
}
