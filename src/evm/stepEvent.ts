/**
 * The `step` event of a traced opcode without promises. The library's `_runStepHook` is an async
 * function that awaits the EVM's async `_emit`, which copies the listener list and awaits again:
 * three promises and as many turns of the microtask queue per traced opcode, and in a young process
 * (code not yet compiled by the JIT) that machinery cost more than the opcode, the struct logger
 * and the rest of the replay together. This builds the same event object, field for field, and
 * calls the listeners at once; only a listener that takes a callback (two parameters, which the
 * library awaits) makes the step return a promise. Frames the library's hook must see (EOF code,
 * the `DEBUG` op logs) still go through it.
 */

export interface StepOpcodeInfo {
  code: number
  fullName: string
  fee: number
  isAsync: boolean
}
export interface StepEnv {
  depth: number
  address: { toString(): string }
  contract: unknown
  codeAddress: unknown
  eof?: unknown
}
export interface StepRunState {
  programCounter: number
  opCode: number
  code: Uint8Array
  gasRefund: bigint
  /** The library's stack: items `_store[0 .. _len)`, bottom first (what `getStack()` copies). */
  stack: { _store: bigint[]; _len: number; getStack(): bigint[]; peek(n: number): bigint[] }
  memory: { _store: Uint8Array; read(offset: number, size: number): Uint8Array }
  stateManager: unknown
}
type Listener = ((event: unknown) => unknown) | ((event: unknown, done: () => void) => unknown)

/**
 * A step listener that reads the interpreter's state during the call instead of from an event
 * object: what it needs of the stack and memory it converts at once, so nothing is copied for it.
 * It must not keep `run`, its stack or its memory past the call (they change with the next opcode).
 */
export type DirectStepListener = (
  run: StepRunState,
  env: StepEnv,
  info: StepOpcodeInfo,
  dynamicFee: bigint,
  gasLeft: bigint,
  memorySize: bigint,
) => void

const DIRECT_STEP = Symbol('directStep')
type DirectCapable = { [DIRECT_STEP]?: DirectStepListener }

/**
 * Marks `listener` (a plain step listener) as one that `direct` serves without the event object.
 * When every step listener of an EVM is marked, the event is not built at all; otherwise each
 * listener gets the event, as before.
 */
export function withDirectStep<L extends (event: never) => void>(listener: L, direct: DirectStepListener): L {
  ;(listener as unknown as DirectCapable)[DIRECT_STEP] = direct
  return listener
}

/** What of the interpreter the event is built from (the library's class is not exported). */
export interface SteppingInterpreter {
  _runState: unknown
  _env: unknown
  _evm: { DEBUG: boolean; events: { listeners(event: string): Listener[] } }
  lookupOpInfo(op: number): { opcodeInfo: unknown }
  _runStepHook(dynamicFee: bigint, gasLeft: bigint, memorySize: bigint): Promise<void>
}

const REVERT = 0xfd
/**
 * Bytes after the opcode the event reports as `immediate`: the library's table (EIP-3540's stack
 * deltas) gives them by opcode alone, whatever the code's format: PUSH1..PUSH32, and the EOF and
 * EIP-8024 opcodes with immediates.
 */
const IMMEDIATES = new Uint8Array(256)
for (let n = 1; n <= 32; n++) IMMEDIATES[0x5f + n] = n
for (const op of [0xd1, 0xe0, 0xe1, 0xe3, 0xe5]) IMMEDIATES[op] = 2
for (const op of [0xe6, 0xe7, 0xe8, 0xec, 0xee]) IMMEDIATES[op] = 1

/**
 * Emits the step event of the opcode about to run, as the library's `_runStepHook` would; returns
 * a promise only when a listener takes a callback or the library's hook has to run.
 */
export function emitStep(
  interpreter: SteppingInterpreter,
  dynamicFee: bigint,
  gasLeft: bigint,
  memorySize: bigint,
): Promise<void> | undefined {
  const env = interpreter._env as StepEnv
  const evm = interpreter._evm
  if (evm.DEBUG || env.eof !== undefined) return interpreter._runStepHook(dynamicFee, gasLeft, memorySize)
  const runState = interpreter._runState as StepRunState
  const info = interpreter.lookupOpInfo(runState.opCode).opcodeInfo as StepOpcodeInfo
  const listeners = evm.events.listeners('step')
  if (isAllDirect(listeners)) {
    for (let i = 0; i < listeners.length; i++) {
      ;(listeners[i] as DirectCapable)[DIRECT_STEP]!(runState, env, info, dynamicFee, gasLeft, memorySize)
    }
    return undefined
  }
  let error: Uint8Array | undefined
  if (info.code === REVERT) {
    const [offset, length] = runState.stack.peek(2)
    error = length === 0n ? new Uint8Array(0) : runState.memory.read(Number(offset), Number(length))
  }
  const immediates = IMMEDIATES[info.code]
  const pc = runState.programCounter
  const event = {
    pc,
    gasLeft,
    gasRefund: runState.gasRefund,
    opcode: { name: info.fullName, fee: info.fee, dynamicFee, isAsync: info.isAsync, code: info.code },
    stack: runState.stack.getStack(),
    depth: env.depth,
    address: env.address,
    account: env.contract,
    memory: runState.memory._store.slice(0, Number(memorySize) * 32),
    memoryWordCount: memorySize,
    codeAddress: env.codeAddress,
    stateManager: runState.stateManager,
    eofSection: undefined,
    immediate: immediates > 0 ? runState.code.slice(pc + 1, pc + 1 + immediates) : undefined,
    error,
    eofFunctionDepth: undefined,
  }
  for (let i = 0; i < listeners.length; i++) {
    if (listeners[i].length === 2) return callRest(listeners, i, event)
    ;(listeners[i] as (event: unknown) => unknown)(event)
  }
  return undefined
}

function isAllDirect(listeners: Listener[]): boolean {
  for (let i = 0; i < listeners.length; i++)
    if ((listeners[i] as DirectCapable)[DIRECT_STEP] === undefined) return false
  return listeners.length > 0
}

/** From the first listener that takes a callback on: one after the other, as the library's `_emit`. */
async function callRest(listeners: Listener[], from: number, event: unknown): Promise<void> {
  for (let i = from; i < listeners.length; i++) {
    const listener = listeners[i]
    if (listener.length === 2) await new Promise<void>((resolve) => listener(event, resolve))
    else (listener as (event: unknown) => unknown)(event)
  }
}
