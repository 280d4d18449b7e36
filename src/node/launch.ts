/**
 * `basalt run`'s start, listeners first: the JSON-RPC listeners bind as soon as the configuration is
 * parsed (a port in use is the first failure), then the data path is locked, and only then is the
 * node module loaded (the EVM libraries, the chain, the producer, GraphQL, the Engine API) and the
 * chain opened behind them. Until the node is up, requests wait for it, except the answers the
 * configuration alone gives (`RpcGate`). A failed start throws as before: the CLI prints the
 * one-line error and exits non-zero, dropping the waiting requests unanswered.
 * Everything this module imports stays light: it is evaluated before the first answer.
 */
import { storedChainId } from '../chain/chainIds.ts'
import { DEV_CHAIN_ID, DEV_NETWORK_ID } from '../chain/devIds.ts'
import { clientVersion } from '../primitives/version.ts'
import { ALWAYS_ENABLED_GROUP } from '../rpc/context.ts'
import { type EarlyAnswers, RpcGate, type RunningListener, startRpcListener } from '../server/rpcListener.ts'
import { ChainStore } from '../storage/chainStore.ts'
import { readForkRemote } from '../storage/forkCache.ts'
import { migrate, SCHEMA_VERSION, schemaVersionOf } from '../storage/schema.ts'
import { openSqlite, type SqlDatabase } from '../storage/sqlite.ts'
import type { ApiListenerConfig, NodeConfig } from './config.ts'
import { openDataPath } from './dataPath.ts'

/** The JSON-RPC listeners started before the node, and the gate their requests wait at. */
export interface EarlyListeners {
  gate: RpcGate
  http?: RunningListener
  ws?: RunningListener
  /** The data path's database, open, locked and migrated. */
  db: SqlDatabase
}

export async function launchNode(config: NodeConfig): Promise<void> {
  const gate = new RpcGate()
  const listen = (l: ApiListenerConfig, isHttpServed: boolean) =>
    l.isEnabled
      ? startRpcListener(gate, {
          host: l.host,
          port: l.port,
          apis: [...l.apis, ALWAYS_ENABLED_GROUP],
          hostAllowlist: config.hostAllowlist,
          corsOrigins: config.http.corsOrigins,
          maxBatchSize: config.http.maxBatchSize,
          isHttpServed,
        })
      : undefined
  const http = await listen(config.http, true)
  const ws = await listen(config.ws, false)
  const isMemory = config.dataPath === ':memory:'
  const db = isMemory ? await openSqlite(':memory:') : await openDataPath(config.dataPath)
  // Answered once the data path is locked, if this version can read it (migrate refuses it if not).
  const version = schemaVersionOf(db)
  if (version <= SCHEMA_VERSION) gate.early = earlyAnswers(config, version > 0 ? new ChainStore(db) : undefined)
  migrate(db, isMemory)
  const { startNode } = await import('./node.ts')
  await startNode(config, { gate, http, ws, db })
}

/**
 * What the node will answer to eth_chainId, net_version and web3_clientVersion, as far as the
 * configuration and the data path tell it without the chain: the dev network's chain id unless the
 * data path is forked or changed its id (then the remote's, or the stored one, once loaded); a
 * genesis file's chain id and network id only once the genesis is read and accepted. `store` is
 * the data path's, absent for a new one.
 */
function earlyAnswers(config: NodeConfig, store: ChainStore | undefined): EarlyAnswers {
  const isDev = config.network === 'dev'
  const isForked = config.fork !== undefined || (isDev && store !== undefined && readForkRemote(store) !== undefined)
  return {
    chainId: isDev && !isForked ? ((store && storedChainId(store)) ?? DEV_CHAIN_ID) : undefined,
    networkId: config.networkId ?? (isDev ? DEV_NETWORK_ID : undefined),
    clientVersion: clientVersion(config.identity, config.isAnvilClientVersion),
  }
}
