/**
 * callTracer against geth's rules, on hand-assembled contracts (assembly beside each). Expected
 * values come from the rules, not from this tracer: `from` is the account whose code made the call
 * (inside a DELEGATECALL, the delegating contract), `to` the account whose code runs, DELEGATECALL
 * carries its frame's value and STATICCALL none, SELFDESTRUCT is a frame of its own, failed frames
 * use all their gas and geth's error texts, keys come in geth's order.
 */

import { generateAddress2 } from '@ethereumjs/util'
import {
  callerRuntime,
  deployCode,
  REVERT_RUNTIME,
  STORE_RUNTIME,
  type TracingChain,
  tracingChain,
} from '../../../test/tracing/tracingChain.ts'
import { computeContractAddress } from '../../chain/addresses.ts'
import { bytesToHex, hexToBytes } from '../../primitives/hex.ts'
import { afterAll, beforeAll, describe, expect, it } from '../../runtime/testing.ts'
import { CallTracer, formatCallFrame } from './callTracer.ts'
import { createTracer } from './createTracer.ts'
import { flattenCallFrames } from './parityTrace.ts'

const RETURNED_2A = `0x${'2a'.padStart(64, '0')}`
const at = (a: string) => a.slice(2)

/** DELEGATECALL, CALLCODE, STATICCALL of `target`, no arguments, each result popped:
 * PUSH1 0 ×4, PUSH20 target, GAS, DELEGATECALL, POP; PUSH1 0 ×5, PUSH20 target, GAS, CALLCODE, POP;
 * PUSH1 0 ×4, PUSH20 target, GAS, STATICCALL, POP; STOP */
const mixedRuntime = (target: string) =>
  `600060006000600073${at(target)}5af450` +
  `6000600060006000600073${at(target)}5af250` +
  `600060006000600073${at(target)}5afa50` +
  '00'
/** DELEGATECALL of `target` with no arguments, then STOP. */
const proxyRuntime = (target: string) => `600060006000600073${at(target)}5af45000`
/** SELFDESTRUCT to `beneficiary`: PUSH20 beneficiary, SELFDESTRUCT. */
const selfdestructRuntime = (beneficiary: string) => `73${at(beneficiary)}ff`
/** PUSH32 word, PUSH1 0, MSTORE; CALL(GAS, 0x04 identity, 0, 0, 32, 0, 32), POP, STOP. */
const WORD = 'ab'.repeat(32)
const IDENTITY_RUNTIME = `7f${WORD}600052602060006020600060006004${'5a'}f15000`
/** CALL(GAS, 0xdead, value 1, no data), POP, STOP. */
const PAY_EMPTY_RUNTIME = '6000600060006000600161dead5af15000'
/** CREATE(0, mem[4..32]) then CREATE2(0, mem[4..32], salt 1) of the store contract's init code. */
const INIT = bytesToHex(deployCode(STORE_RUNTIME)).slice(2)
const FACTORY_RUNTIME = `7f${INIT.padStart(64, '0')}600052601c60046000f050` + `6001601c60046000f55000`

let t: TracingChain
let store: string

beforeAll(async () => {
  t = await tracingChain()
  store = await t.deploy(STORE_RUNTIME)
})
afterAll(() => t.close())

async function callTrace(to: string, opts: { value?: bigint; gasLimit?: bigint } = {}, tracer = new CallTracer()) {
  const hash = await t.send({ to, ...opts })
  return formatCallFrame(await t.trace(hash, tracer)) as any
}

