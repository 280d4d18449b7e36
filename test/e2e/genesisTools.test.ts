import { afterAll, describe, expect, it } from 'bun:test'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bytesToHex, hexToBytes } from '../../src/primitives/hex.ts'
import { BASALT_BIN, startNode } from './harness.ts'

const VALIDATORS = ['be068f726a13c8d46c44be6ce9d275600e1735a4', '0x5ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193']
const IBFT_VECTOR =
  '0xf853a00000000000000000000000000000000000000000000000000000000000000000ea94be068f726a13c8d46c44be6ce9d275600e1735a4945ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193808400000000c0'
const QBFT_VECTOR =
  '0xf84fa00000000000000000000000000000000000000000000000000000000000000000ea94be068f726a13c8d46c44be6ce9d275600e1735a4945ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193c080c0'
// Besu's first two dev accounts.
const PRIVATE_KEY = '0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63'
const PUBLIC_KEYS = [
  '0x09b02f8a5fddd222ade4ea4528faefc399623af3f736be3c44f03e2df22fb792f3931a4d9573d333ca74343305762a753388c3422a86d98b713fc91c1ea04842',
  '0xaf80b90d25145da28c583359beb47b21796b2fe1a23c1511e443e7a64dfdb27d7434c380f0aa4c500e220aa1a9d068514b1ff4d5019e624e7ba1efe82b340a59',
]
const ADDRESSES = ['0xfe3b557e8fb62b89f4916b721be55ceb828dbd73', '0x627306090abab3a6e1400e9345bc60c78a8bef57']

const GENESIS = {
  config: {
    chainId: 1981,
    londonBlock: 0,
    qbft: { blockperiodseconds: 2, epochlength: 30000, requesttimeoutseconds: 4 },
  },
  nonce: '0x0',
  timestamp: '0x58ee40ba',
  gasLimit: '0x1fffffffffffff',
  difficulty: '0x1',
  mixHash: '0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365',
  coinbase: '0x0000000000000000000000000000000000000000',
  alloc: {},
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'basalt-genesis-tools-'))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))
let counter = 0
/** A fresh directory under the test's temp root. */
function dir(): string {
  const d = path.join(root, String(counter++))
  fs.mkdirSync(d)
  return d
}

interface Result {
  exitCode: number
  stdout: string
  stderr: string
}

/** Runs basalt to its end; a run that has not ended after 15 s is killed (and fails its test). */
async function basalt(args: string[], stdin?: string): Promise<Result> {
  const proc = Bun.spawn([BASALT_BIN, ...args], {
    stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000)
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  clearTimeout(timer)
  return { exitCode, stdout, stderr }
}

/** Runs basalt and expects it to fail with one plain line on stderr. */
async function expectFailure(args: string[], exitCode: number, message: string, stdin?: string): Promise<void> {
  const result = await basalt(args, stdin)
  expect(result.stderr).toStartWith('basalt: ')
  expect(result.stderr).toContain(message)
  expect(result.stderr.trimEnd().split('\n').length).toBe(1)
  expect(result.exitCode).toBe(exitCode)
}

function writeConfig(genesis: unknown, nodes: unknown): string {
  const file = path.join(dir(), 'config.json')
  fs.writeFileSync(file, JSON.stringify({ genesis, blockchain: { nodes } }, null, 2))
  return file
}

async function generate(configFile: string, extra: string[] = []): Promise<string> {
  const to = path.join(dir(), 'network')
  const result = await basalt([
    'operator',
    'generate-blockchain-config',
    `--config-file=${configFile}`,
    `--to=${to}`,
    ...extra,
  ])
  expect(result.stderr).toBe('')
  expect(result.exitCode).toBe(0)
  return to
}

function readGenesis(to: string, name = 'genesis.json'): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(to, name), 'utf8'))
}

