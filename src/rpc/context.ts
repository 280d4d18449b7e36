/** What RPC handlers are given: the node's services, and the connection a request came on. */
import type { Block } from '@ethereumjs/block'
import type { Chain } from '../chain/chain.ts'
import type { LogBloomCache } from '../chain/logBloomCache.ts'
import type { LocalPermissioning } from '../p2p/localPermissioning.ts'
import type { P2pNetwork } from '../p2p/network.ts'
import type { BftValidator } from '../producer/bftValidator.ts'
import type { MinerSettings } from '../producer/blockAssembler.ts'
import type { DevSealer } from '../producer/devSealer.ts'
import type { DevTools } from '../producer/devTools.ts'
import type { CachedForkSource } from '../state/forkSource.ts'
import type { TxPool } from '../txpool/txPool.ts'
import type { FilterManager } from './eth/filterManager.ts'

/** A long-lived client connection (WebSocket), for subscriptions. */
/** `rpc_modules`' group, enabled on every listener. */
export const ALWAYS_ENABLED_GROUP = 'RPC'

export interface Connection {
  readonly id: number
  send(message: string): void
  onClose(fn: () => void): void
}

export interface RpcSettings {
  /** A forked chain's remote and fork block (`--fork-url`). */
  fork?: { url: string; blockNumber: bigint }
  chainId: bigint
  networkId: bigint
  clientVersion: string
  coinbase: Uint8Array
  gasPriceBlocks: number
  gasPricePercentile: number
  gasPriceMax: bigint
  rpcGasCap: bigint
  /** Time limit of one EVM-running request; 0 = none. */
  rpcEvmTimeoutMs: number
  /** Besu's --rpc-max-logs-range: the widest block range of eth_getLogs; 0 or absent: none. */
  maxLogsRange?: bigint
  /** Besu's --rpc-max-trace-filter-range: the widest block range of trace_filter; absent: Besu's 1000. */
  maxTraceFilterRange?: bigint
  enabledHttpApis: string[]
  enabledWsApis: string[]
  devAccounts: { address: string; privateKey: string }[]
  isDevAccountsUnlocked: boolean
  nodeKey?: { privateKey: Uint8Array; publicKey: Uint8Array }
  ports: { http?: number; ws?: number; engine?: number; graphql?: number; p2p?: number; metrics?: number }
  /** The hosts the listeners bind (net_services). */
  hosts?: { http: string; ws: string; graphql: string; metrics: string }
  /** Where the node writes files (trace files, log bloom caches): the data path, or a temp directory for `:memory:`. */
  filesDir: string
}

/** The methods a call worker can answer. */
export type OffloadedMethod = 'eth_call' | 'eth_estimateGas'

/**
 * Worker threads that answer eth_call and eth_estimateGas at the head while this thread is busy
 * (`--rpc-call-workers`; node/callPool.ts). `here` computes the answer on this thread: the pool runs
 * it when the thread is idle, when the call does not qualify, or when no worker sees that state.
 */
export interface CallOffload {
  run(method: OffloadedMethod, block: Block, args: unknown[], here: () => Promise<string>): Promise<string>
}

/**
 * Besu's mining coordinator as its MINER methods see it: the settings every block producer of the
 * node reads, and this node's own sealing, which the node decides it may start, stop or re-address.
 */
export interface MiningControl {
  miner: MinerSettings
  /** Starts this node's own sealing; false when its blocks come from elsewhere (the Engine API, BFT rounds). */
  start(): boolean
  /** Stops it (nothing happens where the blocks come from elsewhere). */
  stop(): Promise<void>
  /** Sets the beneficiary of the blocks it seals; false where the consensus decides it (clique, BFT, Engine API). */
  setCoinbase(address: Uint8Array): boolean
}

export interface RpcServices {
  chain: Chain
  pool: TxPool
  sealer?: DevSealer
  /** The MINER group's view of block production (absent in a node that builds no blocks, such as a call worker). */
  mining?: MiningControl
  /** The dev chain's test controls (evm_*, hardhat_*, anvil_*), when the dev sealer makes the blocks. */
  devTools?: DevTools
  /** The IBFT 2.0 / QBFT validator (also on a node that is not one of the validators), on a BFT chain. */
  validator?: BftValidator
  /** This node's clique proposals (subject → add; clique_propose), on a clique chain. */
  cliqueProposals?: Map<string, boolean>
  filters: FilterManager
  /** Log bloom cache files (admin_generateLogBloomCache…); absent in nodes without a data path of their own. */
  logBloomCache?: LogBloomCache
  settings: RpcSettings
  /** Peer-to-peer networking, when enabled. */
  network?: P2pNetwork
  /** Besu's local permissioning (accounts and nodes allowlists), when either is enabled. */
  permissioning?: LocalPermissioning
  /** On a forked chain: the remote's blocks up to the fork block. */
  forkHistory?: Pick<CachedForkSource, 'number' | 'block' | 'history' | 'useRemote'>
  /**
   * On a forked dev chain: moves it onto block `blockNumber` (the latest when absent) of the remote
   * at `url`; resolves to the new fork block's number. Call inside `Chain.exclusive`.
   */
  refork?: (url: string, blockNumber?: bigint) => Promise<bigint>
  /** Call workers, when the node runs them. */
  callWorkers?: CallOffload
}

export interface RpcContext extends RpcServices {
  connection?: Connection
  /** Which listener the request came on (for rpc_modules). */
  apis: string[]
}