describe('callTracer: DELEGATECALL, CALLCODE, STATICCALL', () => {
  it('names the code address as `to` and the calling contract as `from`', async () => {
    const mixed = await t.deploy(mixedRuntime(store))
    const top = await callTrace(mixed, { value: 3n })
    expect(top.calls.map((c: any) => [c.type, c.from, c.to, c.value])).toEqual([
      ['DELEGATECALL', mixed, store, '0x3'],
      ['CALLCODE', mixed, store, '0x0'],
      ['STATICCALL', mixed, store, undefined],
    ])
    expect(top.calls[0].output).toBe(RETURNED_2A)
    expect(top.calls[1].output).toBe(RETURNED_2A)
    // SSTORE inside a static frame: geth's write protection, all the frame's gas used, no output.
    expect(top.calls[2].error).toBe('write protection')
    expect(top.calls[2].gasUsed).toBe(top.calls[2].gas)
    expect(top.calls[2].output).toBeUndefined()
  })

  it('nests the calls made inside a DELEGATECALL under it, from the delegating contract', async () => {
    const logic = await t.deploy(callerRuntime(store))
    const proxy = await t.deploy(proxyRuntime(logic))
    const top = await callTrace(proxy)
    expect(top.calls).toHaveLength(1)
    expect(top.calls[0]).toMatchObject({ type: 'DELEGATECALL', from: proxy, to: logic })
    expect(top.calls[0].calls).toHaveLength(1)
    expect(top.calls[0].calls[0]).toMatchObject({ type: 'CALL', from: proxy, to: store, input: '0x00000000' })
  })
})

describe('callTracer: a call whose output overwrites its input in memory', () => {
  /** Returns its first word plus one: PUSH1 0, CALLDATALOAD, PUSH1 1, ADD, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN. */
  const INCREMENT_RUNTIME = '60003560010160005260206000f3'
  /** PUSH32 word, PUSH1 0, MSTORE; `op`(GAS, target, value 0, in mem[0..32], out mem[0..32]), POP, STOP. */
  const overwritingRuntime = (op: 'f1' | 'f2', target: string, word: string) =>
    `7f${word}6000526020600060206000600073${at(target)}5a${op}5000`

  it('records the input as it was when the call began, for CALL and CALLCODE', async () => {
    const incrementer = await t.deploy(INCREMENT_RUNTIME)
    const word = '11'.repeat(32)
    for (const [op, type] of [
      ['f1', 'CALL'],
      ['f2', 'CALLCODE'],
    ] as const) {
      const proxy = await t.deploy(overwritingRuntime(op, incrementer, word))
      const top = await callTrace(proxy)
      expect(top.calls.map((c: any) => [c.type, c.input, c.output])).toEqual([
        [type, `0x${word}`, `0x${'11'.repeat(31)}12`],
      ])
      // The flat (parity) view shares the frame: its action input is the same.
      const flat = flattenCallFrames(await t.trace(await t.send({ to: proxy }), new CallTracer())) as any[]
      expect(flat[1].action.input).toBe(`0x${word}`)
    }
  })
})

