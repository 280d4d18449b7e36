/**
 * CHAINID on a chain whose genesis has no `chainId`. Besu builds such a chain's EVM with
 * `chainId.orElse(BigInteger.ZERO)` (`ChainIdOperation` pushes that value), so the opcode pushes 0;
 * the library pushes its Common's chain id, which it cannot do without (Basalt gives it 1).
 */
import type { Common } from '@ethereumjs/common'
import type { VM } from '@ethereumjs/vm'
import { patchOpcodeTables } from './stackSize.ts'

/** Makes CHAINID push 0 in `vm` when `common`'s chain has no chain id (genesis.ts marks it). */
export function applyMissingChainId(vm: VM, common: Common): void {
  if ((common as Common & { hasNoChainId?: boolean }).hasNoChainId !== true) return
  patchOpcodeTables(vm, (map) =>
    map.map((entry) =>
      entry.opcodeInfo.name === 'CHAINID' ? { ...entry, opHandler: (runState) => runState.stack.push(0n) } : entry,
    ),
  )
}
