/** `basalt run`'s options for the blocks this node builds, parsed as the executable parses them. */
import { describe, expect, it } from '../runtime/testing.ts'
import { runConfig } from './runArgs.test-helper.ts'

describe('--miner-extra-data', () => {
  it('takes hex of at most 32 bytes, with or without 0x, keeping every digit', () => {
    expect(runConfig([]).minerExtraData).toBeUndefined()
    expect(runConfig(['--miner-extra-data', '0x626173616c74']).minerExtraData).toEqual(
      new TextEncoder().encode('basalt'),
    )
    expect(runConfig([`--miner-extra-data=${'ab'.repeat(32)}`]).minerExtraData?.length).toBe(32)
    expect(runConfig(['--miner-extra-data=0x']).minerExtraData).toEqual(new Uint8Array(0))
  })

  it('refuses more than 32 bytes and what is not hex', () => {
    for (const v of [`0x${'ab'.repeat(33)}`, '0xabc', 'basalt'])
      expect(() => runConfig([`--miner-extra-data=${v}`])).toThrow(
        `Invalid value for option --miner-extra-data: '${v}' (expected hex of at most 32 bytes)`,
      )
  })
})

describe('--min-priority-fee', () => {
  it('is 0 unless given, in wei (decimal or hex)', () => {
    expect(runConfig([]).minPriorityFee).toBe(0n)
    expect(runConfig(['--min-priority-fee', '7']).minPriorityFee).toBe(7n)
    expect(runConfig(['--min-priority-fee=0x3b9aca00']).minPriorityFee).toBe(1_000_000_000n)
    expect(() => runConfig(['--min-priority-fee=-1'])).toThrow(
      "Invalid value for option --min-priority-fee: '-1' (expected a non-negative integer)",
    )
  })
})

describe("Besu's plural spellings of the API lists", () => {
  it('--rpc-http-apis and --rpc-ws-apis set what --rpc-http-api and --rpc-ws-api set', () => {
    const config = runConfig(['--rpc-http-apis', 'ETH,MINER', '--rpc-ws-apis=NET'])
    expect(config.http.apis).toEqual(['ETH', 'MINER'])
    expect(config.ws.apis).toEqual(['NET'])
  })
})