describe('callTracer: SELFDESTRUCT, creates, precompiles and plain value', () => {
  it('records SELFDESTRUCT as a frame with the balance sent to the beneficiary', async () => {
    const beneficiary = '0x000000000000000000000000000000000000be11'
    const doomed = await t.deploy(selfdestructRuntime(beneficiary))
    const top = await callTrace(doomed, { value: 5n })
    expect(top.calls).toEqual([
      { from: doomed, gas: '0x0', gasUsed: '0x0', to: beneficiary, input: '0x', value: '0x5', type: 'SELFDESTRUCT' },
    ])
  })

  it('leaves out a SELFDESTRUCT that runs out of gas paying for itself', async () => {
    const beneficiary = '0x000000000000000000000000000000000000be12'
    const doomed = await t.deploy(selfdestructRuntime(beneficiary))
    // PUSH20 (3) and SELFDESTRUCT (5,000 + 2,600 cold beneficiary + 25,000 new account with value): one short.
    const top = await callTrace(doomed, { value: 5n, gasLimit: 21_000n + 3n + 32_599n })
    expect(top.error).toBe('out of gas')
    expect(top.calls).toBeUndefined()
  })

  it('shows a precompile call with its input, output and gas (identity: 15 + 3 per word)', async () => {
    const caller = await t.deploy(IDENTITY_RUNTIME)
    const top = await callTrace(caller)
    expect(top.calls).toHaveLength(1)
    expect(top.calls[0]).toMatchObject({
      type: 'CALL',
      from: caller,
      to: '0x0000000000000000000000000000000000000004',
      input: `0x${WORD}`,
      output: `0x${WORD}`,
      gasUsed: '0x12',
      value: '0x0',
    })
  })

  it('shows value sent to an account without code as a call that used no gas', async () => {
    const payer = await t.deploy(PAY_EMPTY_RUNTIME)
    const top = await callTrace(payer, { value: 10n })
    expect(top.calls[0]).toMatchObject({
      type: 'CALL',
      from: payer,
      to: '0x000000000000000000000000000000000000dead',
      input: '0x',
      gasUsed: '0x0',
      value: '0x1',
    })
    expect(top.calls[0].output).toBeUndefined()
  })

  it('shows a call with more value than the caller holds as a frame that failed before entering', async () => {
    // CALL(GAS, 0xdeaf (empty), value 1, no data): the contract holds nothing, so the CALL fails fast.
    const payer = await t.deploy('6000600060006000600161deaf5af15000')
    const top = await callTrace(payer)
    // 1,000,000 - 21,000 intrinsic = 979,000; five PUSH1, PUSH2 and GAS leave 978,980 asked for. CALL
    // costs 2,600 (cold) + 9,000 (value) + 25,000 (new account): 942,380 left, of which all but a
    // 64th (927,656) would go to the callee, plus the 2,300 stipend: 929,956 = 0xe30a4.
    expect(top.calls).toEqual([
      {
        from: payer,
        gas: '0xe30a4',
        gasUsed: '0x0',
        to: '0x000000000000000000000000000000000000deaf',
        input: '0x',
        error: 'insufficient balance for transfer',
        value: '0x1',
        type: 'CALL',
      },
    ])
    expect(top.error).toBeUndefined()
  })

  it('names created contracts as `to`, with their init code as input and runtime as output', async () => {
    const factory = await t.deploy(FACTORY_RUNTIME)
    const top = await callTrace(factory)
    const init = hexToBytes(`0x${INIT}`)
    const created = bytesToHex(computeContractAddress(hexToBytes(factory), 1n))
    const created2 = bytesToHex(generateAddress2(hexToBytes(factory), hexToBytes(`0x${'01'.padStart(64, '0')}`), init))
    expect(top.calls.map((c: any) => [c.type, c.from, c.to, c.input, c.output, c.value])).toEqual([
      ['CREATE', factory, created, `0x${INIT}`, `0x${STORE_RUNTIME}`, '0x0'],
      ['CREATE2', factory, created2, `0x${INIT}`, `0x${STORE_RUNTIME}`, '0x0'],
    ])
  })
})

describe('callTracer: failures at depth and geth error texts', () => {
  it('marks a reverted child and keeps the parent and its log', async () => {
    const reverter = await t.deploy(REVERT_RUNTIME)
    const caller = await t.deploy(callerRuntime(reverter))
    const top = await callTrace(caller, {}, new CallTracer({ withLog: true }))
    expect(top.error).toBeUndefined()
    expect(top.calls[0]).toMatchObject({ type: 'CALL', from: caller, to: reverter, error: 'execution reverted' })
    expect(top.calls[0].output).toBeUndefined()
    expect(top.logs).toHaveLength(1)
    expect(Object.keys(top)).toEqual(['from', 'gas', 'gasUsed', 'to', 'input', 'calls', 'logs', 'value', 'type'])
  })

  it('reports a child out of gas and keeps its frame', async () => {
    const looper = await t.deploy('5b600056') // JUMPDEST, PUSH1 0, JUMP: loops until out of gas
    const caller = await t.deploy(callerRuntime(looper))
    const top = await callTrace(caller)
    expect(top.calls[0]).toMatchObject({ to: looper, error: 'out of gas' })
    expect(top.calls[0].gasUsed).toBe(top.calls[0].gas)
  })

  it.each([
    ['600456', 'invalid jump destination'], // PUSH1 4, JUMP past the code
    ['fe', 'invalid opcode: INVALID'],
    ['0c', 'invalid opcode: opcode 0xc not defined'],
    ['01', 'stack underflow (0 <=> 2)'], // ADD on an empty stack
    ['600101', 'stack underflow (1 <=> 2)'], // PUSH1 1, ADD
  ])('halts code %s with "%s"', async (runtime, text) => {
    const bad = await t.deploy(runtime)
    const top = await callTrace(bad, { gasLimit: 60_000n })
    expect(top.error).toBe(text)
    expect(top.gasUsed).toBe('0xea60')
  })

  it.each([
    ['fe', 'Bad instruction'],
    ['01', 'Stack underflow'],
    ['600456', 'Bad jump destination'],
  ])('gives parity traces of code %s the parity word "%s"', async (runtime, word) => {
    const bad = await t.deploy(runtime)
    const hash = await t.send({ to: bad, gasLimit: 60_000n })
    const [top] = flattenCallFrames(await t.trace(hash, new CallTracer())) as any[]
    expect(top.error).toBe(word)
  })
})

