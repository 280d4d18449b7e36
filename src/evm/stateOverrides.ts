/**
 * State overrides for simulations (geth's and Besu's `stateOverrides` parameter): replace an
 * account's balance, nonce or code, replace its whole storage (`state`) or some slots
 * (`stateDiff`), or move a precompile to another address.
 */
import { Account, Address } from '@ethereumjs/util'
import { bytesToHex, equalBytes } from '../primitives/hex.ts'
import type { StateManager } from '../state/worldState.ts'
import type { VM } from './vmFactory.ts'

export interface AccountOverride {
  balance?: bigint
  nonce?: bigint
  code?: Uint8Array
  /** The whole storage: every slot not listed becomes zero. */
  state?: [slot: Uint8Array, value: Uint8Array][]
  /** Only these slots change. */
  stateDiff?: [slot: Uint8Array, value: Uint8Array][]
  movePrecompileToAddress?: Uint8Array
}

export type StateOverrides = [address: Uint8Array, override: AccountOverride][]

export type OverrideErrorKind = 'stateAndStateDiff' | 'notAPrecompile' | 'moveToItself'

/** An override set that cannot be applied (both `state` and `stateDiff`, a bad precompile move). */
export class StateOverrideError extends Error {
  readonly kind: OverrideErrorKind

  constructor(kind: OverrideErrorKind, message: string) {
    super(message)
    this.kind = kind
    this.name = 'StateOverrideError'
  }
}

function key(address: Uint8Array): string {
  return bytesToHex(address).slice(2)
}

/** Moves precompiles first (their new addresses may then get code), then writes account fields. */
export async function applyStateOverrides(vm: VM, state: StateManager, overrides: StateOverrides): Promise<void> {
  const precompiles = vm.evm.precompiles as Map<string, unknown>
  const moves = overrides.filter(([, o]) => o.movePrecompileToAddress !== undefined)
  const moved = new Map<string, unknown>()
  for (const [address, o] of moves) {
    const from = key(address)
    const to = key(o.movePrecompileToAddress!)
    const fn = precompiles.get(from)
    if (fn === undefined)
      throw new StateOverrideError('notAPrecompile', `account ${bytesToHex(address)} is not a precompile`)
    if (equalBytes(address, o.movePrecompileToAddress!)) {
      throw new StateOverrideError('moveToItself', `account ${bytesToHex(address)} is already at the destination`)
    }
    moved.set(to, fn)
  }
  for (const [address] of moves) precompiles.delete(key(address))
  for (const [to, fn] of moved) precompiles.set(to, fn)
  for (const [address, o] of overrides) await applyAccountOverride(state, new Address(address), o)
}

async function applyAccountOverride(state: StateManager, address: Address, o: AccountOverride): Promise<void> {
  if (o.state !== undefined && o.stateDiff !== undefined) {
    throw new StateOverrideError('stateAndStateDiff', `account ${address.toString()} has both 'state' and 'stateDiff'`)
  }
  const account = (await state.getAccount(address)) ?? new Account()
  if (o.balance !== undefined) account.balance = o.balance
  if (o.nonce !== undefined) account.nonce = o.nonce
  await state.putAccount(address, account)
  if (o.code !== undefined) await state.putCode(address, o.code)
  if (o.state !== undefined) await state.clearStorage(address)
  for (const [slot, value] of o.state ?? o.stateDiff ?? []) await state.putStorage(address, slot, value)
}
