/**
 * The prototype of @ethereumjs/evm's interpreter class, which the package does not export: taken
 * once from the run state a custom opcode sees, on a throw-away EVM. The interpreter's patches
 * (jumpAnalysisCache.ts, interpreterLoop.ts) install themselves on it.
 */
import { createEVM } from '@ethereumjs/evm'

let found: Promise<object> | undefined

/** The interpreter's prototype (found once, on first use). */
export function interpreterPrototype(): Promise<object> {
  found ??= find()
  return found
}

async function find(): Promise<object> {
  let proto: object | undefined
  const capture = {
    opcode: 0x0c,
    opcodeName: 'CAPTURE',
    baseFee: 0,
    logicFunction: (runState: { interpreter: object }) => {
      proto = Object.getPrototypeOf(runState.interpreter) as object
    },
  }
  const evm = await createEVM({ customOpcodes: [capture] })
  await evm.runCode({ code: Uint8Array.of(0x0c) })
  if (!proto) throw new Error('the EVM interpreter was not found')
  return proto
}
