/** `basalt run`'s state storage options, parsed as the executable parses them. */
import { describe, expect, it } from '../runtime/testing.ts'
import { runConfig } from './runArgs.test-helper.ts'

describe('--data-storage-format', () => {
  it("leaves the choice to the data path by default and takes Besu's names in any case", () => {
    expect(runConfig([]).dataStorageFormat).toBeUndefined()
    expect(runConfig(['--data-storage-format', 'FOREST']).dataStorageFormat).toBe('FOREST')
    expect(runConfig(['--data-storage-format=bonsai']).dataStorageFormat).toBe('BONSAI')
  })

  it('takes X_BONSAI_ARCHIVE as BONSAI with the state history; plain BONSAI turns the history off', () => {
    const archive = runConfig(['--data-storage-format=X_BONSAI_ARCHIVE'])
    expect(archive.dataStorageFormat).toBe('BONSAI')
    expect(archive.isBonsaiArchive).toBe(true)
    expect(runConfig(['--data-storage-format=BONSAI']).isBonsaiArchive).toBe(false)
    expect(runConfig([]).isBonsaiArchive).toBeUndefined()
    expect(runConfig(['--data-storage-format=FOREST']).isBonsaiArchive).toBeUndefined()
  })

  it('refuses another name, and BONSAI with --fork-url', () => {
    expect(() => runConfig(['--data-storage-format', 'ARCHIVE'])).toThrow(
      "Invalid value for option --data-storage-format: 'ARCHIVE' (expected FOREST, BONSAI or X_BONSAI_ARCHIVE)",
    )
    expect(() => runConfig(['--data-storage-format=BONSAI', '--fork-url', 'http://127.0.0.1:1'])).toThrow(
      'Option --fork-url keeps its state as FOREST',
    )
  })
})

describe('--bonsai-historical-block-limit', () => {
  it("is Besu's 512 by default and takes a positive count", () => {
    expect(runConfig([]).bonsaiHistoricalBlockLimit).toBe(512)
    expect(runConfig(['--bonsai-historical-block-limit', '64']).bonsaiHistoricalBlockLimit).toBe(64)
    expect(() => runConfig(['--bonsai-historical-block-limit', '0'])).toThrow('--bonsai-historical-block-limit')
  })
})
