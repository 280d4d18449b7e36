import { describe, expect, it } from 'bun:test'
import { readFileSync } from 'node:fs'
import { KECCAK256_RLP } from '@ethereumjs/util'
import { bytesToHex } from '../primitives/hex.ts'
import { TrieDb } from '../state/trieDb.ts'
import { openState } from '../state/worldState.ts'
import { ChainStore } from '../storage/chainStore.ts'
import { migrate } from '../storage/schema.ts'
import { openSqlite } from '../storage/sqlite.ts'
import {
  createChainCommon,
  createGenesisBlock,
  devGenesis,
  type GenesisJson,
  genesisState,
  normalizeGenesis,
} from './genesis.ts'

const CONFORMANCE_GENESIS = new URL('../../../shared/conformance/execution-apis/genesis.json', import.meta.url).pathname

async function genesisHash(g: GenesisJson): Promise<string> {
  const db = await openSqlite(':memory:')
  migrate(db, true)
  const common = createChainCommon(g, {})
  const state = openState(new TrieDb(new ChainStore(db)), common, KECCAK256_RLP, true)
  await state.generateCanonicalGenesis(genesisState(g))
  return bytesToHex(createGenesisBlock(common, await state.getStateRoot()).hash())
}

describe('genesis', () => {
  it('computes the hash Besu and geth compute for the execution-apis test genesis', async () => {
    const g = normalizeGenesis(JSON.parse(readFileSync(CONFORMANCE_GENESIS, 'utf8')))
    expect(await genesisHash(g)).toBe('0x44fd89d504659cd58f48f4796b77a7e7012cf296a2409afa2f6c3cb99b5b3d99')
  })

  it('reads keys case-insensitively, as Besu does', () => {
    const g = normalizeGenesis({
      CONFIG: { ChainID: 5, LondonBlock: 0 },
      GASLIMIT: '0x10',
      Alloc: { ab: { BALANCE: '0x1' } },
    })
    expect(g.config.chainId).toBe(5)
    expect(g.config.londonBlock).toBe(0)
    expect(g.gasLimit).toBe('0x10')
    expect(g.alloc['0xab']).toEqual({ balance: '0x1' })
  })

  it('treats JSON nulls as absent fields', () => {
    const g = normalizeGenesis({ config: { chainId: 1 }, baseFeePerGas: null })
    expect('baseFeePerGas' in g).toBe(false)
  })

  it('refuses a genesis without config or chain id', () => {
    expect(() => normalizeGenesis({ alloc: {} })).toThrow('config')
    expect(() => normalizeGenesis({ config: {} })).toThrow('chainId')
  })

  it('gives the dev preset a stable hash, so a restart finds its own chain', async () => {
    expect(await genesisHash(devGenesis())).toBe(await genesisHash(devGenesis()))
  })

  it('builds the BPO forks of a blob schedule with the target and max they read', () => {
    const g = normalizeGenesis(JSON.parse(readFileSync(CONFORMANCE_GENESIS, 'utf8')))
    const common = createChainCommon(g, {})
    common.setHardfork('bpo2')
    expect([common.param('target'), common.param('max')]).toEqual([14n, 21n])
  })
})
