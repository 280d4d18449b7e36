import {
  callerRuntime,
  REVERT_RUNTIME,
  STORE_RUNTIME,
  type TracingChain,
  tracingChain,
} from '../../../test/tracing/tracingChain.ts'
import { hexToBytes } from '../../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import { replayBlock } from './blockReplayer.ts'
import { StructLogger, type StructLoggerOptions, type StructLoggerResult } from './structLogger.ts'

let t: TracingChain
let storeTx: Uint8Array
let revertTx: Uint8Array

beforeAll(async () => {
  t = await tracingChain()
  const store = await t.deploy(STORE_RUNTIME)
  const reverter = await t.deploy(REVERT_RUNTIME)
  storeTx = await t.send({ to: store })
  revertTx = await t.send({ to: reverter })
})
afterAll(() => t.close())

async function trace(hash: Uint8Array, opts?: StructLoggerOptions): Promise<StructLoggerResult> {
  const found = await t.chain.findTransaction(hash)
  const out = await replayBlock(
    t.chain,
    found!.block,
    (_tx, i) => (i === found!.index ? new StructLogger(opts) : undefined),
    found!.index,
  )
  return out.get(found!.index) as StructLoggerResult
}

describe('StructLogger', () => {
  it('logs every opcode of a storing contract with stack and storage', async () => {
    const r = await trace(storeTx)
    expect(r.failed).toBe(false)
    expect(r.returnValue).toBe(`0x${'2a'.padStart(64, '0')}`)
    expect(r.structLogs.map((l) => l.op)).toEqual([
      'PUSH1',
      'PUSH1',
      'SSTORE',
      'PUSH1',
      'SLOAD',
      'PUSH1',
      'MSTORE',
      'PUSH1',
      'PUSH1',
      'RETURN',
    ])
    const [first, , sstore, , sload] = r.structLogs
    expect(first).toEqual({ pc: 0, op: 'PUSH1', gas: first.gas, gasCost: 3, depth: 1, stack: [] })
    expect(sstore.stack).toEqual(['0x2a', '0x0'])
    const slot0 = `0x${'0'.repeat(64)}`
    expect(sstore.storage).toEqual({ [slot0]: `0x${'2a'.padStart(64, '0')}` })
    expect(sload.storage).toEqual({ [slot0]: `0x${'2a'.padStart(64, '0')}` })
    expect(sstore.gasCost).toBe(22100)
    expect(first.gas - r.structLogs[1].gas).toBe(3)
  })

  it('leaves out stack, storage and memory when asked', async () => {
    const r = await trace(storeTx, { disableStack: true, disableStorage: true })
    expect(r.structLogs.every((l) => l.stack === undefined && l.storage === undefined && l.memory === undefined)).toBe(
      true,
    )
  })

  it('shows memory as 32-byte words when enabled', async () => {
    const r = await trace(storeTx, { enableMemory: true })
    const ret = r.structLogs[r.structLogs.length - 1]
    expect(ret.memory).toEqual([`0x${'2a'.padStart(64, '0')}`])
    expect(r.structLogs[0].memory).toBeUndefined()
  })

  it("marks an SSTORE reached with no gas left with geth's reentrancy sentry error (EIP-2200: 2,300 or less)", async () => {
    // The store contract opens with PUSH1 0x2a, PUSH1 0, SSTORE: the pushes take the last 6 gas.
    const store = await t.deploy(STORE_RUNTIME)
    const r = await trace(await t.send({ to: store, gasLimit: 21_000n + 6n }))
    expect(r.failed).toBe(true)
    const last = r.structLogs[r.structLogs.length - 1]
    expect([last.op, last.gas, last.error]).toEqual(['SSTORE', 0, 'out of gas: not enough gas for reentrancy sentry'])
  })

  it('reports a reverted call as failed', async () => {
    const r = await trace(revertTx)
    expect(r.failed).toBe(true)
    expect(r.returnValue).toBe('0x')
    expect(r.structLogs.map((l) => l.op)).toEqual(['PUSH1', 'PUSH1', 'REVERT'])
  })

  it('shows each step its own stack when items move, go and come back at the same depth', async () => {
    // PUSH1 1, PUSH1 2, SWAP1, POP, PUSH1 3, DUP1, ADD, PUSH1 2, STOP
    const shuffler = await t.deploy('60016002905060038001600200')
    const r = await trace(await t.send({ to: shuffler }))
    expect(r.structLogs.map((l) => [l.op, l.stack])).toEqual([
      ['PUSH1', []],
      ['PUSH1', ['0x1']],
      ['SWAP1', ['0x1', '0x2']],
      ['POP', ['0x2', '0x1']],
      ['PUSH1', ['0x2']],
      ['DUP1', ['0x2', '0x3']],
      ['ADD', ['0x2', '0x3', '0x3']],
      ['PUSH1', ['0x2', '0x6']],
      ['STOP', ['0x2', '0x6', '0x2']],
    ])
  })

  it('logs the implicit STOP of code that runs off its end', async () => {
    const runsOff = await t.deploy('6001600055')
    const r = await trace(await t.send({ to: runsOff }))
    const last = r.structLogs[r.structLogs.length - 1]
    expect(r.structLogs.map((l) => l.op)).toEqual(['PUSH1', 'PUSH1', 'SSTORE', 'STOP'])
    expect(last).toEqual({
      pc: 5,
      op: 'STOP',
      gas: r.structLogs[2].gas - r.structLogs[2].gasCost,
      gasCost: 0,
      depth: 1,
      stack: [],
    })
  })

  it('carries the refund counter onto that implicit STOP, as on the step that earned it', async () => {
    // SSTORE(0, 1), then SSTORE(0, 0) in a later transaction: clearing the slot earns a refund.
    const clears = await t.deploy('6000356000556000600055')
    await t.send({ to: clears, data: hexToBytes(`0x${'00'.repeat(31)}01`) })
    const r = await trace(await t.send({ to: clears, data: hexToBytes(`0x${'00'.repeat(31)}07`) }))
    const ops = r.structLogs.map((l) => l.op)
    expect(ops.slice(-2)).toEqual(['SSTORE', 'STOP'])
    const [clear, stop] = r.structLogs.slice(-2)
    expect(clear.refund).toBeGreaterThan(0)
    expect(stop.refund).toBe(clear.refund)
  })

  it("counts the gas a CALL hands to its callee in the CALL's gasCost, as geth's struct logger", async () => {
    // CALL(GAS, store, 0, mem[0..4], out mem[0..32]) to a contract not touched before: its own cost is
    // 2,600 (cold account, EIP-2929) + 3 (one word of memory). geth's cost adds the call gas: all but a
    // 64th of what the CALL leaves (EIP-150), less than the GAS asked for. No value: no stipend, so the
    // callee starts with exactly that gas.
    const store = await t.deploy(STORE_RUNTIME)
    const caller = await t.deploy(callerRuntime(store))
    const r = await trace(await t.send({ to: caller }))
    const i = r.structLogs.findIndex((l) => l.op === 'CALL')
    const call = r.structLogs[i]
    const left = call.gas - 2603
    const handed = left - Math.floor(left / 64)
    expect(r.structLogs[i + 1]).toMatchObject({ depth: 2, gas: handed })
    expect(call.gasCost).toBe(2603 + handed)
  })

  it('has no logs for a plain transfer and reports the gas used', async () => {
    const hash = await t.send({ to: '0x00000000000000000000000000000000000000aa', value: 1n })
    const r = await trace(hash)
    expect(r).toEqual({ gas: 21000, failed: false, returnValue: '0x', structLogs: [] })
  })
})
