/** What RPC handlers are given: the node's services, and the connection a request came on. */
import type { Chain } from '../chain/chain.ts'
import type { BftValidator } from '../producer/bftValidator.ts'
import type { DevSealer } from '../producer/devSealer.ts'
import type { TxPool } from '../txpool/txPool.ts'
import type { FilterManager } from './eth/filterManager.ts'

/** A long-lived client connection (WebSocket), for subscriptions. */
export interface Connection {
  readonly id: number
  send(message: string): void
  onClose(fn: () => void): void
}

export interface RpcSettings {
  chainId: bigint
  networkId: bigint
  clientVersion: string
  coinbase: Uint8Array
  minGasPrice: bigint
  gasPriceBlocks: number
  gasPricePercentile: number
  gasPriceMax: bigint
  rpcGasCap: bigint
  enabledHttpApis: string[]
  enabledWsApis: string[]
  devAccounts: { address: string; privateKey: string }[]
  isDevAccountsUnlocked: boolean
  nodeKey?: { privateKey: Uint8Array; publicKey: Uint8Array }
  ports: { http?: number; ws?: number; engine?: number; graphql?: number }
}

export interface RpcServices {
  chain: Chain
  pool: TxPool
  sealer?: DevSealer
  /** The IBFT 2.0 / QBFT validator (also on a node that is not one of the validators), on a BFT chain. */
  validator?: BftValidator
  filters: FilterManager
  settings: RpcSettings
}

export interface RpcContext extends RpcServices {
  connection?: Connection
  /** Which listener the request came on (for rpc_modules). */
  apis: string[]
}
