import {
  callerRuntime,
  REVERT_RUNTIME,
  STORE_RUNTIME,
  type TracingChain,
  tracingChain,
} from '../../../test/tracing/tracingChain.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import { CallTracer, formatCallFrame, revertReason } from './callTracer.ts'
import { FourByteTracer } from './fourByteTracer.ts'
import { flattenCallFrames } from './parityTrace.ts'

let t: TracingChain
let store: string
let caller: string
let callTx: Uint8Array

beforeAll(async () => {
  t = await tracingChain()
  store = await t.deploy(STORE_RUNTIME)
  caller = await t.deploy(callerRuntime(store))
  callTx = await t.send({ to: caller, data: new Uint8Array([1, 2, 3, 4, 5]) })
})
afterAll(() => t.close())

describe('CallTracer', () => {
  it('builds the call tree of a contract calling another', async () => {
    const json = formatCallFrame(await t.trace(callTx, new CallTracer())) as any
    expect(json.type).toBe('CALL')
    expect(json.from).toBe(t.sender)
    expect(json.to).toBe(caller)
    expect(json.gas).toBe('0xf4240')
    expect(json.input).toBe('0x0102030405')
    expect(json.value).toBe('0x0')
    expect(json.calls).toHaveLength(1)
    expect(json.calls[0]).toMatchObject({ type: 'CALL', from: caller, to: store, input: '0x00000000', value: '0x0' })
    expect(json.calls[0].output).toBe(`0x${'2a'.padStart(64, '0')}`)
    expect(json.logs).toBeUndefined()
  })

  it('includes logs with their position when withLog is set', async () => {
    const json = formatCallFrame(await t.trace(callTx, new CallTracer({ withLog: true }))) as any
    expect(json.logs).toEqual([
      { address: caller, topics: [`0x${'1'.padStart(64, '0')}`], data: `0x${'2a'.padStart(64, '0')}`, position: '0x1' },
    ])
  })

  it('leaves out sub-calls with onlyTopCall', async () => {
    const json = formatCallFrame(await t.trace(callTx, new CallTracer({ onlyTopCall: true }))) as any
    expect(json.calls).toBeUndefined()
  })

  it('marks a reverted call with geth error text', async () => {
    const reverter = await t.deploy(REVERT_RUNTIME)
    const hash = await t.send({ to: reverter })
    const json = formatCallFrame(await t.trace(hash, new CallTracer())) as any
    expect(json.error).toBe('execution reverted')
    expect(json.output).toBeUndefined()
  })
})

describe('revertReason', () => {
  it('decodes an Error(string) payload', () => {
    const hex = `08c379a0${'20'.padStart(64, '0')}${'2'.padStart(64, '0')}${'6869'.padEnd(64, '0')}`
    expect(revertReason(Uint8Array.from(Buffer.from(hex, 'hex')))).toBe('hi')
  })
})

describe('flattenCallFrames', () => {
  it('lists the tree depth-first with trace addresses and subtrace counts', async () => {
    const flat = flattenCallFrames(await t.trace(callTx, new CallTracer())) as any[]
    expect(flat.map((f) => [f.type, f.traceAddress, f.subtraces])).toEqual([
      ['call', [], 1],
      ['call', [0], 0],
    ])
    expect(flat[0].action).toMatchObject({ callType: 'call', from: t.sender, to: caller, value: '0x0' })
    expect(BigInt(flat[0].action.gas)).toBeLessThan(1_000_000n)
    expect(flat[1].result.output).toBe(`0x${'2a'.padStart(64, '0')}`)
  })
})

describe('FourByteTracer', () => {
  it('counts selectors and call-data sizes of every call', async () => {
    expect(await t.trace(callTx, new FourByteTracer())).toEqual({ '0x01020304-1': 1, '0x00000000-0': 1 })
  })
})
