import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PING_TOPIC } from '../../test/logs/emitter.ts'
import { type EventChain, eventChain } from '../../test/logs/eventChain.ts'
import { bigintToPaddedBytes } from '../primitives/hex.ts'
import { LogReader } from '../rpc/eth/logReader.ts'
import { afterAll, beforeAll, describe, expect, it } from '../runtime/testing.ts'
import { rewindTo } from './headReset.ts'
import { BLOOM_BYTES, LogBloomCache } from './logBloomCache.ts'
import type { LogCriteria } from './logFilter.ts'

const SEGMENT = 4
let c: EventChain
let dir: string
let cache: LogBloomCache
const topic1 = (v: bigint): LogCriteria => ({ addresses: [], topics: [null, [bigintToPaddedBytes(v, 32)]] })

beforeAll(async () => {
  c = await eventChain()
  // Blocks 2…9 each emit Ping(v) for v = their number; block 1 deployed the emitter.
  for (let v = 2n; v <= 9n; v++) await c.ping(v)
  dir = mkdtempSync(join(tmpdir(), 'basalt-bloom-'))
  cache = new LogBloomCache(c.chain, dir, SEGMENT)
})
afterAll(() => {
  c.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('LogBloomCache', () => {
  it('writes complete segments only, in the background, and refuses a second request meanwhile', async () => {
    const status = cache.requestCaching(0n, undefined)
    expect(status).toMatchObject({ startBlock: 0n, endBlock: undefined, indexing: true, requestAccepted: true })
    expect(cache.requestCaching(0n, undefined).requestAccepted).toBe(false)
    await cache.idle()
    expect(cache.isIndexing).toBe(false)
    expect(statSync(cache.segmentFile(0)).size).toBe(SEGMENT * BLOOM_BYTES)
    expect(statSync(cache.segmentFile(1)).size).toBe(SEGMENT * BLOOM_BYTES)
    // Head 9: blocks 8…11 are not all there, so segment 2 is left to the log index.
    expect(existsSync(cache.segmentFile(2))).toBe(false)
  })

  it('narrows covered blocks to those whose bloom holds the filter', () => {
    const { covered, blocks } = cache.candidates(0, 9, topic1(6n))
    expect(covered).toEqual([
      [0, 3],
      [4, 7],
    ])
    expect(blocks).toEqual([6])
    expect(cache.candidates(0, 9, { addresses: [], topics: [[PING_TOPIC]] }).blocks).toEqual([2, 3, 4, 5, 6, 7])
  })

  it('gives eth_getLogs the same answer as the log index, inside and outside the cached segments', () => {
    const plain = new LogReader(c.chain)
    const cached = new LogReader(c.chain, cache)
    for (const v of [3n, 6n, 9n, 42n]) {
      expect(cached.inRange(0n, 9n, topic1(v))).toEqual(plain.inRange(0n, 9n, topic1(v)))
    }
    expect(cached.inRange(0n, 9n, topic1(9n))).toHaveLength(1)
    expect(cached.inRange(5n, 9n, topic1(3n))).toEqual([])
  })

  it('stops trusting a segment once a reorg replaced its blocks, and removes segments on request', async () => {
    expect(cache.hasSegment(1)).toBe(true)
    await rewindTo(c.chain, (await c.chain.resolve(5n))!)
    expect(cache.hasSegment(1)).toBe(false)
    expect(cache.hasSegment(0)).toBe(true)
    expect(new LogReader(c.chain, cache).inRange(0n, 5n, topic1(6n))).toEqual([])
    cache.removeSegments(0n, 3n)
    expect(existsSync(cache.segmentFile(0))).toBe(false)
  })
})
