import { createChainCommon, parseGenesisText } from '../chain/genesis.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { engineForkAt } from './forkRules.ts'

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
