/** What a transaction's top-level REVERT returned: Besu's revert reason, in receipts and traces. */
import type { RunTxResult } from '@ethereumjs/vm'

/** The bytes the top-level REVERT returned; undefined when the transaction did not revert. */
export function revertOutputOf(r: RunTxResult): Uint8Array | undefined {
  return r.execResult.exceptionError?.error === 'revert' ? r.execResult.returnValue : undefined
}
