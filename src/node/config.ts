import type { TrustedSetup } from '../chain/kzgTrustedSetup.ts'
import type { P2pConfig } from '../p2p/network.ts'

/** Besu's sync modes (FAST is its deprecated name of the first snap-less fast sync). */
export const SYNC_MODES = ['FULL', 'SNAP', 'CHECKPOINT', 'FAST'] as const
export type SyncMode = (typeof SYNC_MODES)[number]

import type { StorageFormat } from '../state/storageFormat.ts'
import type { ForkConfig } from './forkPoint.ts'

/** Everything `basalt run` needs, already validated; built by the CLI, read by the node. */
export interface ApiListenerConfig {
  isEnabled: boolean
  host: string
  port: number
  apis: string[]
}

export interface NodeConfig {
  network: 'dev' | 'custom'
  genesisFile?: string
  networkId?: bigint
  dataPath: string
  /** Besu's --data-storage-format; absent: the data path's own (new data paths: the default). */
  dataStorageFormat?: StorageFormat
  /** BONSAI: states kept below the head (Besu's --bonsai-historical-block-limit). */
  bonsaiHistoricalBlockLimit?: number
  /**
   * BONSAI: keep every state beyond the window as a state history (`--data-storage-format=X_BONSAI_ARCHIVE`);
   * false for a plain `BONSAI`; absent: the data path's own choice, else on for the dev chain only.
   */
  isBonsaiArchive?: boolean
  identity?: string
  /** web3_clientVersion starts with `anvil/` (Hardhat's network helpers accept only hardhat, zksync or anvil). */
  isAnvilClientVersion: boolean
  nodePrivateKeyFile?: string
  /** `maxRequestBytes`: Besu's --rpc-http-max-request-content-length, the largest request body. */
  http: ApiListenerConfig & { corsOrigins: string[]; maxBatchSize: number; maxRequestBytes: number }
  /** `maxFrameBytes`: Besu's --rpc-ws-max-frame-size, the largest WebSocket frame (larger ones close the socket). */
  ws: ApiListenerConfig & { maxFrameBytes: number }
  hostAllowlist: string[]
  minGasPrice: bigint
  /** Besu's --min-priority-fee: the smallest tip a block this node builds takes from transactions without priority. */
  minPriorityFee?: bigint
  gasPriceBlocks: number
  gasPricePercentile: number
  gasPriceMax: bigint
  /** The widest block ranges of eth_getLogs and trace_filter (0: none). */
  maxLogsRange: bigint
  maxTraceFilterRange: bigint
  rpcGasCap: bigint
  /** Time limit of one EVM-running request (eth_call, estimates, simulations, traces); 0 = none. */
  rpcEvmTimeoutMs: number
  /** Worker threads answering eth_call / eth_estimateGas at the head while the main thread is busy; 0 = none. */
  rpcCallWorkers: number
  /** Listener threads sharing the JSON-RPC HTTP port (0: none). */
  rpcListenerThreads: number
  /** Most installed filters at once (Besu's --rpc-max-active-filters). */
  maxActiveFilters: number
  txPoolMaxSize: number
  txPoolPriceBumpPercent: number
  /** Besu's local permissioning: the allowlist file of each list that is enabled. */
  permissions: { accountsFile?: string; nodesFile?: string }
  /** Besu's `--tx-pool` kind and its per-sender limits, local priority and (sequenced) retention. */
  txPool: {
    kind: 'LAYERED' | 'SEQUENCED'
    maxFutureBySender: number
    /** SEQUENCED: transactions older than this are dropped. */
    retentionMs?: number
    isLocalPriority: boolean
    /** Lowercase hex addresses. */
    prioritySenders: string[]
    /** The most a local transaction may offer to pay (gas limit × max fee); 0: no cap. */
    txFeeCap: bigint
    /** Local transactions must be signed for a chain id. */
    isReplayProtectionRequired: boolean
    /** Besu's --tx-pool-enable-save-restore: the file the pool is written to at stop and read from at start. */
    saveFile?: string
  }
  minerCoinbase?: Uint8Array
  blockPeriodMs?: number
  /** Gas limit that built blocks move toward (Besu's --target-gas-limit). */
  targetGasLimit?: bigint
  /** The extraData of the blocks this node builds, at most 32 bytes (Besu's --miner-extra-data). */
  minerExtraData?: Uint8Array
  /** Whether the dev sealer produces blocks; a node on a custom genesis waits for blocks from outside. */
  isMinerEnabled: boolean
  configOut?: string
  /** A state dump loaded on top of the head at start, and the file the state is dumped to on stop. */
  loadStateFile?: string
  dumpStateFile?: string
  isDevAccountsUnlocked: boolean
  /** Write each complete log bloom cache segment as the chain reaches it (Besu's default). */
  isAutoLogBloomCaching: boolean
  /** Record what reverted transactions returned and show it in their receipts (Besu's --revert-reason-enabled). */
  isRevertReasonEnabled: boolean
  /** A KZG trusted setup read from a file (Besu's --kzg-trusted-setup) instead of the mainnet one. */
  kzgTrustedSetup?: { setup: TrustedSetup; file: string }
  /** The GraphQL listener (EIP-1767), off unless --graphql-http-enabled. */
  graphql: { isEnabled: boolean; host: string; port: number; corsOrigins: string[] }
  /** Prometheus `/metrics` (Besu's --metrics-*), off unless --metrics-enabled. */
  metrics: { isEnabled: boolean; host: string; port: number }
  /** Peer-to-peer networking (devp2p); off on the dev network unless enabled. */
  p2p: P2pConfig & {
    isEnabled: boolean
    /** Besu's --sync-mode as given; Basalt always syncs in full (FULL), and says so for the others. */
    syncMode: SyncMode
  }
  /** Start on top of a remote chain's state (`--fork-url`); absent for a chain of its own. */
  fork?: ForkConfig
  /** The Engine API listener; when enabled, blocks come from a consensus client and the dev sealer stays off. */
  engine: EngineConfig
}

export interface EngineConfig {
  isEnabled: boolean
  port: number
  hostAllowlist: string[]
  /** File holding the hex JWT secret; generated in the data path when absent. */
  jwtSecretFile?: string
  isJwtDisabled: boolean
}
