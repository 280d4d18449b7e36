/**
 * EIP-3155's standard JSON trace: one JSON line per executed opcode (`pc`, `op`, `gas`, `gasCost`,
 * `memSize`, `stack`, `depth`, `refund`, `opName`, and `error` on a failing step), then one summary
 * line (`output`, `gasUsed`, `pass`). debug_standardTraceBlockToFile writes these lines to files.
 * Spec: https://eips.ethereum.org/EIPS/eip-3155
 */
import type { EVM, EVMResult, InterpreterStep } from '@ethereumjs/evm'
import type { RunTxResult } from '@ethereumjs/vm'
import { bytesToHex } from '../../primitives/hex.ts'
import { frameErrorText } from './gethErrors.ts'
import { gethStepCost } from './gethStepCost.ts'
import type { TxContext, TxTracer } from './txTracer.ts'

export interface StandardJsonOptions {
  disableStack?: boolean
  /** Memory is left out unless asked for (geth's and Besu's default for these files). */
  enableMemory?: boolean
  disableMemory?: boolean
  enableReturnData?: boolean
}

const hex = (n: bigint | number) => `0x${n.toString(16)}`

/** Collects the trace as JSON lines (without newlines); `finish` adds the summary line. */
export class StandardJsonTracer implements TxTracer<string[]> {
  private readonly lines: Record<string, unknown>[] = []
  private evm?: EVM
  /** Whether EIP-150 (Tangerine Whistle) caps the gas a call hands over, for the CALL family's gasCost. */
  private isEip150 = true

  private readonly opts: StandardJsonOptions

  constructor(opts: StandardJsonOptions = {}) {
    this.opts = opts
  }

  start({ vm }: TxContext): void {
    this.evm = vm.evm as EVM
    this.isEip150 = this.evm.common.gteHardfork('tangerineWhistle')
    this.evm.events.on('step', this.onStep)
    this.evm.events.on('afterMessage', this.onExit)
  }

  finish(_ctx: TxContext, result: RunTxResult): string[] {
    this.evm?.events.off('step', this.onStep)
    this.evm?.events.off('afterMessage', this.onExit)
    const exec = result.execResult
    const summary: Record<string, unknown> = {
      output: bytesToHex(exec.returnValue).slice(2),
      gasUsed: hex(result.totalGasSpent),
      pass: exec.exceptionError === undefined,
    }
    if (exec.exceptionError) summary.error = frameErrorText(exec)
    return [...this.lines, summary].map((l) => JSON.stringify(l))
  }

  private readonly onStep = (s: InterpreterStep): void => {
    const line: Record<string, unknown> = {
      pc: s.pc,
      op: s.opcode.code,
      gas: hex(s.gasLeft),
      gasCost: hex(gethStepCost(s, this.isEip150)),
      memSize: s.memory.length,
    }
    if (this.opts.enableMemory === true || this.opts.disableMemory === false) line.memory = bytesToHex(s.memory)
    if (this.opts.disableStack !== true) line.stack = s.stack.map((v) => hex(v))
    line.depth = s.depth + 1
    line.refund = Number(s.gasRefund)
    line.opName = s.opcode.name
    this.lines.push(line)
  }

  /** A frame that failed marks its last step with the error, as EIP-3155 asks. */
  private readonly onExit = (r: EVMResult): void => {
    const err = r.execResult.exceptionError
    const last = this.lines[this.lines.length - 1]
    if (err && last && last.error === undefined) {
      const step =
        typeof last.gas === 'string' && typeof last.gasCost === 'string'
          ? { gasLeft: BigInt(last.gas), cost: BigInt(last.gasCost) }
          : undefined
      last.error = frameErrorText(r.execResult, undefined, step)
    }
  }
}
