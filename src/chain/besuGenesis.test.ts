/**
 * Genesis files as Besu writes and reads them, one class each, with blocks built on them by the
 * library's block builder and imported through the importer.
 */

import { type Block, createBlockHeader } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { Address, intToUnpaddedBytes, privateToAddress, bytesToHex as utilBytesToHex } from '@ethereumjs/util'
import { buildBlock } from '@ethereumjs/vm'
import { createVm } from '../evm/vmFactory.ts'
import { hexToBytes } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { openState } from '../state/worldState.ts'
import { importBlock } from './blockImporter.ts'
import { decodeBlockRlp } from './blockRlp.ts'
import type { Chain } from './chain.ts'
import { fixedDifficulty } from './forkSchedule.ts'
import { createChainCommon, normalizeGenesis } from './genesis.ts'
import { openMemoryChain } from './memoryChain.ts'

const PRE_MERGE_BLOCKS = {
  homesteadBlock: 0,
  eip150Block: 0,
  eip158Block: 0,
  byzantiumBlock: 0,
  constantinopleBlock: 0,
  petersburgBlock: 0,
  istanbulBlock: 0,
  berlinBlock: 0,
  londonBlock: 0,
}
const CLIQUE_KEY = hexToBytes(`0x${'11'.repeat(32)}`)

/** A clique genesis with one signer, and `config` added (a TTD). */
function cliqueGenesis(config: Record<string, unknown>): Record<string, unknown> {
  return {
    config: { chainId: 7, ...PRE_MERGE_BLOCKS, clique: { blockperiodseconds: 5, epochlength: 30000 }, ...config },
    difficulty: '0x1',
    extraData: `0x${'00'.repeat(32)}${utilBytesToHex(privateToAddress(CLIQUE_KEY)).slice(2)}${'00'.repeat(65)}`,
    gasLimit: '0x1c9c380',
  }
}

function openGenesis(json: Record<string, unknown>): Promise<Chain> {
  return openMemoryChain(normalizeGenesis(json))
}

/** An empty block on the head, built with the head's rules for its number and time. */
async function buildEmpty(chain: Chain, header: Record<string, unknown> = {}, signer?: Uint8Array): Promise<Block> {
  const parent = chain.head
  const common = chain.common.copy()
  const number = parent.header.number + 1n
  const timestamp = parent.header.timestamp + 12n
  common.setHardforkBy({ blockNumber: number, timestamp })
  const vm = await createVm(common, openState(chain.trieDb, common, parent.header.stateRoot, true), chain)
  const has = (eip: number) => common.isActivatedEIP(eip)
  const headerData = { number, timestamp, gasLimit: parent.header.gasLimit, ...header }
  const builder = await buildBlock(vm, {
    parentBlock: parent,
    headerData: has(4788) ? { parentBeaconBlockRoot: new Uint8Array(32), ...headerData } : headerData,
    withdrawals: has(4895) ? [] : undefined,
    blockOpts: { putBlockIntoBlockchain: false, setHardfork: true, cliqueSigner: signer },
  })
  const { block } = await builder.build()
  return block
}

async function importOne(chain: Chain, block: Block): Promise<void> {
  await importBlock(chain, block, { setHead: true, skipPowValidation: true })
}

