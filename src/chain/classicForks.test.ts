/**
 * Ethereum Classic genesis files as Besu reads them: each milestone on its library fork, ETC's
 * difficulty calculators and ECIP-1017 era rewards, checked by building and importing blocks.
 */
import {
  type Block,
  createBlock,
  createBlockFromBytesArray,
  createBlockFromRLP,
  createBlockHeader,
} from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { Capability, createLegacyTx, createTxFromRLP } from '@ethereumjs/tx'
import { Account, createAddressFromPrivateKey, createAddressFromString } from '@ethereumjs/util'
import { buildBlock } from '@ethereumjs/vm'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { createVm } from '../evm/vmFactory.ts'
import { poolChainView } from '../node/node.ts'
import { manualClock } from '../primitives/clock.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { DevSealer } from '../producer/devSealer.ts'
import { importJsonBlocks, parseJsonBlocks } from '../producer/jsonBlocks.ts'
import type { RpcContext } from '../rpc/context.ts'
import { rewardTraces } from '../rpc/trace/blockTraces.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { openState } from '../state/worldState.ts'
import { TxPool } from '../txpool/txPool.ts'
import { importBlock, runChainBlock } from './blockImporter.ts'
import type { Chain } from './chain.ts'
import { classicDifficulty, classicWinnerReward } from './classicForks.ts'
import { createChainCommon, normalizeGenesis, parseGenesisText } from './genesis.ts'
import { presetPowDifficulty } from './headerValidation.ts'
import { keccakSealError, keccakSealed, keccakSealHash, keccakSolution } from './keccakPow.ts'
import { openMemoryChain } from './memoryChain.ts'

const COINBASE = `0x${'c0'.repeat(20)}`
const ETHER = 10n ** 18n

/** Every ETC milestone, one block apart, with short eras (own values, Besu's keys). */
const CLASSIC_CONFIG = {
  chainId: 6161,
  homesteadBlock: 0,
  classicForkBlock: 0,
  ecip1015Block: 1,
  diehardBlock: 2,
  gothamBlock: 3,
  // At Gotham's block: Gotham's bomb delay has no value before block 2,200,000 (Besu's calculator
  // fails), so the defused difficulty replaces it, and ECIP-1017's rewards stay.
  ecip1041Block: 3,
  atlantisBlock: 5,
  aghartaBlock: 6,
  phoenixBlock: 7,
  thanosBlock: 8,
  magnetoBlock: 9,
  mystiqueBlock: 10,
  spiralBlock: 11,
  ecip1017EraRounds: 4,
  ethash: {},
}

function classicGenesis(config: Record<string, unknown> = CLASSIC_CONFIG, alloc: Record<string, unknown> = {}) {
  return normalizeGenesis({ config, alloc, difficulty: '0x20000', gasLimit: '0x7a1200', timestamp: '0x10' })
}

/** An ECIP-1049 genesis of `config` with the genesis difficulty `difficulty`. */
function keccakGenesis(config: Record<string, unknown>, difficulty: string) {
  return normalizeGenesis({ config, difficulty, gasLimit: '0x7a1200', timestamp: '0x10' })
}

/** An empty block on the head, `secondsLater` after it, with the difficulty the chain's rules give it. */
async function buildPow(chain: Chain, secondsLater = 12n, difficulty?: bigint, coinbase = COINBASE): Promise<Block> {
  const parent = chain.head
  const common = chain.common.copy()
  const number = parent.header.number + 1n
  const timestamp = parent.header.timestamp + secondsLater
  common.setHardforkBy({ blockNumber: number, timestamp })
  const vm = await createVm(common, openState(chain.trieDb, common, parent.header.stateRoot, true), chain)
  const preset = difficulty ?? presetPowDifficulty(common, parent.header, timestamp)
  // London's first block doubles the gas limit (EIP-1559's elasticity).
  const isLondonBlock = common.isActivatedEIP(1559) && common.hardforkBlock('london') === number
  const builder = await buildBlock(vm, {
    parentBlock: parent,
    headerData: {
      number,
      timestamp,
      gasLimit: isLondonBlock ? parent.header.gasLimit * 2n : parent.header.gasLimit,
      coinbase: createAddressFromString(coinbase),
      difficulty: preset,
    },
    blockOpts: {
      putBlockIntoBlockchain: false,
      setHardfork: true,
      calcDifficultyFromHeader: preset === undefined ? parent.header : undefined,
    },
  })
  return (await builder.build()).block
}

