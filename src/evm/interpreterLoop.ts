/**
 * The interpreter's run loop without a promise per opcode. @ethereumjs/evm 10.1 runs each opcode
 * through an async `runStep` that the loop awaits, so every opcode, even an ADD, costs a promise
 * and a turn of the microtask queue; most opcodes are synchronous (only the handlers marked async
 * and the dynamic gas handlers, which are async functions, return promises). This loop calls a step
 * that awaits only what returns a promise and otherwise runs the next opcode at once.
 *
 * Same results by construction: the step does what the library's does, in the same order (gas
 * handler, the step event when something listens, invalid opcode check, base gas, program counter,
 * handler), with the same errors and the same event (`stepEvent.ts` builds it as the library's
 * `_runStepHook` does, without its promises). A traced frame runs on this loop too, so tracing runs
 * the code that calls keep warm.
 * The library's own loop still runs what this one leaves out, decided per frame: the profiler, EOF
 * code (EIP-3540 active) and the code-chunk witnesses of EIP-6800 / EIP-7864.
 * The CALL family (CALL, CALLCODE, DELEGATECALL, STATICCALL) runs through the library's step: their
 * gas handlers may schedule EIP-7928's out-of-gas after the target is touched, which the library's
 * step completes with a function the package does not export. A call is async anyway.
 */
import { EVMError } from '@ethereumjs/evm'
import { EthereumJSErrorWithoutCode } from '@ethereumjs/util'
import { interpreterPrototype } from './interpreterPrototype.ts'
import { emitStep, type SteppingInterpreter } from './stepEvent.ts'

interface OpInfo {
  code: number
  feeBigInt: bigint
  dynamicGas: boolean
  isAsync: boolean
  isInvalid: boolean
}
interface OpEntry {
  opcodeInfo: OpInfo
  opHandler: (runState: RunState, common: unknown) => unknown
  gasHandler: (runState: RunState, gas: bigint, common: unknown) => Promise<bigint> | bigint
}
interface RunState {
  programCounter: number
  opCode: number
  code: Uint8Array
  validJumps: Uint8Array
  cachedPushes: object
  shouldDoJumpAnalysis: boolean
  gasLeft: bigint
  memoryWordCount: bigint
  env: { accessWitness?: { commit(): void; revert(): void } }
  eip7928PostTargetCallOog?: unknown
  eip8037BurnLeftoverAfterCreateHaltOntoAlive?: boolean
  /** Set by this loop on the frames it runs: their RETURN may end the frame without a throw. */
  isOnPlainLoop?: boolean
  /** Set by such a RETURN: the loop stops here, as it stopped at the library's STOP error. */
  isFinished?: boolean
}
interface Interpreter extends SteppingInterpreter {
  _runState: RunState
  _result: { returnValue?: Uint8Array }
  finish(returnData: Uint8Array): void
  getGasLeft(): bigint
  _evm: SteppingInterpreter['_evm'] & { events: { listenerCount(event: string): number } }
  common: { isActivatedEIP(eip: number): boolean }
  profilerOpts?: { enabled?: boolean }
  run(code: Uint8Array, opts?: { pc?: number }): Promise<RunResult>
  runStep(opcodeObj?: OpEntry): Promise<void>
  lookupOpInfo(op: number): OpEntry
  useGas(amount: bigint, context?: unknown): void
  _getValidJumpDestinations(code: Uint8Array): { jumps: Uint8Array; pushes: object; opcodesCached: OpEntry[] }
}
interface RunResult {
  runState: RunState
  exceptionError?: EVMError
}

const JUMP = 0x56
const JUMPI = 0x57
const JUMPSUB = 0x5e
const BIGINT_0 = BigInt(0)
/** CALL, CALLCODE, DELEGATECALL, STATICCALL. */
const LIBRARY_STEP_OPCODES = new Uint8Array(256)
for (const op of [0xf1, 0xf2, 0xf4, 0xfa]) LIBRARY_STEP_OPCODES[op] = 1

let isInstalled = false
/** Set while `withLibraryLoop` runs: every frame then runs on the library's loop (for comparisons). */
let isLibraryLoopForced = false

