/**
 * Besu's system calls on proof-of-authority chains. Besu's `MainnetProtocolSpecs` gives a chain whose
 * config names `clique`, `ibft2` or `qbft` (`isPoAConsensus`) and not all three of
 * `depositContractAddress`, `withdrawalRequestContractAddress` and
 * `consolidationRequestContractAddress` (`hasSystemContractAddresses`):
 * - from Cancun on, `FrontierPreExecutionProcessor`: no EIP-4788 beacon root write and (Prague on)
 *   no EIP-2935 history write before the transactions;
 * - from Prague on, `RequestProcessorCoordinator.noOp()`: no EIP-6110 deposits parsed, no EIP-7002 /
 *   EIP-7251 dequeue calls, and on Amsterdam no EIP-8282 builder request calls. The requests are
 *   an empty list, so the header's `requestsHash` is the hash of no requests (sha256 of nothing).
 * The headers keep their fields (`parentBeaconBlockRoot`, `requestsHash`).
 *
 * The EVM library runs these calls inside `runBlock` and its block builder when the VM's rules
 * activate EIPs 4788, 2935, 6110, 7002, 7251 and 8282; nothing else in the library or the EVM asks
 * for those EIPs. A VM of such a chain reports them inactive, while the copies made from its rules
 * (the headers and blocks it builds) keep them, so the header shapes are unchanged.
 */
import type { Common } from '@ethereumjs/common'
import type { VM } from '@ethereumjs/vm'

/** The EIPs whose only effect in the library is a system call or a request list. */
const SYSTEM_CALL_EIPS: ReadonlySet<number> = new Set([4788, 2935, 6110, 7002, 7251, 8282])

const REQUEST_CONTRACT_KEYS = [
  'depositContractAddress',
  'withdrawalRequestContractAddress',
  'consolidationRequestContractAddress',
]

/** Besu's `isPoAConsensus && !hasSystemContractAddresses` for a genesis `config`. */
export function skipsSystemCalls(config: Record<string, unknown>): boolean {
  const isPoa = config.clique !== undefined || config.ibft2 !== undefined || config.qbft !== undefined
  return isPoa && !REQUEST_CONTRACT_KEYS.every((k) => config[k] !== undefined)
}

/** Besu's warning (`MainnetProtocolSpecs.pragueDefinition`) for such a chain with Prague scheduled. */
export const POA_NO_SYSTEM_CALLS_WARNING =
  'Skipping system contract request processors for PoA consensus (clique/ibft/qbft) without system contract addresses.'

/**
 * The warning a node logs at start for the chain of `common`: Besu logs it while building Prague's
 * protocol spec (and each later one, which builds on Prague's) of a PoA chain without the three
 * addresses, so only when the genesis schedules Prague or a later fork (which brings Prague along).
 */
export function poaSystemCallsWarning(common: Common): string | undefined {
  if (!hasNoSystemCalls(common)) return undefined
  const isPragueScheduled = common.hardforkTimestamp('prague') !== null || common.hardforkBlock('prague') !== null
  return isPragueScheduled ? POA_NO_SYSTEM_CALLS_WARNING : undefined
}

/** Marks `common` (and its copies: an own property) as a chain that makes no system calls. */
export function setNoSystemCalls(common: Common): void {
  Object.assign(common, { hasNoSystemCalls: true })
}

/** Whether the chain `common` belongs to makes no system calls (see `skipsSystemCalls`). */
export function hasNoSystemCalls(common: Common): boolean {
  return (common as Common & { hasNoSystemCalls?: boolean }).hasNoSystemCalls === true
}

/**
 * Makes `vm` skip the system calls and requests of a chain marked by `setNoSystemCalls`: its rules
 * report the system call EIPs inactive; copies of its rules do not (blocks built on them keep
 * `parentBeaconBlockRoot` and `requestsHash`).
 */
export function applyNoSystemCalls(vm: VM): void {
  const common = vm.common
  if (!hasNoSystemCalls(common)) return
  const proto = Object.getPrototypeOf(common) as Common
  Object.assign(common, {
    isActivatedEIP: (eip: number) => proto.isActivatedEIP.call(common, eip) && !SYSTEM_CALL_EIPS.has(eip),
    copy: () => {
      const copy = proto.copy.call(common) as Partial<Pick<Common, 'isActivatedEIP' | 'copy'>>
      delete copy.isActivatedEIP
      delete copy.copy
      return copy as Common
    },
  })
}
