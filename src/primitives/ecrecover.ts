/**
 * Public-key recovery (`ecrecover`) on libsecp256k1's native addon where it loads: about seven
 * times faster than `@noble/curves`, which `@ethereumjs/util` uses. The chain's Common hands it to
 * the transaction library (sender recovery) and the EVM (the ECRECOVER precompile) through
 * `customCrypto.ecrecover`. Only a recovery the addon completes is answered by it; anything it
 * refuses goes to the library's own `ecrecover`, so which signatures are refused, and with which
 * error, stays exactly the library's.
 */
import { calculateSigRecovery, ecrecover } from '@ethereumjs/util'
import { type NativeSecp256k1, nativeSecp256k1 } from '../runtime/nativeSecp256k1.ts'

type Ecrecover = (msgHash: Uint8Array, v: bigint, r: Uint8Array, s: Uint8Array, chainId?: bigint) => Uint8Array

/** The native `ecrecover`, or undefined where the addon does not load (the library's stays in use). */
export function nativeEcrecover(): Ecrecover | undefined {
  const native = nativeSecp256k1()
  return native && ((msgHash, v, r, s, chainId) => recover(native, msgHash, v, r, s, chainId))
}

function recover(
  native: NativeSecp256k1,
  msgHash: Uint8Array,
  v: bigint,
  r: Uint8Array,
  s: Uint8Array,
  chainId?: bigint,
): Uint8Array {
  const recovery = calculateSigRecovery(v, chainId)
  if ((recovery === 0n || recovery === 1n) && msgHash.length === 32 && r.length <= 32 && s.length <= 32) {
    const signature = new Uint8Array(64)
    signature.set(r, 32 - r.length)
    signature.set(s, 64 - s.length)
    const publicKey = new Uint8Array(65)
    if (native.ecdsaRecover(publicKey, signature, Number(recovery), msgHash) === 0) return publicKey.slice(1)
  }
  return ecrecover(msgHash, v, r, s, chainId)
}
