import { describe, expect, it } from '../runtime/testing.ts'
import { ChainStore } from '../storage/chainStore.ts'
import { migrate } from '../storage/schema.ts'
import { openSqlite } from '../storage/sqlite.ts'
import { ChainIdSchedule } from './chainIds.ts'
import { createChainCommon, normalizeGenesis } from './genesis.ts'

async function setUp() {
  const db = await openSqlite(':memory:')
  migrate(db, true)
  const store = new ChainStore(db)
  const common = createChainCommon(normalizeGenesis({ config: { chainId: 7, londonBlock: 0 } }), {})
  return { store, common }
}

describe('ChainIdSchedule', () => {
  it('gives each block the id in force at it, and the chain its latest', async () => {
    const { store, common } = await setUp()
    const schedule = new ChainIdSchedule(store, common)
    const before = common.copy()
    schedule.set(5n, 99n)
    expect(common.chainId()).toBe(99n)
    expect(before.chainId()).toBe(7n)
    expect(schedule.chainIdAt(4n)).toBe(7n)
    expect(schedule.chainIdAt(5n)).toBe(99n)
    expect(schedule.rulesAt(0n).chainId()).toBe(7n)
    expect(schedule.rulesAt(6n)).toBe(common)
  })

  it('is read back from the store by the next start', async () => {
    const { store, common } = await setUp()
    new ChainIdSchedule(store, common).set(3n, 42n)
    const fresh = createChainCommon(normalizeGenesis({ config: { chainId: 7, londonBlock: 0 } }), {})
    const again = new ChainIdSchedule(store, fresh)
    expect(fresh.chainId()).toBe(42n)
    expect(again.chainIdAt(2n)).toBe(7n)
    expect(again.chainIdAt(3n)).toBe(42n)
  })

  it('keeps the latest id from the block after a head moved back below its change', async () => {
    const { store, common } = await setUp()
    const schedule = new ChainIdSchedule(store, common)
    schedule.set(10n, 99n)
    schedule.followHead(20n)
    expect(schedule.chainIdAt(10n)).toBe(99n)
    schedule.followHead(3n)
    expect(schedule.chainIdAt(3n)).toBe(7n)
    expect(schedule.chainIdAt(4n)).toBe(99n)
    schedule.set(4n, 7n)
    expect(schedule.chainIdAt(4n)).toBe(7n)
    expect(common.chainId()).toBe(7n)
  })
})
