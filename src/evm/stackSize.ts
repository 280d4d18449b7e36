/**
 * Besu's genesis `config.evmStackSize`: the number of items a frame's operand stack holds (Besu's
 * `MessageFrame` max stack size, 1024 by default; the call depth limit stays 1024). The library builds
 * every frame's stack with its fixed 1024 items, and its `stackLimit` param is the call depth, not
 * this. So a VM of a chain with another size sets the running frame's stack height before each opcode
 * (the stack checks it on every push and DUP); chains at 1024 run the library's opcodes untouched.
 */
import type { Common } from '@ethereumjs/common'
import type { VM } from '@ethereumjs/vm'

/** The library's (and Besu's default) operand stack size. */
export const DEFAULT_STACK_SIZE = 1024

type OpHandler = (runState: { stack: { _maxHeight: number; push(v: bigint): void } }, common: unknown) => unknown
interface OpEntry {
  opcodeInfo: { name: string }
  opHandler: OpHandler
}
interface OpcodeTables {
  _opcodeMap: OpEntry[]
  getActiveOpcodes(): unknown
}

/** Marks `common` (and its copies: an own property) as a chain whose frames hold `size` stack items. */
export function setChainStackSize(common: Common, size: number): void {
  if (size !== DEFAULT_STACK_SIZE) Object.assign(common, { evmStackSize: size })
}

/** The operand stack size of the chain `common` belongs to. */
export function chainStackSize(common: Common): number {
  return (common as Common & { evmStackSize?: number }).evmStackSize ?? DEFAULT_STACK_SIZE
}

/** Makes `vm`'s frames hold `size` stack items (tables are rebuilt on a fork change). */
export function applyStackSize(vm: VM, size: number): void {
  if (size === DEFAULT_STACK_SIZE) return
  patchOpcodeTables(vm, (map) => {
    const seen = new Map<OpEntry, OpEntry>()
    return map.map((entry) => {
      // Unassigned opcodes share one INVALID entry: wrapped once.
      let sized = seen.get(entry)
      if (!sized) {
        const run = entry.opHandler
        sized = {
          ...entry,
          opHandler: (runState, common) => {
            runState.stack._maxHeight = size
            return run(runState, common)
          },
        }
        seen.set(entry, sized)
      }
      return sized
    })
  })
}

/** Applies `patch` to `vm`'s opcode table now and each time the EVM rebuilds it (on a fork change). */
export function patchOpcodeTables(vm: VM, patch: (map: OpEntry[]) => OpEntry[]): void {
  const tables = vm.evm as unknown as OpcodeTables
  const rebuild = tables.getActiveOpcodes.bind(tables)
  tables.getActiveOpcodes = () => {
    const out = rebuild()
    tables._opcodeMap = patch(tables._opcodeMap)
    return out
  }
  tables._opcodeMap = patch(tables._opcodeMap)
}