describe('basalt operator generate-blockchain-config', () => {
  it('generates keys whose addresses name their directories and fill the QBFT extraData', async () => {
    const to = await generate(writeConfig(GENESIS, { generate: true, count: 4 }))
    const addresses = fs.readdirSync(path.join(to, 'keys')).sort()
    expect(addresses.length).toBe(4)
    for (const address of addresses) {
      expect(address).toMatch(/^0x[0-9a-f]{40}$/)
      const keyFile = path.join(to, 'keys', address, 'key.priv')
      const publicKey = fs.readFileSync(path.join(to, 'keys', address, 'key.pub'), 'utf8')
      expect(fs.readFileSync(keyFile, 'utf8')).toMatch(/^0x[0-9a-f]{64}$/)
      expect(publicKey).toMatch(/^0x[0-9a-f]{128}$/)
      expect((await basalt(['public-key', 'export', `--node-private-key-file=${keyFile}`])).stdout).toBe(
        `${publicKey}\n`,
      )
      expect((await basalt(['public-key', 'export-address', `--node-private-key-file=${keyFile}`])).stdout).toBe(
        `${address}\n`,
      )
    }
    const extraData = readGenesis(to).extraData as string
    const decoded = await basalt(['rlp', 'decode', '--type=QBFT_EXTRA_DATA'], extraData)
    expect(decoded.stdout.trim().slice(1, -1).split(', ').sort()).toEqual(addresses)
  })

  it('imports public keys into an IBFT 2.0 genesis equal to the rlp encode of their addresses', async () => {
    const genesis = { ...GENESIS, config: { chainId: 1981, ibft2: { blockperiodseconds: 2 } } }
    const to = await generate(writeConfig(genesis, { keys: PUBLIC_KEYS }))
    expect(fs.readdirSync(path.join(to, 'keys')).sort()).toEqual([...ADDRESSES].sort())
    expect(fs.readdirSync(path.join(to, 'keys', ADDRESSES[0]))).toEqual(['key.pub'])
    expect(fs.readFileSync(path.join(to, 'keys', ADDRESSES[0], 'key.pub'), 'utf8')).toBe(PUBLIC_KEYS[0])
    const encoded = await basalt(['rlp', 'encode'], JSON.stringify(ADDRESSES))
    expect(readGenesis(to).extraData).toBe(encoded.stdout.trim())
  })

  it('writes the genesis pretty-printed as Besu does, extraData last, under the given names', async () => {
    const to = await generate(writeConfig(GENESIS, { keys: [PUBLIC_KEYS[0]] }), [
      '--genesis-file-name=qbft.json',
      '--public-key-file-name=pub',
    ])
    const text = fs.readFileSync(path.join(to, 'qbft.json'), 'utf8')
    expect(text).toStartWith('{\n  "config" : {\n    "chainId" : 1981,\n    "londonBlock" : 0,\n    "qbft" : {\n')
    expect(text).toContain('\n  "alloc" : { },\n  "extraData" : "0xf83aa0')
    expect(text).toEndWith('"\n}')
    expect(fs.existsSync(path.join(to, 'keys', ADDRESSES[0], 'pub'))).toBe(true)
  })

  it('keeps integers too big for a double exactly as written', async () => {
    const genesis = { ...GENESIS, config: { ...GENESIS.config, terminalTotalDifficulty: 1 } }
    const file = writeConfig(genesis, { keys: [PUBLIC_KEYS[0]] })
    fs.writeFileSync(
      file,
      fs
        .readFileSync(file, 'utf8')
        .replace('"terminalTotalDifficulty": 1', '"terminalTotalDifficulty": 58750000000000000000001'),
    )
    const to = await generate(file)
    expect(fs.readFileSync(path.join(to, 'genesis.json'), 'utf8')).toContain(
      '"terminalTotalDifficulty" : 58750000000000000000001\n  },',
    )
  })

  it('derives secp256r1 keys and addresses from keccak-256 of the public key', async () => {
    const genesis = { ...GENESIS, config: { ...GENESIS.config, ecCurve: 'secp256r1' } }
    const to = await generate(writeConfig(genesis, { generate: true, count: 2 }))
    for (const address of fs.readdirSync(path.join(to, 'keys'))) {
      const publicKey = hexToBytes(fs.readFileSync(path.join(to, 'keys', address, 'key.pub'), 'utf8'))
      expect(bytesToHex(keccak_256(publicKey).slice(12))).toBe(address as `0x${string}`)
      const keyFile = path.join(to, 'keys', address, 'key.priv')
      const exported = await basalt([
        'public-key',
        'export-address',
        '--ec-curve=secp256r1',
        `--node-private-key-file=${keyFile}`,
      ])
      expect(exported.stdout).toBe(`${address}\n`)
    }
  })

  describe('refuses', () => {
    const valid = () => writeConfig(GENESIS, { generate: true, count: 1 })
    const run = (configFile: string, to = path.join(dir(), 'out'), extra: string[] = []) => [
      'operator',
      'generate-blockchain-config',
      `--config-file=${configFile}`,
      `--to=${to}`,
      ...extra,
    ]

    it('an existing non-empty output directory, leaving it untouched', async () => {
      const to = dir()
      fs.writeFileSync(path.join(to, 'keep'), 'x')
      await expectFailure(run(valid(), to), 1, `Output directory already exists and is not empty: ${to}`)
      expect(fs.readdirSync(to)).toEqual(['keep'])
    })

    it('duplicate output file names, writing nothing', async () => {
      const to = path.join(dir(), 'out')
      const names = ['--genesis-file-name=key.pub']
      await expectFailure(
        run(valid(), to, names),
        2,
        'Output file paths must be unique (got key.pub, key.priv, key.pub)',
      )
      await expectFailure(run(valid(), to, ['--public-key-file-name=key.priv']), 2, 'Output file paths must be unique')
      expect(fs.existsSync(to)).toBe(false)
    })

    it('a genesis without config, writing nothing', async () => {
      const to = path.join(dir(), 'out')
      const file = writeConfig({ alloc: {} }, { generate: true, count: 1 })
      await expectFailure(run(file, to), 1, `Missing config section in config file ${file}`)
      expect(fs.existsSync(to)).toBe(false)
    })

    it('a bad public key', async () => {
      await expectFailure(run(writeConfig(GENESIS, { keys: ['0x1234'] })), 1, 'is not a public key')
      const offCurve = `0x${'11'.repeat(64)}`
      await expectFailure(
        run(writeConfig(GENESIS, { keys: [offCurve] })),
        1,
        'not a valid public key for elliptic curve',
      )
    })

    it('a count below 1', async () => {
      await expectFailure(
        run(writeConfig(GENESIS, { generate: true, count: 0 })),
        1,
        'count must be an integer of at least 1',
      )
    })

    it('a config file that is not JSON or cannot be read', async () => {
      const file = path.join(dir(), 'bad.json')
      fs.writeFileSync(file, '{"genesis": {')
      await expectFailure(run(file), 1, `Config file ${file} is not valid JSON`)
      await expectFailure(run(path.join(dir(), 'missing.json')), 1, 'Cannot read config file')
    })

    it('a missing --config-file or --to, and an unknown subcommand', async () => {
      await expectFailure(
        ['operator', 'generate-blockchain-config', '--to=x'],
        2,
        'Missing required option --config-file',
      )
      await expectFailure(
        ['operator', 'generate-blockchain-config', '--config-file=x'],
        2,
        'Missing required option --to',
      )
      await expectFailure(['operator', 'generate-keys'], 2, 'Unknown operator subcommand: generate-keys')
    })
  })
})

