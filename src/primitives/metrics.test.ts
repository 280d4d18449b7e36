import { describe, expect, it, sleep } from '../runtime/testing.ts'
import { MetricsRegistry } from './metrics.ts'

describe('MetricsRegistry', () => {
  it('counts plain and labelled counters by category', () => {
    const m = new MetricsRegistry()
    m.inc('blockchain', 'blocks_sealed')
    m.inc('blockchain', 'blocks_sealed')
    m.inc('rpc', 'requests', 'eth_call')
    m.inc('rpc', 'requests', 'eth_call')
    m.inc('rpc', 'requests', 'eth_chainId')
    expect(m.snapshot()).toEqual({
      blockchain: { blocks_sealed: 2 },
      rpc: { requests: { eth_call: 2, eth_chainId: 1 } },
    })
  })

  it('times calls that succeed and calls that throw', async () => {
    const m = new MetricsRegistry()
    await m.time('blockchain', 'seal', async () => sleep(5))
    await expect(
      m.time('blockchain', 'seal', () => {
        throw new Error('x')
      }),
    ).rejects.toThrow('x')
    const seal = m.snapshot().blockchain.seal as Record<string, number>
    expect(seal.count).toBe(2)
    expect(seal.sumMs).toBeGreaterThanOrEqual(4)
    expect(seal.maxMs).toBeGreaterThanOrEqual(4)
    expect(seal.maxMs).toBeLessThanOrEqual(seal.sumMs)
  })

  it('reads gauges when the snapshot is taken and skips failing ones', () => {
    const m = new MetricsRegistry()
    let size = 1
    m.gauge('transaction_pool', 'size', () => size)
    m.gauge('storage', 'database_bytes', () => {
      throw new Error('closed')
    })
    size = 7
    expect(m.snapshot()).toEqual({ transaction_pool: { size: 7 } })
    m.dropGauges('transaction_pool')
    expect(m.snapshot()).toEqual({})
  })
})
