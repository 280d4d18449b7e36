import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createEVM, type EVM, type InterpreterStep } from '@ethereumjs/evm'
import { Account, Address } from '@ethereumjs/util'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { installInterpreterLoop, withLibraryLoop } from './interpreterLoop.ts'
import { interpreterPrototype } from './interpreterPrototype.ts'
import { StructLogger } from './tracers/structLogger.ts'
import type { TxContext } from './tracers/txTracer.ts'

const CALLER = new Address(hexToBytes('0x00000000000000000000000000000000000000ca'))
const CONTRACT = new Address(hexToBytes('0x00000000000000000000000000000000c0de0001'))
const OTHER = new Address(hexToBytes('0x00000000000000000000000000000000c0de0002'))
const RETURN_WORD = '60206000f3'
/** Returns 42 (10 bytes), and init code that deploys it. */
const RETURNS_42 = '602a60005260206000f3'
const INIT_42 = `600a600c600039600a6000f3${RETURNS_42}`

/** Programs run at CONTRACT; OTHER holds `otherCode`. */
const PROGRAMS: Record<string, { code: string; otherCode?: string; gasLimit?: bigint; data?: string }> = {
  'a counted loop with JUMPI': { code: `600a5b600190038060025760005260206000f3` },
  'memory growth and KECCAK256': { code: `60ff61012052602061012020600052${RETURN_WORD}` },
  'SSTORE set and cleared (refund), SLOAD': { code: `6001600055600060005560005460005260015460205260406000f3` },
  'REVERT with data': { code: `7f${'ab'.repeat(32)}60005260206000fd` },
  'the INVALID opcode': { code: '6001fe' },
  'an endless loop out of gas': { code: '5b600056', gasLimit: 30_000n },
  'a jump to a non-JUMPDEST': { code: '60035600' },
  'a jump at the second opcode': { code: '6004565b5b600160005260206000f3' },
  'a stack underflow': { code: '600101' },
  'code that runs off its end': { code: '600160025a' },
  'MSTORE to a huge offset (its gas handler runs out)': { code: '600164ffffffffff52' },
  'SSTORE under the 2300 gas sentry': { code: '6001600055', gasLimit: 2_306n },
  'a LOG2 with data': { code: `7f${'cd'.repeat(32)}6000526007600860206000a200` },
  'a CALL that stores in the callee and returns its word': {
    code: `60206020600060006000730000000000000000000000000000000${'0c0de0002'}5af160005260406000f3`,
    otherCode: '6001600055600160005260206000f3',
  },
  'a STATICCALL into an SSTORE (static violation inside)': {
    code: `6020600060006000730000000000000000000000000000000${'0c0de0002'}61fffffa600052${RETURN_WORD}`,
    otherCode: '6001600055',
  },
  'a CREATE whose new contract is called': {
    code: `75${INIT_42}6000526016600a6000f0602060006000600060008561fffff150${RETURN_WORD}`,
  },
  'CALLDATALOAD, CALLDATACOPY and RETURNDATASIZE': {
    code: '60003560e01c6000526024600460203760003d0160405260606000f3',
    data: `0x70a08231${'00'.repeat(12)}${'11'.repeat(20)}`,
  },
}

interface Outcome {
  error?: string
  gasUsed: bigint
  gasRefund?: bigint
  returnValue: string
  logs: string
  created?: string
  storage: string
  otherStorage: string
  /** The step events, when traced: what a tracer reads of each. */
  steps?: string[]
}

async function evmAt(hardfork: string, program: (typeof PROGRAMS)[string]): Promise<EVM> {
  const evm = await createEVM({ common: new Common({ chain: Mainnet, hardfork }) })
  await evm.stateManager.putAccount(CALLER, new Account(0n, 10n ** 18n))
  await evm.stateManager.putAccount(CONTRACT, new Account(1n, 10n ** 18n))
  await evm.stateManager.putCode(CONTRACT, hexToBytes(`0x${program.code}`))
  if (program.otherCode) {
    await evm.stateManager.putAccount(OTHER, new Account(1n))
    await evm.stateManager.putCode(OTHER, hexToBytes(`0x${program.otherCode}`))
  }
  return evm
}

