import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { decodeBftExtraData, genesisExtraData } from '../consensus/bftExtraData.ts'
import { bytesToHex, type Hex, hexToBytes } from '../primitives/hex.ts'
import { generateKeyPair, keyPairFromPrivateKey, publicKeyToAddress } from '../primitives/nodeKey.ts'
import { afterEach, describe, expect, it } from '../runtime/testing.ts'
import { CliError } from './cliError.ts'
import {
  checkOutputDirectory,
  generateBlockchainConfig,
  type OperatorOptions,
  parseOperatorOptions,
  planBlockchainConfig,
} from './operatorCommand.ts'

// Besu's first two dev accounts.
const KEYS = [
  '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63',
  '0xc87509a1c067bbde78beb793e6fa76530b6382a4c0241e5e4a9ec0a0f44dc0d3',
].map((k) => keyPairFromPrivateKey(hexToBytes(k)))
const PUBLIC_KEYS = KEYS.map((k) => bytesToHex(k.publicKey))
const ADDRESSES: Hex[] = ['0xfe3b557e8fb62b89f4916b721be55ceb828dbd73', '0x627306090abab3a6e1400e9345bc60c78a8bef57']

const QBFT_GENESIS = { config: { chainId: 1337, qbft: { blockperiodseconds: 2 } }, gasLimit: '0x1fffffffffffff' }
const config = (genesis: unknown, nodes: unknown) => JSON.stringify({ genesis, blockchain: { nodes } })
const fixedKeys = () => {
  let i = 0
  return () => KEYS[i++ % KEYS.length]
}

const dirs: string[] = []
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'basalt-operator-'))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

function expectCliError(fn: () => unknown, message: string, exitCode: number): void {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(CliError)
    expect((err as CliError).message).toContain(message)
    expect((err as CliError).exitCode).toBe(exitCode)
    return
  }
  throw new Error(`expected a CliError containing: ${message}`)
}

describe('parseOperatorOptions', () => {
  const base = { configFile: 'c.json', to: 'out', genesisFileName: 'genesis.json', privateKeyFileName: 'key.priv' }
  const full = { ...base, publicKeyFileName: 'key.pub' }

  it('reads the file names and output directory', () => {
    expect(parseOperatorOptions(full)).toEqual({
      configFile: 'c.json',
      outputDir: 'out',
      genesisFileName: 'genesis.json',
      privateKeyFileName: 'key.priv',
      publicKeyFileName: 'key.pub',
    })
  })

  it('requires --config-file and --to', () => {
    expectCliError(() => parseOperatorOptions({ ...full, configFile: undefined }), '--config-file', 2)
    expectCliError(() => parseOperatorOptions({ ...full, to: undefined }), '--to', 2)
  })

  it('refuses two output files with the same name', () => {
    const message = 'Output file paths must be unique (got genesis.json, key.priv, key.priv)'
    expectCliError(() => parseOperatorOptions({ ...full, publicKeyFileName: 'key.priv' }), message, 2)
    expectCliError(() => parseOperatorOptions({ ...full, genesisFileName: 'key.pub' }), 'must be unique', 2)
  })

  it('refuses a genesis file named like the keys directory', () => {
    expectCliError(() => parseOperatorOptions({ ...full, genesisFileName: 'keys' }), "cannot be 'keys'", 2)
  })
})

