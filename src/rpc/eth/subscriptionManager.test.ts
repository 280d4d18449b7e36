import { type EventChain, eventChain } from '../../../test/logs/eventChain.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { afterEach, beforeEach, describe, expect, it } from '../../runtime/testing.ts'
import type { Connection } from '../context.ts'
import { FilterManager } from './filterManager.ts'

let c: EventChain
let fm: FilterManager

beforeEach(async () => {
  c = await eventChain()
  fm = new FilterManager(c.chain, c.pool)
})
afterEach(() => {
  fm.stop()
  c.close()
})

interface FakeConnection extends Connection {
  sent: { subscription: string; result: Record<string, unknown> }[]
  close(): void
}

let nextConnectionId = 1
function connection(): FakeConnection {
  const closers: (() => void)[] = []
  const sent: FakeConnection['sent'] = []
  return {
    id: nextConnectionId++,
    sent,
    send: (m) => sent.push(JSON.parse(m).params),
    onClose: (fn) => closers.push(fn),
    close: () => {
      for (const fn of closers) fn()
    },
  }
}

describe('SubscriptionManager', () => {
  it('numbers subscriptions 0x1, 0x2, … as Besu does', () => {
    const conn = connection()
    expect(fm.subscriptions.subscribe(conn, 'newHeads')).toBe('0x1')
    expect(fm.subscriptions.subscribe(conn, 'syncing')).toBe('0x2')
  })

  it('sends each new head as a block with transaction hashes, or full transactions on request', async () => {
    const conn = connection()
    const plain = fm.subscriptions.subscribe(conn, 'newHeads')
    const full = fm.subscriptions.subscribe(conn, 'newHeads', { isFull: true })
    await c.ping(1n)
    const byId = Object.fromEntries(conn.sent.map((m) => [m.subscription, m.result]))
    expect(byId[plain].hash).toBe(bytesToHex(c.chain.head.hash()))
    expect(byId[plain].transactions).toEqual([bytesToHex(c.chain.head.transactions[0].hash())])
    expect((byId[full].transactions as unknown as Record<string, unknown>[])[0].hash).toBe(
      bytesToHex(c.chain.head.transactions[0].hash()),
    )
  })

  it('sends matching logs, then the same logs as removed when their block leaves the chain', async () => {
    const conn = connection()
    fm.subscriptions.subscribe(conn, 'logs', { criteria: { addresses: [c.emitter], topics: [] } })
    fm.subscriptions.subscribe(conn, 'logs', { criteria: { addresses: [new Uint8Array(20)], topics: [] } })
    const parent = c.chain.head
    await c.ping(3n)
    await c.chain.setHead(parent)
    await fm.heads.idle()
    expect(conn.sent.map((m) => [m.subscription, BigInt(m.result.data as string), m.result.removed])).toEqual([
      ['0x1', 3n, false],
      ['0x1', 3n, true],
    ])
  })

  it('reports the blocks of a new branch in order after a reorg', async () => {
    const conn = connection()
    fm.subscriptions.subscribe(conn, 'newHeads')
    const fork = c.chain.head
    await c.ping(1n)
    const oldHead = c.chain.head
    await c.chain.setHead(fork)
    await c.ping(2n)
    await c.ping(3n)
    await c.chain.setHead(oldHead)
    await fm.heads.idle()
    const numbers = conn.sent.map((m) => Number(m.result.number))
    const n = Number(fork.header.number)
    expect(numbers).toEqual([n + 1, n + 1, n + 2, n + 1])
  })

  it('sends pending transaction hashes, or Besu-style details on request', async () => {
    const conn = connection()
    fm.subscriptions.subscribe(conn, 'newPendingTransactions')
    fm.subscriptions.subscribe(conn, 'newPendingTransactions', { isFull: true })
    const hash = await c.queuePing(9n)
    expect(conn.sent[0].result as unknown).toBe(hash)
    expect(conn.sent[1].result).toMatchObject({ hash, to: bytesToHex(c.emitter), type: '0x2', gasPrice: null })
  })

  it('ends a subscription on eth_unsubscribe, refusing another connection', () => {
    const a = connection()
    const id = fm.subscriptions.subscribe(a, 'newHeads')
    expect(() => fm.subscriptions.unsubscribe(connection(), id)).toThrow('Subscription not found')
    expect(fm.subscriptions.unsubscribe(a, id)).toBe(true)
    expect(() => fm.subscriptions.unsubscribe(a, id)).toThrow('Subscription not found')
  })

  it('ends the subscriptions of a closed connection', () => {
    const a = connection()
    fm.subscriptions.subscribe(a, 'newHeads')
    fm.subscriptions.subscribe(connection(), 'newHeads')
    a.close()
    expect(fm.subscriptions.size).toBe(1)
  })

  it('bounds subscriptions per connection and in total with -32005', () => {
    const capped = new FilterManager(c.chain, c.pool, { subscriptions: { perConnection: 2, total: 3 } })
    try {
      const [a, b] = [connection(), connection()]
      const first = capped.subscriptions.subscribe(a, 'newHeads')
      capped.subscriptions.subscribe(a, 'logs')
      const refused = () => capped.subscriptions.subscribe(a, 'newHeads')
      expect(refused).toThrow('Maximum number of active subscriptions exceeded')
      capped.subscriptions.subscribe(b, 'newHeads')
      expect(() => capped.subscriptions.subscribe(b, 'syncing')).toThrow('Maximum number of active subscriptions')
      capped.subscriptions.unsubscribe(a, first)
      capped.subscriptions.subscribe(b, 'syncing')
      a.close()
      expect(capped.subscriptions.size).toBe(2)
      capped.subscriptions.subscribe(connection(), 'newHeads')
      expect(refused).toThrow(expect.objectContaining({ code: -32005 }))
    } finally {
      capped.stop()
    }
  })
})