async function coinbaseBalance(chain: Chain, coinbase = COINBASE): Promise<bigint> {
  const account = await chain.stateAt(chain.head).getAccount(createAddressFromString(coinbase))
  return account?.balance ?? 0n
}

/**
 * The empty block `built` with `ommers` included and the state root of its parent's state plus
 * `credits` (the rewards the test expects, in wei by account).
 */
async function withOmmers(chain: Chain, built: Block, ommers: Block[], credits: [string, bigint][]): Promise<Block> {
  const state = openState(chain.trieDb, built.common, chain.head.header.stateRoot, true)
  for (const [address, amount] of credits) {
    const a = createAddressFromString(address)
    const account = (await state.getAccount(a)) ?? new Account()
    account.balance += amount
    await state.putAccount(a, account)
  }
  const uncleHeaders = ommers.map((o) => o.header)
  const header = {
    ...built.header.toJSON(),
    stateRoot: await state.getStateRoot(),
    uncleHash: keccak_256(RLP.encode(uncleHeaders.map((h) => h.raw()))),
  }
  return createBlock({ header, uncleHeaders }, { common: built.common, setHardfork: true })
}

describe('Ethereum Classic genesis', () => {
  it('runs each milestone on its library fork, Mystique without the fee market and Spiral without withdrawals', () => {
    const common = createChainCommon(classicGenesis(), {})
    const forkAt = (n: number) => {
      const c = common.copy()
      c.setHardforkBy({ blockNumber: n, timestamp: 1000 + n })
      return c
    }
    const names = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((n) => forkAt(n).hardfork())
    expect(names).toEqual([
      'homestead',
      'tangerineWhistle',
      'dieHard',
      'ecip1041',
      'ecip1041',
      'byzantium',
      'petersburg',
      'istanbul',
      'thanos',
      'berlin',
      'mystique',
      'spiral',
    ])
    const mystique = forkAt(10)
    expect([3529, 3541].map((e) => mystique.isActivatedEIP(e))).toEqual([true, true])
    expect([1559, 3198].map((e) => mystique.isActivatedEIP(e))).toEqual([false, false])
    const spiral = forkAt(11)
    expect([3651, 3855, 3860].map((e) => spiral.isActivatedEIP(e))).toEqual([true, true, true])
    expect(spiral.isActivatedEIP(4895)).toBe(false)
  })

  it("charges EIP-160's EXP byte price from DieHard on, not before", async () => {
    const chain = await openMemoryChain(classicGenesis())
    const expGas = async (blockNumber: number) => {
      const common = chain.common.copy()
      common.setHardforkBy({ blockNumber, timestamp: 100 })
      const vm = await createVm(common, openState(chain.trieDb, common, chain.head.header.stateRoot, true), chain)
      // PUSH2 0xffff PUSH1 2 EXP: a two-byte exponent.
      const r = await vm.evm.runCode!({ code: Uint8Array.from([0x61, 0xff, 0xff, 0x60, 0x02, 0x0a]), gasLimit: 1000n })
      return r.executionGasUsed - 6n
    }
    expect([await expGas(1), await expGas(2)]).toEqual([10n + 2n * 10n, 10n + 2n * 50n])
  })

  it("runs BLAKE2f from Agharta on, as Besu's Agharta runs Istanbul's precompiles, not before", async () => {
    // EIP-152's test vector 5 (12 rounds of "abc").
    const input = hexToBytes(
      `0x0000000c48c9bdf267e6096a3ba7ca8485ae67bb2bf894fe72f36e3cf1361d5f3af54fa5d182e6ad7f520e511f6c3e2b8c68059b6bbd41fbabd9831f79217e1319cde05b616263${'00'.repeat(125)}0300000000000000${'00'.repeat(8)}01`,
    )
    const expected =
      '0xba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923'
    const chain = await openMemoryChain(classicGenesis())
    const blake2f = async (blockNumber: number) => {
      const common = chain.common.copy()
      common.setHardforkBy({ blockNumber, timestamp: 100 })
      const vm = await createVm(common, openState(chain.trieDb, common, chain.head.header.stateRoot, true), chain)
      const to = createAddressFromString(`0x${'00'.repeat(19)}09`)
      const r = await vm.evm.runCall({ to, data: input, gasLimit: 100_000n })
      return [bytesToHex(r.execResult.returnValue), r.execResult.executionGasUsed]
    }
    // Atlantis (block 5): no precompile there, the call returns nothing; Agharta (6) and Phoenix (7) run it.
    expect(await blake2f(5)).toEqual(['0x', 0n])
    expect(await blake2f(6)).toEqual([expected, 12n])
    expect(await blake2f(7)).toEqual([expected, 12n])
  })

  it("imports proof-of-work blocks through every milestone with Besu's ETC difficulty and ECIP-1017 rewards", async () => {
    const chain = await openMemoryChain(classicGenesis())
    let paid = 0n
    for (let n = 1n; n <= 13n; n++) {
      const block = await buildPow(chain)
      await importBlock(chain, block, { setHead: true, skipPowValidation: true })
      // Before Gotham the reward is Frontier's 5 ether; from Gotham on, ECIP-1017's eras of 4 blocks.
      paid += n < 3n ? 5n * ETHER : classicWinnerReward(n, 4n)
      expect(await coinbaseBalance(chain)).toBe(paid)
    }
    expect(chain.head.header.number).toBe(13n)
    expect(classicWinnerReward(5n, 4n)).toBe(4n * ETHER)
    expect(classicWinnerReward(9n, 4n)).toBe((16n * ETHER) / 5n)
  })

  it("pays ommers as Besu's ClassicBlockProcessor: the Ethereum rule in the first era, 1/32 after it", async () => {
    // Eras of 4 blocks: block 4 is in the first era (0), block 6 in the second (1, winner 4 ether).
    const OMMER = `0x${'0e'.repeat(20)}`
    const chain = await openMemoryChain(classicGenesis())
    for (let n = 1; n <= 2; n++)
      await importBlock(chain, await buildPow(chain), { setHead: true, skipPowValidation: true })
    const sibling3 = await buildPow(chain, 12n, undefined, OMMER)
    await importBlock(chain, await buildPow(chain), { setHead: true, skipPowValidation: true })
    const before = await coinbaseBalance(chain)
    // Block 4, ommer at distance 1: the ommer gets 5 − 5/8 = 4.375 ether, the winner 5 + 5/32.
    const four = await withOmmers(
      chain,
      await buildPow(chain),
      [sibling3],
      [
        [COINBASE, 5n * ETHER + (5n * ETHER) / 32n],
        [OMMER, (35n * ETHER) / 8n],
      ],
    )
    await importBlock(chain, four, { setHead: true, skipPowValidation: true })
    expect(await coinbaseBalance(chain)).toBe(before + 5n * ETHER + (5n * ETHER) / 32n)
    expect(await coinbaseBalance(chain, OMMER)).toBe((35n * ETHER) / 8n)
    const sibling5 = await buildPow(chain, 12n, undefined, OMMER)
    await importBlock(chain, await buildPow(chain), { setHead: true, skipPowValidation: true })
    // Block 6, ommer at distance 1: 4/32 = 0.125 ether (the library's rule would pay 3.5 ether),
    // the winner 4 + 4/32.
    const six = await withOmmers(
      chain,
      await buildPow(chain),
      [sibling5],
      [
        [COINBASE, 4n * ETHER + ETHER / 8n],
        [OMMER, ETHER / 8n],
      ],
    )
    const winnerBefore = await coinbaseBalance(chain)
    const fiveRoot = chain.head.header.stateRoot
    await importBlock(chain, six, { setHead: true, skipPowValidation: true })
    expect(chain.head.header.number).toBe(6n)
    expect(await coinbaseBalance(chain)).toBe(winnerBefore + 4n * ETHER + ETHER / 8n)
    expect(await coinbaseBalance(chain, OMMER)).toBe((35n * ETHER) / 8n + ETHER / 8n)
    // trace_block's reward traces name the same shares (Besu's trace takes them from the block processor).
    const traces = rewardTraces({ chain } as unknown as RpcContext, chain.head) as {
      action: { rewardType: string; author: string; value: string }
    }[]
    expect(traces.map((t) => [t.action.rewardType, t.action.author, BigInt(t.action.value)])).toEqual([
      ['block', COINBASE, 4n * ETHER + ETHER / 8n],
      ['uncle', OMMER, ETHER / 8n],
    ])
    // The state is rebuilt from the blocks with the same rewards (the replay after a restart).
    const replayed = openState(chain.trieDb, chain.common, fiveRoot, true)
    const vm = await createVm(six.common, replayed, chain)
    await runChainBlock(chain, vm, { block: six, skipBlockValidation: true, setHardfork: true })
    expect(await replayed.getStateRoot()).toEqual(six.header.stateRoot)
  })

  it('accepts EIP-155 transactions from Classic Tangerine Whistle (ecip1015Block) on, as Besu, not before', async () => {
    const key = new Uint8Array(32).fill(0x42)
    const sender = createAddressFromPrivateKey(key)
    const chain = await openMemoryChain(
      classicGenesis(CLASSIC_CONFIG, { [sender.toString()]: { balance: '0x1000000000000' } }),
    )
    const at = (blockNumber: bigint) => {
      const common = chain.common.copy()
      common.setHardforkBy({ blockNumber })
      return common
    }
    const recipient = `0x${'7e'.repeat(20)}`
    const data = { nonce: 0n, gasPrice: 1n, gasLimit: 21000n, to: createAddressFromString(recipient), value: 7n }
    const raw = createLegacyTx(data, { common: at(2n) })
      .sign(key)
      .serialize()
    const read = createTxFromRLP(raw, { common: at(2n) })
    // v = chain id × 2 + 35 or 36 (6161 × 2 + 35 = 12357).
    expect([12357n, 12358n]).toContain(read.v!)
    expect(read.supports(Capability.EIP155ReplayProtection)).toBe(true)
    expect(read.getSenderAddress().toString()).toBe(sender.toString())
    // Before ecip1015Block (block 0: Classic recovery init, Homestead's rules) the signature is not read.
    expect(() => createTxFromRLP(raw, { common: at(0n) }).getSenderAddress()).toThrow()
    // In a block of DieHard (block 2), decoded from its RLP and imported.
    await importBlock(chain, await buildPow(chain), { setHead: true, skipPowValidation: true })
    const common = at(2n)
    const vm = await createVm(common, openState(chain.trieDb, common, chain.head.header.stateRoot, true), chain)
    const timestamp = chain.head.header.timestamp + 12n
    const builder = await buildBlock(vm, {
      parentBlock: chain.head,
      headerData: {
        number: 2n,
        timestamp,
        gasLimit: chain.head.header.gasLimit,
        coinbase: createAddressFromString(COINBASE),
        difficulty: presetPowDifficulty(common, chain.head.header, timestamp),
      },
      blockOpts: { putBlockIntoBlockchain: false, setHardfork: true },
    })
    await builder.addTransaction(read)
    const { block } = await builder.build()
    const decoded = createBlockFromRLP(block.serialize(), { common: chain.common.copy(), setHardfork: true })
    await importBlock(chain, decoded, { setHead: true, skipPowValidation: true })
    expect(chain.head.header.number).toBe(2n)
    expect(await coinbaseBalance(chain, recipient)).toBe(7n)
  })

  it("refuses a block with ethash's difficulty where ETC's calculator applies", async () => {
    const chain = await openMemoryChain(classicGenesis({ ...CLASSIC_CONFIG, diehardBlock: 1, ecip1015Block: 1 }))
    const wrong = await buildPow(chain, 1n, 131072n + 64n + 1n)
    await expect(importBlock(chain, wrong, { setHead: true, skipPowValidation: true })).rejects.toThrow(
      'invalid difficulty',
    )
  })

  it("computes Besu's four ETC difficulty rules", () => {
    const common = createChainCommon(classicGenesis(), {})
    const at = (n: number) => {
      const c = common.copy()
      c.setHardforkBy({ blockNumber: n, timestamp: 0 })
      return c
    }
    const parent = { number: 0n, timestamp: 100n, difficulty: 2_048_000n, uncleHash: new Uint8Array(32) }
    const empty = { ...parent, uncleHash: hexOmmersEmpty() }
    // DieHard: bomb paused at 2^28; ECIP-1041: none.
    expect(classicDifficulty({ common: at(2), timestamp: 105n }, empty)).toBe(2_048_000n + 1000n + 2n ** 28n)
    expect(classicDifficulty({ common: at(4), timestamp: 105n }, empty)).toBe(2_048_000n + 1000n)
    // Atlantis on: EIP-100 (9-second steps, +1 for a parent with ommers), no bomb.
    expect(classicDifficulty({ common: at(5), timestamp: 118n }, empty)).toBe(2_048_000n - 1000n)
    expect(classicDifficulty({ common: at(5), timestamp: 118n }, parent)).toBe(2_048_000n)
    expect(classicDifficulty({ common: at(1), timestamp: 105n }, empty)).toBeUndefined()
  })

  it("delays the bomb from Gotham by 2,000,000 blocks, and refuses Gotham's blocks before 2,200,000 as Besu fails on them", async () => {
    const gotham = normalizeGenesis({
      config: { chainId: 61, diehardBlock: 1, gothamBlock: 2, ethash: {} },
      difficulty: '0x20000',
      gasLimit: '0x7a1200',
    })
    const common = createChainCommon(gotham, {})
    const at = (n: bigint) => {
      const c = common.copy()
      c.setHardforkBy({ blockNumber: n, timestamp: 0 })
      return c
    }
    const parent = (number: bigint) => ({
      number,
      timestamp: 100n,
      difficulty: 2_048_000n,
      uncleHash: hexOmmersEmpty(),
    })
    // Block 2,200,000: 22 periods, 2^(22 - 20 - 2) = 1 on top of the 10-second rule.
    expect(classicDifficulty({ common: at(2_200_000n), timestamp: 125n }, parent(2_199_999n))).toBe(
      2_048_000n - 1000n + 1n,
    )
    expect(() => classicDifficulty({ common: at(2_199_999n), timestamp: 125n }, parent(2_199_998n))).toThrow(
      "invalid difficulty: Gotham's delayed difficulty bomb (ECIP-1010) has no value before block 2200000 (block 2199999)",
    )
    // A chain with such a schedule loads (Besu loads it too); its Gotham blocks do not build.
    const chain = await openMemoryChain(gotham)
    await importBlock(chain, await buildPow(chain), { setHead: true, skipPowValidation: true })
    await expect(buildPow(chain)).rejects.toThrow('has no value before block 2200000 (block 2)')
  })

  it("imports ECIP-1049 blocks with Besu's keccak-256 seal checked, and refuses a wrong one", async () => {
    // ecip1049_dev.json's class: keccak256.fixeddifficulty is not read by Besu (only ethash's is).
    const genesis = keccakGenesis({ chainId: 2021, ecip1049Block: 0, keccak256: { fixeddifficulty: 100 } }, '0x10000')
    const chain = await openMemoryChain(genesis)
    const block = await buildPow(chain)
    expect([block.common.hardfork(), block.header.difficulty]).toEqual(['ecip1049', 131072n])
    // Thanos's rules (Istanbul's EVM, ETC's rewards and difficulty) with the keccak-256 seal.
    expect([block.common.gteHardfork('istanbul'), block.common.isActivatedEIP(2929)]).toEqual([true, false])
    const sealed = (nonce: bigint, mixHash?: Uint8Array) => {
      const n = hexToBytes(`0x${nonce.toString(16).padStart(16, '0')}`)
      const values = block.raw() as unknown as Uint8Array[][]
      const header = [...values[0]]
      header[13] = mixHash ?? keccakSolution(keccakSealHash(block.header), n)
      header[14] = n
      return createBlockFromBytesArray([header, ...values.slice(1)] as never, { common: block.common })
    }
    // Mine: the first nonce whose solution is at most 2^256 / difficulty.
    const sealHash = keccakSealHash(block.header)
    const target = (1n << 256n) / block.header.difficulty
    let nonce = 0n
    while (
      BigInt(bytesToHex(keccakSolution(sealHash, hexToBytes(`0x${nonce.toString(16).padStart(16, '0')}`)))) > target
    )
      nonce++
    const unsealed = sealed(nonce + 1n)
    expect(keccakSealError(unsealed.header)).toContain('invalid proof of work: the Keccak-256 result')
    await expect(importBlock(chain, unsealed, { setHead: true })).rejects.toThrow('invalid proof of work')
    const wrongMix = sealed(nonce, new Uint8Array(32))
    expect(keccakSealError(wrongMix.header)).toContain('does not equal calculated mixed hash')
    await importBlock(chain, sealed(nonce), { setHead: true })
    expect(chain.head.header.number).toBe(1n)
    // --skip-pow-validation-enabled skips the seal, as in Besu.
    const next = await buildPow(chain)
    await importBlock(chain, next, { setHead: true, skipPowValidation: true })
    expect(chain.head.header.number).toBe(2n)
  })

  it('mines ECIP-1049 blocks (dev sealer, JSON block files) that import elsewhere with every seal checked, ommers too', async () => {
    // A tiny fixed difficulty: 16 nonces a block on average.
    const genesis = keccakGenesis({ chainId: 2022, ecip1049Block: 0, ethash: { fixeddifficulty: 16 } }, '0x10')
    const chain = await openMemoryChain(genesis)
    const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 10, priceBumpPercent: 10 })
    const coinbase = hexToBytes(COINBASE)
    const sealer = new DevSealer(chain, pool, { coinbase, clock: manualClock(1_700_000_000_000) })
    const mined = [(await sealer.sealBlock(true))!, (await sealer.sealBlock(true))!]
    await importJsonBlocks(
      chain,
      parseJsonBlocks('{"blocks": [{"number": 3, "transactions": []}]}'),
      () => 1_700_000_100n,
      () => {},
    )
    mined.push(chain.head)
    expect(mined.map((b) => [b.header.number, b.header.difficulty, keccakSealError(b.header)])).toEqual([
      [1n, 16n, undefined],
      [2n, 16n, undefined],
      [3n, 16n, undefined],
    ])
    const other = await openMemoryChain(genesis)
    for (const b of mined) await importBlock(other, b, { setHead: true })
    expect(other.head.hash()).toEqual(chain.head.hash())
    // Block 4 with an ommer (a sibling of block 3): refused when the ommer's seal is wrong.
    const side = await openMemoryChain(genesis)
    for (const b of mined.slice(0, 2)) await importBlock(side, b, { setHead: true })
    const sibling = await keccakSealed(await buildPow(side, 13n, undefined, `0x${'0e'.repeat(20)}`), async () => {})
    const badSibling = createBlockHeader(
      { ...sibling.header.toJSON(), mixHash: new Uint8Array(32) },
      { common: sibling.common, setHardfork: true },
    )
    const four = async (ommer: Block) =>
      keccakSealed(
        await withOmmers(
          chain,
          await buildPow(chain),
          [ommer],
          [
            [COINBASE, 5n * ETHER + (5n * ETHER) / 32n],
            [`0x${'0e'.repeat(20)}`, (35n * ETHER) / 8n],
          ],
        ),
        async () => {},
      )
    const withBad = await four(createBlock({ header: badSibling.toJSON() }, { common: sibling.common }))
    await expect(importBlock(chain, withBad, { setHead: true })).rejects.toThrow(
      `invalid ommer ${bytesToHex(badSibling.hash())}: invalid proof of work`,
    )
    await importBlock(chain, await four(sibling), { setHead: true })
    expect(chain.head.header.number).toBe(4n)
  })

  it('reads Ethereum and ETC keys together', () => {
    const parse = (config: Record<string, unknown>) =>
      parseGenesisText(JSON.stringify({ config, difficulty: '0x1' }), 'etc.json')
    expect(parse({ ...CLASSIC_CONFIG, londonBlock: 20 }).config.londonBlock).toBe(20)
    expect(parse({ chainId: 63, atlantisBlock: 0, aghartaBlock: 30, ethash: {} }).config.aghartaBlock).toBe(30)
  })
})