describe('planBlockchainConfig', () => {
  it('generates count key pairs and lists their addresses in QBFT extraData', () => {
    const plan = planBlockchainConfig(config(QBFT_GENESIS, { generate: true, count: 2 }), 'c', fixedKeys())
    expect(plan.kind).toBe('qbft')
    expect(plan.nodes.map((n) => bytesToHex(n.address))).toEqual(ADDRESSES)
    expect(plan.nodes.every((n) => n.privateKey !== undefined)).toBe(true)
    const extraData = plan.genesis.get('extraData') as string
    expect(extraData).toBe(bytesToHex(genesisExtraData('qbft', ADDRESSES.map(hexToBytes))))
  })

  it('imports public keys, with or without 0x, and keeps no private key', () => {
    const keys = [PUBLIC_KEYS[0], PUBLIC_KEYS[1].slice(2)]
    const plan = planBlockchainConfig(config(QBFT_GENESIS, { keys }), 'c')
    expect(plan.nodes.map((n) => bytesToHex(n.address))).toEqual(ADDRESSES)
    expect(plan.nodes.some((n) => n.privateKey)).toBe(false)
  })

  it('writes IBFT 2.0 extraData for an ibft2 config, matching keys case-insensitively', () => {
    const genesis = { config: { chainId: 1, IBFT2: {} } }
    const plan = planBlockchainConfig(config(genesis, { keys: PUBLIC_KEYS }), 'c')
    expect(plan.kind).toBe('ibft2')
    const extraData = hexToBytes(plan.genesis.get('extraData') as string)
    expect(decodeBftExtraData('ibft2', extraData).validators.map(bytesToHex)).toEqual(ADDRESSES)
  })

  it('replaces an existing extraData in place and appends a new one at the end', () => {
    const existing = planBlockchainConfig(config({ extraData: '0x', ...QBFT_GENESIS }, { keys: PUBLIC_KEYS }), 'c')
    const added = planBlockchainConfig(config(QBFT_GENESIS, { keys: PUBLIC_KEYS }), 'c')
    expect([...existing.genesis.keys()]).toEqual(['extraData', 'config', 'gasLimit'])
    expect([...added.genesis.keys()]).toEqual(['config', 'gasLimit', 'extraData'])
  })

  it('leaves the extraData alone when the config names neither ibft2 nor qbft', () => {
    const plan = planBlockchainConfig(config({ config: { chainId: 1 } }, { keys: PUBLIC_KEYS }), 'c')
    expect(plan.kind).toBeUndefined()
    expect(plan.genesis.has('extraData')).toBe(false)
  })

  it('generates and checks keys on secp256r1 when ecCurve asks for it', () => {
    const genesis = { config: { ...QBFT_GENESIS.config, ecCurve: 'secp256r1' } }
    const plan = planBlockchainConfig(config(genesis, { generate: true, count: 1 }), 'c')
    expect(plan.curve).toBe('secp256r1')
    const r1 = bytesToHex(generateKeyPair('secp256r1').publicKey)
    expect(planBlockchainConfig(config(genesis, { keys: [r1] }), 'c').nodes.length).toBe(1)
    expectCliError(() => planBlockchainConfig(config(QBFT_GENESIS, { keys: [r1] }), 'c'), 'secp256k1', 1)
  })

  it('refuses an unknown ecCurve, and a known one spelled in another case, as Besu does', () => {
    for (const ecCurve of ['ed25519', 'SECP256R1']) {
      const genesis = { config: { ...QBFT_GENESIS.config, ecCurve } }
      expectCliError(
        () => planBlockchainConfig(config(genesis, { keys: PUBLIC_KEYS }), 'c'),
        `Invalid parameter for ecCurve in genesis config: ${ecCurve} is not in the list of valid elliptic curves [secp256k1, secp256r1]`,
        1,
      )
    }
  })

  it('refuses text that is not JSON, naming the file and the position', () => {
    expectCliError(() => planBlockchainConfig('{"genesis": ', 'c.json'), 'Config file c.json is not valid JSON', 1)
    expectCliError(() => planBlockchainConfig('{\n  "a": tru }', 'c.json'), 'line 2, column 8', 1)
  })

  it('refuses JSON that is not an object', () => {
    expectCliError(() => planBlockchainConfig('[]', 'c.json'), 'must hold a JSON object', 1)
  })

  it('refuses a config file without genesis.config', () => {
    const missing = 'Missing config section in config file c (genesis.config)'
    expectCliError(() => planBlockchainConfig(config({ alloc: {} }, { keys: PUBLIC_KEYS }), 'c'), missing, 1)
    expectCliError(() => planBlockchainConfig(JSON.stringify({ blockchain: {} }), 'c'), missing, 1)
    expectCliError(() => planBlockchainConfig(config({ config: 5 }, {}), 'c'), 'must be a JSON object', 1)
  })

  it('refuses a count below 1 or not an integer', () => {
    for (const count of [0, -1, 1.5, '2', null]) {
      const text = config(QBFT_GENESIS, { generate: true, count })
      expectCliError(() => planBlockchainConfig(text, 'c'), 'count must be an integer of at least 1', 1)
    }
  })

  it('refuses nodes that neither generate nor list keys, and an empty key list', () => {
    expectCliError(() => planBlockchainConfig(config(QBFT_GENESIS, {}), 'c'), '"generate": true', 1)
    expectCliError(() => planBlockchainConfig(config(QBFT_GENESIS, { keys: [] }), 'c'), 'non-empty array', 1)
    expectCliError(() => planBlockchainConfig(config(QBFT_GENESIS, { generate: 'yes' }), 'c'), 'true or false', 1)
  })

  it('refuses a public key that is malformed, off the curve or listed twice', () => {
    const offCurve = PUBLIC_KEYS[0].slice(0, -1) + (PUBLIC_KEYS[0].endsWith('2') ? '3' : '2')
    const cases: [unknown[], string][] = [
      [['0x1234'], 'keys[0] is not a public key'],
      [[PUBLIC_KEYS[0], 42], 'keys[1] is not a public key'],
      [[offCurve], 'is not a valid public key for elliptic curve secp256k1'],
      [[PUBLIC_KEYS[0], PUBLIC_KEYS[0]], 'twice'],
    ]
    for (const [keys, message] of cases) {
      expectCliError(() => planBlockchainConfig(config(QBFT_GENESIS, { keys }), 'c'), message, 1)
    }
  })
})

