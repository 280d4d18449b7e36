import { type EventChain, eventChain } from '../../../test/logs/eventChain.ts'
import type { RpcError } from '../../jsonrpc/errors.ts'
import { JsonText } from '../../jsonrpc/jsonText.ts'
import { manualClock } from '../../primitives/clock.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { afterEach, beforeEach, describe, expect, it } from '../../runtime/testing.ts'
import { FILTER_TIMEOUT_MS, FilterManager } from './filterManager.ts'
import type { FilterParam } from './logFilterParam.ts'

let c: EventChain
let fm: FilterManager
const clock = manualClock(1_000_000)

beforeEach(async () => {
  c = await eventChain()
  fm = new FilterManager(c.chain, c.pool, { clock })
})
afterEach(() => {
  fm.stop()
  c.close()
})

const all = (over: Partial<FilterParam> = {}): FilterParam => ({
  fromBlock: 'latest',
  toBlock: 'latest',
  criteria: { addresses: [], topics: [] },
  ...over,
})
const values = (logs: unknown[] | JsonText) =>
  ((logs instanceof JsonText ? logs.toJSON() : logs) as { data: string }[]).map((l) => BigInt(l.data))

function errorOf(fn: () => unknown): RpcError {
  try {
    fn()
  } catch (e) {
    return e as RpcError
  }
  throw new Error('expected an error')
}

describe('FilterManager', () => {
  it('collects the matching logs of new blocks once', async () => {
    const id = fm.newLogFilter(all({ criteria: { addresses: [c.emitter], topics: [] } }))
    await c.ping(1n, 2n)
    const logs = fm.changes(id) as Record<string, unknown>[]
    expect(values(logs)).toEqual([1n, 2n])
    expect(logs[0].removed).toBe(false)
    expect(logs[1].logIndex).toBe('0x1')
    expect(fm.changes(id)).toEqual([])
  })

  it('skips logs of other addresses and of blocks past a numeric toBlock', async () => {
    const other = fm.newLogFilter(all({ criteria: { addresses: [new Uint8Array(20)], topics: [] } }))
    const bounded = fm.newLogFilter(all({ toBlock: c.chain.head.header.number + 1n }))
    await c.ping(1n)
    await c.ping(2n)
    expect(fm.changes(other)).toEqual([])
    expect(values(fm.changes(bounded))).toEqual([1n])
  })

  it('reports block hashes to a block filter', async () => {
    const id = fm.newBlockFilter()
    await c.ping(1n)
    expect(fm.changes(id)).toEqual([bytesToHex(c.chain.head.hash())])
  })

  it('reports pool arrivals to a pending transaction filter', async () => {
    const id = fm.newPendingTransactionFilter()
    const hash = await c.queuePing(7n)
    expect(fm.changes(id)).toEqual([hash])
  })

  it('reports logs of blocks dropped from the canonical chain as removed', async () => {
    const id = fm.newLogFilter(all())
    const parent = c.chain.head
    await c.ping(5n)
    fm.changes(id)
    await c.chain.setHead(parent)
    await fm.heads.idle()
    const logs = fm.changes(id) as Record<string, unknown>[]
    expect(values(logs)).toEqual([5n])
    expect(logs[0].removed).toBe(true)
  })

  it('answers Filter not found (-32000) for an unknown id', () => {
    const e = errorOf(() => fm.changes('0x123'))
    expect([e.code, e.message]).toEqual([-32000, 'Filter not found'])
  })

  it('uninstalls a filter once', () => {
    const id = fm.newBlockFilter()
    expect(fm.uninstall(id)).toBe(true)
    expect(fm.uninstall(id)).toBe(false)
  })

  it('removes filters not polled within the timeout and keeps polled ones', () => {
    const idle = fm.newBlockFilter()
    const polled = fm.newBlockFilter()
    clock.advance(FILTER_TIMEOUT_MS - 1)
    fm.changes(polled)
    clock.advance(2)
    fm.sweep()
    expect(errorOf(() => fm.changes(idle)).message).toBe('Filter not found')
    expect(fm.changes(polled)).toEqual([])
  })

  it('treats a filter past the timeout as gone before the sweep runs', async () => {
    const idle = fm.newBlockFilter()
    clock.advance(FILTER_TIMEOUT_MS)
    expect(fm.changes(idle)).toEqual([])
    clock.advance(FILTER_TIMEOUT_MS + 1)
    expect(errorOf(() => fm.changes(idle)).message).toBe('Filter not found')
    await expect(fm.filterLogs(idle)).rejects.toThrow('Filter not found')
  })

  it('refuses a filter past the limit with -32005, and takes one again once a filter expired', () => {
    const capped = new FilterManager(c.chain, c.pool, { clock, maxFilters: 3 })
    try {
      const first = capped.newBlockFilter()
      capped.newLogFilter(all())
      clock.advance(FILTER_TIMEOUT_MS / 2)
      capped.newPendingTransactionFilter()
      const e = errorOf(() => capped.newBlockFilter())
      expect([e.code, e.message]).toEqual([-32005, 'Maximum number of active filters exceeded'])
      expect(capped.uninstall(first)).toBe(true)
      capped.newBlockFilter()
      clock.advance(FILTER_TIMEOUT_MS / 2 + 1)
      capped.newBlockFilter()
      expect(capped.size).toBe(3)
    } finally {
      capped.stop()
    }
  })

  it('gives hex quantity ids of up to 16 bytes', () => {
    expect(fm.newBlockFilter()).toMatch(/^0x[1-9a-f][0-9a-f]{0,31}$/)
  })
})

describe('FilterManager.filterLogs', () => {
  it('answers every log of a log filter over its range', async () => {
    await c.ping(1n)
    await c.ping(2n)
    const id = fm.newLogFilter(all({ fromBlock: 'earliest' }))
    expect(values(await fm.filterLogs(id))).toEqual([1n, 2n])
  })

  it('answers Filter not found for a block filter', async () => {
    await expect(fm.filterLogs(fm.newBlockFilter())).rejects.toThrow('Filter not found')
  })
})