/**
 * Ethereum's forks up to London, then every ETC milestone (the class of Besu's `all_forks.json`;
 * own values). Besu runs one list of milestones by block number, each its own protocol spec.
 */
const MIXED_CONFIG = {
  chainId: 6262,
  homesteadBlock: 1,
  eip150Block: 2,
  eip158Block: 3,
  byzantiumBlock: 4,
  constantinopleBlock: 5,
  petersburgBlock: 5,
  istanbulBlock: 6,
  berlinBlock: 7,
  londonBlock: 8,
  ecip1015Block: 10,
  diehardBlock: 11,
  gothamBlock: 12,
  ecip1041Block: 12,
  atlantisBlock: 13,
  aghartaBlock: 14,
  phoenixBlock: 15,
  thanosBlock: 16,
  ecip1049Block: 18,
  ecip1017EraRounds: 4,
  ethash: {},
}

describe('a schedule of Ethereum and ETC milestones', () => {
  const at = (common: ReturnType<typeof createChainCommon>, blockNumber: number) => {
    const c = common.copy()
    c.setHardforkBy({ blockNumber, timestamp: 1000 + blockNumber })
    return c
  }

  it("runs each block on its milestone's own rules, going back from London to Classic Tangerine Whistle", () => {
    const common = createChainCommon(classicGenesis(MIXED_CONFIG), {})
    const names = [0, 2, 3, 7, 9, 10, 11, 12, 13, 14, 15, 17, 18].map((n) => at(common, n).hardfork())
    expect(names).toEqual([
      'chainstart',
      'tangerineWhistle',
      'spuriousDragon',
      'berlin',
      'london',
      'classicTangerineWhistle',
      'dieHard',
      'ecip1041',
      'atlantis',
      'agharta',
      'phoenix',
      'thanos',
      'ecip1049',
    ])
    // EIP-1559, EIP-2929 (Berlin), EIP-3529 (London), Constantinople, Istanbul.
    const eips = (n: number) => {
      const c = at(common, n)
      return [
        ...[1559, 2929, 3529].map((e) => c.isActivatedEIP(e)),
        c.gteHardfork('constantinople'),
        c.gteHardfork('istanbul'),
      ]
    }
    expect(eips(9)).toEqual([true, true, true, true, true])
    expect(eips(10)).toEqual([false, false, false, false, false])
    expect(eips(13)).toEqual([false, false, false, false, false])
    expect(eips(14)).toEqual([false, false, false, true, false])
    expect(eips(15)).toEqual([false, false, false, true, true])
    expect(eips(18)).toEqual([false, false, false, true, true])
    expect(['spuriousDragon', 'byzantium', 'dieHard'].map((f) => at(common, 11).gteHardfork(f))).toEqual([
      false,
      false,
      true,
    ])
    expect(['spuriousDragon', 'byzantium', 'dieHard'].map((f) => at(common, 13).gteHardfork(f))).toEqual([
      true,
      true,
      true,
    ])
    expect(at(common, 9).gteHardfork('dieHard')).toBe(false)
    // An Ethereum fork the config leaves out is in no Ethereum milestone's rules, even when an ETC
    // milestone's spec lists it (Atlantis: Byzantium); here the netsplit marker after Atlantis.
    const marker = createChainCommon(
      classicGenesis({ chainId: 6263, ecip1015Block: 1, atlantisBlock: 2, mergeNetsplitBlock: 3, ethash: {} }),
      {},
    )
    expect([2, 3].map((n) => [at(marker, n).hardfork(), at(marker, n).gteHardfork('byzantium')])).toEqual([
      ['atlantis', true],
      ['mergeNetsplitBlock', false],
    ])
    // A timestamp fork after an ETC milestone: one list by value (block 5 < time 100), as Besu's.
    const timed = createChainCommon(
      classicGenesis({ chainId: 6264, londonBlock: 0, shanghaiTime: 100, atlantisBlock: 5, ethash: {} }),
      {},
    )
    const timedAt = (n: number, t: number) => {
      const c = timed.copy()
      c.setHardforkBy({ blockNumber: n, timestamp: t })
      return [c.hardfork(), c.isActivatedEIP(1559), c.isActivatedEIP(3855)]
    }
    expect([timedAt(1, 20), timedAt(5, 50), timedAt(6, 100)]).toEqual([
      ['london', true, false],
      ['atlantis', false, false],
      ['shanghai', true, true],
    ])
  })

  it("runs each milestone's EVM: SHL (Constantinople) and EXP's price by block", async () => {
    const chain = await openMemoryChain(classicGenesis(MIXED_CONFIG))
    const run = async (blockNumber: number, code: number[]) => {
      const common = at(chain.common, blockNumber)
      const vm = await createVm(common, openState(chain.trieDb, common, chain.head.header.stateRoot, true), chain)
      return vm.evm.runCode!({ code: Uint8Array.from(code), gasLimit: 1000n })
    }
    // PUSH1 1 PUSH1 1 SHL: valid on Ethereum's Constantinople and later (9) and ETC's Agharta (14),
    // not on Classic Tangerine Whistle (10) or Atlantis (13).
    const shl = [0x60, 0x01, 0x60, 0x01, 0x1b]
    const fails = async (n: number) => (await run(n, shl)).exceptionError !== undefined
    expect([await fails(9), await fails(10), await fails(13), await fails(14)]).toEqual([false, true, true, false])
    // PUSH2 0xffff PUSH1 2 EXP: 10 gas a byte before Spurious Dragon and DieHard, 50 from them.
    const exp = [0x61, 0xff, 0xff, 0x60, 0x02, 0x0a]
    const expGas = async (n: number) => (await run(n, exp)).executionGasUsed - 6n
    expect([await expGas(2), await expGas(3), await expGas(10), await expGas(11)]).toEqual([30n, 110n, 30n, 110n])
  })

  it('imports blocks through every milestone: fee market, difficulty, rewards and EIP-155 of each', async () => {
    const key = new Uint8Array(32).fill(0x43)
    const sender = createAddressFromPrivateKey(key)
    const chain = await openMemoryChain(
      classicGenesis(MIXED_CONFIG, { [sender.toString()]: { balance: '0x1000000000000000' } }),
    )
    const rewards: bigint[] = []
    for (let n = 1n; n <= 17n; n++) {
      const before = await coinbaseBalance(chain)
      const block = await buildPow(chain)
      await importBlock(chain, block, { setHead: true, skipPowValidation: true })
      rewards.push((await coinbaseBalance(chain)) - before)
      // London's blocks carry a base fee, Classic Tangerine Whistle's and later ones do not.
      expect(block.header.baseFeePerGas !== undefined).toBe(n === 8n || n === 9n)
    }
    expect(chain.head.header.number).toBe(17n)
    // Frontier's 5 ether, Byzantium's 3, Constantinople's 2 (Ethereum), then ETC's: 5 ether until
    // Gotham, ECIP-1017's eras of 4 blocks from it.
    const expected = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17].map((n) => {
      if (n < 4) return 5n * ETHER
      if (n === 4) return 3n * ETHER
      if (n < 10) return 2n * ETHER
      if (n < 12) return 5n * ETHER
      return classicWinnerReward(BigInt(n), 4n)
    })
    expect(rewards).toEqual(expected)
    // DieHard's difficulty (the paused bomb, 2^28 over the Homestead rule) from block 11 on.
    const eleven = await chain.getBlockByNumber(11n)
    const ten = await chain.getBlockByNumber(10n)
    expect(eleven!.header.difficulty - ten!.header.difficulty).toBeGreaterThanOrEqual(2n ** 28n - 2n ** 20n)
    // EIP-155 signatures: not on Ethereum's Tangerine Whistle (block 2), from Spurious Dragon (3),
    // and on ETC's Classic Tangerine Whistle (10) again.
    const data = { nonce: 0n, gasPrice: 1n, gasLimit: 21000n, to: createAddressFromString(COINBASE), value: 1n }
    const raw = createLegacyTx(data, { common: at(chain.common, 10) })
      .sign(key)
      .serialize()
    const senderAt = (n: number) =>
      createTxFromRLP(raw, { common: at(chain.common, n) })
        .getSenderAddress()
        .toString()
    expect(() => senderAt(2)).toThrow()
    expect(senderAt(3)).toBe(sender.toString())
    expect(senderAt(10)).toBe(sender.toString())
    expect(senderAt(13)).toBe(sender.toString())
  })
})

function hexOmmersEmpty(): Uint8Array {
  return Uint8Array.from(Buffer.from('1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347', 'hex'))
}