describe('basalt rlp', () => {
  it('encodes the reference vectors, IBFT 2.0 by default, from standard input', async () => {
    expect(await basalt(['rlp', 'encode'], JSON.stringify(VALIDATORS))).toEqual({
      exitCode: 0,
      stdout: `${IBFT_VECTOR}\n`,
      stderr: '',
    })
    const qbft = await basalt(['rlp', 'encode', '--type=QBFT_EXTRA_DATA'], JSON.stringify(VALIDATORS))
    expect(qbft.stdout).toBe(`${QBFT_VECTOR}\n`)
  })

  it('reads --from and writes --to without a trailing newline', async () => {
    const d = dir()
    fs.writeFileSync(path.join(d, 'validators.json'), JSON.stringify(VALIDATORS, null, 2))
    const from = `--from=${path.join(d, 'validators.json')}`
    const result = await basalt(['rlp', 'encode', from, `--to=${path.join(d, 'extra')}`, '--type=QBFT_EXTRA_DATA'])
    expect(result).toEqual({ exitCode: 0, stdout: '', stderr: '' })
    expect(fs.readFileSync(path.join(d, 'extra'), 'utf8')).toBe(QBFT_VECTOR)
  })

  it('decodes the validators of an extraData', async () => {
    const d = dir()
    fs.writeFileSync(path.join(d, 'extra'), QBFT_VECTOR)
    const expected = '[0xbe068f726a13c8d46c44be6ce9d275600e1735a4, 0x5ff6f4b66a46a2b2310a6f3a93aaddc0d9a1c193]'
    expect((await basalt(['rlp', 'decode'], `${IBFT_VECTOR}\n`)).stdout).toBe(`${expected}\n`)
    const fromFile = await basalt(['rlp', 'decode', '--type=QBFT_EXTRA_DATA', `--from=${path.join(d, 'extra')}`])
    expect(fromFile.stdout).toBe(`${expected}\n`)
    const toFile = await basalt(['rlp', 'decode', `--to=${path.join(d, 'validators')}`], IBFT_VECTOR)
    expect(toFile).toEqual({ exitCode: 0, stdout: '', stderr: '' })
    expect(fs.readFileSync(path.join(d, 'validators'), 'utf8')).toBe(expected)
  })

  it('refuses a bad address, input that is not JSON, a wrong layout, a bad type and an unknown subcommand', async () => {
    const badAddress = 'Unable to map the JSON data with selected type: validator address at index 0 is "0x12"'
    await expectFailure(['rlp', 'encode'], 1, badAddress, '["0x12"]')
    await expectFailure(['rlp', 'encode'], 1, 'Unable to load the JSON data. Please check JSON input format', '[')
    await expectFailure(['rlp', 'encode'], 1, 'An error occurred while trying to read the JSON data')
    await expectFailure(['rlp', 'decode'], 1, 'An error occurred while trying to read the input data', '\n')
    await expectFailure(['rlp', 'decode', '--type=QBFT_EXTRA_DATA'], 1, 'Invalid QBFT extraData', IBFT_VECTOR)
    await expectFailure(['rlp', 'decode'], 1, 'Invalid IBFT 2.0 extraData', QBFT_VECTOR)
    await expectFailure(
      ['rlp', 'encode', '--from=/nonexistent/v.json'],
      1,
      'Unable to read JSON file /nonexistent/v.json',
    )
    await expectFailure(['rlp', 'encode', '--type=CLIQUE'], 2, "Invalid value for option --type: 'CLIQUE'")
    await expectFailure(['rlp', 'hash'], 2, 'Unknown rlp subcommand: hash')
  })
})

