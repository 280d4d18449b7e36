/** debug_traceCall's config carries the call's state and block overrides, as geth's TraceCallConfig and Besu read them. */
import { call, rpcChainForTests } from '../../../test/rpc/rpcHarness.ts'
import { describe, expect, it } from '../../runtime/testing.ts'
import { traceCall } from './debugMethods.ts'

const TARGET = `0x${'aa'.repeat(20)}`
const SENDER = `0x${'cc'.repeat(20)}`

const chain = rpcChainForTests()

describe('debug_traceCall with overrides in its config', () => {
  it('runs the code and balance that stateOverrides give, in the struct logs', async () => {
    const out = await call(chain.ctx, traceCall, [
      { from: SENDER, to: TARGET },
      'latest',
      // PUSH1 1, PUSH1 0, RETURN: returns one zero byte.
      { stateOverrides: { [TARGET]: { code: '0x60016000f3' }, [SENDER]: { balance: '0x90000000000009900' } } },
    ])
    expect(out.returnValue).toBe('0x00')
    expect(out.structLogs.map((l: { op: string }) => l.op)).toEqual(['PUSH1', 'PUSH1', 'RETURN'])
    expect(out.gas).toBe(21009)
  })

  it('sees the block that blockOverrides describe, also under a named tracer', async () => {
    // NUMBER, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN
    const code = '0x4360005260206000f3'
    const out = await call(chain.ctx, traceCall, [
      { to: TARGET },
      'latest',
      { tracer: 'callTracer', stateOverrides: { [TARGET]: { code } }, blockOverrides: { number: '0x99' } },
    ])
    expect(BigInt(out.output)).toBe(0x99n)
  })

  it('refuses malformed overrides with -32602 and runs without them when they are null', async () => {
    await expect(
      call(chain.ctx, traceCall, [{ to: TARGET }, 'latest', { stateOverrides: { [TARGET]: { balance: 'lots' } } }]),
    ).rejects.toMatchObject({ code: -32602 })
    const plain = await call(chain.ctx, traceCall, [{ to: TARGET }, 'latest', { stateOverrides: null }])
    expect(plain.structLogs).toEqual([])
  })
})
