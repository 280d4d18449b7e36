/**
 * The dev chain's pre-funded accounts: Besu's three dev.json accounts, then the ten accounts of the
 * standard test mnemonic `test test test test test test test test test test test junk`
 * (m/44'/60'/0'/0/i), the keys every Ethereum tool's dev chain ships. Addresses are written out,
 * not derived at start: the first public-key derivation builds secp256k1's tables (tens of ms);
 * a test checks them against the keys.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex } from '../primitives/hex.ts'

export const TEST_MNEMONIC = 'test test test test test test test test test test test junk'

/** [private key, address] */
const BESU_DEV_KEYS: [string, string][] = [
  ['0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63', '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73'],
  ['0xc87509a1c067bbde78beb793e6fa76530b6382a4c0241e5e4a9ec0a0f44dc0d3', '0x627306090abab3a6e1400e9345bc60c78a8bef57'],
  ['0xae6ae8e5ccbfb04590405997ee2d52d2b330726137b875053c36d94e974d162f', '0xf17f52151ebef6c7334fad080c5704d77216b732'],
]

const MNEMONIC_KEYS: [string, string][] = [
  ['0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80', '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266'],
  ['0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d', '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'],
  ['0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a', '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc'],
  ['0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6', '0x90f79bf6eb2c4f870365e785982e1f101e93b906'],
  ['0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a', '0x15d34aaf54267db7d7c367839aaf71a00a2c6a65'],
  ['0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba', '0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc'],
  ['0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e', '0x976ea74026e726554db657fa54763abd0c3a0aa9'],
  ['0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356', '0x14dc79964da2c08b23698b3d3cc7ca32193d9955'],
  ['0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97', '0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f'],
  ['0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6', '0xa0ee7a142d267c1f36714e4a8f75612f20a79720'],
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
    ...BESU_DEV_KEYS.map(([privateKey, address]) => ({ address, privateKey, source: 'besu-dev' as const })),
    ...MNEMONIC_KEYS.map(([privateKey, address]) => ({ address, privateKey, source: 'test-mnemonic' as const })),
  ]
  return cached
}

export const DEV_ACCOUNT_BALANCE_WEI = 10_000n * 10n ** 18n
