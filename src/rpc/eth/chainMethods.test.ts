/** eth_mining: whether the node makes blocks on its own, as Besu's mining coordinator reports it. */
import { call, rpcContext } from '../../../test/rpc/rpcHarness.ts'
import { tracingChain } from '../../../test/tracing/tracingChain.ts'
import { describe, expect, it } from '../../runtime/testing.ts'
import { mining } from './chainMethods.ts'

describe('eth_mining', () => {
  it('is false while the sealer is not started (a node without --miner-enabled), true while it seals on its own (automine or interval), false when blocks come only on request', async () => {
    const t = await tracingChain()
    const ctx = rpcContext(t)
    try {
      expect(await call(ctx, mining)).toBe(false)
      t.sealer.start()
      expect(await call(ctx, mining)).toBe(true)
      t.sealer.setAutomine(false)
      expect(await call(ctx, mining)).toBe(false)
      t.sealer.setIntervalMining(60_000)
      expect(await call(ctx, mining)).toBe(true)
      t.sealer.setIntervalMining(0)
      expect(await call(ctx, mining)).toBe(false)
      t.sealer.setAutomine(true)
      expect(await call(ctx, mining)).toBe(true)
      await t.sealer.stop()
      expect(await call(ctx, mining)).toBe(false)
      expect(await call({ ...ctx, sealer: undefined }, mining)).toBe(false)
    } finally {
      ctx.filters.stop()
      t.close()
    }
  })
})
