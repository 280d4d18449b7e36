import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { runValidatorTo } from '../../test/chain/runValidator.ts'
import { BlockImportError, importBlock } from '../chain/blockImporter.ts'
import type { Chain } from '../chain/chain.ts'
import { genesisExtraData } from '../consensus/bftExtraData.ts'
import { addressOf } from '../consensus/bftHashing.ts'
import { SYSTEM_CONTRACTS } from '../evm/systemContracts.ts'
import { createBftValidator } from '../node/bftNode.ts'
import { openChain, poolChainView } from '../node/node.ts'
import { systemClock } from '../primitives/clock.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { setLogLevel } from '../primitives/logger.ts'
import { blockAccessListJson } from '../rpc/blockAccessListJson.ts'
import { afterAll, describe, expect, it } from '../runtime/testing.ts'
import { TxPool } from '../txpool/txPool.ts'

const KEY = new Uint8Array(32).fill(1)
const PROPOSER = bytesToHex(addressOf(KEY))
const BENEFICIARY = '0x0000000000000000000000000000000000b0b0b0'
const FUNDED_KEY = hexToBytes('0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63')
const ETHER = 10n ** 18n
const GENESIS_TIME = `0x${Math.floor(Date.now() / 1000).toString(16)}`
setLogLevel('WARN')
const dir = mkdtempSync(join(tmpdir(), 'basalt-bft-reward-'))
const closers: (() => Promise<void> | void)[] = []
afterAll(async () => {
  for (const close of closers.reverse()) await close()
  rmSync(dir, { recursive: true, force: true })
})

/** A one-validator genesis: 2 ether (hex) to BENEFICIARY in blocks 1-2, then 3 ether (decimal) to the proposer. */
function genesisFile(kind: 'qbft' | 'ibft2', withReward: boolean, forks: Record<string, unknown> = {}): string {
  const section = withReward ? { blockreward: `0x${(2n * ETHER).toString(16)}`, miningbeneficiary: BENEFICIARY } : {}
  const transitions = withReward
    ? { [kind]: [{ block: 3, blockreward: (3n * ETHER).toString(), miningbeneficiary: '' }] }
    : undefined
  const genesis = {
    config: {
      chainId: 1337,
      berlinBlock: 0,
      londonBlock: 0,
      ...forks,
      [kind]: { blockperiodseconds: 1, requesttimeoutseconds: 2, ...section },
      transitions,
    },
    extraData: bytesToHex(genesisExtraData(kind, [addressOf(KEY)])),
    gasLimit: '0x1fffffffffffff',
    timestamp: GENESIS_TIME,
    alloc: {
      fe3b557e8fb62b89f4916b721be55ceb828dbd73: { balance: '0xad78ebc5ac6200000' },
      // The later forks' system contracts (EIP-2935, 4788, 7002, 7251), when a later fork is scheduled.
      ...(Object.keys(forks).length === 0
        ? {}
        : Object.fromEntries(SYSTEM_CONTRACTS.map((c) => [c.address, { code: c.code, nonce: '0x1' }]))),
    },
  }
  const file = join(dir, `${kind}-${withReward}-${Object.keys(forks).join('-')}.json`)
  writeFileSync(file, JSON.stringify(genesis))
  return file
}

async function open(file: string): Promise<Chain> {
  const { chain, close } = await openChain({ genesisFile: file, dataPath: ':memory:' })
  closers.push(close)
  return chain
}

async function balanceAt(chain: Chain, n: bigint, address: string): Promise<bigint> {
  const block = (await chain.getBlockByNumber(n))!
  return (await chain.stateAt(block).getAccount(new Address(hexToBytes(address))))?.balance ?? 0n
}

