/**
 * Fork names of a chain's own schedule that the EVM library must run. Its EVM refuses to start on
 * a hardfork outside its fixed list; Ethereum Classic's milestones without an Ethereum twin
 * (DieHard, Gotham, …, see chain/classicForks.ts) are forks of their own in the chain's schedule.
 */
import { EVM } from '@ethereumjs/evm'

/** Lets the EVM run on the hardforks named (idempotent). */
export function allowHardforkNames(names: string[]): void {
  const supported = (EVM as unknown as { supportedHardforks: string[] }).supportedHardforks
  for (const name of names) if (!supported.includes(name)) supported.push(name)
}