async function run(hardfork: string, program: (typeof PROGRAMS)[string], isTraced: boolean): Promise<Outcome> {
  const evm = await evmAt(hardfork, program)
  const steps: string[] = []
  if (isTraced)
    evm.events.on('step', (e) => {
      const { pc, gasLeft, gasRefund, opcode, stack, depth, memory, memoryWordCount, error, immediate } = e
      const { eofSection, eofFunctionDepth } = e
      const seen = {
        ...{ pc, gasLeft, gasRefund, opcode, stack, depth, memory: bytesToHex(memory), memoryWordCount, error },
        ...{ immediate, eofSection, eofFunctionDepth, isSameState: e.stateManager === evm.stateManager },
        ...{ address: e.address.toString(), codeAddress: e.codeAddress?.toString(), account: e.account?.serialize() },
      }
      steps.push(
        JSON.stringify(seen, (_, v) => (typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? bytesToHex(v) : v)),
      )
    })
  const r = await evm.runCall({
    caller: CALLER,
    to: CONTRACT,
    gasLimit: program.gasLimit ?? 1_000_000n,
    data: program.data ? hexToBytes(program.data) : new Uint8Array(0),
  })
  const slot = new Uint8Array(32)
  return {
    error: r.execResult.exceptionError?.error,
    gasUsed: r.execResult.executionGasUsed,
    gasRefund: r.execResult.gasRefund,
    returnValue: bytesToHex(r.execResult.returnValue),
    logs: JSON.stringify((r.execResult.logs ?? []).map((log) => log.map((part) => String(part)))),
    created: r.createdAddress?.toString(),
    storage: bytesToHex(await evm.stateManager.getStorage(CONTRACT, slot)),
    otherStorage: bytesToHex(await evm.stateManager.getStorage(OTHER, slot)),
    ...(isTraced ? { steps } : {}),
  }
}

