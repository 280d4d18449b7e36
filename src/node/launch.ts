/**
 * `basalt run`'s start, listeners first: the JSON-RPC listeners bind as soon as the configuration is
 * parsed (a port in use is the first failure), then the data path is locked, and only then is the
 * node module loaded (the EVM libraries, the chain, the producer, GraphQL, the Engine API) and the
 * chain opened behind them. Until the node is up, requests wait for it, except the answers the
 * configuration and the data path's meta table give (`RpcGate`, `chainSource.ts`). A failed start throws as before: the CLI prints the
 * one-line error and exits non-zero, dropping the waiting requests unanswered.
 * Everything this module imports stays light: it is evaluated before the first answer.
 */
import { DEV_CHAIN_ID, DEV_NETWORK_ID } from '../chain/devIds.ts'
import { clientVersion } from '../primitives/version.ts'
import { ALWAYS_ENABLED_GROUP } from '../rpc/context.ts'
import { isPortShared } from '../runtime/httpServer.ts'
import { type EarlyAnswers, RpcGate, type RunningListener, startRpcListener } from '../server/rpcListener.ts'
import { ChainStore } from '../storage/chainStore.ts'
import { migrate, SCHEMA_VERSION, schemaVersionOf } from '../storage/schema.ts'
import { openSqlite, type SqlDatabase } from '../storage/sqlite.ts'
import { restartChainId } from './chainSource.ts'
import type { ApiListenerConfig, NodeConfig } from './config.ts'
import { isReadBeside, openDataPath } from './dataPath.ts'

/**
 * The node's heaviest modules, evaluated one at a time with a turn of the event loop after each:
 * a listener answers between them instead of after the whole node module's evaluation.
 */
const STAGES = [
  () => import('@ethereumjs/util'),
  () => import('@ethereumjs/common'),
  () => import('@ethereumjs/evm'),
  () => import('@ethereumjs/vm'),
  () => import('../rpc/methodGroups.ts'),
]

/** A turn of the event loop: the requests that came meanwhile are answered. */
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0))

/** The JSON-RPC listeners started before the node, and the gate their requests wait at. */
export interface EarlyListeners {
  gate: RpcGate
  http?: RunningListener
  ws?: RunningListener
  /** The data path's database, open, locked and migrated. */
  db: SqlDatabase
  /**
   * Set by the node when the HTTP listener shares its port with listener threads
   * (`--rpc-listener-threads`): starts them, on the first concurrent requests; true once done.
   */
  concurrency: { start?: () => boolean }
}

export async function launchNode(config: NodeConfig): Promise<void> {
  const gate = new RpcGate()
  const concurrency: EarlyListeners['concurrency'] = {}
  // Listener threads read the data path's database on connections of their own: not for :memory:.
  const isPortSharing = config.rpcListenerThreads > 0 && config.dataPath !== ':memory:' && isPortShared()
  const listen = (l: ApiListenerConfig, isHttpServed: boolean) =>
    l.isEnabled
      ? startRpcListener(gate, {
          ...(isHttpServed && isPortSharing
            ? { sharedPort: 'first' as const, onConcurrency: () => concurrency.start?.() ?? false }
            : {}),
          host: l.host,
          port: l.port,
          apis: [...l.apis, ALWAYS_ENABLED_GROUP],
          hostAllowlist: config.hostAllowlist,
          corsOrigins: config.http.corsOrigins,
          maxBatchSize: config.http.maxBatchSize,
          maxRequestBytes: config.http.maxRequestBytes,
          maxFrameBytes: config.ws.maxFrameBytes,
          isHttpServed,
        })
      : undefined
  const http = await listen(config.http, true)
  const ws = await listen(config.ws, false)
  const isMemory = config.dataPath === ':memory:'
  const db = isMemory
    ? await openSqlite(':memory:')
    : await openDataPath(config.dataPath, { isShared: isReadBeside(config) })
  // Answered once the data path is locked, if this version can read it (migrate refuses it if not).
  const version = schemaVersionOf(db)
  if (version <= SCHEMA_VERSION) {
    const isDev = config.network === 'dev' && config.fork === undefined
    const newChainId = isDev ? DEV_CHAIN_ID : undefined
    gate.early = earlyAnswers(config, version === 0 ? newChainId : restartChainId(new ChainStore(db), config))
  }
  await nextTask()
  migrate(db, isMemory)
  for (const stage of STAGES) {
    await stage()
    await nextTask()
  }
  const { startNode } = await import('./node.ts')
  await startNode(config, { gate, http, ws, db, concurrency })
}

/**
 * What the node will answer to eth_chainId, net_version and web3_clientVersion, as far as the
 * configuration and the data path tell without opening the chain: `chainId` on a new dev data path,
 * or on a data path that recorded being opened with the same genesis (chainSource.ts; another
 * genesis, a fork of a remote chain or an unrecorded data path is known only once the chain is open);
 * the network id given, else the dev network's, else the chain id when known.
 */
function earlyAnswers(config: NodeConfig, chainId: bigint | undefined): EarlyAnswers {
  return {
    chainId,
    networkId: config.networkId ?? (config.network === 'dev' ? DEV_NETWORK_ID : chainId),
    clientVersion: clientVersion(config.identity, config.isAnvilClientVersion),
  }
}