describe('flatCallTracer options, as geth', () => {
  it('leaves out calls into precompiles unless includePrecompiles', async () => {
    const caller = await t.deploy(IDENTITY_RUNTIME)
    const hash = await t.send({ to: caller })
    const plain = (await t.trace(hash, createTracer({ tracer: 'flatCallTracer' }))) as any[]
    expect(plain.map((e) => [e.traceAddress, e.subtraces])).toEqual([[[], 0]])
    const all = (await t.trace(
      hash,
      createTracer({ tracer: 'flatCallTracer', tracerConfig: { includePrecompiles: true } }),
    )) as any[]
    expect(all.map((e) => [e.traceAddress, e.subtraces, e.action.to])).toEqual([
      [[], 1, caller],
      [[0], 0, '0x0000000000000000000000000000000000000004'],
    ])
  })

  it("keeps geth's error texts unless convertParityErrors", async () => {
    const reverter = await t.deploy(REVERT_RUNTIME)
    const caller = await t.deploy(callerRuntime(reverter))
    const hash = await t.send({ to: caller })
    const plain = (await t.trace(hash, createTracer({ tracer: 'flatCallTracer' }))) as any[]
    expect(plain[1].error).toBe('execution reverted')
    const parity = (await t.trace(
      hash,
      createTracer({ tracer: 'flatCallTracer', tracerConfig: { convertParityErrors: true } }),
    )) as any[]
    expect(parity[1].error).toBe('Reverted')
  })

  it("gives the top entry the transaction's gas limit and gas used, and keeps a reverted entry's result", async () => {
    const reverter = await t.deploy(REVERT_RUNTIME)
    const hash = await t.send({ to: reverter, gasLimit: 100_000n })
    const [top] = (await t.trace(hash, createTracer({ tracer: 'flatCallTracer' }))) as any[]
    // 21,000 intrinsic + PUSH1, PUSH1 (3 each) + REVERT of nothing (0) = 21,006.
    expect(top.action.gas).toBe('0x186a0')
    expect(top.error).toBe('execution reverted')
    expect(top.result).toEqual({ gasUsed: '0x520e', output: '0x' })
    expect(Object.keys(top)).toEqual([
      'action',
      'blockHash',
      'blockNumber',
      'error',
      'result',
      'subtraces',
      'traceAddress',
      'transactionHash',
      'transactionPosition',
      'type',
    ])
  })

  it('drops the result of an entry that failed otherwise and of a suicide; creates name their opcode', async () => {
    const looper = await t.deploy('5b600056') // JUMPDEST, PUSH1 0, JUMP: out of gas
    const caller = await t.deploy(callerRuntime(looper))
    const failed = (await t.trace(await t.send({ to: caller }), createTracer({ tracer: 'flatCallTracer' }))) as any[]
    expect(failed[1].error).toBe('out of gas')
    expect(failed[1].result).toBeUndefined()
    const doomed = await t.deploy(selfdestructRuntime('0x000000000000000000000000000000000000be13'))
    const gone = (await t.trace(await t.send({ to: doomed }), createTracer({ tracer: 'flatCallTracer' }))) as any[]
    expect(gone[1].type).toBe('suicide')
    expect('result' in gone[1]).toBe(false)
    const factory = await t.deploy(FACTORY_RUNTIME)
    const made = (await t.trace(await t.send({ to: factory }), createTracer({ tracer: 'flatCallTracer' }))) as any[]
    expect(made.slice(1).map((e) => [e.type, e.action.creationMethod])).toEqual([
      ['create', 'create'],
      ['create', 'create2'],
    ])
  })

  it("uses geth's parity words with convertParityErrors: write protection stays as it is", async () => {
    const mixed = await t.deploy(mixedRuntime(store))
    const hash = await t.send({ to: mixed })
    const parity = (await t.trace(
      hash,
      createTracer({ tracer: 'flatCallTracer', tracerConfig: { convertParityErrors: true } }),
    )) as any[]
    expect(parity[3].action.callType).toBe('staticcall')
    expect(parity[3].error).toBe('write protection')
  })
})

