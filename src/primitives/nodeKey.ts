/**
 * Node and validator keys: secp256k1 (the default) or secp256r1 key pairs, public keys as the 64 bytes
 * x‖y without the 0x04 prefix, the address derived from them (last 20 bytes of their keccak-256, on
 * either curve), and the node key file: `0x` + 64 hex digits, `DATA_PATH/key` unless a file is given.
 */
import fs from 'node:fs'
import path from 'node:path'
import { p256 } from '@noble/curves/nist.js'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex, hexToBytes } from './hex.ts'

export type EcCurve = 'secp256k1' | 'secp256r1'

export const EC_CURVES: readonly EcCurve[] = ['secp256k1', 'secp256r1']
export const DEFAULT_EC_CURVE: EcCurve = 'secp256k1'
/** The `--data-path` value of a throw-away node: its key lives in memory only. */
export const IN_MEMORY_DATA_PATH = ':memory:'

export interface KeyPair {
  privateKey: Uint8Array
  /** 64 bytes: x‖y, no 0x04 prefix. */
  publicKey: Uint8Array
}

const CURVES = { secp256k1, secp256r1: p256 }
const PRIVATE_KEY_TEXT = /^(0x)?[0-9a-fA-F]{64}$/

/** The curve named `name`, or undefined when it is not supported; the name is case-sensitive, as in Besu. */
export function parseEcCurve(name: string): EcCurve | undefined {
  return EC_CURVES.find((c) => c === name)
}

/** Besu's reason for refusing a curve name. */
export function unknownEcCurveReason(name: string): string {
  return `${name} is not in the list of valid elliptic curves [${EC_CURVES.join(', ')}]`
}

/**
 * The curve of a chain's keys, from `ecCurve` in its genesis `config` (secp256k1 when absent); throws
 * Besu's start-up message for a curve it does not know.
 */
export function genesisEcCurve(config: Record<string, unknown>): EcCurve {
  const value = config.ecCurve
  if (value === undefined || value === null) return DEFAULT_EC_CURVE
  const curve = parseEcCurve(String(value))
  if (!curve) throw new Error(`Invalid genesis file configuration for ecCurve. ${unknownEcCurveReason(String(value))}`)
  return curve
}

/** A fresh random key pair on `curve`. */
export function generateKeyPair(curve: EcCurve = DEFAULT_EC_CURVE): KeyPair {
  return keyPairFromPrivateKey(CURVES[curve].utils.randomSecretKey(), curve)
}

/** The key pair of a 32-byte private key; throws when it is not a valid scalar of `curve`. */
export function keyPairFromPrivateKey(privateKey: Uint8Array, curve: EcCurve = DEFAULT_EC_CURVE): KeyPair {
  if (!CURVES[curve].utils.isValidSecretKey(privateKey)) throw new Error(`not a valid ${curve} private key`)
  // Derived on first read: the first derivation builds the curve's tables (~60 ms), which a node
  // starting up only needs if admin_nodeInfo is asked for.
  let publicKey: Uint8Array | undefined
  return {
    privateKey,
    get publicKey() {
      publicKey ??= CURVES[curve].getPublicKey(privateKey, false).slice(1)
      return publicKey
    },
  }
}

/** True when `publicKey` is 64 bytes x‖y of a point on `curve`. */
export function isValidPublicKey(publicKey: Uint8Array, curve: EcCurve = DEFAULT_EC_CURVE): boolean {
  if (publicKey.length !== 64) return false
  const prefixed = new Uint8Array(65)
  prefixed[0] = 4
  prefixed.set(publicKey, 1)
  return CURVES[curve].utils.isValidPublicKey(prefixed, false)
}

/** The 20-byte address of a 64-byte public key: the last 20 bytes of its keccak-256. */
export function publicKeyToAddress(publicKey: Uint8Array): Uint8Array {
  if (publicKey.length !== 64) throw new Error(`public key is ${publicKey.length} bytes, expected 64`)
  return keccak_256(publicKey).slice(12)
}

/**
 * The node's key: read from `keyFile` (default `dataPath/key`), which is created with a new key
 * (mode 0600) when absent; with the data path `:memory:` and no file, a new key that is never stored.
 */
export function loadOrCreateNodeKey(dataPath: string, keyFile?: string, curve: EcCurve = DEFAULT_EC_CURVE): KeyPair {
  if (keyFile === undefined && dataPath === IN_MEMORY_DATA_PATH) return generateKeyPair(curve)
  const file = keyFile ?? path.join(dataPath, 'key')
  if (fs.existsSync(file)) return readNodeKeyFile(file, curve)
  const keyPair = generateKeyPair(curve)
  writePrivateKeyFile(file, keyPair.privateKey)
  return keyPair
}

/** Reads a private key file (`0x` + 64 hex digits, one line); throws a message naming the file. */
export function readNodeKeyFile(file: string, curve: EcCurve = DEFAULT_EC_CURVE): KeyPair {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8').trim()
  } catch (err) {
    throw new Error(`Cannot read private key file ${file}: ${(err as Error).message}`)
  }
  if (!PRIVATE_KEY_TEXT.test(text)) {
    throw new Error(`Private key file ${file} does not hold a private key (expected 0x followed by 64 hex digits)`)
  }
  try {
    return keyPairFromPrivateKey(hexToBytes(text), curve)
  } catch {
    throw new Error(`Private key file ${file} does not hold a valid ${curve} private key`)
  }
}

/** Writes `0x` + 64 hex digits to a new file readable by its owner only; never overwrites. */
export function writePrivateKeyFile(file: string, privateKey: Uint8Array): void {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, bytesToHex(privateKey), { mode: 0o600, flag: 'wx' })
}

/** A 65-byte secp256k1 signature r‖s‖v (v the recovery id 0/1), as Besu writes seals and messages. */
export function signHash(hash: Uint8Array, privateKey: Uint8Array): Uint8Array {
  return reorderRecovered(secp256k1.sign(hash, privateKey, { prehash: false, format: 'recovered' }))
}

/** noble's recovered format puts the recovery id first; the wire puts it last. */
function reorderRecovered(sig: Uint8Array): Uint8Array {
  const out = new Uint8Array(65)
  out.set(sig.subarray(1), 0)
  out[64] = sig[0]
  return out
}
