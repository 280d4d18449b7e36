/**
 * `basalt operator generate-blockchain-config`: validator keys and a genesis carrying IBFT 2.0 or QBFT
 * extraData, in the files and formats Besu writes (`DIR/keys/<0x address>/key.pub|key.priv`, the
 * genesis pretty-printed as Jackson prints it). Everything is validated before the first file is written.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { CAC } from 'cac'
import { type BftKind, genesisExtraData } from '../consensus/bftExtraData.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { JsonNumber, type JsonObject, type JsonValue, parseJsonText, printJacksonJson } from '../primitives/jsonText.ts'
import {
  DEFAULT_EC_CURVE,
  type EcCurve,
  generateKeyPair,
  isValidPublicKey,
  type KeyPair,
  parseEcCurve,
  publicKeyToAddress,
  unknownEcCurveReason,
} from '../primitives/nodeKey.ts'
import { optString } from './argv.ts'
import { CliError, INPUT_ERROR, inputError } from './cliError.ts'
import { describeSubcommands } from './subcommandHelp.ts'

const SUBCOMMANDS = ['generate-blockchain-config']

export interface OperatorOptions {
  configFile: string
  outputDir: string
  genesisFileName: string
  privateKeyFileName: string
  publicKeyFileName: string
}

export interface NodeKeys {
  address: Uint8Array
  publicKey: Uint8Array
  /** Absent for a public key imported from the config file. */
  privateKey?: Uint8Array
}

export interface BlockchainConfig {
  genesis: JsonObject
  kind?: BftKind
  curve: EcCurve
  nodes: NodeKeys[]
}

export function registerOperatorCommand(cli: CAC): void {
  const command = cli
    .command('operator <subcommand>', 'Operator tools: generate-blockchain-config')
    .option('--config-file <file>', 'Config file: JSON with "genesis" and "blockchain.nodes"')
    .option('--to <dir>', 'Directory to write keys and genesis to (new or empty)')
    .option('--genesis-file-name <name>', 'Name of the genesis file', { default: 'genesis.json' })
    .option('--private-key-file-name <name>', 'Name of the private key files', { default: 'key.priv' })
    .option('--public-key-file-name <name>', 'Name of the public key files', { default: 'key.pub' })
    .action((subcommand: string, options: Record<string, unknown>) => {
      if (!SUBCOMMANDS.includes(subcommand)) {
        throw new CliError(`Unknown operator subcommand: ${subcommand} (expected ${SUBCOMMANDS.join(', ')})`)
      }
      const summary = generateBlockchainConfig(parseOperatorOptions(options))
      process.stdout.write(`${summary}\n`)
    })
  describeSubcommands(command, {
    'generate-blockchain-config': {
      summary: 'Writes validator keys and an IBFT 2.0 / QBFT genesis with their extraData, as Besu does.',
      options: ['config-file', 'to', 'genesis-file-name', 'private-key-file-name', 'public-key-file-name'],
    },
  })
}

/** Checks the command line of generate-blockchain-config; throws CliError (exit 2) on a mistake. */
export function parseOperatorOptions(o: Record<string, unknown>): OperatorOptions {
  const required = (key: string, flag: string) => {
    const v = optString(o, key)
    if (!v) throw new CliError(`Missing required option --${flag}`)
    return v
  }
  const options = {
    configFile: required('configFile', 'config-file'),
    outputDir: required('to', 'to'),
    genesisFileName: required('genesisFileName', 'genesis-file-name'),
    privateKeyFileName: required('privateKeyFileName', 'private-key-file-name'),
    publicKeyFileName: required('publicKeyFileName', 'public-key-file-name'),
  }
  const names = [options.genesisFileName, options.privateKeyFileName, options.publicKeyFileName]
  if (new Set(names).size !== names.length) {
    throw new CliError(`Output file paths must be unique (got ${names.join(', ')})`)
  }
  if (options.genesisFileName === 'keys')
    throw new CliError(`--genesis-file-name cannot be 'keys' (the keys directory)`)
  return options
}

