/**
 * Fork schedules that mix block forks with timestamp forks, against Besu's milestone rules: with a
 * DAO fork block Besu checks the whole order (blocks, then timestamps) and refuses with its own
 * message; without one it runs, per block, the milestone with the highest number reached.
 */
import { describe, expect, it } from '../runtime/testing.ts'
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

  it('refuses, naming both keys, a schedule that Besu would run backwards (shanghaiTime 0 with berlinBlock 5)', () => {
    // Besu takes it and runs Shanghai on blocks 0-4, then Berlin (5 is the higher number) from block 5 on.
    expect(() => parseGenesisText(genesisText({ berlinBlock: 5, shanghaiTime: 0 }), 'g.json')).toThrow(
      'config.shanghaiTime is scheduled for milestone 0 but it must be on or after milestone 5 (config.berlinBlock): ' +
        'Besu would run Berlin from 5 in place of Shanghai, a fork schedule that goes back',
    )
    // londonBlock 10 with shanghaiTime 5: blocks after time 5 are Shanghai until block 10 turns them London.
    expect(() => parseGenesisText(genesisText({ londonBlock: 10, shanghaiTime: 5 }), 'g.json')).toThrow(
      'config.shanghaiTime is scheduled for milestone 5 but it must be on or after milestone 10 (config.londonBlock)',
    )
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
    const chain = await openMemoryChain(normalizeGenesis(JSON.parse(genesisText(config, '0x7d0'))))
    expect(chain.genesis.header.withdrawalsRoot).toBeDefined()
    expect(chain.genesis.header.baseFeePerGas).toBe(1_000_000_000n)
  })
})
