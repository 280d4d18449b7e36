import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from '../runtime/testing.ts'
import { CliError } from './cliError.ts'
import { exportNodeKey, type PublicKeyOptions, parsePublicKeyOptions } from './publicKeyCommand.ts'

// Besu's first dev account.
const KEY = '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63'
const PUBLIC_KEY =
  '0x09b02f8a5fddd222ade4ea4528faefc399623af3f736be3c44f03e2df22fb792f3931a4d9573d333ca74343305762a753388c3422a86d98b713fc91c1ea04842'
const ADDRESS = '0xfe3b557e8fb62b89f4916b721be55ceb828dbd73'

const dirs: string[] = []
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'basalt-public-key-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

function options(overrides: Partial<PublicKeyOptions>): PublicKeyOptions {
  return { subcommand: 'export', dataPath: tempDir(), curve: 'secp256k1', ...overrides }
}

function expectCliError(fn: () => unknown, message: string, exitCode: number): void {
  let error: unknown
  try {
    fn()
  } catch (err) {
    error = err
  }
  expect(error).toBeInstanceOf(CliError)
  expect((error as CliError).message).toContain(message)
  expect((error as CliError).exitCode).toBe(exitCode)
}

describe('parsePublicKeyOptions', () => {
  it('defaults to secp256k1 and the basalt-data directory', () => {
    expect(parsePublicKeyOptions('export-address', {})).toEqual({
      subcommand: 'export-address',
      dataPath: 'basalt-data',
      keyFile: undefined,
      curve: 'secp256k1',
      to: undefined,
    })
  })

  it('names an unknown subcommand and an unknown curve', () => {
    expectCliError(() => parsePublicKeyOptions('import', {}), 'Unknown public-key subcommand: import', 2)
    expectCliError(
      () => parsePublicKeyOptions('export', { ecCurve: 'ed25519' }),
      '--ec-curve: ed25519 is not in the list of valid elliptic curves [secp256k1, secp256r1]',
      2,
    )
    expect(parsePublicKeyOptions('export', { ecCurve: 'secp256r1' }).curve).toBe('secp256r1')
  })
})

describe('exportNodeKey', () => {
  it('exports the public key and the address of a key file', () => {
    const keyFile = path.join(tempDir(), 'nodekey')
    fs.writeFileSync(keyFile, KEY)
    expect(exportNodeKey(options({ keyFile }))).toBe(PUBLIC_KEY)
    expect(exportNodeKey(options({ keyFile, subcommand: 'export-address' }))).toBe(ADDRESS)
  })

  it('creates DATA_PATH/key when absent and exports the same key afterwards', () => {
    const dataPath = tempDir()
    const first = exportNodeKey(options({ dataPath }))
    expect(fs.existsSync(path.join(dataPath, 'key'))).toBe(true)
    expect(exportNodeKey(options({ dataPath }))).toBe(first)
  })

  it('refuses a key file that does not exist, without creating it', () => {
    const keyFile = path.join(tempDir(), 'missing')
    expectCliError(() => exportNodeKey(options({ keyFile })), `Private key file ${keyFile} doesn't exist`, 1)
    expect(fs.existsSync(keyFile)).toBe(false)
  })

  it('refuses a key file that holds no key', () => {
    const keyFile = path.join(tempDir(), 'nodekey')
    fs.writeFileSync(keyFile, 'not a key')
    expectCliError(() => exportNodeKey(options({ keyFile })), 'does not hold a private key', 1)
  })
})