/** Runs `fn` with the library's own run loop (tests compare both loops). */
export async function withLibraryLoop<T>(fn: () => Promise<T>): Promise<T> {
  isLibraryLoopForced = true
  try {
    return await fn()
  } finally {
    isLibraryLoopForced = false
  }
}

/** Replaces the interpreter's run loop with one that awaits only the opcodes that return promises. */
export async function installInterpreterLoop(): Promise<void> {
  if (isInstalled) return
  isInstalled = true
  const proto = (await interpreterPrototype()) as Interpreter
  const libraryRun = proto.run
  const libraryStep = proto.runStep
  const libraryFinish = proto.finish
  // RETURN ends a frame through `finish`, which throws the library's STOP error for its loop to
  // catch: a throw and its unwinding, about 1.5 % of the CPU of an ERC-20 `balanceOf` call. On this
  // loop the frame is marked finished instead, and the loop stops there, as it stopped at the error.
  // With an access witness (never on this loop's frames) the throw stays: its catch reverts it.
  proto.finish = function (this: Interpreter, returnData: Uint8Array) {
    const runState = this._runState
    if (runState.isOnPlainLoop !== true || runState.env.accessWitness !== undefined)
      return libraryFinish.call(this, returnData)
    this._result.returnValue = returnData
    runState.isFinished = true
  }
  proto.run = function (this: Interpreter, code: Uint8Array, opts: { pc?: number } = {}) {
    if (!isPlainFrame(this, code)) return libraryRun.call(this, code, opts)
    return runPlain(this, code, opts, libraryStep)
  }
}

/** A frame this loop runs: legacy code, no profiler, no code-chunk witnesses. */
function isPlainFrame(interpreter: Interpreter, code: Uint8Array): boolean {
  if (isLibraryLoopForced || interpreter.profilerOpts?.enabled === true) return false
  const common = interpreter.common
  if (common.isActivatedEIP(3540) && code[0] === 0xef) return false
  return !common.isActivatedEIP(6800) && !common.isActivatedEIP(7864)
}

function isVmError(e: unknown): e is EVMError {
  return typeof e === 'object' && e !== null && (e as { errorType?: unknown }).errorType === 'EVMError'
}

async function runPlain(
  interpreter: Interpreter,
  code: Uint8Array,
  opts: { pc?: number },
  libraryStep: Interpreter['runStep'],
): Promise<RunResult> {
  const runState = interpreter._runState
  runState.code = code
  runState.programCounter = opts.pc ?? runState.programCounter
  const startPc = runState.programCounter
  if (startPc !== 0 && (startPc < 0 || startPc >= code.length)) {
    throw EthereumJSErrorWithoutCode('Internal error: program counter not in range')
  }
  const evm = interpreter._evm
  let err: EVMError | undefined
  let cachedOpcodes: OpEntry[] | undefined
  runState.isOnPlainLoop = true
  while (runState.programCounter < code.length && runState.isFinished !== true) {
    const pc = runState.programCounter
    let entry: OpEntry | undefined
    let opCode: number
    if (cachedOpcodes === undefined) {
      opCode = code[pc]
      // As the library: the analysis is made at the first jump, and that jump is looked up.
      if (opCode === JUMP || opCode === JUMPI || opCode === JUMPSUB) {
        const { jumps, pushes, opcodesCached } = interpreter._getValidJumpDestinations(code)
        runState.validJumps = jumps
        runState.cachedPushes = pushes
        runState.shouldDoJumpAnalysis = false
        cachedOpcodes = opcodesCached
      }
    } else {
      entry = cachedOpcodes[pc]
      opCode = entry.opcodeInfo.code
    }
    runState.opCode = opCode
    try {
      const pending =
        runState.eip7928PostTargetCallOog !== undefined || LIBRARY_STEP_OPCODES[opCode] === 1
          ? libraryStep.call(interpreter, entry)
          : evm.DEBUG || evm.events.listenerCount('step') > 0
            ? tracedStep(interpreter, runState, entry ?? interpreter.lookupOpInfo(opCode))
            : step(interpreter, runState, entry ?? interpreter.lookupOpInfo(opCode))
      if (pending !== undefined) await pending
    } catch (e) {
      runState.env.accessWitness?.revert()
      if (!isVmError(e)) throw e
      if (e.error !== EVMError.errorMessages.STOP) err = e
      break
    }
  }
  if (
    err === undefined &&
    runState.eip8037BurnLeftoverAfterCreateHaltOntoAlive === true &&
    runState.gasLeft > BIGINT_0
  ) {
    // As the library: a CREATE's leftover gas is burnt and the frame halts, so its nonce bump is reverted.
    runState.gasLeft = BIGINT_0
    err = new EVMError(EVMError.errorMessages.OUT_OF_GAS)
  }
  return { runState, exceptionError: err }
}

