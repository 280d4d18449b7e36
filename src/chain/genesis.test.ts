import { readFileSync } from 'node:fs'
import { RLP } from '@ethereumjs/rlp'
import { createLegacyTx } from '@ethereumjs/tx'
import { Address, KECCAK256_RLP, bytesToHex as utilBytesToHex } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { CONFORMANCE_DIR, hasConformanceChain } from '../../test/fixtures/sharedConformance.ts'
import { BftSchedule } from '../consensus/bftSchedule.ts'
import { poolChainView } from '../node/node.ts'
import { manualClock } from '../primitives/clock.ts'
import { bytesToBigint, bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { DevSealer } from '../producer/devSealer.ts'
import { chainId } from '../rpc/eth/chainMethods.ts'
import { config as ethConfig } from '../rpc/eth/configMethods.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { TrieDb } from '../state/trieDb.ts'
import { openState } from '../state/worldState.ts'
import { ChainStore } from '../storage/chainStore.ts'
import { migrate } from '../storage/schema.ts'
import { openSqlite } from '../storage/sqlite.ts'
import { TxPool } from '../txpool/txPool.ts'
import { devAccounts } from './devAccounts.ts'
import {
  bftConsensusOf,
  createChainCommon,
  createGenesisBlock,
  devGenesis,
  type GenesisJson,
  genesisState,
  hasChainId,
  normalizeGenesis,
  parseGenesisText,
} from './genesis.ts'
import { openMemoryChain } from './memoryChain.ts'

const CONFORMANCE_GENESIS = `${CONFORMANCE_DIR}genesis.json`
const HAS_CONFORMANCE = hasConformanceChain('the genesis tests of the execution-apis chain')

async function genesisHash(g: GenesisJson): Promise<string> {
  const db = await openSqlite(':memory:')
  migrate(db, true)
  const common = createChainCommon(g, {})
  const state = openState(new TrieDb(new ChainStore(db)), common, KECCAK256_RLP, true)
  await state.generateCanonicalGenesis(genesisState(g))
  return bytesToHex(createGenesisBlock(common, await state.getStateRoot()).hash())
}

describe('genesis', () => {
  it.skipIf(!HAS_CONFORMANCE)(
    'computes the hash Besu and geth compute for the execution-apis test genesis',
    async () => {
      const g = normalizeGenesis(JSON.parse(readFileSync(CONFORMANCE_GENESIS, 'utf8')))
      expect(await genesisHash(g)).toBe('0x44fd89d504659cd58f48f4796b77a7e7012cf296a2409afa2f6c3cb99b5b3d99')
    },
  )

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

  it('reads a genesis without config or chain id with defaults, and refuses a config that is not an object', () => {
    expect(normalizeGenesis({ alloc: {} }).config.chainId).toBe(1)
    expect(normalizeGenesis({ config: {} }).config.chainId).toBe(1)
    expect(() => normalizeGenesis({ config: [] })).toThrow('config must be a JSON object')
  })

  it('refuses replay-protected transactions on a chain without chainId, as Besu (it has no chain id then)', async () => {
    const key = hexToBytes(devAccounts()[0].privateKey)
    const genesis = (config: Record<string, unknown>) =>
      normalizeGenesis({
        config,
        gasLimit: '0x1c9c380',
        alloc: { [devAccounts()[0].address]: { balance: '0xffffffffffffffffff' } },
      })
    const chainless = await openMemoryChain(genesis({ homesteadBlock: 0, eip158Block: 0 }))
    expect(hasChainId(chainless.common)).toBe(false)
    const pool = new TxPool(poolChainView(chainless), { minGasPrice: 0n, maxSize: 10, priceBumpPercent: 10 })
    const common = chainless.commonForNextBlock()
    // Signed under Homestead's rules: no EIP-155 (v = 27 or 28); under Spurious Dragon's: EIP-155.
    const homestead = common.copy()
    homestead.setHardfork('homestead')
    const tx = (nonce: bigint, eip155: boolean) =>
      createLegacyTx(
        { nonce, to: `0x${'42'.repeat(20)}`, gasLimit: 21_000n, gasPrice: 10n ** 9n },
        { common: eip155 ? common : homestead },
      ).sign(key)
    // An EIP-155 signature (v = 37 or 38 for chain id 1): Besu's "ChainId not supported".
    await expect(pool.add(tx(0n, true))).rejects.toMatchObject({ kind: 'replayProtectionNotSupported' })
    expect([27n, 28n]).toContain(tx(0n, false).v!)
    expect(await pool.add(tx(0n, false))).toMatch(/^0x/)
    // With a chain id in the genesis, the same EIP-155 transaction is fine.
    const withId = await openMemoryChain(genesis({ chainId: 1, homesteadBlock: 0, eip158Block: 0 }))
    expect(hasChainId(withId.common)).toBe(true)
    const pool1 = new TxPool(poolChainView(withId), { minGasPrice: 0n, maxSize: 10, priceBumpPercent: 10 })
    expect(await pool1.add(tx(0n, true))).toMatch(/^0x/)
    // eth_chainId answers null without a chain id, as Besu's EthChainId.
    const settings = { chainId: 1n }
    expect(await chainId.call({ chain: chainless, settings } as never, [])).toBeNull()
    expect(await chainId.call({ chain: withId, settings } as never, [])).toBe('0x1')
    // eth_config's chainId likewise, as Besu's EthConfig.
    const forkChainId = async (chain: typeof withId) =>
      ((await ethConfig.call({ chain, settings } as never, [])) as { current: { chainId: unknown } }).current.chainId
    expect(await forkChainId(chainless)).toBeNull()
    expect(await forkChainId(withId)).toBe('0x1')
  })

  it('gives the dev preset a stable hash, so a restart finds its own chain', async () => {
    expect(await genesisHash(devGenesis())).toBe(await genesisHash(devGenesis()))
  })

  it.skipIf(!HAS_CONFORMANCE)('builds the BPO forks of a blob schedule with the target and max they read', () => {
    const g = normalizeGenesis(JSON.parse(readFileSync(CONFORMANCE_GENESIS, 'utf8')))
    const common = createChainCommon(g, {})
    common.setHardfork('bpo2')
    expect([common.param('target'), common.param('max')]).toEqual([14n, 21n])
  })

  it('schedules forks by block number, and after the merge by timestamp', () => {
    const preBerlin = {
      chainId: 9,
      homesteadBlock: 0,
      eip150Block: 0,
      eip155Block: 0,
      eip158Block: 0,
      byzantiumBlock: 0,
      constantinopleBlock: 0,
      petersburgBlock: 0,
      istanbulBlock: 0,
    }
    const commonOf = (config: Record<string, unknown>) =>
      createChainCommon(normalizeGenesis({ config, difficulty: '0x0', gasLimit: '0x1c9c380' }), {})
    const byBlock = commonOf({ ...preBerlin, berlinBlock: 5, londonBlock: 10 })
    const at = (c: ReturnType<typeof commonOf>, blockNumber: bigint, timestamp: bigint) =>
      c.getHardforkBy({ blockNumber, timestamp })
    expect([at(byBlock, 4n, 0n), at(byBlock, 5n, 0n), at(byBlock, 10n, 0n)]).toEqual(['istanbul', 'berlin', 'london'])
    const byTime = commonOf({
      ...preBerlin,
      berlinBlock: 0,
      londonBlock: 0,
      terminalTotalDifficulty: 0,
      shanghaiTime: 1000,
      cancunTime: 2000,
    })
    byTime.setHardfork(at(byTime, 0n, 999n))
    expect(byTime.gteHardfork('paris')).toBe(true)
    expect(byTime.gteHardfork('shanghai')).toBe(false)
    expect([at(byTime, 1n, 1000n), at(byTime, 2n, 2500n)]).toEqual(['shanghai', 'cancun'])
  })

  it('allocates balance, nonce, code and storage', async () => {
    const who = '0x00000000000000000000000000000000000000aa'
    const slot = `0x${'00'.repeat(31)}01`
    const g = normalizeGenesis({
      config: { chainId: 9, londonBlock: 0 },
      gasLimit: '0x1c9c380',
      alloc: { [who.slice(2)]: { balance: '0x64', nonce: '0x7', code: '0x6001', storage: { [slot]: '0x2a' } } },
    })
    const db = await openSqlite(':memory:')
    migrate(db, true)
    const state = openState(new TrieDb(new ChainStore(db)), createChainCommon(g, {}), KECCAK256_RLP, true)
    await state.generateCanonicalGenesis(genesisState(g))
    const address = new Address(hexToBytes(who))
    const account = await state.getAccount(address)
    expect([account?.balance, account?.nonce]).toEqual([100n, 7n])
    expect(utilBytesToHex(await state.getCode(address))).toBe('0x6001')
    expect(utilBytesToHex(await state.getStorage(address, hexToBytes(slot)))).toBe('0x2a')
  })

  it('makes the dev preset chain 1337, post-merge on the latest fork, with the dev accounts funded', async () => {
    const g = devGenesis()
    const common = createChainCommon(g, {})
    expect(common.chainId()).toBe(1337n)
    expect(common.getHardforkBy({ blockNumber: 0n, timestamp: 0n })).toBe('osaka')
    expect(common.gteHardfork('paris')).toBe(true)
    const alloc = g.alloc as Record<string, { balance: string }>
    const accounts = devAccounts()
    expect(accounts).toHaveLength(13)
    for (const a of accounts) expect(BigInt(alloc[a.address.toLowerCase()].balance)).toBe(10_000n * 10n ** 18n)
  })
})

describe('parseGenesisText', () => {
  it('names the file, line and column of a JSON syntax error', () => {
    expect(() => parseGenesisText('{\n  "config": zzz\n}', 'g.json')).toThrow(
      'invalid genesis file g.json: unexpected character "z" at line 2, column 13',
    )
  })

  it('names the field of a malformed value', () => {
    const text = JSON.stringify({ config: { chainId: 1 }, extraData: 'zzz' })
    expect(() => parseGenesisText(text, 'g.json')).toThrow(
      'invalid genesis file g.json: extraData must be a hex string',
    )
    const fork = JSON.stringify({ config: { chainId: 1, londonBlock: 'soon' } })
    expect(() => parseGenesisText(fork, 'g.json')).toThrow('config.londonBlock must be a non-negative integer')
  })

  it("reads legacy IBFT 1.0 only on the way to QBFT, refused otherwise in Besu's words", () => {
    const legacy = (config: Record<string, unknown>) => JSON.stringify({ config: { chainId: 1, ibft: {}, ...config } })
    expect(() => parseGenesisText(legacy({}), 'g.json')).toThrow(
      'invalid genesis file g.json: config.ibft: IBFT1 (legacy) is no longer supported. Consider using IBFT2 or QBFT.',
    )
    expect(() => parseGenesisText(legacy({ qbft: {} }), 'g.json')).toThrow(
      'invalid genesis file g.json: Missing QBFT startBlock config in genesis file',
    )
    expect(() => parseGenesisText(legacy({ qbft: { startBlock: -1 } }), 'g.json')).toThrow(
      'Invalid QBFT startBlock config in genesis file',
    )
    expect(() => parseGenesisText(legacy({ ibft: { epochlength: 0 }, qbft: { startBlock: 9 } }), 'g.json')).toThrow(
      'config.ibft.epochlength: Epoch length in config must be greater than zero',
    )
    const g = parseGenesisText(
      legacy({ ibft: { epochlength: 100, Ceil2Nby3Block: 7 }, qbft: { startBlock: 101 } }),
      'g.json',
    )
    const schedule = new BftSchedule('qbft', g.config as Record<string, unknown>)
    expect([schedule.isLegacyIbft, schedule.migrationBlock, schedule.ceil2Nby3Block]).toEqual([true, 101n, 7n])
    expect(bftConsensusOf(g)).toMatchObject({ kind: 'qbft', epochLength: 100n })
    // With IBFT 2.0 too, Besu migrates from IBFT 2.0 (it reads that section first).
    const both = parseGenesisText(legacy({ ibft2: {}, qbft: { startBlock: 3 } }), 'g.json')
    expect(new BftSchedule('qbft', both.config as Record<string, unknown>).kinds).toEqual(['ibft2', 'qbft'])
  })

  it("refuses an epoch of no blocks in Besu's words, and a fraction by name, in every PoA section", () => {
    // A clique genesis names one signer between its vanity and seal bytes.
    const cliqueExtra = `0x${'00'.repeat(32)}${'ab'.repeat(20)}${'00'.repeat(65)}`
    const withEpoch = (kind: string, key: string, v: unknown) =>
      JSON.stringify({
        config: { chainId: 1, [kind]: { [key]: v } },
        ...(kind === 'clique' ? { extraData: cliqueExtra } : {}),
      })
    for (const [kind, key] of [
      ['clique', 'epochlength'],
      ['clique', 'epoch'],
      ['ibft2', 'epochlength'],
      ['qbft', 'EpochLength'],
    ]) {
      const name = `config.${kind}.${key.toLowerCase()}`
      for (const bad of [0, -3000, '0'])
        expect(() => parseGenesisText(withEpoch(kind, key, bad), 'g.json')).toThrow(
          `invalid genesis file g.json: ${name}: Epoch length in config must be greater than zero`,
        )
      for (const bad of [1.5, 'soon', '', true])
        expect(() => parseGenesisText(withEpoch(kind, key, bad), 'g.json')).toThrow(
          `${name} must be a whole number of blocks, got ${JSON.stringify(bad)}`,
        )
      expect(() => parseGenesisText(withEpoch(kind, key, 30000), 'g.json')).not.toThrow()
      expect(() => parseGenesisText(withEpoch(kind, key, '0x7530'), 'g.json')).not.toThrow()
    }
  })

  it("reads Besu's IBFT 2.0 to QBFT migration, refused in Besu's words without a valid start block", () => {
    const migration = (qbft: Record<string, unknown>) =>
      JSON.stringify({ config: { chainId: 1, ibft2: { blockperiodseconds: 2 }, qbft } })
    expect(() => parseGenesisText(migration({}), 'g.json')).toThrow(
      'invalid genesis file g.json: Missing QBFT startBlock config in genesis file',
    )
    expect(() => parseGenesisText(migration({ startBlock: 0 }), 'g.json')).toThrow(
      'Invalid QBFT startBlock config in genesis file',
    )
    const g = parseGenesisText(migration({ STARTBLOCK: '0x7b' }), 'g.json')
    expect(new BftSchedule('qbft', g.config as Record<string, unknown>).migrationBlock).toBe(123n)
    expect(bftConsensusOf(g)?.kind).toBe('ibft2')
    // Without ibft2, a qbft section's startBlock changes nothing (Besu reads it for the migration only).
    expect(() =>
      parseGenesisText(JSON.stringify({ config: { chainId: 1, qbft: { startBlock: 5 } } }), 'g.json'),
    ).not.toThrow()
  })

  it("writes the top-level slotNumber into an Amsterdam genesis header (Besu's GenesisConfig.getSlotNumber), and nowhere else", () => {
    const amsterdam = { chainId: 7, londonBlock: 0, terminalTotalDifficulty: 0, pragueTime: 0, amsterdamTime: 0 }
    const slotOf = (json: Record<string, unknown>) => {
      const g = parseGenesisText(JSON.stringify(json), 'g.json')
      return createGenesisBlock(createChainCommon(g, {}), KECCAK256_RLP).header
    }
    // Besu's genesis_amsterdam.json class: the key in lower case, a hex string.
    expect(slotOf({ config: amsterdam, timestamp: '0x1234', slotnumber: '0x42' }).slotNumber).toBe(0x42n)
    expect(slotOf({ config: amsterdam, slotNumber: 66 }).slotNumber).toBe(66n)
    expect(slotOf({ config: amsterdam }).slotNumber).toBe(0n)
    // Before Amsterdam the header has no such field, and the key changes nothing.
    const prague = { chainId: 7, londonBlock: 0, terminalTotalDifficulty: 0, pragueTime: 0 }
    const plain = slotOf({ config: prague })
    const withSlot = slotOf({ config: prague, slotNumber: '0x42' })
    expect(withSlot.slotNumber).toBeUndefined()
    expect(bytesToHex(withSlot.hash())).toBe(bytesToHex(plain.hash()))
  })

  it('ignores cancunEOFTime and verkleTime, milestones Besu no longer (or never) schedules', () => {
    const config = { chainId: 1, londonBlock: 0, shanghaiTime: 0, cancunTime: 0, cancunEOFTime: 0, verkleTime: 0 }
    const common = createChainCommon(parseGenesisText(JSON.stringify({ config }), 'g.json'), {})
    common.setHardforkBy({ blockNumber: 1n, timestamp: 100n })
    expect(common.hardfork()).toBe('cancun')
    // No EOF (EIP-3540) and no Prague rules (EIP-7702) come with them.
    expect([3540, 7702].map((e) => common.isActivatedEIP(e))).toEqual([false, false])
  })

  it('takes forks out of order as Besu does: London from block 5, Berlin (the higher number) from 10', () => {
    const common = createChainCommon(
      parseGenesisText(JSON.stringify({ config: { chainId: 1, berlinBlock: 10, londonBlock: 5 } }), 'g.json'),
      {},
    )
    expect([4n, 5n, 10n].map((n) => common.getHardforkBy({ blockNumber: n, timestamp: 0n }))).toEqual([
      'chainstart',
      'london',
      'berlin',
    ])
    const withDao = JSON.stringify({ config: { chainId: 1, daoForkBlock: 1, berlinBlock: 10, londonBlock: 5 } })
    expect(() => parseGenesisText(withDao, 'g.json')).toThrow(
      "Genesis Config Error: 'London' is scheduled for milestone 5 but it must be on or after milestone 10.",
    )
  })

  it("writes a baseFeePerGas into a genesis header before London, as Besu's GenesisState does", async () => {
    // Besu's old shanghai.json class: `shanghaiBlock` (a key Besu does not read), merged at genesis,
    // no London, a decimal base fee and timestamp. The genesis header gets London's shape.
    const text = JSON.stringify({
      config: { chainId: 1337907, shanghaiBlock: 0, terminalTotalDifficulty: 0, ethash: {} },
      baseFeePerGas: '1000000000',
      difficulty: '0x01',
      extraData: '',
      gasLimit: '0x400000',
      nonce: '0x1234',
      timestamp: '1666736008',
      alloc: { '0x0000000000000000000000000000000000000001': { balance: '1' } },
    })
    const chain = await openMemoryChain(parseGenesisText(text, 'shanghai.json'))
    const header = chain.genesis.header
    expect(header.baseFeePerGas).toBe(1_000_000_000n)
    expect(header.withdrawalsRoot).toBeUndefined()
    const fields = RLP.decode(header.serialize()) as Uint8Array[]
    expect(fields.length).toBe(16)
    expect(bytesToBigint(fields[15])).toBe(1_000_000_000n)
    expect(header.hash()).toEqual(keccak_256(header.serialize()))
    // The blocks after it run Frontier's rules (no base fee), under the merge.
    const next = chain.commonForNextBlock()
    expect(next.isActivatedEIP(1559)).toBe(false)
    expect(next.isActivatedEIP(4895)).toBe(false)
    // The stored genesis is read back by hash.
    expect((await chain.getBlockByHash(header.hash()))?.header.baseFeePerGas).toBe(1_000_000_000n)
    expect(chain.getHeaderByHash(header.hash())?.baseFeePerGas).toBe(1_000_000_000n)
    const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 10, priceBumpPercent: 10 })
    const sealer = new DevSealer(chain, pool, { coinbase: new Uint8Array(20), clock: manualClock(1_700_000_000_000) })
    const block = (await sealer.sealBlock(true))!
    expect([block.header.number, block.header.baseFeePerGas, block.header.difficulty]).toEqual([1n, undefined, 0n])
  })

  it('gives a genesis before London without a baseFeePerGas no base fee', async () => {
    const chain = await openMemoryChain(parseGenesisText(JSON.stringify({ config: { londonBlock: 10 } }), 'g.json'))
    expect(chain.genesis.header.baseFeePerGas).toBeUndefined()
    expect((RLP.decode(chain.genesis.header.serialize()) as Uint8Array[]).length).toBe(15)
  })

  it('takes short hex for hashes and addresses, left-padded as Besu does', async () => {
    const g = parseGenesisText(
      JSON.stringify({ config: { chainId: 1 }, mixHash: '0x1', coinbase: '0x0', extraData: '0x0' }),
      'g',
    )
    const chain = await openMemoryChain(g)
    expect(chain.genesis.header.mixHash).toEqual(hexToBytes(`0x${'00'.repeat(31)}01`))
    expect(chain.genesis.header.coinbase.isZero()).toBe(true)
    expect(() =>
      parseGenesisText(JSON.stringify({ config: { chainId: 1 }, coinbase: `0x${'11'.repeat(21)}` }), 'g'),
    ).toThrow('coinbase is longer than 20 bytes')
  })

  it('keeps a terminal total difficulty beyond 2^53 exact', () => {
    const g = parseGenesisText('{"config": {"chainId": 1, "terminalTotalDifficulty": 58750000000000000000000}}', 'g')
    expect(g.config.terminalTotalDifficulty).toBe(58750000000000000000000n)
  })
})
