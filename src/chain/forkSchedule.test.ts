/**
 * Fork schedules that mix block forks with timestamp forks, against Besu's milestone rules: with a
 * DAO fork block Besu checks the whole order (blocks, then timestamps) and refuses with its own
 * message; without one it runs, per block, the milestone with the highest number reached.
 */
import { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { poolChainView } from '../node/node.ts'
import { manualClock } from '../primitives/clock.ts'
import { DevSealer } from '../producer/devSealer.ts'
import { suggestGasPrice } from '../rpc/eth/gasOracle.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { TxPool } from '../txpool/txPool.ts'
import { createChainCommon, normalizeGenesis, parseGenesisText } from './genesis.ts'
import { openMemoryChain } from './memoryChain.ts'

function genesisText(config: Record<string, unknown>, timestamp = '0x0'): string {
  return JSON.stringify({ config: { chainId: 7, ...config }, difficulty: '0x0', gasLimit: '0x1c9c380', timestamp })
}

function forkAt(config: Record<string, unknown>, blockNumber: bigint, timestamp: bigint, genesisTime = '0x0'): string {
  const common = createChainCommon(parseGenesisText(genesisText(config, genesisTime), 'g.json'), {})
  return common.getHardforkBy({ blockNumber, timestamp })
}

describe('fork order', () => {
  it("refuses a timestamp fork below a block fork's number with Besu's message when the chain has a DAO fork", () => {
    const text = genesisText({ daoForkBlock: 1, berlinBlock: 5, shanghaiTime: 0 })
    expect(() => parseGenesisText(text, 'g.json')).toThrow(
      "invalid genesis file g.json: Genesis Config Error: 'Shanghai' is scheduled for milestone 0 but it must be on or after milestone 5.",
    )
    const blocks = genesisText({ daoForkBlock: 3, homesteadBlock: 0, eip150Block: 2 })
    expect(() => parseGenesisText(blocks, 'g.json')).toThrow(
      "Genesis Config Error: 'TangerineWhistle' is scheduled for milestone 2 but it must be on or after milestone 3.",
    )
  })

  it('runs a schedule that goes back as Besu does: the highest milestone number reached wins', () => {
    // Shanghai (time 0) on blocks 0-4, then Berlin (5 is the higher number) from block 5 on.
    const config = { berlinBlock: 5, shanghaiTime: 0 }
    expect(forkAt(config, 4n, 100n)).toBe('shanghai')
    expect(forkAt(config, 5n, 100n)).toBe('berlin')
    // londonBlock 10 with shanghaiTime 5: blocks from time 5 are Shanghai until block 10 turns them London.
    const later = { londonBlock: 10, shanghaiTime: 5 }
    expect([forkAt(later, 3n, 4n), forkAt(later, 3n, 5n), forkAt(later, 10n, 20n)]).toEqual([
      'chainstart',
      'shanghai',
      'london',
    ])
    // A block and a timestamp milestone at the same number: the later one replaces the earlier (Besu's map).
    const same = { londonBlock: 7, shanghaiTime: 7 }
    expect([forkAt(same, 7n, 6n), forkAt(same, 1n, 7n)]).toEqual(['chainstart', 'shanghai'])
  })

  it('runs a timestamp fork reached before the last block fork (londonBlock 100, shanghaiTime 0), with every earlier rule', () => {
    const common = createChainCommon(parseGenesisText(genesisText({ londonBlock: 100, shanghaiTime: 0 }), 'g.json'), {})
    common.setHardforkBy({ blockNumber: 50n, timestamp: 500n })
    expect([common.hardfork(), common.isActivatedEIP(1559), common.isActivatedEIP(4895)]).toEqual([
      'shanghai',
      true,
      true,
    ])
    common.setHardforkBy({ blockNumber: 100n, timestamp: 1000n })
    expect([common.hardfork(), common.isActivatedEIP(1559), common.isActivatedEIP(4895)]).toEqual([
      'london',
      true,
      false,
    ])
    // mergeNetsplitBlock is Besu's Paris milestone: after the block forks, a number like the others.
    const netsplit = { londonBlock: 0, mergeNetsplitBlock: 20, shanghaiTime: 10 }
    expect([forkAt(netsplit, 5n, 10n), forkAt(netsplit, 20n, 40n)]).toEqual(['shanghai', 'mergeNetsplitBlock'])
  })

  it('picks the same fork as the library on every schedule that never goes back (random schedules)', () => {
    const keys: [string, 'block' | 'time'][] = [
      ['homesteadBlock', 'block'],
      ['byzantiumBlock', 'block'],
      ['berlinBlock', 'block'],
      ['londonBlock', 'block'],
      ['shanghaiTime', 'time'],
      ['cancunTime', 'time'],
      ['pragueTime', 'time'],
    ]
    let seed = 11
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    for (let round = 0; round < 200; round++) {
      const config: Record<string, number> = {}
      let at = 0
      for (const [key, kind] of keys) {
        if (random(3) === 0) continue
        at += random(kind === 'time' ? 40 : 4)
        // Timestamps above every block number (Besu then runs the usual rule).
        config[key] = kind === 'time' ? at + 100 : at
      }
      const common = createChainCommon(parseGenesisText(genesisText(config), 'g.json'), {})
      for (let i = 0; i < 20; i++) {
        const blockNumber = BigInt(random(30))
        const timestamp = 100n + blockNumber * 12n + BigInt(random(12))
        const library = Common.prototype.getHardforkBy.call(common, { blockNumber, timestamp })
        expect(
          `${JSON.stringify(config)} ${blockNumber}/${timestamp}: ${common.getHardforkBy({ blockNumber, timestamp })}`,
        ).toBe(`${JSON.stringify(config)} ${blockNumber}/${timestamp}: ${library}`)
      }
    }
  })

  it('runs block forks by number and timestamp forks by time when the times are the higher numbers', () => {
    const config = { berlinBlock: 0, londonBlock: 10, shanghaiTime: 1000 }
    expect(forkAt(config, 9n, 18n)).toBe('berlin')
    expect(forkAt(config, 10n, 20n)).toBe('london')
    expect(forkAt(config, 11n, 1000n)).toBe('shanghai')
  })

  it('runs a timestamp fork reached at genesis from block 0, with every block fork before it (londonBlock after it)', async () => {
    // Genesis at time 2000, past shanghaiTime: Besu runs Shanghai (1000 > 10) on every block.
    const config = { berlinBlock: 0, londonBlock: 10, shanghaiTime: 1000 }
    expect(forkAt(config, 1n, 2012n, '0x7d0')).toBe('shanghai')
    // Besu gives this genesis no base fee (London is not at block 0 and the file sets none), so its
    // header encoding stops before the base fee: the 15 fields of a header before London.
    const chain = await openMemoryChain(normalizeGenesis(JSON.parse(genesisText(config, '0x7d0'))))
    expect(chain.genesis.header.withdrawalsRoot).toBeUndefined()
    expect(chain.genesis.header.baseFeePerGas).toBeUndefined()
    expect((RLP.decode(chain.genesis.header.serialize()) as Uint8Array[]).length).toBe(15)
    const withFee = { ...JSON.parse(genesisText(config, '0x7d0')), baseFeePerGas: '0x7' }
    const priced = await openMemoryChain(normalizeGenesis(withFee))
    expect(priced.genesis.header.withdrawalsRoot).toBeDefined()
    expect((RLP.decode(priced.genesis.header.serialize()) as Uint8Array[]).length).toBe(17)
    // Cancun at genesis without a base fee: Besu does not encode the blob fields the file gives either.
    const cancun = { ...JSON.parse(genesisText({ cancunTime: 0 })), excessBlobGas: '0x0', blobGasUsed: '0x0' }
    const blobless = await openMemoryChain(normalizeGenesis(cancun))
    expect((RLP.decode(blobless.genesis.header.serialize()) as Uint8Array[]).length).toBe(15)
  })
})

describe("Besu's development forks", () => {
  it("schedules futureEipsTime after Osaka, the BPO forks and Amsterdam, on Amsterdam's rules without EOF", () => {
    // future.json's class: proof of work with a fixed difficulty, FutureEips from genesis.
    const config = { futureEipsTime: 0, ethash: { fixeddifficulty: 100 } }
    const common = createChainCommon(parseGenesisText(genesisText(config), 'future.json'), {})
    const names = common.hardforks().map((h) => h.name)
    expect(names.slice(-3)).toEqual(['bpo5', 'amsterdam', 'futureEips'])
    const c = common.copy()
    c.setHardforkBy({ blockNumber: 1n, timestamp: 12n })
    expect(c.hardfork()).toBe('futureEips')
    expect([7702, 7594, 7928, 7708, 7843, 8037].map((eip) => c.isActivatedEIP(eip))).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
    ])
    expect([7692, 3540].map((eip) => c.isActivatedEIP(eip))).toEqual([false, false])
  })

  it('runs Osaka before futureEipsTime and ExperimentalEips (FutureEips and more) after experimentalEipsTime', () => {
    const config = { osakaTime: 0, futureEipsTime: 100, experimentalEipsTime: 200, terminalTotalDifficulty: 0 }
    expect(forkAt(config, 1n, 99n)).toBe('osaka')
    expect(forkAt(config, 2n, 100n)).toBe('futureEips')
    expect(forkAt(config, 3n, 200n)).toBe('experimentalEips')
    const common = createChainCommon(parseGenesisText(genesisText(config), 'experimental.json'), {})
    common.setHardforkBy({ blockNumber: 3n, timestamp: 200n })
    expect([7843, 7692].map((eip) => common.isActivatedEIP(eip))).toEqual([true, false])
  })

  it('seals blocks on ExperimentalEips: the EVM runs the fork', async () => {
    const config = { experimentalEipsTime: 0, terminalTotalDifficulty: 0, contractSizeLimit: 2147483647 }
    // Amsterdam's builder request calls (EIP-8282) need code at their contracts: a stub returning nothing.
    const builders = '0x0000000000000000000000000000000000009999'
    const text = JSON.stringify({
      ...JSON.parse(genesisText(config)),
      alloc: { [builders]: { code: '0x00' } },
      config: {
        chainId: 7,
        ...config,
        builderDepositRequestContractAddress: builders,
        builderExitRequestContractAddress: builders,
      },
    })
    const chain = await openMemoryChain(parseGenesisText(text, 'experimental.json'))
    const pool = new TxPool(poolChainView(chain), { minGasPrice: 0n, maxSize: 10, priceBumpPercent: 10 })
    const sealer = new DevSealer(chain, pool, { coinbase: new Uint8Array(20), clock: manualClock(1_700_000_000_000) })
    // experimental.json sets no base fee and no London block: Besu's genesis header has 15 fields.
    expect((RLP.decode(chain.genesis.header.serialize()) as Uint8Array[]).length).toBe(15)
    const block = (await sealer.sealBlock(true))!
    expect([block.header.number, block.common.hardfork()]).toEqual([1n, 'experimentalEips'])
    // The genesis header (15 fields) has no slot number: the first one after it is 0.
    expect(block.header.slotNumber).toBe(0n)
    // The first block after it starts the fee market at EIP-1559's initial base fee.
    expect([block.header.baseFeePerGas, block.header.requestsHash !== undefined]).toEqual([1_000_000_000n, true])
  })

  it("suggests fees that clear the first London block's initial base fee", async () => {
    const settings = { gasPriceBlocks: 20, gasPricePercentile: 50, gasPriceMax: 500_000_000_000n }
    const minimums = { minGasPrice: 0n, minPriorityFee: 0n }
    // London (through Cancun) from the genesis, which has no base fee: block 1 pays the initial 1 gwei.
    const atGenesis = await openMemoryChain(
      parseGenesisText(genesisText({ cancunTime: 0, terminalTotalDifficulty: 0 }), 'g.json'),
    )
    expect(atGenesis.genesis.header.baseFeePerGas).toBeUndefined()
    expect(atGenesis.pendingBaseFee()).toBe(1_000_000_000n)
    expect(await suggestGasPrice({ chain: atGenesis, pool: minimums, settings })).toBe(1_000_000_000n)
    // London's fork block on a chain that starts before it; nothing before it.
    const later = await openMemoryChain(parseGenesisText(genesisText({ berlinBlock: 0, londonBlock: 2 }), 'g.json'))
    const pool = new TxPool(poolChainView(later), { minGasPrice: 0n, maxSize: 10, priceBumpPercent: 10 })
    const sealer = new DevSealer(later, pool, { coinbase: new Uint8Array(20), clock: manualClock(1_700_000_000_000) })
    expect(later.pendingBaseFee()).toBeUndefined()
    expect(await suggestGasPrice({ chain: later, pool: minimums, settings })).toBe(0n)
    await sealer.sealBlock(true)
    expect(later.pendingBaseFee()).toBe(1_000_000_000n)
    const fork = (await sealer.sealBlock(true))!
    expect(fork.header.baseFeePerGas).toBe(1_000_000_000n)
    expect(later.pendingBaseFee()).toBe(later.nextBaseFee(fork.header))
  })

  it("runs the latest Besu's Amsterdam: BPO5's rules with the library's Amsterdam EIPs", () => {
    const common = createChainCommon(
      parseGenesisText(genesisText({ amsterdamTime: 0, terminalTotalDifficulty: 0 }), 'g.json'),
      {},
    )
    common.setHardforkBy({ blockNumber: 1n, timestamp: 12n })
    expect(common.hardfork()).toBe('amsterdam')
    expect([7928, 7594, 7702].map((eip) => common.isActivatedEIP(eip))).toEqual([true, true, true])
    const drafts = [2780, 7708, 7843, 7778, 7954, 7976, 7981, 7997, 8024, 8037, 8038, 8246, 8282]
    expect(drafts.filter((eip) => !common.isActivatedEIP(eip))).toEqual([])
  })

  it('keeps a configured Amsterdam before FutureEips, in Besu order', () => {
    const names = createChainCommon(
      parseGenesisText(genesisText({ amsterdamTime: 10, futureEipsTime: 20 }), 'g.json'),
      {},
    )
      .hardforks()
      .map((h) => h.name)
    expect(names.slice(-2)).toEqual(['amsterdam', 'futureEips'])
  })
})
