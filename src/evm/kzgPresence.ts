/**
 * Decoding or building a blob transaction needs a KZG object to be present, though nothing calls it
 * there. Stored blocks, raw transactions and blob-carrying calls are therefore built with a
 * stand-in in place and never wait for the real KZG, which loads in the background (chain/kzg.ts).
 */
import type { Common } from '@ethereumjs/common'

/** Fails every call, with the message the point-evaluation precompile uses for a missing KZG. */
const DECODE_ONLY = new Proxy(
  {},
  {
    get: () => () => {
      throw new Error('kzg not initialized: the KZG trusted setup is not loaded yet')
    },
  },
)

/**
 * Runs `decode` (synchronous) with a KZG object present, so that blob transactions decode without
 * the real KZG; a call into KZG while it runs throws an error that `isKzgMissing` recognises.
 */
export function decodeWithoutKzg<T>(common: Common, decode: () => T): T {
  const crypto = common.customCrypto as { kzg?: unknown }
  if (crypto.kzg) return decode()
  crypto.kzg = DECODE_ONLY
  try {
    return decode()
  } finally {
    if (crypto.kzg === DECODE_ONLY) crypto.kzg = undefined
  }
}
