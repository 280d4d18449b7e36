import { createChainCommon, parseGenesisText } from '../chain/genesis.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { engineForkAt, requireFork } from './forkRules.ts'

function commonOf(config: Record<string, unknown>) {
  const text = JSON.stringify({ config: { chainId: 7, terminalTotalDifficulty: 0, ...config }, gasLimit: '0x1c9c380' })
  return createChainCommon(parseGenesisText(text, 'g.json'), {})
}

describe('engineForkAt', () => {
  it("takes Amsterdam's versions from amsterdamTime, and from FutureEips / ExperimentalEips (block access lists too)", () => {
    const amsterdam = commonOf({ osakaTime: 0, amsterdamTime: 100 })
    expect([engineForkAt(amsterdam, 99n), engineForkAt(amsterdam, 100n)]).toEqual(['osaka', 'amsterdam'])
    expect(engineForkAt(commonOf({ osakaTime: 0, futureEipsTime: 50 }), 50n)).toBe('amsterdam')
    expect(engineForkAt(commonOf({ pragueTime: 0, experimentalEipsTime: 70 }), 69n)).toBe('prague')
    expect(engineForkAt(commonOf({ pragueTime: 0, experimentalEipsTime: 70 }), 70n)).toBe('amsterdam')
  })
})

describe('requireFork', () => {
  const dataOf = (fn: () => void): unknown => {
    try {
      fn()
    } catch (e) {
      return [(e as { code: number }).code, (e as { data: unknown }).data]
    }
    return 'no error'
  }
  const osaka = commonOf({ shanghaiTime: 0, cancunTime: 0, pragueTime: 0, osakaTime: 32 })

  it("answers Besu's -38005 data after the last fork of the window: the next fork and its time", () => {
    expect(dataOf(() => requireFork(osaka, 32n, ['cancun', 'prague']))).toEqual([
      -38005,
      'block timestamp 32 is after the first unsupported milestone: OSAKA at timestamp 32',
    ])
    expect(dataOf(() => requireFork(osaka, 31n, ['cancun', 'prague']))).toBe('no error')
  })

  it("answers Besu's -38005 data before the first fork of the window, and when it is not scheduled", () => {
    expect(dataOf(() => requireFork(osaka, 31n, ['osaka']))).toEqual([
      -38005,
      'OSAKA configured to start at timestamp: 32',
    ])
    expect(dataOf(() => requireFork(osaka, 40n, ['amsterdam']))).toEqual([
      -38005,
      'Configuration error, no schedule for AMSTERDAM fork set',
    ])
  })
})
