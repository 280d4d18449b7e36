import { ecrecover } from '@ethereumjs/util'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { nativeSecp256k1 } from '../runtime/nativeSecp256k1.ts'
import { describe, expect, it } from '../runtime/testing.ts'
import { nativeEcrecover } from './ecrecover.ts'
import { bytesToBigint, bytesToHex, hexToBytes } from './hex.ts'

const N = secp256k1.Point.CURVE().n
const P = secp256k1.Point.CURVE().p

/** A deterministic pseudo-random generator, so that a failure can be replayed. */
function generator(seed: number): () => number {
  let x = seed
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31
    return x / 2 ** 31
  }
}

function bytes(rand: () => number, n: number): Uint8Array {
  const b = new Uint8Array(n)
  for (let i = 0; i < n; i++) b[i] = Math.floor(rand() * 256)
  return b
}

function word(x: bigint, length = 32): Uint8Array {
  return hexToBytes(`0x${x.toString(16).padStart(length * 2, '0')}`)
}

type Outcome = { key: string } | { error: string }

function outcome(fn: () => Uint8Array): Outcome {
  try {
    return { key: bytesToHex(fn()) }
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) }
  }
}

interface Case {
  hash: Uint8Array
  v: bigint
  r: Uint8Array
  s: Uint8Array
  chainId?: bigint
}

/** A signature of a random hash by a random key: the key, r, s and the recovery bit. */
function signed(rand: () => number): { key: Uint8Array; hash: Uint8Array; r: bigint; s: bigint; recovery: number } {
  let key = bytes(rand, 32)
  while (!secp256k1.utils.isValidSecretKey(key)) key = bytes(rand, 32)
  const hash = bytes(rand, 32)
  const sig = secp256k1.Signature.fromBytes(
    secp256k1.sign(hash, key, { prehash: false, format: 'recovered' }),
    'recovered',
  )
  return { key, hash, r: sig.r, s: sig.s, recovery: sig.recovery! }
}

/** Valid signatures and the ways a signature can be wrong, in turn. */
function cases(rand: () => number, count: number): Case[] {
  const out: Case[] = []
  for (let i = 0; i < count; i++) {
    const { hash, r, s, recovery } = signed(rand)
    const chainId = BigInt(1 + Math.floor(rand() * 100_000))
    const v = 27n + BigInt(recovery)
    const flip = 27n + BigInt(1 - recovery)
    const variants: Case[] = [
      { hash, v, r: word(r), s: word(s) },
      { hash, v: BigInt(recovery), r: word(r), s: word(s) },
      { hash, v: 35n + 2n * chainId + BigInt(recovery), r: word(r), s: word(s), chainId },
      { hash, v: BigInt(recovery), r: word(r), s: word(s), chainId },
      // High s: the same key with the other recovery bit (the transaction layer refuses it, not ecrecover).
      { hash, v: flip, r: word(r), s: word(N - s) },
      // Bad v: neither 27/28 nor 0/1, or the wrong chain id.
      { hash, v: 29n, r: word(r), s: word(s) },
      { hash, v: 26n, r: word(r), s: word(s) },
      { hash, v: 35n + 2n * chainId + BigInt(recovery), r: word(r), s: word(s), chainId: chainId + 1n },
      { hash, v: 2n, r: word(r), s: word(s) },
      // The wrong recovery bit, a tampered hash: another key or none.
      { hash, v: flip, r: word(r), s: word(s) },
      { hash: bytes(rand, 32), v, r: word(r), s: word(s) },
      // r and s out of range, zero, or short (leading zero bytes left out), or too long.
      { hash, v, r: word(0n), s: word(s) },
      { hash, v, r: word(r), s: word(0n) },
      { hash, v, r: word(N), s: word(s) },
      { hash, v, r: word(r), s: word(N) },
      { hash, v, r: word(N + 1n), s: word(s) },
      { hash, v, r: word(r), s: word(N + 5n) },
      { hash, v, r: word(2n ** 256n - 1n), s: word(s) },
      { hash, v, r: word(P - 1n), s: word(s) },
      { hash, v, r: word(r).subarray(1), s: word(s) },
      { hash, v, r: new Uint8Array(0), s: word(s) },
      { hash, v, r: word(r, 33), s: word(s) },
      { hash, v, r: word(r), s: word(s, 33) },
      // A random r (often not the x of a curve point), a hash of the wrong length, a hash above n.
      { hash, v, r: bytes(rand, 32), s: word(s) },
      { hash: hash.subarray(0, 31), v, r: word(r), s: word(s) },
      { hash: word(N + bytesToBigint(hash.subarray(0, 4))), v, r: word(r), s: word(s) },
    ]
    out.push(...variants)
  }
  return out
}

describe('native ecrecover', () => {
  const native = nativeEcrecover()

  it('loads the addon under Bun on the platforms it ships for', () => {
    const isShipped = ['linux-x64', 'darwin-arm64', 'win32-x64'].includes(`${process.platform}-${process.arch}`)
    if (typeof Bun !== 'undefined' && isShipped) expect(nativeSecp256k1()).toBeDefined()
  })

  it('gives the library’s key or the library’s error on valid and invalid signatures alike', () => {
    if (!native) return
    const rand = generator(7)
    let keys = 0
    for (const c of cases(rand, 40)) {
      const expected = outcome(() => ecrecover(c.hash, c.v, c.r, c.s, c.chainId))
      expect(outcome(() => native(c.hash, c.v, c.r, c.s, c.chainId))).toEqual(expected)
      if ('key' in expected) keys++
    }
    // Both sides of the comparison were exercised.
    expect(keys).toBeGreaterThan(40 * 4)
    expect(keys).toBeLessThan(40 * 26)
  })

  it('recovers the signer of a random signature', () => {
    if (!native) return
    const rand = generator(11)
    for (let i = 0; i < 20; i++) {
      const { key, hash, r, s, recovery } = signed(rand)
      const recovered = native(hash, 27n + BigInt(recovery), word(r), word(s))
      expect(bytesToHex(recovered)).toBe(bytesToHex(secp256k1.getPublicKey(key, false).subarray(1)))
    }
  })
})
