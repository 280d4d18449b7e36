import { type TracingChain, tracingChain } from '../../../test/tracing/tracingChain.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import { createReplayTracer } from './replayTracer.ts'

/*
 * Parity traces around precompiles, by OpenEthereum's executive tracer rule (Besu's
 * FlatTraceGenerator follows it): a nested call into a precompile is traced only when it carries
 * value; the transaction's own call always is.
 */

const IDENTITY = '0x0000000000000000000000000000000000000004'
const WORD = '0'.repeat(64)
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

  it('traces a nested call into a precompile that carries value, with its gas and output', async () => {
    const caller = await t.deploy(identityCaller(1))
    const r = await replay(caller, 5n)
    expect(r.trace).toHaveLength(2)
    expect(r.trace[0]).toMatchObject({ subtraces: 1, traceAddress: [] })
    expect(r.trace[1]).toMatchObject({
      action: { callType: 'call', from: caller, input: `0x${WORD}`, to: IDENTITY, value: '0x1' },
      // identity: 15 + 3 per word
      result: { gasUsed: '0x12', output: `0x${WORD}` },
      subtraces: 0,
      traceAddress: [0],
      type: 'call',
    })
    // The wei it received shows in the state diff (the account did not exist before).
    expect(r.stateDiff[IDENTITY].balance).toEqual({ '+': '0x1' })
  })

  it('traces a transaction sent straight to a precompile', async () => {
    const r = await replay(IDENTITY)
    expect(r.trace).toHaveLength(1)
    expect(r.trace[0]).toMatchObject({ action: { callType: 'call', to: IDENTITY }, subtraces: 0, traceAddress: [] })
  })
})