describe('callTracer error texts geth words apart from the EVM library', () => {
  // PUSH1 1, PUSH1 0, SSTORE, STOP: 6 gas before the SSTORE, which writes a fresh slot (22,100).
  const WRITE_RUNTIME = '600160005500'

  it("names EIP-2200's SSTORE sentry when no more than 2,300 gas is left, and says only out of gas above it", async () => {
    const writer = await t.deploy(WRITE_RUNTIME)
    const sentry = await callTrace(writer, { gasLimit: 21_000n + 6n + 2_300n })
    expect(sentry.error).toBe('out of gas: not enough gas for reentrancy sentry')
    const short = await callTrace(writer, { gasLimit: 21_000n + 6n + 2_301n })
    expect(short.error).toBe('out of gas')
  })

  it('names the sentry for an SSTORE reached with no gas left at all (geth: gas left <= 2,300, zero included)', async () => {
    const writer = await t.deploy(WRITE_RUNTIME)
    // The two pushes take the last 6 gas: the SSTORE's step finds 0 left.
    const empty = await callTrace(writer, { gasLimit: 21_000n + 6n })
    expect(empty.error).toBe('out of gas: not enough gas for reentrancy sentry')
    // One gas short of the second push: that push runs out, not the SSTORE.
    const push = await callTrace(writer, { gasLimit: 21_000n + 5n })
    expect(push.error).toBe('out of gas')
  })

  it('names the code deposit a creation cannot pay, and leaves a RETURN that cannot pay for its memory out of gas', async () => {
    // Init code PUSH1 100, PUSH1 0, RETURN: 100 zero bytes, whose deposit costs 20,000 (200 a byte).
    // Intrinsic gas 53,070 (21,000 + 32,000 for the creation + 4 non-zero bytes at 16 and a zero byte
    // at 4 + one initcode word at 2); the pushes 6, the RETURN 12 for four words of memory.
    const data = hexToBytes('60646000f3')
    const deposit = await t.trace(await t.send({ data, gasLimit: 53_070n + 18n + 19_999n }), new CallTracer())
    expect(formatCallFrame(deposit as never)).toMatchObject({
      type: 'CREATE',
      error: 'contract creation code storage out of gas',
    })
    const memory = await t.trace(await t.send({ data, gasLimit: 53_070n + 17n }), new CallTracer())
    expect(formatCallFrame(memory as never)).toMatchObject({ type: 'CREATE', error: 'out of gas' })
    const paid = await t.trace(await t.send({ data, gasLimit: 53_070n + 18n + 20_000n }), new CallTracer())
    expect((formatCallFrame(paid as never) as { error?: string }).error).toBeUndefined()
  })

  it("gives BLAKE2F's two input checks geth's texts: the length, then the final flag", async () => {
    // CALL(GAS, 0x09, 0, mem[0..0], out 0..0), POP; PUSH1 2, PUSH1 212, MSTORE8 (final flag 2);
    // CALL(GAS, 0x09, 0, mem[0..213], out 0..0), POP, STOP. Zero rounds cost no gas.
    const caller = await t.deploy(
      '600060006000600060006009' + '5af150' + '600260d453' + '6000600060d5600060006009' + '5af15000',
    )
    const top = await callTrace(caller)
    expect(top.calls.map((c: any) => [c.to, c.error])).toEqual([
      ['0x0000000000000000000000000000000000000009', 'invalid input length'],
      ['0x0000000000000000000000000000000000000009', 'invalid final flag'],
    ])
  })
})
