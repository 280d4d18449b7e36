import {
  callerRuntime,
  deployCode,
  REVERT_RUNTIME,
  STORE_RUNTIME,
  type TracingChain,
  tracingChain,
} from '../../../test/tracing/tracingChain.ts'
import { bytesToHex } from '../../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import { type VmOpJson, VmTracer } from './vmTracer.ts'

/*
 * Expected values worked out by hand from the yellow paper's gas table (Prague: EIP-2929 cold/warm
 * access, EIP-2200 SSTORE, EIP-150 63/64 call gas) and the vmTrace rules in vmTracer.ts.
 */

let t: TracingChain
const hex = (n: number) => `0x${n.toString(16)}`
const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`
/** Gas at the first opcode of a plain call with no calldata and a 1,000,000 limit. */
const START_GAS = 1_000_000 - 21_000

/** The ops STORE_RUNTIME runs on a fresh contract, starting with `gas`: [pc, cost, push, extra ex]. */
function storeOps(gas: number) {
  const rows: [number, number, string[], Record<string, unknown>][] = [
    [0, 3, ['0x2a'], {}],
    [2, 3, ['0x0'], {}],
    [4, 22_100, [], { store: { key: '0x0', val: '0x2a' } }], // cold slot, 0 → non-zero
    [5, 3, ['0x0'], {}],
    [7, 100, ['0x2a'], {}], // warm SLOAD
    [8, 3, ['0x0'], {}],
    [10, 6, [], { mem: { data: word(0x2a), off: 0 } }], // MSTORE: 3 + one word of memory
    [11, 3, ['0x20'], {}],
    [13, 3, ['0x0'], {}],
    [15, 0, [], {}], // RETURN of memory already paid for
  ]
  let left = gas
  return rows.map(([pc, cost, push, extra]) => {
    left -= cost
    return { cost, ex: { mem: null, push, store: null, used: left, ...extra }, pc, sub: null }
  })
}
const STORE_GAS_USED = 3 + 3 + 22_100 + 3 + 100 + 3 + 6 + 3 + 3

beforeAll(async () => {
  t = await tracingChain()
})
afterAll(() => t.close())

async function vmTrace(to: string | undefined, opts: { gasLimit?: bigint; data?: Uint8Array } = {}) {
  const hash = await t.send({ to, ...opts })
  // Loosely typed: the expected values are plain strings, not the tracer's 0x-template types.
  return (await t.trace(hash, new VmTracer())) as any
}

describe('vmTrace', () => {
  it('lists each opcode with its cost, pushes, memory and storage writes and the gas left after it', async () => {
    const store = await t.deploy(STORE_RUNTIME)
    const trace = await vmTrace(store)
    expect(trace).toEqual({ code: `0x${STORE_RUNTIME}`, ops: storeOps(START_GAS) })
  })

  it('nests the callee under a CALL, whose cost includes the gas handed over (EIP-150: all but a 64th)', async () => {
    const store = await t.deploy(STORE_RUNTIME)
    const caller = await t.deploy(callerRuntime(store))
    const trace = await vmTrace(caller)
    expect(trace.code).toBe(`0x${callerRuntime(store)}`)
    const ops = trace.ops
    expect(ops.map((o: VmOpJson) => o.pc)).toEqual([0, 2, 4, 6, 8, 10, 31, 32, 33, 34, 36, 38, 40, 41])
    const gasOp = ops[6]
    const beforeCall = gasOp.ex!.used
    expect(gasOp.ex!.push).toEqual([hex(beforeCall)])
    // CALL: 2,600 cold account + 3 for one word of memory; the rest, less a 64th, goes to the callee.
    const base = 2_603
    const given = beforeCall - base - Math.floor((beforeCall - base) / 64)
    const call = ops[7]
    expect(call.cost).toBe(base + given)
    expect(call.ex).toEqual({
      mem: { data: word(0x2a), off: 0 },
      push: ['0x1'],
      store: null,
      used: beforeCall - base - STORE_GAS_USED,
    })
    expect(call.sub).toEqual({ code: `0x${STORE_RUNTIME}`, ops: storeOps(given) })
    // The frame ends on its own STOP (pc 41).
    expect(ops[13]).toMatchObject({ cost: 0, pc: 41, sub: null })
  })

  it("keeps a reverted callee's ops under the CALL, which pushes 0 and writes no memory", async () => {
    const reverter = await t.deploy(REVERT_RUNTIME)
    const ops = (await vmTrace(await t.deploy(callerRuntime(reverter)))).ops
    const beforeCall = ops[6].ex.used
    const given = beforeCall - 2_603 - Math.floor((beforeCall - 2_603) / 64)
    expect(ops[7]).toEqual({
      cost: 2_603 + given,
      ex: { mem: null, push: ['0x0'], store: null, used: beforeCall - 2_603 - 6 },
      pc: 32,
      sub: {
        code: `0x${REVERT_RUNTIME}`,
        ops: [
          { cost: 3, ex: { mem: null, push: ['0x0'], store: null, used: given - 3 }, pc: 0, sub: null },
          { cost: 3, ex: { mem: null, push: ['0x0'], store: null, used: given - 6 }, pc: 2, sub: null },
          { cost: 0, ex: { mem: null, push: [], store: null, used: given - 6 }, pc: 4, sub: null },
        ],
      },
    })
  })

  it('gives a precompile call its own cost on top of the opcode and no sub trace', async () => {
    // PUSH1 32, PUSH1 0, PUSH1 32, PUSH1 0, PUSH1 4, GAS, STATICCALL, STOP: identity over one word.
    const caller = await t.deploy('60206000602060006004' + '5afa00')
    const ops = (await vmTrace(caller)).ops
    const beforeCall = ops[5].ex!.used
    // STATICCALL: 100 (precompiles are warm) + 3 memory; identity: 15 + 3 per word.
    expect(ops[6]).toEqual({
      cost: 103 + 18,
      ex: { mem: { data: word(0), off: 0 }, push: ['0x1'], store: null, used: beforeCall - 103 - 18 },
      pc: 11,
      sub: null,
    })
  })

  it('lists an opcode that ran out of gas without ex, and drops one that failed otherwise', async () => {
    const looper = await t.deploy('5b600056') // JUMPDEST, PUSH1 0, JUMP: runs until out of gas
    const ops = (await vmTrace(looper, { gasLimit: 21_100n })).ops
    const last = ops[ops.length - 1]
    expect(last.ex).toBeNull()
    expect(ops.slice(0, -1).every((o: VmOpJson) => o.ex !== null)).toBe(true)
    // 100 gas: JUMPDEST 1, PUSH1 3, JUMP 8 per round of 12; the 9th round has 4 left, its JUMP fails.
    expect(ops).toHaveLength(8 * 3 + 3)
    expect(last).toMatchObject({ pc: 3, cost: 8 })
    const bad = await t.deploy('6001600201fe') // PUSH1 1, PUSH1 2, ADD, INVALID
    const badOps = (await vmTrace(bad)).ops
    expect(badOps.map((o: VmOpJson) => o.pc)).toEqual([0, 2, 4])
    expect(badOps[2].ex!.push).toEqual(['0x3'])
  })

  it('is empty for a transfer to an account without code, and a bare STOP has no ops', async () => {
    expect(await vmTrace('0x000000000000000000000000000000000000dead')).toEqual({ code: '0x', ops: [] })
    const stopper = await t.deploy('00')
    expect(await vmTrace(stopper)).toEqual({ code: '0x00', ops: [] })
  })

  it('starts a contract creation from its init code, CODECOPY writing the runtime to memory', async () => {
    const init = deployCode(STORE_RUNTIME)
    const trace = await vmTrace(undefined, { data: init })
    expect(trace.code).toBe(bytesToHex(init))
    // 53,000 intrinsic + 16 per non-zero and 4 per zero byte of init code + 2 per init code word (EIP-3860).
    const zeros = init.filter((b) => b === 0).length
    let gas = 1_000_000 - 53_000 - 16 * (init.length - zeros) - 4 * zeros - 2 * Math.ceil(init.length / 32)
    const runtime = `0x${STORE_RUNTIME}`
    const rows: [number, number, string[], Record<string, unknown>][] = [
      [0, 3, ['0x10'], {}],
      [2, 3, ['0xc'], {}],
      [4, 3, ['0x0'], {}],
      [6, 9, [], { mem: { data: runtime, off: 0 } }], // CODECOPY: 3 + 3 per word + one word of memory
      [7, 3, ['0x10'], {}],
      [9, 3, ['0x0'], {}],
      [11, 0, [], {}],
    ]
    expect(trace.ops).toEqual(
      rows.map(([pc, cost, push, extra]) => {
        gas -= cost
        return { cost, ex: { mem: null, push, store: null, used: gas, ...extra }, pc, sub: null }
      }),
    )
  })

  it('shows DUP and SWAP as pushing every item they touched, deepest first', async () => {
    // PUSH1 1, PUSH1 2, DUP2, SWAP1, STOP
    const ops = (await vmTrace(await t.deploy('600160028190' + '00'))).ops
    expect(ops[2].ex!.push).toEqual(['0x1', '0x2', '0x1'])
    expect(ops[3].ex!.push).toEqual(['0x1', '0x2'])
  })
})
