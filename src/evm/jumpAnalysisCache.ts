/**
 * The EVM's interpreter analyses a contract's code (its JUMPDESTs, PUSH values and decoded opcodes)
 * every time it runs it, before the first jump: for a call of a large contract, about a tenth of
 * the call. The analysis depends only on the code and the interpreter's opcode table, so it is kept
 * per code bytes object, with the opcode table it was made with: the state's code cache hands out
 * the same bytes object on every read, and a new fork gives the EVM a new opcode table. The
 * analysis is only read afterwards.
 */
import { interpreterPrototype } from './interpreterPrototype.ts'

interface InterpreterInternals {
  _evm: { _opcodeMap: object }
  _getValidJumpDestinations(code: Uint8Array): object
}

let isInstalled = false

/** Makes every interpreter reuse the jump analysis of code it has analysed with the same opcode table. */
export async function installJumpAnalysisCache(): Promise<void> {
  if (isInstalled) return
  isInstalled = true
  const proto = (await interpreterPrototype()) as InterpreterInternals
  const analyse = proto._getValidJumpDestinations
  const analyses = new WeakMap<Uint8Array, { table: object; analysis: object }>()
  proto._getValidJumpDestinations = function (this: InterpreterInternals, code: Uint8Array) {
    const table = this._evm._opcodeMap
    const known = analyses.get(code)
    if (known?.table === table) return known.analysis
    const analysis = analyse.call(this, code)
    analyses.set(code, { table, analysis })
    return analysis
  }
}
