/**
 * Besu's rule for system calls on PoA chains (src/evm/poaSystemCalls.ts): a QBFT or clique chain on
 * Prague whose config does not name all three request contract addresses writes nothing to the
 * EIP-4788 and EIP-2935 contracts and makes no request calls (its `requestsHash` is the hash of no
 * requests); with the three addresses, the calls happen. Blocks of both kinds import elsewhere.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Block } from '@ethereumjs/block'
import { createLegacyTx } from '@ethereumjs/tx'
import { Address, createContractAddress, privateToAddress } from '@ethereumjs/util'
import { runValidatorTo } from '../../test/chain/runValidator.ts'
import { importBlock } from '../chain/blockImporter.ts'
import type { Chain } from '../chain/chain.ts'
import { normalizeGenesis } from '../chain/genesis.ts'
import { openMemoryChain } from '../chain/memoryChain.ts'
import { genesisExtraData } from '../consensus/bftExtraData.ts'
import { addressOf } from '../consensus/bftHashing.ts'
import { SYSTEM_CONTRACTS } from '../evm/systemContracts.ts'
import { replayBlock } from '../evm/tracers/blockReplayer.ts'
import { createBftValidator } from '../node/bftNode.ts'
import { openChain, poolChainView } from '../node/node.ts'
import { manualClock, systemClock } from '../primitives/clock.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { setLogLevel } from '../primitives/logger.ts'
import { config as ethConfig } from '../rpc/eth/configMethods.ts'
import { afterAll, describe, expect, it, needsPatchedLibraries } from '../runtime/testing.ts'
import { TxPool } from '../txpool/txPool.ts'
import { DevSealer } from './devSealer.ts'

setLogLevel('WARN')
const KEY = new Uint8Array(32).fill(1)
const GENESIS_TIME = `0x${Math.floor(Date.now() / 1000).toString(16)}`
const PRAGUE = { shanghaiTime: 0, cancunTime: 0, pragueTime: 0 }
/** The three addresses Besu's `hasSystemContractAddresses` asks for (here: mainnet's). */
const REQUEST_ADDRESSES = {
  depositContractAddress: '0x00000000219ab540356cbb839cbe05303d7705fa',
  withdrawalRequestContractAddress: '0x00000961ef480eb55e80d19ad83579a64c007002',
  consolidationRequestContractAddress: '0x0000bbddc7ce488642fb579f8b00f3a590007251',
}
/** sha256 of nothing: the requests hash of a block with no requests (EIP-7685). */
const NO_REQUESTS_HASH = '0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
const EMPTY_TRIE_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421'
const BEACON_ROOTS = SYSTEM_CONTRACTS[0].address
const HISTORY = SYSTEM_CONTRACTS[1].address
const SYSTEM_ALLOC = Object.fromEntries(SYSTEM_CONTRACTS.map((c) => [c.address, { code: c.code, nonce: '0x1' }]))

const dir = mkdtempSync(join(tmpdir(), 'basalt-poa-system-calls-'))
const closers: (() => Promise<void> | void)[] = []
afterAll(async () => {
  for (const close of closers.reverse()) await close()
  rmSync(dir, { recursive: true, force: true })
})

async function storageRoot(chain: Chain, block: Block, address: string): Promise<string> {
  const account = await chain.stateAt(block).getAccount(new Address(hexToBytes(address)))
  return bytesToHex(account!.storageRoot)
}

async function slot(chain: Chain, block: Block, address: string, n: bigint): Promise<string> {
  const key = hexToBytes(`0x${n.toString(16).padStart(64, '0')}`)
  return bytesToHex(await chain.stateAt(block).getStorage(new Address(hexToBytes(address)), key))
}

/**
 * A block hash as a slot holds it: storage drops leading zero bytes, so a hash that starts with one
 * (a genesis of this second's timestamp, now and then) reads back shorter.
 */
function stored(hash: Uint8Array): string {
  const hex = bytesToHex(hash)
    .slice(2)
    .replace(/^(00)+/, '')
  return `0x${hex}`
}

/** Two blocks of a one-validator QBFT chain on Prague (`config` added to its config). */
async function qbftBlocks(
  name: string,
  config: Record<string, unknown>,
  alloc: Record<string, unknown> = SYSTEM_ALLOC,
): Promise<{ chain: Chain; file: string }> {
  const genesis = {
    config: { chainId: 1337, berlinBlock: 0, londonBlock: 0, ...PRAGUE, ...config, qbft: { blockperiodseconds: 1 } },
    extraData: bytesToHex(genesisExtraData('qbft', [addressOf(KEY)])),
    gasLimit: '0x1c9c380',
    timestamp: GENESIS_TIME,
    alloc,
  }
  const file = join(dir, `${name}.json`)
  writeFileSync(file, JSON.stringify(genesis))
  const { chain, bft, close } = await openChain({ genesisFile: file, dataPath: ':memory:' })
  closers.push(close)
  const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 10, priceBumpPercent: 10 })
  const validator = createBftValidator(chain, pool, bft!, KEY, systemClock)
  closers.push(() => validator.stop())
  await runValidatorTo(validator, chain, 2n)
  return { chain, file }
}

