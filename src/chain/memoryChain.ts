/** A chain from a genesis over an in-memory database, with no node around it (tests, throw-away chains). */
import { KECCAK256_RLP } from '@ethereumjs/util'
import { TrieDb } from '../state/trieDb.ts'
import { openState } from '../state/worldState.ts'
import { ChainStore } from '../storage/chainStore.ts'
import { migrate } from '../storage/schema.ts'
import { openSqlite } from '../storage/sqlite.ts'
import { type BaseFeeMarket, baseFeeMarketOf, DEFAULT_MIN_GAS_PRICE } from './baseFee.ts'
import { Chain } from './chain.ts'
import { type CryptoHolder, createChainCommon, createGenesisBlock, type GenesisJson, genesisState } from './genesis.ts'

/** Opens `genesis` as a chain whose database lives in memory. */
export async function openMemoryChain(
  genesis: GenesisJson,
  crypto: CryptoHolder = {},
  baseFeeMarket: BaseFeeMarket = baseFeeMarketOf(genesis.config, DEFAULT_MIN_GAS_PRICE),
): Promise<Chain> {
  const db = await openSqlite(':memory:')
  migrate(db, true)
  const common = createChainCommon(genesis, crypto, baseFeeMarket)
  const store = new ChainStore(db)
  const trieDb = new TrieDb(store)
  const state = openState(trieDb, common, KECCAK256_RLP, true)
  await state.generateCanonicalGenesis(genesisState(genesis))
  const chain = new Chain(common, store, trieDb, baseFeeMarket)
  await chain.open(createGenesisBlock(common, await state.getStateRoot()))
  return chain
}