describe('Besu genesis classes', () => {
  it('takes mergeNetsplitBlock as a fork marker: a PoW chain with it stays proof of work', async () => {
    const chain = await openGenesis({
      config: { chainId: 7, ...PRE_MERGE_BLOCKS, mergeNetsplitBlock: 0, ethash: { fixeddifficulty: 15 } },
      difficulty: '0x0f',
      gasLimit: '0x1c9c380',
    })
    const block = await buildEmpty(chain, { difficulty: 15n })
    await importOne(chain, block)
    expect(chain.head.header.number).toBe(1n)
    expect(chain.head.header.common.consensusType()).toBe('pow')
  })

  it("checks Besu's fixeddifficulty instead of the ethash formula", async () => {
    const chain = await openGenesis({
      config: { chainId: 7, ...PRE_MERGE_BLOCKS, ethash: { fixeddifficulty: 15 } },
      difficulty: '0x0f',
      gasLimit: '0x1c9c380',
    })
    const wrong = await buildEmpty(chain, { difficulty: 131072n })
    await expect(importOne(chain, wrong)).rejects.toThrow('invalid difficulty: 131072, expected 15')
    await importOne(chain, await buildEmpty(chain, { difficulty: 15n }))
    expect(chain.head.header.difficulty).toBe(15n)
  })

  it('gives an IBFT 2.0 / QBFT genesis, which has no engine here yet, the BFT difficulty of 1', () => {
    for (const engine of ['ibft2', 'qbft']) {
      const common = createChainCommon(normalizeGenesis({ config: { chainId: 7, londonBlock: 0, [engine]: {} } }), {})
      expect(fixedDifficulty(common)).toBe(1n)
    }
  })

  it('reads fixeddifficulty from config.fixeddifficulty too', async () => {
    const g = normalizeGenesis({ config: { chainId: 7, fixeddifficulty: { fixeddifficulty: 9 } } })
    const chain = await openGenesis(g)
    const wrong = await buildEmpty(chain, { difficulty: 131072n })
    await expect(importOne(chain, wrong)).rejects.toThrow('expected 9')
  })

  it('runs ethash with terminalTotalDifficulty 0 as proof of stake: no block reward', async () => {
    const coinbase = `0x${'cb'.repeat(20)}`
    const chain = await openGenesis({
      config: { chainId: 7, ...PRE_MERGE_BLOCKS, terminalTotalDifficulty: 0, ethash: {} },
      difficulty: '0x0',
      gasLimit: '0x1c9c380',
    })
    await importOne(chain, await buildEmpty(chain, { coinbase: hexToBytes(coinbase), difficulty: 0n }))
    expect(chain.head.header.common.consensusType()).toBe('pos')
    const account = await chain.stateAt(chain.head).getAccount(new Address(hexToBytes(coinbase)))
    expect(account?.balance ?? 0n).toBe(0n)
  })

  it('moves a TTD chain to proof of stake at the first block whose parent reached the TTD', async () => {
    const chain = await openGenesis({
      config: { chainId: 7, ...PRE_MERGE_BLOCKS, terminalTotalDifficulty: 25, ethash: { fixeddifficulty: 10 } },
      difficulty: '0x0a',
      gasLimit: '0x1c9c380',
    })
    await importOne(chain, await buildEmpty(chain, { difficulty: 10n }))
    await importOne(chain, await buildEmpty(chain, { difficulty: 10n }))
    expect(chain.head.header.common.consensusType()).toBe('pow')
    const pos = await buildEmpty(chain, { difficulty: 0n })
    expect(pos.header.common.consensusType()).toBe('pos')
    await importOne(chain, pos)
    expect(chain.head.header.number).toBe(3n)
  })

  it('drops clique header rules after a merge at genesis (terminalTotalDifficulty 0)', async () => {
    const chain = await openGenesis(cliqueGenesis({ terminalTotalDifficulty: 0 }))
    const block = await buildEmpty(chain, { difficulty: 0n, extraData: new Uint8Array(0) })
    await importOne(chain, block)
    expect(chain.head.header.extraData.length).toBe(0)
  })

  it('applies clique header rules before the merge', async () => {
    const chain = await openGenesis(cliqueGenesis({}))
    const extraData = new Uint8Array(97)
    const bad = await buildEmpty(chain, { difficulty: 3n, extraData }, CLIQUE_KEY)
    await expect(importOne(chain, bad)).rejects.toThrow('clique blocks have 1 or 2')
    await importOne(chain, await buildEmpty(chain, { difficulty: 2n, extraData }, CLIQUE_KEY))
    expect(chain.head.header.number).toBe(1n)
  })

  it('runs a clique chain through its merge: clique rules until the TTD, proof-of-stake rules after', async () => {
    const chain = await openGenesis(cliqueGenesis({ terminalTotalDifficulty: 3 }))
    await importOne(chain, await buildEmpty(chain, { difficulty: 2n, extraData: new Uint8Array(97) }, CLIQUE_KEY))
    expect(chain.head.header.common.consensusType()).toBe('poa')
    // Total difficulty 1 + 2 reached the TTD of 3: block 2 is proof of stake, clique's extraData rule is gone.
    const pos = await buildEmpty(chain, { difficulty: 0n, extraData: new Uint8Array(0) })
    await importOne(chain, pos)
    expect(chain.head.header.common.consensusType()).toBe('pos')
    expect(chain.head.header.number).toBe(2n)
  })

  it('schedules every BPO fork of the config with its blobSchedule entry, bpo3 to bpo6 included', () => {
    const schedule: Record<string, unknown> = {
      cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
      prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
    }
    const times: Record<string, number> = {}
    for (let n = 1; n <= 6; n++) {
      schedule[`bpo${n}`] = { target: 10 + n, max: 20 + n, baseFeeUpdateFraction: 8346193 }
      times[`bpo${n}Time`] = 100 * n
    }
    const g = normalizeGenesis({
      config: {
        chainId: 7,
        ...PRE_MERGE_BLOCKS,
        terminalTotalDifficulty: 0,
        shanghaiTime: 0,
        cancunTime: 0,
        pragueTime: 0,
        osakaTime: 0,
        ...times,
        blobSchedule: schedule,
      },
      difficulty: '0x0',
    })
    const common = createChainCommon(g, {})
    for (const [n, time] of [
      [3, 300],
      [5, 550],
      [6, 600],
    ]) {
      common.setHardforkBy({ blockNumber: 1n, timestamp: BigInt(time) })
      expect(common.hardfork()).toBe(`bpo${n}`)
      expect([common.param('target'), common.param('max')]).toEqual([BigInt(10 + n), BigInt(20 + n)])
    }
  })

  it('keeps the blob parameters in force for a BPO fork without a blobSchedule entry', () => {
    const g = normalizeGenesis({
      config: { chainId: 7, londonBlock: 0, terminalTotalDifficulty: 0, osakaTime: 0, bpo1Time: 100, bpo3Time: 200 },
      difficulty: '0x0',
    })
    g.config.blobSchedule = { bpo3: { target: 20, max: 30, baseFeeUpdateFraction: 9000000 } }
    const common = createChainCommon(g, {})
    common.setHardforkBy({ blockNumber: 1n, timestamp: 150n })
    expect([common.hardfork(), common.param('target'), common.param('max')]).toEqual(['bpo1', 6n, 9n])
    common.setHardforkBy({ blockNumber: 1n, timestamp: 200n })
    expect([common.hardfork(), common.param('target'), common.param('max')]).toEqual(['bpo3', 20n, 30n])
  })

  it('schedules eip158Block on its own (Besu does not read eip155Block)', () => {
    const common = createChainCommon(
      normalizeGenesis({ config: { chainId: 7, homesteadBlock: 0, eip158Block: 4 } }),
      {},
    )
    expect(common.getHardforkBy({ blockNumber: 3n })).toBe('homestead')
    // Tangerine Whistle comes with Spurious Dragon: each milestone carries the earlier ones.
    expect(common.getHardforkBy({ blockNumber: 4n })).toBe('spuriousDragon')
    common.setHardforkBy({ blockNumber: 4n })
    expect(common.gteHardfork('tangerineWhistle')).toBe(true)
  })

  it('gives a fork left out the rules of the next scheduled one (cancunTime without shanghaiTime)', async () => {
    const chain = await openGenesis({
      config: { chainId: 7, ...PRE_MERGE_BLOCKS, terminalTotalDifficulty: 0, cancunTime: 0 },
      difficulty: '0x0',
      gasLimit: '0x1c9c380',
    })
    expect(chain.genesis.header.withdrawalsRoot).toBeDefined()
    await importOne(chain, await buildEmpty(chain, { difficulty: 0n }))
    expect(chain.head.header.common.isActivatedEIP(4895)).toBe(true)
    const prague = createChainCommon(normalizeGenesis({ config: { chainId: 7, londonBlock: 0, pragueTime: 50 } }), {})
    prague.setHardforkBy({ blockNumber: 1n, timestamp: 50n })
    expect([4895, 4844, 7685].map((eip) => prague.isActivatedEIP(eip))).toEqual([true, true, true])
  })

  it('reads alloc as Besu does: short storage keys, code without balance, decimal balance and nonce, null as absent', async () => {
    const who = '0x00000000000000000000000000000000000000aa'
    const other = '0x00000000000000000000000000000000000000bb'
    const chain = await openGenesis({
      config: { chainId: 7, londonBlock: 0 },
      gasLimit: '0x1c9c380',
      alloc: {
        [who]: { code: '0x6001', storage: { '0x01': '0x2a', '2': '0x0100' } },
        [other]: { balance: '1000000000000000000000', nonce: '5', code: null, privateKey: `0x${'22'.repeat(32)}` },
      },
    })
    const state = chain.stateAt(chain.head)
    const a = new Address(hexToBytes(who))
    expect(utilBytesToHex(await state.getCode(a))).toBe('0x6001')
    expect((await state.getAccount(a))?.balance).toBe(0n)
    expect(utilBytesToHex(await state.getStorage(a, hexToBytes(`0x${'00'.repeat(31)}01`)))).toBe('0x2a')
    expect(utilBytesToHex(await state.getStorage(a, hexToBytes(`0x${'00'.repeat(31)}02`)))).toBe('0x0100')
    const b = await state.getAccount(new Address(hexToBytes(other)))
    expect([b?.balance, b?.nonce]).toEqual([10n ** 21n, 5n])
  })

  it("reads a file without config as Frontier and one without chainId with mainnet's id, as Besu does", async () => {
    const noConfig = await openGenesis({ difficulty: '0x20000', gasLimit: '0x2fefd8', nonce: '0x2a' })
    expect(noConfig.common.chainId()).toBe(1n)
    expect(noConfig.head.header.common.hardfork()).toBe('chainstart')
    const noChainId = createChainCommon(normalizeGenesis({ config: { eip158Block: 0, ethash: {} } }), {})
    expect(noChainId.chainId()).toBe(1n)
    expect(noChainId.hardfork()).toBe('spuriousDragon')
  })

  it('answers CHAINID with 0 on a chain without chainId, as Besu builds its EVM with no chain id', async () => {
    // PUSH1 0 ... CHAINID PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN
    const code = Uint8Array.from([0x46, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3])
    const chainIdOf = async (config: Record<string, unknown>) => {
      const chain = await openGenesis({ config, difficulty: '0x20000', gasLimit: '0x2fefd8' })
      const common = chain.common.copy()
      common.setHardforkBy({ blockNumber: 1n, timestamp: 100n })
      const vm = await createVm(common, openState(chain.trieDb, common, chain.head.header.stateRoot, true), chain)
      const r = await vm.evm.runCode!({ code, gasLimit: 1000n })
      return r.exceptionError === undefined ? BigInt(utilBytesToHex(r.returnValue)) : r.exceptionError.error
    }
    expect(await chainIdOf({ ...PRE_MERGE_BLOCKS, ethash: {} })).toBe(0n)
    expect(await chainIdOf({ chainId: 77, ...PRE_MERGE_BLOCKS, ethash: {} })).toBe(77n)
    // Before Istanbul the opcode does not exist, with or without a chain id.
    expect(await chainIdOf({ byzantiumBlock: 0, ethash: {} })).toBe('invalid opcode')
  })

  it('puts the withdrawal and consolidation request contracts where the config says', () => {
    const withdrawals = `0x${'71'.repeat(20)}`
    const consolidations = `0x${'72'.repeat(20)}`
    const common = createChainCommon(
      normalizeGenesis({
        config: {
          chainId: 7,
          ...PRE_MERGE_BLOCKS,
          terminalTotalDifficulty: 0,
          pragueTime: 0,
          depositContractAddress: `0x${'70'.repeat(20)}`,
          withdrawalRequestContractAddress: withdrawals,
          consolidationRequestContractAddress: consolidations,
        },
        difficulty: '0x0',
      }),
      {},
    )
    common.setHardforkBy({ blockNumber: 0n, timestamp: 0n })
    expect(common.param('withdrawalRequestPredeployAddress')).toBe(BigInt(withdrawals))
    expect(common.param('consolidationRequestPredeployAddress')).toBe(BigInt(consolidations))
  })
})

