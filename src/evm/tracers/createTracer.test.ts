import { callerRuntime, STORE_RUNTIME, type TracingChain, tracingChain } from '../../../test/tracing/tracingChain.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import { withExecutionDeadline } from '../executionDeadline.ts'
import { createTracer, InvalidTimeoutError, InvalidTracerConfigError, parseDurationMs } from './createTracer.ts'
import { TraceTimeoutError } from './txTracer.ts'

let t: TracingChain
let store: string
let callTx: Uint8Array
let loopTx: Uint8Array

beforeAll(async () => {
  t = await tracingChain()
  store = await t.deploy(STORE_RUNTIME)
  const caller = await t.deploy(callerRuntime(store))
  callTx = await t.send({ to: caller, data: new Uint8Array([0xde, 0xad, 0xbe, 0xef]) })
  const looper = await t.deploy('5b600056') // JUMPDEST, PUSH1 0, JUMP: runs until out of gas
  loopTx = await t.send({ to: looper, gasLimit: 5_000_000n })
})
afterAll(() => t.close())

describe('createTracer', () => {
  it('runs several tracers over one execution with muxTracer, results under their sorted names', async () => {
    const mux = (await t.trace(
      callTx,
      createTracer({ tracer: 'muxTracer', tracerConfig: { callTracer: { onlyTopCall: true }, '4byteTracer': {} } }),
    )) as Record<string, any>
    expect(Object.keys(mux)).toEqual(['4byteTracer', 'callTracer'])
    expect(mux['4byteTracer']).toEqual({ '0xdeadbeef-0': 1, '0x00000000-0': 1 })
    expect(mux.callTracer.calls).toBeUndefined()
    expect(mux.callTracer.input).toBe('0xdeadbeef')
  })

  it("refuses the prestate tracer's diffMode with includeEmpty, in geth's words", () => {
    const config = { tracer: 'prestateTracer', tracerConfig: { diffMode: true, includeEmpty: true } }
    expect(() => createTracer(config)).toThrow(InvalidTracerConfigError)
    expect(() => createTracer(config)).toThrow('cannot use diffMode with includeEmpty')
  })

  it('answers an empty object with noopTracer', async () => {
    expect(await t.trace(callTx, createTracer({ tracer: 'noopTracer' }))).toEqual({})
  })

  it('parses Go durations and refuses other text with geth words', () => {
    expect(parseDurationMs('5s')).toBe(5000)
    expect(parseDurationMs('1m30s')).toBe(90_000)
    expect(parseDurationMs('250ms')).toBe(250)
    expect(() => parseDurationMs('5 seconds')).toThrow(InvalidTimeoutError)
    expect(() => parseDurationMs('')).toThrow('time: invalid duration ""')
  })

  it("gives every tracer geth's 5 s when the config names no timeout", async () => {
    // A clock that moves `stepMs` at each read: the loop's trace reads it every 256 opcodes.
    const clock = (stepMs: number) => {
      let t = 0
      return { now: () => (t += stepMs) }
    }
    for (const tracer of [undefined, 'callTracer', 'noopTracer']) {
      await expect(t.trace(loopTx, createTracer({ tracer }, clock(5_001)))).rejects.toBeInstanceOf(TraceTimeoutError)
    }
    // Well inside 5 s at every read (the loop has about 1,250,000 opcodes: under 5,000 reads).
    const ok = (await t.trace(loopTx, createTracer({ tracer: 'callTracer' }, clock(1)))) as any
    expect(ok.error).toBe('out of gas')
    // An explicit timeout replaces the default: 100 ms a read passes 5 s after 50 reads, not 1 h.
    await expect(t.trace(loopTx, createTracer({ tracer: 'noopTracer' }, clock(100)))).rejects.toBeInstanceOf(
      TraceTimeoutError,
    )
    const longer = await t.trace(loopTx, createTracer({ tracer: 'noopTracer', timeout: '1h' }, clock(100)))
    expect(longer).toEqual({})
  })

  it("stops a default-timeout trace by the request's own time limit, with geth's text", async () => {
    let reads = 0
    const clock = { now: () => 100 * ++reads } // 100 ms a read
    await expect(t.trace(loopTx, createTracer({ tracer: 'noopTracer' }, clock))).rejects.toBeInstanceOf(
      TraceTimeoutError,
    )
    expect(reads).toBe(52) // the start, then 5 s past it at the 51st check
    reads = 0
    // A request with 1 s left: the trace stops after about 1 s (less a 10 ms margin) of its clock.
    // The request's own clock stands still, so its limit never fires in real time: on a loaded
    // machine the run could take longer than 1 s and end with the request's error, not the trace's.
    const requestClock = () => 0
    await expect(
      withExecutionDeadline(1_000, () => t.trace(loopTx, createTracer({ tracer: 'noopTracer' }, clock)), requestClock),
    ).rejects.toBeInstanceOf(TraceTimeoutError)
    expect(reads).toBeLessThanOrEqual(11)
    // An explicit timeout is the caller's: the request's limit does not shorten it.
    reads = 0
    await expect(
      withExecutionDeadline(
        1_000,
        () => t.trace(loopTx, createTracer({ tracer: 'noopTracer', timeout: '5s' }, clock)),
        requestClock,
      ),
    ).rejects.toBeInstanceOf(TraceTimeoutError)
    expect(reads).toBe(52)
  })

  it('stops a trace that runs past its timeout with "execution timeout"', async () => {
    await expect(t.trace(loopTx, createTracer({ timeout: '1ms' }))).rejects.toBeInstanceOf(TraceTimeoutError)
    // The replay state is usable again afterwards.
    const ok = (await t.trace(loopTx, createTracer({ tracer: 'callTracer', timeout: '1m' }))) as any
    expect(ok.error).toBe('out of gas')
  })
})
