import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { afterEach, describe, expect, it } from '../runtime/testing.ts'
import { bytesToHex, hexToBytes } from './hex.ts'
import {
  generateKeyPair,
  genesisEcCurve,
  isValidPublicKey,
  keyPairFromPrivateKey,
  loadOrCreateNodeKey,
  parseEcCurve,
  publicKeyToAddress,
  readNodeKeyFile,
} from './nodeKey.ts'

// Besu's first dev account.
const DEV_KEY = '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63'
const DEV_ADDRESS = '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73'

const dirs: string[] = []
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'basalt-nodekey-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

describe('parseEcCurve', () => {
  it('knows secp256k1 and secp256r1, spelled as Besu spells them', () => {
    expect(parseEcCurve('secp256k1')).toBe('secp256k1')
    expect(parseEcCurve('secp256r1')).toBe('secp256r1')
    expect(parseEcCurve('SECP256R1')).toBeUndefined()
    expect(parseEcCurve('ed25519')).toBeUndefined()
  })
})

describe('genesisEcCurve', () => {
  it('reads ecCurve from a genesis config, secp256k1 when absent', () => {
    expect(genesisEcCurve({ chainId: 1 })).toBe('secp256k1')
    expect(genesisEcCurve({ chainId: 1, ecCurve: null })).toBe('secp256k1')
    expect(genesisEcCurve({ chainId: 1, ecCurve: 'secp256r1' })).toBe('secp256r1')
  })

  it('refuses a curve it does not know with the message Besu gives at start', () => {
    expect(() => genesisEcCurve({ ecCurve: 'abcd' })).toThrow(
      'Invalid genesis file configuration for ecCurve. abcd is not in the list of valid elliptic curves [secp256k1, secp256r1]',
    )
  })
})

describe('keyPairFromPrivateKey', () => {
  it('derives the public key whose address is the known one', () => {
    const { publicKey } = keyPairFromPrivateKey(hexToBytes(DEV_KEY))
    expect(publicKey.length).toBe(64)
    expect(bytesToHex(publicKeyToAddress(publicKey))).toBe(DEV_ADDRESS)
  })

  it('refuses zero and the group order', () => {
    expect(() => keyPairFromPrivateKey(new Uint8Array(32))).toThrow('not a valid secp256k1 private key')
    const order = hexToBytes('0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141')
    expect(() => keyPairFromPrivateKey(order)).toThrow()
  })
})

describe('generateKeyPair', () => {
  it('makes distinct valid keys on both curves', () => {
    for (const curve of ['secp256k1', 'secp256r1'] as const) {
      const a = generateKeyPair(curve)
      const b = generateKeyPair(curve)
      expect(a.privateKey.length).toBe(32)
      expect(isValidPublicKey(a.publicKey, curve)).toBe(true)
      expect(bytesToHex(a.privateKey)).not.toBe(bytesToHex(b.privateKey))
      expect(keyPairFromPrivateKey(a.privateKey, curve).publicKey).toEqual(a.publicKey)
    }
  })
})

describe('isValidPublicKey', () => {
  it('refuses a point that is not on the curve and a key of the wrong length', () => {
    const { publicKey } = generateKeyPair('secp256k1')
    const moved = publicKey.slice()
    moved[63] ^= 1
    expect(isValidPublicKey(moved)).toBe(false)
    expect(isValidPublicKey(publicKey.slice(1))).toBe(false)
  })

  it('tells the curves apart', () => {
    const { publicKey } = generateKeyPair('secp256r1')
    expect(isValidPublicKey(publicKey, 'secp256r1')).toBe(true)
    expect(isValidPublicKey(publicKey, 'secp256k1')).toBe(false)
  })
})

describe('publicKeyToAddress', () => {
  it('takes the last 20 bytes of the keccak-256 of the 64-byte key, on secp256r1 too', () => {
    const { publicKey } = generateKeyPair('secp256r1')
    expect(publicKeyToAddress(publicKey)).toEqual(keccak_256(publicKey).slice(12))
  })
})

describe('loadOrCreateNodeKey', () => {
  it('creates DATA_PATH/key with 0x and 64 hex digits, readable by its owner only', () => {
    const dir = tempDir()
    const key = loadOrCreateNodeKey(dir)
    const file = path.join(dir, 'key')
    expect(fs.readFileSync(file, 'utf8')).toBe(bytesToHex(key.privateKey))
    expect(fs.readFileSync(file, 'utf8')).toMatch(/^0x[0-9a-f]{64}$/)
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
  })

  it('returns the same key on the next start', () => {
    const dir = tempDir()
    expect(loadOrCreateNodeKey(dir)).toEqual(loadOrCreateNodeKey(dir))
  })

  it('creates a missing data directory', () => {
    const dir = path.join(tempDir(), 'a', 'b')
    loadOrCreateNodeKey(dir)
    expect(fs.existsSync(path.join(dir, 'key'))).toBe(true)
  })

  it('reads a given key file, with or without 0x and with a trailing newline', () => {
    const dir = tempDir()
    const file = path.join(dir, 'node.key')
    fs.writeFileSync(file, `${DEV_KEY.slice(2)}\n`)
    expect(bytesToHex(publicKeyToAddress(loadOrCreateNodeKey(':memory:', file).publicKey))).toBe(DEV_ADDRESS)
    expect(fs.existsSync(path.join(dir, 'key'))).toBe(false)
  })

  it('creates a given key file that does not exist yet, and reads it on the next start', () => {
    const file = path.join(tempDir(), 'keys', 'node.key')
    const created = loadOrCreateNodeKey(':memory:', file)
    expect(fs.readFileSync(file, 'utf8')).toBe(bytesToHex(created.privateKey))
    expect(loadOrCreateNodeKey(':memory:', file).publicKey).toEqual(created.publicKey)
  })

  it('derives the public key on the curve it is given', () => {
    const r1 = generateKeyPair('secp256r1')
    const file = path.join(tempDir(), 'key')
    fs.writeFileSync(file, bytesToHex(r1.privateKey))
    expect(loadOrCreateNodeKey(':memory:', file, 'secp256r1').publicKey).toEqual(r1.publicKey)
    expect(loadOrCreateNodeKey(':memory:', file, 'secp256k1').publicKey).not.toEqual(r1.publicKey)
  })

  it('keeps an in-memory node key off the disk', () => {
    const a = loadOrCreateNodeKey(':memory:')
    const b = loadOrCreateNodeKey(':memory:')
    expect(a.publicKey.length).toBe(64)
    expect(a.privateKey).not.toEqual(b.privateKey)
    expect(fs.existsSync(':memory:')).toBe(false)
  })
})

describe('readNodeKeyFile', () => {
  it('names the file when it does not hold a key', () => {
    const file = path.join(tempDir(), 'key')
    fs.writeFileSync(file, 'hello')
    expect(() => readNodeKeyFile(file)).toThrow(`Private key file ${file} does not hold a private key`)
  })

  it('refuses a zero key', () => {
    const file = path.join(tempDir(), 'key')
    fs.writeFileSync(file, `0x${'0'.repeat(64)}`)
    expect(() => readNodeKeyFile(file)).toThrow('does not hold a valid secp256k1 private key')
  })

  it('names the file when it cannot be read', () => {
    const dir = tempDir()
    expect(() => readNodeKeyFile(dir)).toThrow(`Cannot read private key file ${dir}`)
  })
})
