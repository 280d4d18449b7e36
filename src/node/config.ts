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
  identity?: string
  nodePrivateKeyFile?: string
  http: ApiListenerConfig & { corsOrigins: string[]; maxBatchSize: number }
  ws: ApiListenerConfig
  hostAllowlist: string[]
  minGasPrice: bigint
  gasPriceBlocks: number
  gasPricePercentile: number
  gasPriceMax: bigint
  rpcGasCap: bigint
  txPoolMaxSize: number
  txPoolPriceBumpPercent: number
  minerCoinbase?: Uint8Array
  blockPeriodMs?: number
  /** Whether the dev sealer produces blocks; a node on a custom genesis waits for blocks from outside. */
  isMinerEnabled: boolean
  configOut?: string
  isDevAccountsUnlocked: boolean
}
