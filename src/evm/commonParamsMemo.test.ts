import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { paramsTx } from '@ethereumjs/tx'
import { createChainCommon, devGenesis } from '../chain/genesis.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { installCommonParamsMemo } from './commonParamsMemo.ts'

describe('installCommonParamsMemo', () => {
  installCommonParamsMemo()

  it('gives a copy the same parameters as an unmemoized merge would', () => {
    const base = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
    const first = base.copy()
    first.updateParams(paramsTx)
    const second = base.copy()
    second.updateParams(paramsTx)
    expect(second.param('txGas')).toBe(21000n)
    expect(second.param('txDataZeroGas')).toBe(first.param('txDataZeroGas'))
  })

  it('rebuilds for another hardfork instead of reusing a cache', () => {
    const base = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
    base.copy().updateParams(paramsTx)
    const istanbul = base.copy()
    istanbul.setHardfork(Hardfork.Istanbul)
    istanbul.updateParams(paramsTx)
    expect(istanbul.param('txDataNonZeroGas')).toBe(16n)
    const frontier = base.copy()
    frontier.setHardfork(Hardfork.Chainstart)
    frontier.updateParams(paramsTx)
    expect(frontier.param('txDataNonZeroGas')).toBe(68n)
  })

  it('applies a table that changes values even after others were memoized', () => {
    const base = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
    base.copy().updateParams(paramsTx)
    const custom = base.copy()
    custom.updateParams({ 1: { txGas: 12345 } })
    expect(custom.param('txGas')).toBe(12345n)
  })

  it('keeps the hardfork list of a chain with custom hardforks, with the same forks in the same order', () => {
    const common = createChainCommon(devGenesis(), {})
    const list = common.hardforks()
    expect(common.copy().hardforks()).toBe(list)
    const { hardforks, customHardforks } = (
      common as unknown as { _chainParams: { hardforks: { name: string }[]; customHardforks?: object } }
    )._chainParams
    expect(customHardforks).toBeDefined()
    const names = list.map((h) => h.name)
    expect(names.slice(0, hardforks.length)).toEqual(hardforks.map((h) => h.name))
    expect(new Set(names).size).toBe(names.length)
    expect(common.hardforkGteHardfork('osaka', 'prague')).toBe(true)
  })
})