describe('basalt public-key', () => {
  it('exports the public key and address of a key file, to standard output or a file', async () => {
    const d = dir()
    const keyFile = path.join(d, 'key')
    fs.writeFileSync(keyFile, PRIVATE_KEY)
    expect((await basalt(['public-key', 'export', `--node-private-key-file=${keyFile}`])).stdout).toBe(
      `${PUBLIC_KEYS[0]}\n`,
    )
    await basalt(['public-key', 'export-address', `--node-private-key-file=${keyFile}`, `--to=${path.join(d, 'addr')}`])
    expect(fs.readFileSync(path.join(d, 'addr'), 'utf8')).toBe(ADDRESSES[0])
    const toFile = await basalt([
      'public-key',
      'export',
      `--node-private-key-file=${keyFile}`,
      `--to=${path.join(d, 'pub')}`,
    ])
    expect(toFile).toEqual({ exitCode: 0, stdout: '', stderr: '' })
    expect(fs.readFileSync(path.join(d, 'pub'), 'utf8')).toBe(PUBLIC_KEYS[0])
  })

  it('creates DATA_PATH/key on first use and exports the same key afterwards', async () => {
    const dataPath = path.join(dir(), 'data')
    const first = await basalt(['public-key', 'export', `--data-path=${dataPath}`])
    expect(first.stdout).toMatch(/^0x[0-9a-f]{128}\n$/)
    expect(fs.readFileSync(path.join(dataPath, 'key'), 'utf8')).toMatch(/^0x[0-9a-f]{64}$/)
    expect((await basalt(['public-key', 'export', `--data-path=${dataPath}`])).stdout).toBe(first.stdout)
  })

  it('refuses a key file that does not exist or holds no key, an unknown curve and an unknown subcommand', async () => {
    await expectFailure(['public-key', 'export', '--node-private-key-file=/nonexistent/key'], 1, "doesn't exist")
    const keyFile = path.join(dir(), 'key')
    fs.writeFileSync(keyFile, 'not a key')
    await expectFailure(
      ['public-key', 'export', `--node-private-key-file=${keyFile}`],
      1,
      'does not hold a private key',
    )
    await expectFailure(['public-key', 'export', '--ec-curve=SECP256R1'], 2, 'SECP256R1 is not in the list')
    await expectFailure(['public-key', 'import'], 2, 'Unknown public-key subcommand: import')
  })
})