describe('the interpreter loop without a promise per opcode', () => {
  it('gives what the library loop gives: gas, refunds, return data, errors, logs, storage and step events', async () => {
    await installInterpreterLoop()
    for (const hardfork of [Hardfork.London, Hardfork.Prague, Hardfork.Osaka]) {
      for (const [name, program] of Object.entries(PROGRAMS)) {
        for (const isTraced of [false, true]) {
          const library = await withLibraryLoop(() => run(hardfork, program, isTraced))
          const loop = await run(hardfork, program, isTraced)
          expect({ name, hardfork, ...loop }).toEqual({ name, hardfork, ...library })
        }
      }
    }
  })

  it('awaits a step listener that takes a callback before the opcode runs, in listener order', async () => {
    await installInterpreterLoop()
    const program = PROGRAMS['a CALL that stores in the callee and returns its word']
    const order = async () => {
      const evm = await evmAt(Hardfork.Prague, program)
      const seen: string[] = []
      evm.events.on('step', (e) => seen.push(`a${e.pc}`))
      evm.events.on('step', (e: InterpreterStep, done?: () => void) => {
        setTimeout(() => {
          seen.push(`b${e.pc}:${e.stack.length}`)
          done?.()
        }, 0)
      })
      evm.events.on('step', (e) => seen.push(`c${e.pc}`))
      await evm.runCall({ caller: CALLER, to: CONTRACT, gasLimit: 1_000_000n })
      return seen
    }
    const library = await withLibraryLoop(order)
    const loop = await order()
    expect(loop.length).toBeGreaterThan(60)
    expect(loop).toEqual(library)
  })

  it('gives the struct logger, served without the event object, the logs the library loop gives', async () => {
    await installInterpreterLoop()
    /** The struct logs with every option on; `isEventForced` adds a listener that needs the event. */
    const structLogs = async (hardfork: string, program: (typeof PROGRAMS)[string], isEventForced: boolean) => {
      const evm = await evmAt(hardfork, program)
      const logger = new StructLogger({ enableMemory: true, enableReturnData: true })
      const ctx = { vm: { evm } } as unknown as TxContext
      logger.start(ctx)
      let events = 0
      if (isEventForced) evm.events.on('step', () => events++)
      const r = await evm.runCall({
        caller: CALLER,
        to: CONTRACT,
        gasLimit: program.gasLimit ?? 1_000_000n,
        data: program.data ? hexToBytes(program.data) : new Uint8Array(0),
      })
      const out = logger.finish(ctx, {
        totalGasSpent: r.execResult.executionGasUsed,
        execResult: r.execResult,
      } as never)
      return { ...out, events }
    }
    let logs = 0
    for (const hardfork of [Hardfork.London, Hardfork.Prague, Hardfork.Osaka]) {
      for (const [name, program] of Object.entries(PROGRAMS)) {
        const library = await withLibraryLoop(() => structLogs(hardfork, program, false))
        const direct = await structLogs(hardfork, program, false)
        const viaEvents = await structLogs(hardfork, program, true)
        expect({ name, hardfork, ...direct }).toEqual({ name, hardfork, ...library })
        expect({ name, hardfork, ...viaEvents, events: 0 }).toEqual({ name, hardfork, ...library })
        expect(viaEvents.events).toBe(viaEvents.structLogs.length - (name === 'code that runs off its end' ? 1 : 0))
        logs += direct.structLogs.length
      }
    }
    expect(logs).toBeGreaterThan(1_000)
  })

  it('covers the outcomes the comparison is meant to cover', async () => {
    await installInterpreterLoop()
    const outcome = (name: string) => run(Hardfork.Prague, PROGRAMS[name], false)
    expect((await outcome('a counted loop with JUMPI')).error).toBeUndefined()
    expect((await outcome('REVERT with data')).returnValue).toBe(`0x${'ab'.repeat(32)}`)
    expect((await outcome('the INVALID opcode')).error).toBe('invalid opcode')
    expect((await outcome('an endless loop out of gas')).error).toBe('out of gas')
    expect((await outcome('a jump to a non-JUMPDEST')).error).toMatch(/^invalid JUMP at /)
    expect((await outcome('a stack underflow')).error).toBe('stack underflow')
    expect((await outcome('MSTORE to a huge offset (its gas handler runs out)')).error).toBe('out of gas')
    expect((await outcome('SSTORE under the 2300 gas sentry')).error).toBe('out of gas')
    const refund = await outcome('SSTORE set and cleared (refund), SLOAD')
    expect(refund.gasRefund).toBeGreaterThan(0n)
    const called = await outcome('a CALL that stores in the callee and returns its word')
    expect(called.otherStorage).toBe('0x01')
    const created = await outcome('a CREATE whose new contract is called')
    expect(BigInt(created.returnValue)).toBe(42n)
  })

  it("runs frames without the library's step, traced or not, except under withLibraryLoop", async () => {
    await installInterpreterLoop()
    const proto = (await interpreterPrototype()) as { runStep: (...args: unknown[]) => Promise<void> }
    const libraryStep = proto.runStep
    let steps = 0
    proto.runStep = function (this: unknown, ...args: unknown[]) {
      steps++
      return libraryStep.apply(this, args)
    }
    try {
      await run(Hardfork.Prague, PROGRAMS['a counted loop with JUMPI'], false)
      await run(Hardfork.Prague, PROGRAMS['a counted loop with JUMPI'], true)
      expect(steps).toBe(0)
      await withLibraryLoop(() => run(Hardfork.Prague, PROGRAMS['a counted loop with JUMPI'], true))
      expect(steps).toBeGreaterThan(40)
    } finally {
      proto.runStep = libraryStep
    }
  })
})
