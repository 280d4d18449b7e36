/**
 * `basalt public-key export|export-address`: the node's public key (`0x` + 128 hex digits) or its
 * address, from `--node-private-key-file` or `DATA_PATH/key` (created when absent, as the node would
 * on its first start). Standard output with a newline, or `--to` a file without one, as Besu does.
 */
import fs from 'node:fs'
import type { CAC } from 'cac'
import { bytesToHex } from '../primitives/hex.ts'
import {
  DEFAULT_EC_CURVE,
  EC_CURVES,
  type EcCurve,
  loadOrCreateNodeKey,
  parseEcCurve,
  publicKeyToAddress,
  unknownEcCurveReason,
} from '../primitives/nodeKey.ts'
import { optString } from './argv.ts'
import { CliError, INPUT_ERROR } from './cliError.ts'
import { writeOutput } from './cliOutput.ts'
import { describeSubcommands } from './subcommandHelp.ts'

const SUBCOMMANDS = ['export', 'export-address'] as const
type PublicKeySubcommand = (typeof SUBCOMMANDS)[number]

export interface PublicKeyOptions {
  subcommand: PublicKeySubcommand
  dataPath: string
  keyFile?: string
  curve: EcCurve
  to?: string
}

export function registerPublicKeyCommand(cli: CAC): void {
  const command = cli
    .command('public-key <subcommand>', "Node key tools: export (public key), export-address (the key's address)")
    .option('--node-private-key-file <file>', 'Node private key file (default: DATA_PATH/key, created when absent)')
    .option('--data-path <dir>', 'Data directory holding the node key', { default: 'basalt-data' })
    .option('--ec-curve <name>', `Elliptic curve of the key: ${EC_CURVES.join(', ')}`)
    .option('--to <file>', 'Write to this file instead of standard output')
    .action((subcommand: string, options: Record<string, unknown>) => {
      const parsed = parsePublicKeyOptions(subcommand, options)
      writeOutput(exportNodeKey(parsed), parsed.to)
    })
  describeSubcommands(command, {
    export: {
      summary: "Prints the node key's public key (0x + 128 hex digits).",
      options: ['node-private-key-file', 'data-path', 'ec-curve', 'to'],
    },
    'export-address': {
      summary: "Prints the node key's address.",
      options: ['node-private-key-file', 'data-path', 'ec-curve', 'to'],
    },
  })
}

/** Checks the subcommand and options of `public-key`; throws CliError (exit 2) on a mistake. */
export function parsePublicKeyOptions(subcommand: string, o: Record<string, unknown>): PublicKeyOptions {
  if (!SUBCOMMANDS.includes(subcommand as PublicKeySubcommand)) {
    throw new CliError(`Unknown public-key subcommand: ${subcommand} (expected ${SUBCOMMANDS.join(', ')})`)
  }
  const curveName = optString(o, 'ecCurve') ?? DEFAULT_EC_CURVE
  const curve = parseEcCurve(curveName)
  if (!curve) throw new CliError(`Invalid value for option --ec-curve: ${unknownEcCurveReason(curveName)}`)
  const dataPath = optString(o, 'dataPath') || 'basalt-data'
  return {
    subcommand: subcommand as PublicKeySubcommand,
    dataPath,
    keyFile: optString(o, 'nodePrivateKeyFile'),
    curve,
    to: optString(o, 'to'),
  }
}

/** The `0x` hex public key or address of the node key the options point at. */
export function exportNodeKey(options: PublicKeyOptions): string {
  if (options.keyFile !== undefined && !fs.existsSync(options.keyFile)) {
    throw new CliError(`Private key file ${options.keyFile} doesn't exist`, INPUT_ERROR)
  }
  let publicKey: Uint8Array
  try {
    publicKey = loadOrCreateNodeKey(options.dataPath, options.keyFile, options.curve).publicKey
  } catch (err) {
    throw new CliError((err as Error).message, INPUT_ERROR)
  }
  return bytesToHex(options.subcommand === 'export' ? publicKey : publicKeyToAddress(publicKey))
}
