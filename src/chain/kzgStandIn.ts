/**
 * A stand-in for KZG during block import (see also evm/kzgPresence.ts for decoding). The stand-in stays. Decoding a blob transaction needs a KZG object to be
 * present, but only the point-evaluation precompile calls it, and loading the real one takes
 * seconds. The stand-in records a call and fails it; the importer then loads the real KZG and
 * executes the block again.
 */
import type { Common } from '@ethereumjs/common'
import { ensureKzgFor } from './kzg.ts'

interface StandIn {
  isKzgStandIn: true
  wasCalled: boolean
}

function holder(common: Common): { kzg?: unknown } {
  return common.customCrypto as { kzg?: unknown }
}

/** Installs the stand-in when no KZG is loaded yet (it is shared by every copy of `common`). */
export function installKzgStandIn(common: Common): void {
  const crypto = holder(common)
  if (crypto.kzg) return
  const state: StandIn = { isKzgStandIn: true, wasCalled: false }
  crypto.kzg = new Proxy(state, {
    get(target, prop) {
      if (prop in target) return target[prop as keyof StandIn]
      return () => {
        target.wasCalled = true
        throw new Error('KZG is not loaded yet')
      }
    },
  })
}

/** When the stand-in was called, replaces it with the real KZG and resolves true (execute again). */
export async function replaceUsedKzgStandIn(common: Common): Promise<boolean> {
  const crypto = holder(common)
  const kzg = crypto.kzg as Partial<StandIn> | undefined
  if (!kzg?.isKzgStandIn || !kzg.wasCalled) return false
  crypto.kzg = undefined
  await ensureKzgFor(common)
  return true
}
