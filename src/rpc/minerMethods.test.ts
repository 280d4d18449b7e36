import { call, rpcChainForTests } from '../../test/rpc/rpcHarness.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { minerMethods } from './minerMethods.ts'

const shared = rpcChainForTests()
const method = (name: string) => minerMethods.find((m) => m.name === name)!
/** The error a call threw, as code and message. */
async function refusal(name: string, params: unknown[] = []) {
  try {
    await call(shared.ctx, method(name), params)
  } catch (e) {
    return { code: (e as { code: number }).code, message: (e as Error).message }
  }
  return 'answered'
}

describe('the MINER group on a node that builds no blocks', () => {
  it("refuses what it cannot do as Besu's coordinators refuse an unsupported operation", async () => {
    expect(shared.ctx.mining).toBeUndefined()
    expect(await refusal('miner_start')).toEqual({ code: -32600, message: 'Invalid Request' })
    expect(await refusal('miner_setExtraData', ['0x01'])).toEqual({ code: -32600, message: 'Invalid Request' })
    expect(await refusal('miner_changeTargetGasLimit', [30_000_000])).toEqual({
      code: -32011,
      message: "The node is not attempting to target a gas limit so the target can't be changed",
    })
  })

  it("still reads and sets the pool's minimums, hex with leading zeros as Besu's Wei reads it", async () => {
    expect(await call(shared.ctx, method('miner_setMinPriorityFee'), ['0x0007'])).toBe(true)
    expect(await call(shared.ctx, method('miner_getMinPriorityFee'))).toBe('0x7')
    expect(shared.ctx.pool.minPriorityFee).toBe(7n)
    expect(await refusal('miner_setMinGasPrice', [1000])).toEqual({
      code: -32602,
      message: 'Invalid min gas price params',
    })
    expect(await refusal('miner_setMinGasPrice', [`0x1${'0'.repeat(64)}`])).toEqual({
      code: -32602,
      message: 'Invalid min gas price params',
    })
  })
})
