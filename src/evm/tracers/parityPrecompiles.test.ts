import { type TracingChain, tracingChain } from '../../../test/tracing/tracingChain.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import { createReplayTracer } from './replayTracer.ts'

/*
 * Parity traces around precompiles, by Besu's FlatTraceGenerator: a nested call is listed only when
 * the callee ran opcodes of its own, which a precompile never does, so no nested call into a
 * precompile is listed, with or without value (OpenEthereum listed the ones carrying value; geth's
 * flatCallTracer leaves out CALL and STATICCALL into precompiles); the transaction's own call always is.
 */

const IDENTITY = '0x0000000000000000000000000000000000000004'
/** CALL identity with `value` wei over one word of memory, keep one word back, STOP. */
const identityCaller = (value: number) => `6020600060206000600${value}60045af100`

let t: TracingChain
beforeAll(async () => {
  t = await tracingChain()
})
afterAll(() => t.close())

async function replay(to: string, value = 0n) {
  const hash = await t.send({ to, value })
  // biome-ignore lint/suspicious/noExplicitAny: JSON result
  return (await t.trace(hash, createReplayTracer(['trace', 'stateDiff']))) as any
}

describe('parity traces and precompiles', () => {
  it('leaves out a nested call into a precompile that carries no value', async () => {
    const caller = await t.deploy(identityCaller(0))
    const r = await replay(caller)
    expect(r.trace).toHaveLength(1)
    expect(r.trace[0]).toMatchObject({ subtraces: 0, traceAddress: [], action: { to: caller } })
    // Nothing the precompile holds changed, so the state diff does not list it.
    expect(r.stateDiff[IDENTITY]).toBeUndefined()
  })

  it('leaves out a nested call into a precompile that carries value too', async () => {
    const caller = await t.deploy(identityCaller(1))
    const r = await replay(caller, 5n)
    expect(r.trace).toHaveLength(1)
    expect(r.trace[0]).toMatchObject({ subtraces: 0, traceAddress: [], action: { to: caller, value: '0x5' } })
    // The wei it received still shows in the state diff (the account did not exist before).
    expect(r.stateDiff[IDENTITY].balance).toEqual({ '+': '0x1' })
  })

  it('traces a transaction sent straight to a precompile', async () => {
    const r = await replay(IDENTITY)
    expect(r.trace).toHaveLength(1)
    expect(r.trace[0]).toMatchObject({ action: { callType: 'call', to: IDENTITY }, subtraces: 0, traceAddress: [] })
  })
})