async function importsElsewhere(chain: Chain, file: string): Promise<void> {
  const { chain: follower, close } = await openChain({ genesisFile: file, dataPath: ':memory:' })
  closers.push(close)
  for (let n = 1n; n <= 2n; n++) {
    const block = (await chain.getBlockByNumber(n))!
    await importBlock(follower, block, { setHead: true })
  }
  expect(bytesToHex(follower.head.hash())).toBe(bytesToHex((await chain.getBlockByNumber(2n))!.hash()))
}

/** Why the tests of other code at the system addresses need Bun. */
const OTHER_CODE_PATCH = 'other code at the EIP-4788 / EIP-2935 addresses runs through a library patch'

describe('system calls on a QBFT chain on Prague', () => {
  it('without the three request contract addresses: none, and the blocks import elsewhere', async () => {
    const { chain, file } = await qbftBlocks('qbft-none', {})
    const two = (await chain.getBlockByNumber(2n))!
    expect(await storageRoot(chain, two, BEACON_ROOTS)).toBe(EMPTY_TRIE_ROOT)
    expect(await storageRoot(chain, two, HISTORY)).toBe(EMPTY_TRIE_ROOT)
    for (let n = 1n; n <= 2n; n++) {
      const header = (await chain.getBlockByNumber(n))!.header
      expect(bytesToHex(header.requestsHash!)).toBe(NO_REQUESTS_HASH)
      expect(header.parentBeaconBlockRoot?.length).toBe(32)
    }
    await importsElsewhere(chain, file)
  }, 60_000)

  it('with only two of the three addresses: none', async () => {
    const { depositContractAddress: _, ...two } = REQUEST_ADDRESSES
    const { chain } = await qbftBlocks('qbft-two', two)
    expect(await storageRoot(chain, chain.head, HISTORY)).toBe(EMPTY_TRIE_ROOT)
  }, 60_000)

  it('with the three addresses: the history and beacon root writes happen, and the blocks import elsewhere', async () => {
    const { chain, file } = await qbftBlocks('qbft-all', REQUEST_ADDRESSES)
    const one = (await chain.getBlockByNumber(1n))!
    const two = (await chain.getBlockByNumber(2n))!
    // EIP-2935: block n writes its parent's hash at slot n - 1.
    expect(await slot(chain, two, HISTORY, 0n)).toBe(stored((await chain.getBlockByNumber(0n))!.hash()))
    expect(await slot(chain, two, HISTORY, 1n)).toBe(stored(one.hash()))
    // EIP-4788: the block's timestamp at slot timestamp % 8191.
    expect(BigInt(await slot(chain, two, BEACON_ROOTS, two.header.timestamp % 8191n))).toBe(two.header.timestamp)
    expect(bytesToHex(two.header.requestsHash!)).toBe(NO_REQUESTS_HASH)
    await importsElsewhere(chain, file)
  }, 60_000)
})

describe.skipIf(needsPatchedLibraries(OTHER_CODE_PATCH))('other code at the EIP-4788 and EIP-2935 addresses', () => {
  // Besu runs the code at both addresses as a system call (from the system address, the beacon root
  // or the parent hash as input); the EVM library stored the specified contract's slots whatever
  // the code. Here the beacon root contract stores nothing (PUSH0 PUSH0 RETURN, as in Besu's Osaka
  // Engine acceptance genesis) and the history contract stores its input at slot 7 and its caller
  // at slot 8 (PUSH0 CALLDATALOAD PUSH1 7 SSTORE CALLER PUSH1 8 SSTORE).
  it('runs that code: its own writes only, from the system address, and the blocks import elsewhere', async () => {
    const alloc = {
      ...SYSTEM_ALLOC,
      [BEACON_ROOTS]: { code: '0x5f5ff3' },
      [HISTORY]: { code: '0x5f3560075533600855' },
    }
    const { chain, file } = await qbftBlocks('qbft-other-code', REQUEST_ADDRESSES, alloc)
    const one = (await chain.getBlockByNumber(1n))!
    const two = (await chain.getBlockByNumber(2n))!
    expect(await storageRoot(chain, two, BEACON_ROOTS)).toBe(EMPTY_TRIE_ROOT)
    expect(await slot(chain, two, HISTORY, 7n)).toBe(stored(one.hash()))
    expect(await slot(chain, two, HISTORY, 8n)).toBe(`0x${'ff'.repeat(19)}fe`)
    expect(await slot(chain, two, HISTORY, 0n)).toBe('0x')
    const system = await chain.stateAt(two).getAccount(new Address(hexToBytes(`0x${'ff'.repeat(19)}fe`)))
    expect(system).toBeUndefined()
    await importsElsewhere(chain, file)
  }, 60_000)
})

