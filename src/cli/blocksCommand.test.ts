import { describe, expect, it } from 'bun:test'
import { parseBlocksOptions } from './blocksCommand.ts'

describe('parseBlocksOptions', () => {
  it('reads an import with Besu defaults: from block 0, to the end of the file, seals checked', () => {
    const o = parseBlocksOptions('import', { from: 'chain.rlp', dataPath: 'd' })
    expect(o).toMatchObject({
      subcommand: 'import',
      files: ['chain.rlp'],
      dataPath: 'd',
      isPowValidationSkipped: false,
    })
    expect(o.startBlock).toBe(0n)
    expect(o.endBlock).toBeUndefined()
  })

  it('takes repeated --from files in order and a block range', () => {
    const o = parseBlocksOptions('import', {
      from: ['a.rlp', 'b.rlp'],
      startBlock: '5',
      endBlock: '10',
      skipPowValidationEnabled: true,
    })
    expect(o.files).toEqual(['a.rlp', 'b.rlp'])
    expect([o.startBlock, o.endBlock]).toEqual([5n, 10n])
    expect(o.isPowValidationSkipped).toBe(true)
  })

  it('exports from block 1 by default (a file of blocks excludes the genesis)', () => {
    expect(parseBlocksOptions('export', { to: 'out.rlp' }).startBlock).toBe(1n)
  })

  it('refuses an unknown subcommand, a missing file, a bad number and an empty range', () => {
    expect(() => parseBlocksOptions('verify', {})).toThrow('Unknown blocks subcommand: verify')
    expect(() => parseBlocksOptions('export', {})).toThrow('Missing option --to')
    expect(() => parseBlocksOptions('import', { from: 'x', startBlock: '0x5' })).toThrow('--start-block')
    expect(() => parseBlocksOptions('import', { from: 'x', startBlock: '5', endBlock: '5' })).toThrow('--end-block')
  })
})
