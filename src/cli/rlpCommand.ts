/**
 * `basalt rlp encode|decode`: a JSON array of validator addresses to IBFT 2.0 / QBFT extraData and
 * back, reading standard input and writing standard output unless `--from` / `--to` name files.
 * Output matches Besu's: `0x` hex for encode, `[0x…, 0x…]` for decode, a newline only on stdout.
 */
import fs from 'node:fs'
import type { CAC } from 'cac'
import { type BftKind, decodeBftExtraData, genesisExtraData } from '../consensus/bftExtraData.ts'
import { bytesToHex, hexToBytes, isHexData } from '../primitives/hex.ts'
import { optString } from './argv.ts'
import { CliError, inputError } from './cliError.ts'
import { writeOutput } from './cliOutput.ts'
import { describeSubcommands } from './subcommandHelp.ts'

const SUBCOMMANDS = ['encode', 'decode'] as const
type RlpSubcommand = (typeof SUBCOMMANDS)[number]
/** Besu's names for the extraData layouts; IBFT_EXTRA_DATA is the default, as in Besu. */
const TYPES: Record<string, BftKind> = { IBFT_EXTRA_DATA: 'ibft2', QBFT_EXTRA_DATA: 'qbft' }
const ADDRESS = /^(0x)?[0-9a-fA-F]{40}$/
// Besu's wording, so that scripts matching its messages keep working.
const NO_JSON = 'An error occurred while trying to read the JSON data'
const NO_INPUT = 'An error occurred while trying to read the input data'
const UNMAPPABLE = 'Unable to map the JSON data with selected type'

export interface RlpOptions {
  subcommand: RlpSubcommand
  kind: BftKind
  /** Input file; standard input when absent. */
  from?: string
  /** Output file; standard output when absent. */
  to?: string
}

export function registerRlpCommand(cli: CAC): void {
  const command = cli
    .command('rlp <subcommand>', 'RLP tools: encode (validators JSON to extraData), decode (extraData to validators)')
    .option('--from <file>', 'Input file (default: standard input)')
    .option('--to <file>', 'Output file (default: standard output)')
    .option('--type <type>', 'IBFT_EXTRA_DATA or QBFT_EXTRA_DATA', { default: 'IBFT_EXTRA_DATA' })
    .action(async (subcommand: string, options: Record<string, unknown>) => {
      const parsed = parseRlpOptions(subcommand, options)
      const input = parsed.from === undefined ? await readStdin() : readInputFile(parsed.from)
      const output =
        parsed.subcommand === 'encode' ? encodeValidators(input, parsed.kind) : decodeValidators(input, parsed.kind)
      writeOutput(output, parsed.to)
    })
  describeSubcommands(command, {
    encode: {
      summary: 'Encodes a JSON array of validator addresses as BFT extraData (hex).',
      options: ['from', 'to', 'type'],
    },
    decode: {
      summary: 'Decodes BFT extraData (hex) to a JSON array of validator addresses.',
      options: ['from', 'to', 'type'],
    },
  })
}

/** Checks the subcommand and options of `rlp`; throws CliError (exit 2) on a mistake. */
export function parseRlpOptions(subcommand: string, o: Record<string, unknown>): RlpOptions {
  if (!SUBCOMMANDS.includes(subcommand as RlpSubcommand)) {
    throw new CliError(`Unknown rlp subcommand: ${subcommand} (expected ${SUBCOMMANDS.join(', ')})`)
  }
  const type = optString(o, 'type') ?? 'IBFT_EXTRA_DATA'
  const kind = TYPES[type.toUpperCase()]
  if (!kind)
    throw new CliError(`Invalid value for option --type: '${type}' (expected ${Object.keys(TYPES).join(' or ')})`)
  return { subcommand: subcommand as RlpSubcommand, kind, from: optString(o, 'from'), to: optString(o, 'to') }
}

/** A JSON array of validator addresses to the `0x` hex of a genesis extraData of `kind`. */
export function encodeValidators(json: string, kind: BftKind): string {
  if (json.trim() === '') throw inputError(`${NO_JSON}: no input (expected a JSON array of validator addresses)`)
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch (err) {
    throw inputError(`Unable to load the JSON data. Please check JSON input format: ${(err as Error).message}`)
  }
  if (!Array.isArray(value)) throw inputError(`${UNMAPPABLE}: expected a JSON array of validator addresses`)
  const validators = value.map((address, i) => {
    if (typeof address !== 'string' || !ADDRESS.test(address)) {
      throw inputError(
        `${UNMAPPABLE}: validator address at index ${i} is ${JSON.stringify(address)}, expected 40 hex digits`,
      )
    }
    return hexToBytes(address)
  })
  return bytesToHex(genesisExtraData(kind, validators))
}

/** The validators of an extraData (first line of `text`, hex with or without `0x`), printed as Besu does. */
export function decodeValidators(text: string, kind: BftKind): string {
  const line = text.split(/\r?\n/)[0].trim()
  if (line === '') throw inputError(`${NO_INPUT}: no input (expected an extraData in hex)`)
  const hex = line.startsWith('0x') || line.startsWith('0X') ? line : `0x${line}`
  if (!isHexData(hex)) throw inputError(`Input is not hex data: ${line}`)
  try {
    return `[${decodeBftExtraData(kind, hexToBytes(hex)).validators.map(bytesToHex).join(', ')}]`
  } catch (err) {
    throw inputError((err as Error).message)
  }
}

function readInputFile(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch (err) {
    throw inputError(`Unable to read JSON file ${file}: ${(err as Error).message}`)
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}