describe.each(['qbft', 'ibft2'] as const)('%s block reward', (kind) => {
  it('is paid in every block built, to miningbeneficiary then the proposer, and re-imported to the same state', async () => {
    const file = genesisFile(kind, true)
    const { chain, bft } = await openChain({ genesisFile: file, dataPath: ':memory:' })
    const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 })
    const validator = createBftValidator(chain, pool, bft!, KEY, systemClock)
    closers.push(close(chain), () => validator.stop())
    // A transfer to the beneficiary in block 1: the reward comes on top of it.
    const tx = createFeeMarket1559Tx(
      {
        nonce: 0n,
        to: hexToBytes(BENEFICIARY),
        value: 7n,
        gasLimit: 21000n,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 2n,
      },
      { common: chain.commonForNextBlock() },
    ).sign(FUNDED_KEY)
    await pool.add(tx)
    await runValidatorTo(validator, chain, 4n)
    const block1 = (await chain.getBlockByNumber(1n))!
    expect(block1.transactions.map((t) => bytesToHex(t.hash()))).toEqual([bytesToHex(tx.hash())])
    expect((await chain.getBlockByNumber(2n))!.transactions).toHaveLength(0)
    expect(bytesToHex(block1.header.coinbase.bytes)).toBe(PROPOSER)
    const fee = 21000n * 2n

    // Blocks 1 and 2 (2 ether each) to the beneficiary; block 2 has no transaction and is paid too.
    expect(await balanceAt(chain, 1n, BENEFICIARY)).toBe(7n + 2n * ETHER)
    expect(await balanceAt(chain, 2n, BENEFICIARY)).toBe(7n + 4n * ETHER)
    expect(await balanceAt(chain, 4n, BENEFICIARY)).toBe(7n + 4n * ETHER)
    // The proposer gets only its priority fees until block 3, then 3 ether a block.
    expect(await balanceAt(chain, 2n, PROPOSER)).toBe(fee)
    expect(await balanceAt(chain, 3n, PROPOSER)).toBe(fee + 3n * ETHER)
    expect(await balanceAt(chain, 4n, PROPOSER)).toBe(fee + 6n * ETHER)

    // A node importing the blocks computes the same state roots (runBlock checks each one).
    const follower = await open(file)
    for (let n = 1n; n <= 4n; n++) {
      const block = (await chain.getBlockByNumber(n))!
      await importBlock(follower, block, { setHead: true })
      expect(bytesToHex(follower.head.header.stateRoot)).toBe(bytesToHex(block.header.stateRoot))
    }
    expect(await balanceAt(follower, 4n, PROPOSER)).toBe(fee + 6n * ETHER)

    // A node that pays no reward finds block 1's state root wrong: the reward is part of the block.
    const noReward = await open(genesisFile(kind, false))
    expect(bytesToHex(noReward.genesis.hash())).toBe(bytesToHex(chain.genesis.hash()))
    const err = await importBlock(noReward, block1, { setHead: true }).catch((e) => e)
    expect(err).toBeInstanceOf(BlockImportError)
    expect((err as BlockImportError).reason).toContain('stateRoot')
  }, 60_000)
})

/**
 * EIP-7928 on a BFT chain: Besu builds a block's access list from the trackers of the system calls,
 * the transactions and the post-transaction calls, and pays the `blockreward` afterwards through an
 * untracked updater (AbstractBlockProcessor.rewardCoinbase), so the reward is in the state and the
 * header's state root but not in the list; Basalt's list and hash are the same.
 */
describe('qbft block reward on Amsterdam', () => {
  it('is paid but not recorded in the block access list, and the blocks import elsewhere with their lists', async () => {
    const file = genesisFile('qbft', true, { shanghaiTime: 0, cancunTime: 0, pragueTime: 0, amsterdamTime: 0 })
    const { chain, bft } = await openChain({ genesisFile: file, dataPath: ':memory:' })
    const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 100, priceBumpPercent: 10 })
    const validator = createBftValidator(chain, pool, bft!, KEY, systemClock)
    closers.push(close(chain), () => validator.stop())
    // EIP-8037: a transfer that creates the recipient's account pays its state bytes, above 21,000.
    const fees = { gasLimit: 500_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 2n, chainId: 1337n }
    const tx = createFeeMarket1559Tx(
      { nonce: 0n, to: hexToBytes(BENEFICIARY), value: 7n, ...fees },
      {
        common: chain.commonForNextBlock(),
      },
    ).sign(FUNDED_KEY)
    await pool.add(tx)
    await runValidatorTo(validator, chain, 2n)
    expect(await balanceAt(chain, 2n, BENEFICIARY)).toBe(7n + 4n * ETHER)
    const entry = (n: bigint) => async () => {
      const block = (await chain.getBlockByNumber(n))!
      const rlp = chain.store.readBlockAccessList(block.hash())!
      expect(bytesToHex(keccak_256(rlp))).toBe(bytesToHex(block.header.blockAccessListHash!))
      return blockAccessListJson(rlp).find((a) => a.address === BENEFICIARY)
    }
    // Block 1: the transfer of 7 wei only; block 2 (no transaction): the beneficiary is not listed.
    expect((await entry(1n)())?.balanceChanges).toEqual([{ index: '0x1', value: '0x7' }])
    expect(await entry(2n)()).toBeUndefined()
    const follower = await open(file)
    for (let n = 1n; n <= 2n; n++) {
      const block = (await chain.getBlockByNumber(n))!
      await importBlock(follower, block, { setHead: true })
      const stored = (c: Chain) => bytesToHex(c.store.readBlockAccessList(block.hash())!)
      expect(stored(follower)).toBe(stored(chain))
    }
  }, 60_000)
})

function close(chain: Chain): () => void {
  return () => chain.flushState()
}
