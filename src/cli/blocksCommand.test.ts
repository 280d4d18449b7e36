import { describe, expect, it } from '../runtime/testing.ts'
import { ImportProgress } from './blockFiles.ts'
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

  it('takes the state storage format of a new data path for an import only', () => {
    expect(parseBlocksOptions('import', { from: 'c.rlp', dataStorageFormat: 'bonsai' }).dataStorageFormat).toBe(
      'BONSAI',
    )
    expect(parseBlocksOptions('import', { from: 'c.rlp' }).dataStorageFormat).toBeUndefined()
    const archive = parseBlocksOptions('import', { from: 'c.rlp', dataStorageFormat: 'X_BONSAI_ARCHIVE' })
    expect([archive.dataStorageFormat, archive.isBonsaiArchive]).toEqual(['BONSAI', true])
    expect(() => parseBlocksOptions('import', { from: 'c.rlp', dataStorageFormat: 'ARCHIVE' })).toThrow(
      "Invalid value for option --data-storage-format: 'ARCHIVE' (expected FOREST, BONSAI or X_BONSAI_ARCHIVE)",
    )
    expect(() => parseBlocksOptions('export', { to: 'o.rlp', dataStorageFormat: 'FOREST' })).toThrow(
      'Option --data-storage-format is for blocks import',
    )
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

describe('ImportProgress', () => {
  function progressOn(isTTY: boolean) {
    let now = 1_000_000
    const written: string[] = []
    const progress = new ImportProgress({ isTTY, write: (t: string) => written.push(t) }, () => now)
    return { progress, written, advance: (ms: number) => (now += ms) }
  }

  it('draws a bar with blocks/s and Mgas/s on a terminal, at most every 100 ms and always at the end', () => {
    const { progress, written, advance } = progressOn(true)
    progress.total = 4
    advance(500)
    progress.update(1, 15_000_000n)
    advance(50)
    progress.update(2, 30_000_000n)
    expect(written).toEqual([`\r[${'#'.repeat(8)}${'.'.repeat(22)}] 1/4 2.0 blocks/s, 30.0 Mgas/s   `])
    advance(450)
    progress.update(4, 60_000_000n)
    expect(written[1]).toBe(`\r[${'#'.repeat(30)}] 4/4 4.0 blocks/s, 60.0 Mgas/s   `)
    progress.finish()
    expect(written[2]).toBe('\n')
  })

  it('writes nothing when the output is not a terminal', () => {
    const { progress, written, advance } = progressOn(false)
    progress.total = 2
    advance(200)
    progress.update(2, 0n)
    progress.finish()
    expect(written).toEqual([])
  })
})