describe('basalt run with a generated genesis', () => {
  const keysOf = (to: string) => {
    const [address] = fs.readdirSync(path.join(to, 'keys'))
    const keyDir = path.join(to, 'keys', address)
    return { address, privateKeyFile: path.join(keyDir, 'key.priv'), publicKey: readText(keyDir, 'key.pub') }
  }
  const readText = (...parts: string[]) => fs.readFileSync(path.join(...parts), 'utf8')
  const runArgs = (to: string) => ['--genesis-file', path.join(to, 'genesis.json'), '--rpc-ws-enabled=false']

  it('follows the three documented commands: a single-validator QBFT chain on the validator key', async () => {
    const to = await generate(writeConfig(GENESIS, { generate: true, count: 1 }))
    const validator = keysOf(to)
    const dataPath = path.join(dir(), 'node1')
    fs.mkdirSync(dataPath)
    fs.copyFileSync(validator.privateKeyFile, path.join(dataPath, 'key'))
    const node = await startNode({ dataPath, args: [...runArgs(to), '--rpc-http-api', 'ADMIN,ETH'] })
    try {
      expect(await node.rpc('eth_chainId')).toBe(`0x${GENESIS.config.chainId.toString(16)}`)
      const block = await node.rpc<{ extraData: string }>('eth_getBlockByNumber', ['0x0', false])
      expect(block.extraData).toBe(readGenesis(to).extraData as string)
      const decoded = await basalt(['rlp', 'decode', '--type=QBFT_EXTRA_DATA'], block.extraData)
      expect(decoded.stdout).toBe(`[${validator.address}]\n`)
      const info = await node.rpc<{ id: string }>('admin_nodeInfo')
      expect(`0x${info.id}`).toBe(validator.publicKey)
    } finally {
      await node.cleanup()
    }
  })

  it('reads a secp256r1 validator key on a genesis whose ecCurve is secp256r1', async () => {
    const genesis = { ...GENESIS, config: { ...GENESIS.config, ecCurve: 'secp256r1' } }
    const to = await generate(writeConfig(genesis, { generate: true, count: 1 }))
    const validator = keysOf(to)
    const node = await startNode({
      dataPath: ':memory:',
      args: [...runArgs(to), '--rpc-http-api', 'ADMIN', `--node-private-key-file=${validator.privateKeyFile}`],
    })
    try {
      expect(`0x${(await node.rpc<{ id: string }>('admin_nodeInfo')).id}`).toBe(validator.publicKey)
    } finally {
      await node.cleanup()
    }
  })

  const PORTLESS = ['--rpc-http-port=0', '--rpc-ws-enabled=false']
  it('refuses to start on a genesis naming an unknown ecCurve', async () => {
    const file = path.join(dir(), 'genesis.json')
    fs.writeFileSync(file, JSON.stringify({ ...GENESIS, config: { ...GENESIS.config, ecCurve: 'abcd' } }))
    const result = await basalt(['run', `--genesis-file=${file}`, '--data-path=:memory:', ...PORTLESS])
    expect(result.stderr).toContain(
      'basalt: Invalid genesis file configuration for ecCurve. abcd is not in the list of valid elliptic curves [secp256k1, secp256r1]\n',
    )
    expect(result.exitCode).toBe(1)
  }, 20_000)
})
