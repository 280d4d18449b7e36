/**
 * The 4byte tracer (geth's): counts the 4-byte selectors and call-data sizes of every message call
 * to a contract (precompiles and creates left out), as `{"0xselector-size": count}`.
 */
import type { EVM, Message } from '@ethereumjs/evm'
import { bytesToHex } from '../../primitives/hex.ts'
import type { TxContext, TxTracer } from './txTracer.ts'

export class FourByteTracer implements TxTracer<Record<string, number>> {
  private readonly counts: Record<string, number> = {}
  private evm?: EVM

  start({ vm }: TxContext): void {
    this.evm = vm.evm as EVM
    this.evm.events.on('beforeMessage', this.onEnter)
  }

  finish(): Record<string, number> {
    this.evm?.events.off('beforeMessage', this.onEnter)
    return this.counts
  }

  private readonly onEnter = (m: Message): void => {
    if (m.to === undefined || m.data.length < 4 || this.evm?.getPrecompile(m.codeAddress) !== undefined) return
    const key = `${bytesToHex(m.data.subarray(0, 4))}-${m.data.length - 4}`
    this.counts[key] = (this.counts[key] ?? 0) + 1
  }
}
