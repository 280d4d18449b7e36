/**
 * What the node and each of its call workers (callWorker.ts) set up alike before opening a chain:
 * the genesis, the EVM library's patches, the hash and curve functions, the fee market and the fork
 * rules. Kept apart from node.ts so that a worker loads none of the node's services.
 */
import { readFileSync } from 'node:fs'
import { baseFeeMarketOf, DEFAULT_MIN_GAS_PRICE, DEV_BASE_FEE_FLOOR } from '../chain/baseFee.ts'
import {
  bftConsensusOf,
  type CryptoHolder,
  createChainCommon,
  devGenesis,
  type GenesisJson,
  parseGenesisText,
} from '../chain/genesis.ts'
import { installCommonParamsMemo } from '../evm/commonParamsMemo.ts'
import { installDebugColorsMemo } from '../evm/debugColorsMemo.ts'
import { installInterpreterLoop } from '../evm/interpreterLoop.ts'
import { installJumpAnalysisCache } from '../evm/jumpAnalysisCache.ts'
import { nativeEcrecover } from '../primitives/ecrecover.ts'
import { installFastRlp } from '../primitives/fastRlp.ts'
import { loadKeccak256 } from '../primitives/keccak.ts'
import { genesisEcCurve } from '../primitives/nodeKey.ts'
import { nativeSha256 } from '../primitives/sha256.ts'
import { installDecodedNodeCache } from '../state/decodedNodeCache.ts'
import { prepareBftCommon } from './bftNode.ts'
import type { NodeConfig } from './config.ts'

/** The genesis of `config`: its file's, or the dev chain's. */
export function loadGenesis(config: Pick<NodeConfig, 'genesisFile'>): GenesisJson {
  if (!config.genesisFile) return devGenesis()
  let text: string
  try {
    text = readFileSync(config.genesisFile, 'utf8')
  } catch (e) {
    throw new Error(`cannot read genesis file ${config.genesisFile}: ${(e as Error).message}`)
  }
  return parseGenesisText(text, config.genesisFile)
}

/**
 * The EVM's patches, the hash and curve functions, the fee market and the fork rules of the chain
 * of `genesis`: what the node and each of its call workers set up alike.
 */
export async function chainRules(
  genesis: GenesisJson,
  config: Pick<NodeConfig, 'genesisFile'> & Partial<Pick<NodeConfig, 'minGasPrice'>>,
) {
  installCommonParamsMemo()
  installDebugColorsMemo()
  installDecodedNodeCache()
  installFastRlp()
  await installJumpAnalysisCache()
  await installInterpreterLoop()
  const ecrecover = nativeEcrecover()
  const sha256 = nativeSha256()
  const crypto: CryptoHolder = {
    keccak256: await loadKeccak256(),
    ...(ecrecover ? { ecrecover } : {}),
    ...(sha256 ? { sha256 } : {}),
  }
  const baseFeeMarket = config.genesisFile
    ? baseFeeMarketOf(genesis.config, config.minGasPrice ?? DEFAULT_MIN_GAS_PRICE)
    : { kind: 'eip1559' as const, floor: DEV_BASE_FEE_FLOOR }
  const common = createChainCommon(genesis, crypto, baseFeeMarket)
  const bftOptions = bftConsensusOf(genesis)
  // An unknown ecCurve is refused before anything else of the genesis, as Besu refuses it.
  genesisEcCurve(genesis.config)
  if (bftOptions) prepareBftCommon(common, bftOptions, genesis)
  return { crypto, baseFeeMarket, common, bftOptions }
}