describe('checkOutputDirectory', () => {
  it('accepts a missing or empty directory', () => {
    const dir = tempDir()
    checkOutputDirectory(dir)
    checkOutputDirectory(path.join(dir, 'new'))
  })

  it('refuses a non-empty directory and a file', () => {
    const dir = tempDir()
    fs.writeFileSync(path.join(dir, 'x'), '')
    expectCliError(() => checkOutputDirectory(dir), `Output directory already exists and is not empty: ${dir}`, 1)
    expectCliError(() => checkOutputDirectory(path.join(dir, 'x')), 'is not a directory', 1)
  })
})

describe('generateBlockchainConfig', () => {
  function setup(text: string): OperatorOptions {
    const dir = tempDir()
    fs.writeFileSync(path.join(dir, 'config.json'), text)
    return {
      configFile: path.join(dir, 'config.json'),
      outputDir: path.join(dir, 'out'),
      genesisFileName: 'genesis.json',
      privateKeyFileName: 'key.priv',
      publicKeyFileName: 'key.pub',
    }
  }

  it('writes keys/<address>/key.pub and key.priv that belong together', () => {
    const options = setup(config(QBFT_GENESIS, { generate: true, count: 3 }))
    generateBlockchainConfig(options)
    const keysDir = path.join(options.outputDir, 'keys')
    const addresses = fs.readdirSync(keysDir)
    expect(addresses.length).toBe(3)
    for (const address of addresses) {
      const pub = fs.readFileSync(path.join(keysDir, address, 'key.pub'), 'utf8')
      const priv = fs.readFileSync(path.join(keysDir, address, 'key.priv'), 'utf8')
      expect(pub).toMatch(/^0x[0-9a-f]{128}$/)
      expect(priv).toMatch(/^0x[0-9a-f]{64}$/)
      expect(bytesToHex(keyPairFromPrivateKey(hexToBytes(priv)).publicKey)).toBe(pub as `0x${string}`)
      expect(bytesToHex(publicKeyToAddress(hexToBytes(pub)))).toBe(address as `0x${string}`)
    }
  })

  it('writes the genesis pretty-printed as Besu does, with its extraData last', () => {
    const genesis = { config: { chainId: 1337, qbft: { blockperiodseconds: 2 } }, alloc: {}, nonce: '0x0' }
    const options = setup(config(genesis, { keys: [PUBLIC_KEYS[0]] }))
    generateBlockchainConfig(options)
    const extraData = bytesToHex(genesisExtraData('qbft', [hexToBytes(ADDRESSES[0])]))
    expect(fs.readFileSync(path.join(options.outputDir, 'genesis.json'), 'utf8')).toBe(
      `{\n  "config" : {\n    "chainId" : 1337,\n    "qbft" : {\n      "blockperiodseconds" : 2\n    }\n  },\n` +
        `  "alloc" : { },\n  "nonce" : "0x0",\n  "extraData" : "${extraData}"\n}`,
    )
    expect(fs.existsSync(path.join(options.outputDir, 'keys', ADDRESSES[0], 'key.priv'))).toBe(false)
  })

  it('uses the given file names', () => {
    const options = { ...setup(config(QBFT_GENESIS, { generate: true, count: 1 })), genesisFileName: 'g.json' }
    generateBlockchainConfig({ ...options, privateKeyFileName: 'priv', publicKeyFileName: 'pub' })
    const [address] = fs.readdirSync(path.join(options.outputDir, 'keys'))
    expect(fs.readdirSync(path.join(options.outputDir, 'keys', address)).sort()).toEqual(['priv', 'pub'])
    expect(fs.existsSync(path.join(options.outputDir, 'g.json'))).toBe(true)
  })

  it('writes nothing when the config is refused', () => {
    const options = setup(config(QBFT_GENESIS, { keys: ['0x12'] }))
    expect(() => generateBlockchainConfig(options)).toThrow(CliError)
    expect(fs.existsSync(options.outputDir)).toBe(false)
  })

  it('names a config file it cannot read', () => {
    const options = setup('{}')
    const missing = { ...options, configFile: path.join(options.outputDir, 'nope.json') }
    expectCliError(() => generateBlockchainConfig(missing), `Cannot read config file ${missing.configFile}`, 1)
  })
})