/** One opcode; a promise only when its gas handler or its handler returned one. */
function step(interpreter: Interpreter, runState: RunState, entry: OpEntry): Promise<void> | undefined {
  const info = entry.opcodeInfo
  if (!info.dynamicGas) return execute(interpreter, runState, entry, info.feeBigInt)
  const gas = entry.gasHandler(runState, info.feeBigInt, interpreter.common)
  if (typeof gas === 'bigint') return execute(interpreter, runState, entry, gas)
  return gas.then((charged) => execute(interpreter, runState, entry, charged))
}

/**
 * One opcode with its step event first, as the library's step emits it (also when its gas handler
 * fails); a promise only when the gas handler, a listener or the handler returned one.
 */
function tracedStep(interpreter: Interpreter, runState: RunState, entry: OpEntry): Promise<void> | undefined {
  const info = entry.opcodeInfo
  const memorySize = runState.memoryWordCount
  if (!info.dynamicGas) return emitThenExecute(interpreter, runState, entry, info.feeBigInt, memorySize)
  let gas: Promise<bigint> | bigint
  try {
    gas = entry.gasHandler(runState, info.feeBigInt, interpreter.common)
  } catch (error) {
    return stepOfFailedGas(interpreter, info.feeBigInt, memorySize, error)
  }
  if (typeof gas === 'bigint') return emitThenExecute(interpreter, runState, entry, gas, memorySize)
  return gas.then(
    (charged) => emitThenExecute(interpreter, runState, entry, charged, memorySize),
    (error: unknown) => stepOfFailedGas(interpreter, info.feeBigInt, memorySize, error),
  )
}

function emitThenExecute(
  interpreter: Interpreter,
  runState: RunState,
  entry: OpEntry,
  gas: bigint,
  memorySize: bigint,
): Promise<void> | undefined {
  const emitted = emitStep(interpreter, gas, interpreter.getGasLeft(), memorySize)
  if (emitted === undefined) return execute(interpreter, runState, entry, gas)
  return emitted.then(() => execute(interpreter, runState, entry, gas))
}

/** A gas handler's VM error still gets its step event (with the base fee), then stands. */
function stepOfFailedGas(
  interpreter: Interpreter,
  fee: bigint,
  memorySize: bigint,
  error: unknown,
): never | Promise<never> {
  if (!isVmError(error)) throw error
  const emitted = emitStep(interpreter, fee, interpreter.getGasLeft(), memorySize)
  if (emitted === undefined) throw error
  return emitted.then(() => {
    throw error
  })
}

function execute(interpreter: Interpreter, runState: RunState, entry: OpEntry, gas: bigint): Promise<void> | undefined {
  const info = entry.opcodeInfo
  if (info.isInvalid) throw new EVMError(EVMError.errorMessages.INVALID_OPCODE)
  // The library's useGas without the call and its debug check: the same counter, the same error.
  if (interpreter._evm.DEBUG) interpreter.useGas(gas, info)
  else {
    const left = runState.gasLeft - gas
    if (left < BIGINT_0) {
      runState.gasLeft = BIGINT_0
      throw new EVMError(EVMError.errorMessages.OUT_OF_GAS)
    }
    runState.gasLeft = left
  }
  runState.programCounter++
  if (info.isAsync) {
    const done = entry.opHandler(runState, interpreter.common)
    if (done instanceof Promise) return done.then(() => runState.env.accessWitness?.commit())
  } else entry.opHandler(runState, interpreter.common)
  runState.env.accessWitness?.commit()
  return undefined
}