describe('amsterdamTime', () => {
  it("refuses in one line a block of an earlier Besu's Amsterdam (no slot number after the access list hash)", async () => {
    const g = normalizeGenesis({
      config: { chainId: 7, ...PRE_MERGE_BLOCKS, terminalTotalDifficulty: 0, pragueTime: 0, amsterdamTime: 0 },
      difficulty: '0x0',
      gasLimit: '0x1c9c380',
    })
    const chain = await openGenesis(g)
    const header = createBlockHeader(
      { number: 1n, parentHash: chain.genesis.hash(), timestamp: 12n },
      { common: chain.common, setHardfork: true },
    )
    expect([header.blockAccessListHash !== undefined, header.slotNumber]).toEqual([true, 0n])
    const withoutSlot = [header.raw().slice(0, -1), [], [], []]
    await expect(decodeBlockRlp(chain, RLP.encode(withoutSlot as never))).rejects.toThrow(
      'an Amsterdam header without a slot number (EIP-7843) is of the earlier Besu Amsterdam',
    )
    const withSlot = [[...header.raw().slice(0, -1), intToUnpaddedBytes(3)], [], [], []]
    expect((await decodeBlockRlp(chain, RLP.encode(withSlot as never))).header.slotNumber).toBe(3n)
  })
})
