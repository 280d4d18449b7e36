/**
 * eth_simulateV1's `traceTransfers`: every movement of ETH (call value, create endowment, balance
 * sent by SELFDESTRUCT) shows up in the call's logs as an ERC-7528 `Transfer` log from
 * 0xEeee…EEeE, in execution order and dropped with a reverted frame, but never in the block's
 * receipts. The EVM already produces such logs for EIP-7708 (from the system address); we turn that
 * EIP on for the simulation, rename the logs for the call result and take them out of the receipt.
 */
import type { Common } from '@ethereumjs/common'
import type { Log } from '@ethereumjs/evm'
import { EIP7708_BURN_TOPIC, EIP7708_SYSTEM_ADDRESS } from '@ethereumjs/evm'
import { equalsBytes } from '@ethereumjs/util'
import { Bloom, type RunTxResult } from '@ethereumjs/vm'
import { hexToBytes } from '../primitives/hex.ts'

/** ERC-7528's pseudo-address for native ETH. */
export const ETH_TOKEN_ADDRESS = hexToBytes('0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee')

/** Makes the EVM over `common` emit EIP-7708 transfer logs (whatever the fork). */
export function enableTransferLogs(common: Common): void {
  const isActive = common.isActivatedEIP.bind(common)
  Object.assign(common, { isActivatedEIP: (eip: number) => eip === 7708 || isActive(eip) })
}

function isSystemLog(log: Log): boolean {
  return equalsBytes(log[0], EIP7708_SYSTEM_ADDRESS)
}

/**
 * The logs the call reports (transfer logs renamed, burn logs dropped); `r`'s receipt and bloom
 * are left with the contracts' own logs only.
 */
export function takeTransferLogs(r: RunTxResult, common: Common): Log[] {
  const logs = r.execResult.logs ?? []
  if (!logs.some(isSystemLog)) return logs
  const own = logs.filter((l) => !isSystemLog(l))
  const reported = logs
    .filter((l) => !isSystemLog(l) || !equalsBytes(l[1][0], EIP7708_BURN_TOPIC))
    .map((l): Log => (isSystemLog(l) ? [ETH_TOKEN_ADDRESS, l[1], l[2]] : l))
  const bloom = new Bloom(undefined, common)
  for (const [address, topics] of own) {
    bloom.add(address)
    for (const t of topics) bloom.add(t)
  }
  r.execResult.logs = own
  r.receipt.logs = own
  r.receipt.bitvector = bloom.bitvector
  r.bloom = bloom
  return reported
}