describe('system calls on a clique chain on Prague', () => {
  const nodeKey = hexToBytes(`0x${'42'.repeat(32)}`)
  const signer = bytesToHex(privateToAddress(nodeKey))
  const SENDER_KEY = hexToBytes(`0x${'07'.repeat(32)}`)
  const SENDER = bytesToHex(privateToAddress(SENDER_KEY))
  const genesisOf = (config: Record<string, unknown>) =>
    normalizeGenesis({
      config: {
        chainId: 1981,
        londonBlock: 0,
        ...PRAGUE,
        ...config,
        clique: { blockperiodseconds: 4, epochlength: 30 },
      },
      difficulty: '0x1',
      gasLimit: '0x1c9c380',
      extraData: `0x${'00'.repeat(32)}${signer.slice(2)}${'00'.repeat(65)}`,
      alloc: { ...SYSTEM_ALLOC, [SENDER]: { balance: '1000000000000000000000' } },
    })

  for (const [title, config, isCalled] of [
    ['without the request contract addresses: none', {}, false],
    ['with the three addresses: the writes happen', REQUEST_ADDRESSES, true],
  ] as const) {
    it(`${title}, and the blocks import elsewhere`, async () => {
      const genesis = genesisOf(config)
      const chain = await openMemoryChain(genesis)
      const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 10, priceBumpPercent: 10 })
      const opts = { coinbase: new Uint8Array(20), cliqueKey: nodeKey, clock: manualClock(1_700_000_000_000) }
      const sealer = new DevSealer(chain, pool, opts)
      // Block 1 asks the history contract for block 0's hash: zero unless the block wrote it first.
      const ask = {
        nonce: 0n,
        to: hexToBytes(HISTORY),
        data: new Uint8Array(32),
        gasLimit: 100_000n,
        gasPrice: 10n ** 10n,
      }
      await pool.add(createLegacyTx(ask, { common: chain.commonForNextBlock() }).sign(SENDER_KEY))
      const blocks = [(await sealer.sealBlock(true))!, (await sealer.sealBlock(true))!]
      expect(blocks[0].transactions.length).toBe(1)
      const genesisHash = bytesToHex((await chain.getBlockByNumber(0n))!.hash())
      // A trace replays the block's pre-execution writes as the block ran them.
      const replayed = await replayBlock(chain, blocks[0], () => ({
        start: () => {},
        finish: (_ctx, r) => bytesToHex(r.execResult.returnValue),
      }))
      expect(replayed.get(0)).toBe(isCalled ? genesisHash : `0x${'00'.repeat(32)}`)
      const history = await slot(chain, blocks[1], HISTORY, 1n)
      expect(history).toBe(isCalled ? stored(blocks[0].hash()) : '0x')
      if (!isCalled) expect(await storageRoot(chain, blocks[1], BEACON_ROOTS)).toBe(EMPTY_TRIE_ROOT)
      const replica = await openMemoryChain(genesis)
      for (const b of blocks) await importBlock(replica, b, { setHead: true })
      expect(bytesToHex(replica.head.hash())).toBe(bytesToHex(blocks[1].hash()))
      // eth_config: Besu names the contracts its pre-execution processor and request coordinator call.
      const settings = { chainId: 1981n }
      const answer = (await ethConfig.call({ chain, settings } as never, [])) as {
        current: { systemContracts: Record<string, string> }
      }
      expect(Object.keys(answer.current.systemContracts).sort()).toEqual(
        isCalled
          ? [
              'BEACON_ROOTS_ADDRESS',
              'CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS',
              'DEPOSIT_CONTRACT_ADDRESS',
              'HISTORY_STORAGE_ADDRESS',
              'WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS',
            ]
          : [],
      )
    }, 60_000)
  }

  it('runs code: COINBASE is the signer, in the block and on import', async () => {
    const genesis = genesisOf({})
    const chain = await openMemoryChain(genesis)
    const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 10, priceBumpPercent: 10 })
    const opts = { coinbase: new Uint8Array(20), cliqueKey: nodeKey, clock: manualClock(1_700_000_000_000) }
    const sealer = new DevSealer(chain, pool, opts)
    // Init code COINBASE PUSH1 0 SSTORE STOP: the created account stores the coinbase at slot 0.
    const create = { nonce: 0n, data: hexToBytes('0x41600055'), gasLimit: 100_000n, gasPrice: 10n ** 10n }
    await pool.add(createLegacyTx(create, { common: chain.commonForNextBlock() }).sign(SENDER_KEY))
    const block = (await sealer.sealBlock(true))!
    expect(block.transactions.length).toBe(1)
    const created = bytesToHex(createContractAddress(new Address(hexToBytes(SENDER)), 0n).bytes)
    expect(await slot(chain, block, created, 0n)).toBe(signer)
    const replica = await openMemoryChain(genesis)
    await importBlock(replica, block, { setHead: true })
    expect(bytesToHex(replica.head.header.stateRoot)).toBe(bytesToHex(block.header.stateRoot))
  }, 60_000)
})
