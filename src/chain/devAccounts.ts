/**
 * The dev chain's pre-funded accounts: Besu's three dev.json accounts, then the ten accounts of the
 * standard test mnemonic `test test test test test test test test test test test junk`
 * (m/44'/60'/0'/0/i), the keys every Ethereum tool's dev chain ships. Addresses are derived.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'

export const TEST_MNEMONIC = 'test test test test test test test test test test test junk'

const BESU_DEV_KEYS = [
  '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63',
  '0xc87509a1c067bbde78beb793e6fa76530b6382a4c0241e5e4a9ec0a0f44dc0d3',
  '0xae6ae8e5ccbfb04590405997ee2d52d2b330726137b875053c36d94e974d162f',
]

const MNEMONIC_KEYS = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
  '0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e',
  '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356',
  '0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97',
  '0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6',
]

export interface DevAccount {
  address: string
  privateKey: string
  source: 'besu-dev' | 'test-mnemonic'
}

/** Address (0x + 40 lower-case hex) of a secp256k1 private key. */
export function addressOfKey(privateKey: Uint8Array): string {
  const pub = secp256k1.getPublicKey(privateKey, false)
  return bytesToHex(keccak_256(pub.subarray(1)).subarray(12))
}

let cached: DevAccount[] | undefined

/** The thirteen dev accounts, Besu's first. */
export function devAccounts(): DevAccount[] {
  cached ??= [
    ...BESU_DEV_KEYS.map((k) => ({ address: addressOfKey(hexToBytes(k)), privateKey: k, source: 'besu-dev' as const })),
    ...MNEMONIC_KEYS.map((k) => ({ address: addressOfKey(hexToBytes(k)), privateKey: k, source: 'test-mnemonic' as const })),
  ]
  return cached
}

export const DEV_ACCOUNT_BALANCE_WEI = 10_000n * 10n ** 18n