/** Reads the config, writes keys and genesis under the output directory, and returns a summary line. */
export function generateBlockchainConfig(options: OperatorOptions, newKeyPair = generateKeyPair): string {
  checkOutputDirectory(options.outputDir)
  let text: string
  try {
    text = fs.readFileSync(options.configFile, 'utf8')
  } catch (err) {
    throw new CliError(`Cannot read config file ${options.configFile}: ${(err as Error).message}`, INPUT_ERROR)
  }
  const config = planBlockchainConfig(text, options.configFile, newKeyPair)
  writeBlockchainConfig(config, options)
  const what = config.kind ? `${config.kind === 'qbft' ? 'QBFT' : 'IBFT 2.0'} extraData` : 'no extraData'
  return `Wrote ${config.nodes.length} validator key(s) to ${path.join(options.outputDir, 'keys')} and ${path.join(options.outputDir, options.genesisFileName)} (${what})`
}

/** Validates a config file's text and derives every key and the genesis; writes nothing. */
export function planBlockchainConfig(text: string, source: string, newKeyPair = generateKeyPair): BlockchainConfig {
  let root: JsonValue
  try {
    root = parseJsonText(text)
  } catch (err) {
    throw new CliError(`Config file ${source} is not valid JSON: ${(err as Error).message}`, INPUT_ERROR)
  }
  if (!(root instanceof Map)) throw inputError(`Config file ${source} must hold a JSON object`)
  const genesis = objectAt(root, 'genesis', 'genesis') ?? new Map()
  const chainConfig = objectAt(genesis, 'config', 'genesis.config')
  if (!chainConfig) throw inputError(`Missing config section in config file ${source} (genesis.config)`)
  const curve = ecCurveOf(chainConfig)
  const kind = hasKey(chainConfig, 'ibft2') ? 'ibft2' : hasKey(chainConfig, 'qbft') ? 'qbft' : undefined
  const nodes = nodeKeysOf(root, curve, newKeyPair)
  if (kind)
    genesis.set(
      'extraData',
      bytesToHex(
        genesisExtraData(
          kind,
          nodes.map((n) => n.address),
        ),
      ),
    )
  return { genesis, kind, curve, nodes }
}

function nodeKeysOf(root: JsonObject, curve: EcCurve, newKeyPair: (curve: EcCurve) => KeyPair): NodeKeys[] {
  const blockchain = objectAt(root, 'blockchain', 'blockchain') ?? new Map()
  const nodes = objectAt(blockchain, 'nodes', 'blockchain.nodes') ?? new Map()
  const generate = nodes.get('generate') ?? false
  if (typeof generate !== 'boolean') throw inputError('blockchain.nodes.generate must be true or false')
  if (generate) {
    const count = nodes.get('count')
    const n = count instanceof JsonNumber && /^-?\d+$/.test(count.text) ? Number(count.text) : Number.NaN
    if (!(n >= 1)) {
      throw inputError(`blockchain.nodes.count must be an integer of at least 1 (found ${describe(count)})`)
    }
    return Array.from({ length: n }, () => withAddress(newKeyPair(curve)))
  }
  const keys = nodes.get('keys')
  if (keys === undefined || keys === null) {
    throw inputError('blockchain.nodes must be {"generate": true, "count": N} or {"keys": [public keys]}')
  }
  if (!Array.isArray(keys) || keys.length === 0) {
    throw inputError('blockchain.nodes.keys must be a non-empty array of public keys')
  }
  const imported = keys.map((k, i) => withAddress({ publicKey: importPublicKey(k, i, curve) }))
  const seen = new Set<string>()
  for (const node of imported) {
    const address = bytesToHex(node.address)
    if (seen.has(address)) throw inputError(`blockchain.nodes.keys lists the key of ${address} twice`)
    seen.add(address)
  }
  return imported
}

