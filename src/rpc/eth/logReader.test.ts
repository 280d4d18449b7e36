import { PING_TOPIC } from '../../../test/logs/emitter.ts'
import { type EventChain, eventChain } from '../../../test/logs/eventChain.ts'
import type { Chain } from '../../chain/chain.ts'
import { bytesToHex, toQuantity } from '../../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import { ChainStore } from '../../storage/chainStore.ts'
import { migrate } from '../../storage/schema.ts'
import { openSqlite } from '../../storage/sqlite.ts'
import { LogReader, MAX_LOG_RESULTS } from './logReader.ts'

let c: EventChain
let reader: LogReader
const any = { addresses: [], topics: [] }

beforeAll(async () => {
  c = await eventChain()
  reader = new LogReader(c.chain)
  await c.ping(1n, 2n)
  await c.ping(3n)
})
afterAll(() => c.close())

const values = (logs: Record<string, unknown>[]) => logs.map((l) => BigInt(l.data as string))

describe('LogReader.range', () => {
  it('resolves tags to block numbers', () => {
    expect(reader.range('earliest', 'latest')).toEqual({ from: 0n, to: c.chain.head.header.number })
  })

  it("refuses a reversed range with Besu's filter text", () => {
    expect(() => reader.range(3n, 2n)).toThrow('Invalid filter params')
  })

  it('refuses a range past the head unless clamped', () => {
    const head = c.chain.head.header.number
    expect(() => reader.range(0n, head + 1n)).toThrow('block range extends beyond current head block')
    expect(reader.range(0n, head + 5n, true)).toEqual({ from: 0n, to: head })
  })

  it('refuses safe before there is a safe block', () => {
    expect(() => reader.range('safe', 'latest')).toThrow('Unknown block')
  })
})

describe('LogReader.inRange', () => {
  it('answers logs in chain order with their block timestamp', () => {
    const logs = reader.inRange(0n, c.chain.head.header.number, { addresses: [c.emitter], topics: [[PING_TOPIC]] })
    expect(values(logs)).toEqual([1n, 2n, 3n])
    expect(logs[2]).toMatchObject({
      address: bytesToHex(c.emitter),
      blockHash: bytesToHex(c.chain.head.hash()),
      blockNumber: toQuantity(c.chain.head.header.number),
      blockTimestamp: toQuantity(c.chain.head.header.timestamp),
      logIndex: '0x0',
      transactionIndex: '0x0',
      removed: false,
    })
  })

  it('matches the indexed topic at position 1', () => {
    const two = new Uint8Array(32)
    two[31] = 2
    expect(values(reader.inRange(0n, c.chain.head.header.number, { addresses: [], topics: [null, [two]] }))).toEqual([
      2n,
    ])
  })

  it('answers nothing for a constraint on a fifth topic', () => {
    expect(
      reader.inRange(0n, c.chain.head.header.number, { addresses: [], topics: [null, null, null, null, [PING_TOPIC]] }),
    ).toEqual([])
  })

  it('refuses more than MAX_LOG_RESULTS logs with -32005', async () => {
    const db = await openSqlite(':memory:')
    migrate(db, true)
    const store = new ChainStore(db)
    const z = new Uint8Array(32)
    const logs = Array.from({ length: MAX_LOG_RESULTS + 1 }, (_, i) => ({
      blockNumber: 1,
      logIndex: i,
      blockHash: z,
      txHash: z,
      txIndex: 0,
      address: new Uint8Array(20),
      topics: [],
      data: z,
      blockTimestamp: 1,
    }))
    db.transaction(() => store.writeCanonical({ number: 1n, hash: z, txHashes: [], logs }))
    const big = new LogReader({ store } as unknown as Chain)
    expect(() => big.inRange(0n, 1n, any)).toThrow('query returned more than 10000 results')
    expect(() => big.inRangeText(0n, 1n, any)).toThrow('query returned more than 10000 results')
  })
})

describe('LogReader.inRangeText', () => {
  it('is the JSON text of inRange, byte for byte', () => {
    const head = c.chain.head.header.number
    for (const criteria of [any, { addresses: [c.emitter], topics: [[PING_TOPIC]] }, { addresses: [], topics: [] }]) {
      const text = reader.inRangeText(0n, head, criteria)
      expect(text.text).toBe(JSON.stringify(reader.inRange(0n, head, criteria)))
    }
    expect(reader.inRangeText(2n, 1n, any).text).toBe('[]')
  })

  it('writes random logs as formatStoredLog and JSON.stringify do, with timestamps read from headers', async () => {
    const db = await openSqlite(':memory:')
    migrate(db, true)
    const store = new ChainStore(db)
    const random = (n: number) => crypto.getRandomValues(new Uint8Array(n))
    const logs = Array.from({ length: 400 }, (_, i) => ({
      blockNumber: 1 + (i >> 4),
      logIndex: i,
      blockHash: random(32),
      txHash: random(32),
      txIndex: i % 7,
      address: random(20),
      topics: Array.from({ length: i % 5 }, () => random(32)),
      data: random((i * 37) % 300),
      blockTimestamp: 1_700_000_000 + i,
    }))
    db.transaction(() => {
      for (let b = 1; b <= 25; b++) {
        const inBlock = logs.filter((l) => l.blockNumber === b)
        store.writeCanonical({ number: BigInt(b), hash: random(32), txHashes: [], logs: inBlock })
      }
    })
    const reader = new LogReader({ store } as unknown as Chain)
    const text = reader.inRangeText(0n, 30n, any).text
    expect(text).toBe(JSON.stringify(reader.inRange(0n, 30n, any)))
    expect(JSON.parse(text).length).toBe(400)
  })
})

describe('LogReader.inBlock', () => {
  it('answers the logs of one block by hash', async () => {
    expect(values(await reader.inBlock(c.chain.head.hash(), any))).toEqual([3n])
  })

  it('answers no logs for an unknown block, as Besu does', async () => {
    expect(await reader.inBlock(new Uint8Array(32), any)).toEqual([])
  })
})
