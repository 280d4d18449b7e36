import { importJsonBlocks, parseJsonBlocks } from '../producer/jsonBlocks.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { Chain } from './chain.ts'
import { createChainCommon, createGenesisBlock, normalizeGenesis } from './genesis.ts'
import { openMemoryChain } from './memoryChain.ts'
import { findStoredMergeBlock, isMergePending, scheduleMerge } from './mergeSchedule.ts'

/** A canonical chain whose block n has total difficulty tds[n]. */
function reader(tds: bigint[]) {
  return {
    readCanonicalHash: (n: bigint) => (n < BigInt(tds.length) ? new Uint8Array([Number(n)]) : undefined),
    readTotalDifficulty: (hash: Uint8Array) => tds[hash[0]],
  }
}

describe('findStoredMergeBlock', () => {
  it('finds the first block whose parent reached the TTD', () => {
    const tds = [10n, 20n, 30n, 30n, 30n, 30n]
    expect(findStoredMergeBlock(reader(tds), 25n)).toBe(3n)
    expect(findStoredMergeBlock(reader(tds), 20n)).toBe(2n)
    expect(findStoredMergeBlock(reader(tds), 10n)).toBe(1n)
  })

  it('finds none while the stored chain is below the TTD', () => {
    expect(findStoredMergeBlock(reader([10n, 20n]), 25n)).toBeUndefined()
  })
})

describe('scheduleMerge', () => {
  it('runs Paris from the merge block on, past a later fork-id marker, for every copy of the Common', () => {
    const g = normalizeGenesis({
      config: { chainId: 7, londonBlock: 0, mergeNetsplitBlock: 9, terminalTotalDifficulty: 100, ethash: {} },
      difficulty: '0x1',
    })
    const common = createChainCommon(g, {})
    const copy = common.copy()
    expect(isMergePending(common)).toBe(true)
    expect(common.getHardforkBy({ blockNumber: 6n })).not.toBe('paris')
    scheduleMerge(common, 5n)
    expect(isMergePending(copy)).toBe(false)
    expect(copy.getHardforkBy({ blockNumber: 5n })).toBe('paris')
    // Paris is listed after the marker: reaching the marker keeps Paris's rules (Besu: the merge is the TTD alone).
    expect(copy.getHardforkBy({ blockNumber: 9n })).toBe('paris')
    copy.setHardforkBy({ blockNumber: 9n })
    expect(copy.consensusType()).toBe('pos')
  })
})

describe('a chain stored past its TTD', () => {
  it('finds its merge block again when opened with a fresh Common', async () => {
    const g = normalizeGenesis({
      config: { chainId: 7, londonBlock: 0, terminalTotalDifficulty: 25, ethash: { fixeddifficulty: 10 } },
      difficulty: '0xa',
      gasLimit: '0x1c9c380',
    })
    const chain = await openMemoryChain(g)
    const blocks = parseJsonBlocks(JSON.stringify({ blocks: [{}, {}, {}].map(() => ({ transactions: [] })) }))
    await importJsonBlocks(
      chain,
      blocks,
      () => 0n,
      () => {},
    )
    // Total difficulty 10 + 10 + 10 reached 25 at block 2: block 3 was built as proof of stake.
    expect([chain.head.header.number, chain.head.header.difficulty]).toEqual([3n, 0n])
    const common = createChainCommon(g, {})
    expect(isMergePending(common)).toBe(true)
    const reopened = new Chain(common, chain.store, chain.trieDb)
    await reopened.open(createGenesisBlock(common, chain.genesis.header.stateRoot))
    expect(isMergePending(common)).toBe(false)
    expect(reopened.head.header.common.consensusType()).toBe('pos')
    expect(common.getHardforkBy({ blockNumber: 2n, timestamp: 0n })).not.toBe('paris')
  })
})