function importPublicKey(value: JsonValue, index: number, curve: EcCurve): Uint8Array {
  const where = `blockchain.nodes.keys[${index}]`
  if (typeof value !== 'string' || !/^(0x)?[0-9a-fA-F]{128}$/.test(value)) {
    throw inputError(`${where} is not a public key: expected 0x followed by 128 hex digits (found ${describe(value)})`)
  }
  const publicKey = hexToBytes(value)
  if (!isValidPublicKey(publicKey, curve)) {
    throw inputError(`${where} ${value} is not a valid public key for elliptic curve ${curve}`)
  }
  return publicKey
}

function withAddress(keys: { publicKey: Uint8Array; privateKey?: Uint8Array }): NodeKeys {
  return { ...keys, address: publicKeyToAddress(keys.publicKey) }
}

function ecCurveOf(chainConfig: JsonObject): EcCurve {
  const value = caseInsensitiveGet(chainConfig, 'ecCurve')
  if (value === undefined || value === null) return DEFAULT_EC_CURVE
  const curve = typeof value === 'string' ? parseEcCurve(value) : undefined
  if (!curve) {
    const name = typeof value === 'string' ? value : describe(value)
    throw inputError(`Invalid parameter for ecCurve in genesis config: ${unknownEcCurveReason(name)}`)
  }
  return curve
}

/** Refuses an output path that is a file or a non-empty directory (a new or empty one is fine). */
export function checkOutputDirectory(dir: string): void {
  if (!fs.existsSync(dir)) return
  if (!fs.statSync(dir).isDirectory()) throw inputError(`Output path ${dir} exists and is not a directory`)
  if (fs.readdirSync(dir).length > 0) throw inputError(`Output directory already exists and is not empty: ${dir}`)
}

/** Writes `keys/<address>/` for every node, then the genesis; never overwrites a file. */
export function writeBlockchainConfig(config: BlockchainConfig, options: OperatorOptions): void {
  const keysDir = path.join(options.outputDir, 'keys')
  try {
    fs.mkdirSync(keysDir, { recursive: true })
    for (const node of config.nodes) {
      const nodeDir = path.join(keysDir, bytesToHex(node.address))
      fs.mkdirSync(nodeDir)
      fs.writeFileSync(path.join(nodeDir, options.publicKeyFileName), bytesToHex(node.publicKey), { flag: 'wx' })
      if (node.privateKey) {
        const file = path.join(nodeDir, options.privateKeyFileName)
        fs.writeFileSync(file, bytesToHex(node.privateKey), { flag: 'wx', mode: 0o600 })
      }
    }
    const genesisFile = path.join(options.outputDir, options.genesisFileName)
    fs.writeFileSync(genesisFile, printJacksonJson(config.genesis), { flag: 'wx' })
  } catch (err) {
    throw inputError(`Cannot write to ${options.outputDir}: ${(err as Error).message}`)
  }
}

function objectAt(obj: JsonObject, key: string, name: string): JsonObject | undefined {
  const value = obj.get(key)
  if (value === undefined || value === null) return undefined
  if (!(value instanceof Map)) throw inputError(`${name} must be a JSON object (found ${describe(value)})`)
  return value
}

/** Genesis config keys are case-insensitive, as in Besu's genesis reader. */
function caseInsensitiveGet(obj: JsonObject, key: string): JsonValue | undefined {
  for (const [k, v] of obj) if (k.toLowerCase() === key.toLowerCase()) return v
  return undefined
}

function hasKey(obj: JsonObject, key: string): boolean {
  return caseInsensitiveGet(obj, key) !== undefined
}

function describe(value: JsonValue | undefined): string {
  if (value === undefined) return 'nothing'
  if (value instanceof Map) return 'an object'
  if (Array.isArray(value)) return 'an array'
  if (value instanceof JsonNumber) return value.text
  return JSON.stringify(value)
}
