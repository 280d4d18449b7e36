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
import { createReplayTracer, type ReplayShape, type TraceType } from './replayTracer.ts'
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

/** What the replay tracer makes of a transaction, as loosely typed as vmTrace's result. */
// biome-ignore lint/suspicious/noExplicitAny: JSON result
async function replay(hash: Uint8Array, types: TraceType[], shape?: ReplayShape): Promise<any> {
  return t.trace(hash, createReplayTracer(types, shape))
}

async function vmTrace(to: string | undefined, opts: { gasLimit?: bigint; data?: Uint8Array; value?: bigint } = {}) {
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

  it('gives a precompile call its own cost on top of the opcode and an empty sub trace', async () => {
    // PUSH1 32, PUSH1 0, PUSH1 32, PUSH1 0, PUSH1 4, GAS, STATICCALL, STOP: identity over one word.
    const caller = await t.deploy('60206000602060006004' + '5afa00')
    const ops = (await vmTrace(caller)).ops
    const beforeCall = ops[5].ex!.used
    // STATICCALL: 100 (precompiles are warm) + 3 memory; identity: 15 + 3 per word.
    expect(ops[6]).toEqual({
      cost: 103 + 18,
      ex: { mem: { data: word(0), off: 0 }, push: ['0x1'], store: null, used: beforeCall - 103 - 18 },
      pc: 11,
      sub: { code: '0x', ops: [] },
    })
  })

  it('lists an opcode that ran out of gas with ex at the top level, without it in a call, and drops one that failed otherwise', async () => {
    const looper = await t.deploy('5b600056') // JUMPDEST, PUSH1 0, JUMP: runs until out of gas
    const ops = (await vmTrace(looper, { gasLimit: 21_100n })).ops
    const last = ops[ops.length - 1]
    expect(ops.slice(0, -1).every((o: VmOpJson) => o.ex !== null)).toBe(true)
    // 100 gas: JUMPDEST 1, PUSH1 3, JUMP 8 per round of 12; the 9th round has 4 left, its JUMP fails
    // with none. Besu keeps a top-level opcode's report: the gas left (0) minus its cost (8).
    expect(ops).toHaveLength(8 * 3 + 3)
    expect(last).toEqual({ cost: 8, ex: { mem: null, push: [], store: null, used: -8 }, pc: 3, sub: null })
    // The same loop under a CALL: the failing JUMP has no report.
    const sub = (await vmTrace(await t.deploy(callerRuntime(looper)))).ops[7].sub.ops
    expect(sub[sub.length - 1]).toMatchObject({ cost: 8, ex: null, pc: 3 })
    // SSTORE under a STATICCALL fails; Besu leaves the failed opcode out of the callee's ops.
    const writer = await t.deploy('6001600055') // PUSH1 1, PUSH1 0, SSTORE
    const staticOps = (
      await vmTrace(await t.deploy(`6000600060006000 73${writer.slice(2)} 5afa00`.replaceAll(' ', '')))
    ).ops
    expect(staticOps[6].sub.ops.map((o: VmOpJson) => o.pc)).toEqual([0, 2])
    expect(staticOps[6].ex.push).toEqual(['0x0'])
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

  // Besu's own fixtures (trace_replayBlockTransactions 0x11 and 0x12) run these two codes; the gas
  // figures here are this chain's, worked out by hand.
  it('lists no STOP for code that runs off its end, and SWAPn pushes the n+1 items deepest first', async () => {
    const code = '6001600260039190' // PUSH1 1, PUSH1 2, PUSH1 3, SWAP2, SWAP1, end of code
    const trace = await vmTrace(await t.deploy(code))
    const pushes = [['0x1'], ['0x2'], ['0x3'], ['0x3', '0x2', '0x1'], ['0x1', '0x2']]
    expect(trace).toEqual({
      code: `0x${code}`,
      ops: [0, 2, 4, 6, 7].map((pc, i) => ({
        cost: 3,
        ex: { mem: null, push: pushes[i], store: null, used: START_GAS - 3 * (i + 1) },
        pc,
        sub: null,
      })),
    })
  })

  const X = '3940be4289e4c3587d88c1856cc95352461992db0a584c281226faefe560b301'
  const Y = '14c4d2c102bdeb2354bfc3dc96a95e4512cf3a8461e0560e2272dbf884ef3905'
  /** MSTORE X at 0, MSTORE Y at 16, then `tail`. */
  const twoStores = (tail: string) => `7f${X}6000527f${Y}601052${tail}`
  /** The ops of twoStores up to its tail: [pc, cost, push, mem]. */
  const storeRows: [number, number, string[], unknown][] = [
    [0, 3, [`0x${X}`], null],
    [33, 3, ['0x0'], null],
    [35, 6, [], { data: `0x${X}`, off: 0 }], // 3 + one word of memory
    [36, 3, [`0x${Y}`], null],
    [69, 3, ['0x10'], null],
    [71, 6, [], { data: `0x${Y}`, off: 16 }], // 3 + a second word
  ]
  const rowsToOps = (rows: [number, number, string[], unknown][]) => {
    let left = START_GAS
    return rows.map(([pc, cost, push, mem]) => {
      left -= cost
      return { cost, ex: { mem, push, store: null, used: left }, pc, sub: null }
    })
  }

  it('shows the word MLOAD read as its memory entry', async () => {
    const trace = await vmTrace(await t.deploy(twoStores('600851'))) // PUSH1 8, MLOAD
    const read = `0x${X.slice(16, 32)}${Y.slice(0, 48)}` // bytes 8..39: X's last 24 bytes cut at 16, then Y
    expect(trace.ops).toEqual(
      rowsToOps([...storeRows, [72, 3, ['0x8'], null], [74, 3, [read], { data: read, off: 8 }]]),
    )
  })

  it('gives a reverted transaction no output and its revert bytes as revertReason', async () => {
    const reverter = await t.deploy(twoStores('60086008fd')) // REVERT 8 bytes at 8
    const r = await replay(await t.send({ to: reverter }), ['vmTrace'])
    expect(r.output).toBe('0x')
    expect(r.revertReason).toBe(`0x${X.slice(16, 32)}`)
    expect(r.vmTrace.ops).toEqual(
      rowsToOps([...storeRows, [72, 3, ['0x8'], null], [74, 3, ['0x8'], null], [76, 0, [], null]]),
    )
    const ok = await replay(await t.send({ to: await t.deploy(STORE_RUNTIME) }), [])
    expect(ok.output).toBe(word(0x2a))
    expect('revertReason' in ok).toBe(false)
  })

  it('puts revertReason on the top flat trace of a replay, and keeps it out of the trace_call shape', async () => {
    const reverter = await t.deploy(twoStores('60086008fd'))
    const hash = await t.send({ to: reverter })
    const reason = `0x${X.slice(16, 32)}`
    const replayed = await replay(hash, ['trace'])
    expect(replayed.trace[0]).toMatchObject({ error: 'Reverted', revertReason: reason, traceAddress: [] })
    const call = await replay(hash, ['trace'], 'call')
    expect(call.output).toBe(reason)
    expect('revertReason' in call).toBe(false)
    expect('revertReason' in call.trace[0]).toBe(false)
    // A creation: creationMethod in a replay's action, not in trace_call's.
    const created = await t.send({ data: deployCode(STORE_RUNTIME) })
    expect((await replay(created, ['trace'])).trace[0].action.creationMethod).toBe('create')
    const asCall = await replay(created, ['trace'], 'call')
    expect('creationMethod' in asCall.trace[0].action).toBe(false)
  })

  it("counts a value call's stipend in the gas handed to code", async () => {
    const store = await t.deploy(STORE_RUNTIME)
    // CALL store with 1 wei, out 32 bytes at 0, in 4 bytes at 0; then STOP
    const caller = await t.deploy(`6020600060046000600173${store.slice(2)}5af100`)
    const ops = (await vmTrace(caller, { value: 1n })).ops
    const beforeCall = ops[6].ex!.used
    const base = 2_600 + 9_000 + 3 // cold account, value transfer, one word of memory
    const given = beforeCall - base - Math.floor((beforeCall - base) / 64) + 2_300
    expect(ops[7].cost).toBe(base + given)
    expect(ops[7].ex!.used).toBe(beforeCall - base + 2_300 - STORE_GAS_USED)
    expect(ops[7].sub).toEqual({ code: `0x${STORE_RUNTIME}`, ops: storeOps(given) })
  })

  it('adds the gas handed over for a CALL into an account without code, not for a DELEGATECALL', async () => {
    const dead = '000000000000000000000000000000000000dead'
    // CALL 0xdead with no value and no data, then STOP
    const ops = (await vmTrace(await t.deploy(`6000600060006000600073${dead}5af100`))).ops as VmOpJson[]
    const beforeCall = ops[6].ex!.used
    const given = beforeCall - 2_600 - Math.floor((beforeCall - 2_600) / 64)
    expect(ops[7]).toEqual({
      cost: 2_600 + given,
      ex: { mem: null, push: ['0x1'], store: null, used: beforeCall - 2_600 },
      pc: 32,
      sub: { code: '0x', ops: [] },
    })
    // DELEGATECALL 0xdead with no data, then STOP
    const dOps = (await vmTrace(await t.deploy(`600060006000600073${dead}5af400`))).ops as VmOpJson[]
    expect(dOps[6]).toMatchObject({ cost: 2_600, pc: 30, sub: { code: '0x', ops: [] } })
  })

  it("shows a top-level call that never entered with the caller's code as an empty sub trace", async () => {
    // CALL 0xdead with 1 wei the contract does not have, then STOP
    const code = `6000600060006000600173${'0'.repeat(36)}dead5af100`
    const ops = (await vmTrace(await t.deploy(code))).ops as VmOpJson[]
    expect(ops[7]).toMatchObject({ ex: { push: ['0x0'] }, pc: 32, sub: { code: `0x${code}`, ops: [] } })
    // Besu: the gas the opcode took in the end: cold account, value, new account, less the stipend
    // (the allotted gas, stipend included, came back)
    expect(ops[7].cost).toBe(ops[6].ex!.used - ops[7].ex!.used)
    expect(ops[7].cost).toBe(2_600 + 9_000 + 25_000 - 2_300)
    expect(ops).toHaveLength(9)
  })

  it('reads the stack the failure left for a top-level opcode out of gas: SLOAD took its key, ADD nothing', async () => {
    // PUSH1 7, PUSH1 0, SLOAD: 100 gas after the pushes, the cold SLOAD (2,100) fails with its key popped.
    const loader = await t.deploy('6007600054')
    const sload = (await vmTrace(loader, { gasLimit: 21_106n })).ops[2]
    expect(sload).toEqual({
      cost: 2_100,
      ex: { mem: null, push: ['0x7'], store: null, used: -2_000 },
      pc: 4,
      sub: null,
    })
    // PUSH1 7, PUSH1 5, ADD: 2 gas after the pushes, ADD (3) fails before touching the stack.
    const adder = await t.deploy('6007600501')
    const add = (await vmTrace(adder, { gasLimit: 21_008n })).ops[2]
    expect(add).toEqual({ cost: 3, ex: { mem: null, push: ['0x5'], store: null, used: -1 }, pc: 4, sub: null })
  })

  it("gives a CALL that wrote no memory the output of its frame's next RETURN at offset 0; a STATICCALL none", async () => {
    const WORD = 'cd'.repeat(32)
    // CALL(GAS, 0xdead, 0, no input, no output), POP; PUSH32 word, PUSH1 0, MSTORE; RETURN(0, 32).
    const tail = `7f${WORD}600052` + '60206000f3'
    const caller = await t.deploy(`600060006000600060006${'1dead'}5af150${tail}`)
    const ops = (await vmTrace(caller)).ops
    expect(ops[7].ex.mem).toEqual({ data: `0x${WORD}`, off: 0 })
    // STATICCALL(GAS, 0xdead, no input, no output): Besu looks up the RETURN for CALL and DELEGATECALL only.
    const staticCaller = await t.deploy(`60006000600060006${'1dead'}5afa50${tail}`)
    expect((await vmTrace(staticCaller)).ops[6].ex.mem).toBeNull()
  })

  it('costs a failing precompile call the gas the precompile asked for, not all it was given', async () => {
    // MSTORE 1 at 0 and at 32: the point (1, 1), not on the curve; STATICCALL(GAS, 0x06 ecAdd, 0..128, no output).
    const bad = await t.deploy('60016000526001602052' + '600060006080600060065afa00')
    const ops = (await vmTrace(bad)).ops
    // STATICCALL: 100 (precompiles are warm) + 6 (memory from 2 to 4 words); ecAdd asks 150.
    expect(ops[12]).toMatchObject({ cost: 106 + 150, pc: 21, sub: { code: '0x', ops: [] } })
    expect(ops[12].ex.push).toEqual(['0x0'])
    // STATICCALL(10 gas, 0x04 identity, 0..32, 0..32): identity asks 15 + 3 for one word, 10 is too little.
    const starved = await t.deploy('60206000602060006004600afa00')
    const starvedOps = (await vmTrace(starved)).ops
    expect(starvedOps[6]).toMatchObject({ cost: 103 + 18, pc: 12 })
    expect(starvedOps[6].ex.push).toEqual(['0x0'])
  })

  describe("a CALL-family opcode that cannot pay its own cost (Besu: gas cost recorded with the frame's gas added)", () => {
    const dead = '000000000000000000000000000000000000dead'
    /** CALL(0x1234 gas, 0xdead, `value`, no input, no output), STOP: five PUSH1s, a PUSH20 and a PUSH2, 21 gas. */
    const unpaid = (value: number) => `6000600060006000600${value}73${dead}611234f100`

    it('at the top level costs the gas left before it, uses minus its own cost and shows the caller as sub', async () => {
      // 100 gas left at the CALL, which costs 2,600 for the cold account.
      const code = unpaid(0)
      const ops = (await vmTrace(await t.deploy(code), { gasLimit: 21_000n + 21n + 100n })).ops as VmOpJson[]
      expect(ops).toHaveLength(8)
      expect(ops[7]).toEqual({
        cost: 100,
        ex: { mem: null, push: ['0x1234'], store: null, used: -2_600 },
        pc: 34,
        sub: { code: `0x${code}`, ops: [] },
      })
    })

    it('counts memory expansion and a warm target (a precompile) in its own cost', async () => {
      // STATICCALL(0x77 gas, 0x04, no input, 32 bytes out at 0): 100 warm + 3 for one word; 50 gas left.
      const ops = (await vmTrace(await t.deploy('602060006000600060046077fa00'), { gasLimit: 21_000n + 18n + 50n }))
        .ops as VmOpJson[]
      expect(ops[6]).toEqual({
        cost: 50,
        ex: { mem: null, push: ['0x77'], store: null, used: -103 },
        pc: 12,
        sub: { code: '0x602060006000600060046077fa00', ops: [] },
      })
    })

    it('inside a call adds the gas left to its own cost, with no ex and no sub', async () => {
      const free = await t.deploy(unpaid(0))
      const valued = await t.deploy(unpaid(1))
      // The outer contract calls each with 0x79 gas: 100 left at the inner CALL after its 21 gas of pushes.
      const outer = (target: string) => `6000600060006000600073${target.slice(2)}6079f100`
      const inner = async (target: string) =>
        ((await vmTrace(await t.deploy(outer(target)))).ops as VmOpJson[])[7].sub!.ops[7]
      expect(await inner(free)).toEqual({ cost: 2_600 + 100, ex: null, pc: 34, sub: null })
      // With 1 wei into 0xdead, an empty account: cold access, value and new account.
      expect(await inner(valued)).toEqual({ cost: 2_600 + 9_000 + 25_000 + 100, ex: null, pc: 34, sub: null })
    })
  })
})
