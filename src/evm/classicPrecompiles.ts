/**
 * Besu's Ethereum Classic Agharta (`aghartaBlock`) already runs Istanbul's precompile registry:
 * BLAKE2f (EIP-152) answers from Agharta, before Phoenix brings Istanbul's other rules. The EVM
 * library ties BLAKE2f to its Istanbul fork, so a Classic chain's VM adds it from that block on
 * (the chain marks its rules with `hasEarlyBlake2f`, chain/classicForks.ts).
 */
import { Common, Mainnet } from '@ethereumjs/common'
import { getActivePrecompiles } from '@ethereumjs/evm'
import type { VM } from '@ethereumjs/vm'

const BLAKE2F_ADDRESS = `${'00'.repeat(19)}09`

/** Rules that may run BLAKE2f before the library's Istanbul. */
interface EarlyBlake2fRules {
  hasEarlyBlake2f?: () => boolean
}

/** Keeps BLAKE2f among the VM's precompiles on every fork its rules say it runs (idempotent). */
export function applyClassicPrecompiles(vm: VM): void {
  const common = vm.common as Common & EarlyBlake2fRules
  if (common.hasEarlyBlake2f === undefined) return
  const blake2f = getActivePrecompiles(new Common({ chain: Mainnet, hardfork: 'istanbul' })).get(BLAKE2F_ADDRESS)
  const evm = vm.evm as unknown as { _precompiles: Map<string, unknown> }
  const update = () => {
    if (common.hasEarlyBlake2f?.() && !evm._precompiles.has(BLAKE2F_ADDRESS))
      evm._precompiles.set(BLAKE2F_ADDRESS, blake2f)
  }
  // The EVM rebuilds its precompiles when the fork changes (its listener runs first).
  common.events.on('hardforkChanged', update)
  update()
}
