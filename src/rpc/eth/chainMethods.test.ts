/** eth_mining: whether the node makes blocks on its own, as Besu's mining coordinator reports it. */
import { call, rpcContext } from '../../../test/rpc/rpcHarness.ts'
import { tracingChain } from '../../../test/tracing/tracingChain.ts'
import { describe, expect, it } from '../../runtime/testing.ts'
import { mining } from './chainMethods.ts'

describe('eth_mining', () => {
  it('is false while the sealer is not started (a node without --miner-enabled), true while it runs', async () => {
    const t = await tracingChain()
    const ctx = rpcContext(t)
    try {
      expect(await call(ctx, mining)).toBe(false)
      t.sealer.start()
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
