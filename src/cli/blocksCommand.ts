/**
 * `basalt blocks import|export`: RLP block files (blocks concatenated, as hive's chain.rlp and
 * Besu's export write them) into and out of a data path, and Besu's JSON block files (blocks
 * described by their transactions, built here) into one. Import validates every block fully and
 * stops at the first bad one, keeping all blocks before it; ranges are by block number, the start
 * inclusive and the end exclusive, as in Besu.
 */
import type { CAC } from 'cac'
import type { NodeConfig } from '../node/config.ts'
import { setLogLevel } from '../primitives/logger.ts'
import { parseStorageFormat, STORAGE_FORMAT_NAMES, type StorageFormat } from '../state/storageFormat.ts'
import { kzgTrustedSetupOpt, optBool, optString } from './argv.ts'
import { CliError } from './cliError.ts'
import { describeSubcommands } from './subcommandHelp.ts'

const SUBCOMMANDS = ['import', 'export'] as const
/** Exit code of an import stopped by a bad block or an unreadable file (2 is for usage mistakes). */
export const IMPORT_FAILED = 1

export interface BlocksOptions {
  subcommand: (typeof SUBCOMMANDS)[number]
  /** Files to import, in order (import), or the file to write (export). */
  files: string[]
  genesisFile?: string
  dataPath: string
  /** The key that seals JSON blocks of a clique chain; `<data-path>/key` when unset. */
  nodePrivateKeyFile?: string
  isPowValidationSkipped: boolean
  format: 'RLP' | 'JSON'
  startBlock: bigint
  /** The fixed base fee of a `fixedBaseFee` chain's JSON blocks (Besu's --min-gas-price); 1000 wei when unset. */
  minGasPrice?: bigint
  /** Exclusive; undefined: to the end of the file (import) or the head (export). */
  endBlock?: bigint
  /** import: the state storage format of a new data path (an existing one keeps its own). */
  dataStorageFormat?: StorageFormat
  /** import: BONSAI with the state history (X_BONSAI_ARCHIVE) or without (BONSAI named); undefined: the default. */
  isBonsaiArchive?: boolean
  /** import: record what reverted transactions returned, as `run --revert-reason-enabled` does. */
  isRevertReasonEnabled: boolean
  /** import: the KZG trusted setup of the chain's point-evaluation precompile, when not the mainnet one. */
  kzgTrustedSetup?: NodeConfig['kzgTrustedSetup']
}

export function registerBlocksCommand(cli: CAC): void {
  const command = cli
    .command(
      'blocks <subcommand>',
      'Block files: import (validate and store RLP blocks), export (write canonical blocks as RLP)',
    )
    .option('--from <file>', 'import: block file (repeatable)')
    .option('--format <format>', "import: RLP (blocks as exported) or JSON (Besu's JSON block format)", {
      default: 'RLP',
    })
    .option('--to <file>', 'export: output file')
    .option('--genesis-file <file>', 'Genesis file (Besu/geth format); the dev preset without it')
    .option('--data-path <dir>', 'Directory of the SQLite database', { default: 'basalt-data' })
    .option('--skip-pow-validation-enabled', 'import: accept proof-of-work blocks without checking the ethash seal')
    .option('--node-private-key-file <file>', 'import: the signer key that seals JSON blocks of a clique chain')
    .option('--min-gas-price <wei>', 'import: the base fee of JSON blocks on a fixedBaseFee chain (default 1000)')
    .option(
      '--data-storage-format <format>',
      'import: FOREST, BONSAI or X_BONSAI_ARCHIVE (BONSAI with the state history), the state storage of a new data path (an existing one keeps its own format)',
    )
    .option(
      '--revert-reason-enabled',
      "import: record what reverted transactions returned (their receipts' revertReason)",
    )
    .option('--kzg-trusted-setup <file>', 'import: KZG trusted setup file instead of the mainnet setup')
    .option('--start-block <n>', 'First block number (inclusive)')
    .option('--end-block <n>', 'Last block number (exclusive)')
    .option('--logging <level>', 'OFF, ERROR, WARN, INFO, DEBUG, TRACE, ALL', { default: 'WARN' })
    .action(async (subcommand: string, options: Record<string, unknown>) => {
      const opts = parseBlocksOptions(subcommand, options)
      // The work (and the block, EVM and state libraries it needs) loads only for this command.
      const { exportFile, importFiles } = await import('./blockFiles.ts')
      const { openChain } = await import('../node/node.ts')
      const { chain, genesis, close } = await openChain({
        genesisFile: opts.genesisFile,
        dataPath: opts.dataPath,
        minGasPrice: opts.minGasPrice,
        dataStorageFormat: opts.dataStorageFormat,
        isBonsaiArchive: opts.isBonsaiArchive,
        isRevertReasonEnabled: opts.isRevertReasonEnabled,
        kzgTrustedSetup: opts.kzgTrustedSetup,
      })
      try {
        // Besu's BFT miners build no block outside their rounds: a JSON block file is refused there,
        // naming the engine as Besu's getConsensusEngine (IBFT 2.0 first: a migrating chain's genesis engine).
        const bft = ['ibft2', 'qbft'].find((engine) => genesis.config[engine] !== undefined)
        if (bft && opts.format === 'JSON')
          throw new CliError(`Unable to create block using current consensus engine: ${bft}`, IMPORT_FAILED)
        if (opts.subcommand === 'import') await importFiles(chain, opts)
        else await exportFile(chain, opts)
      } finally {
        close()
      }
    })
  describeSubcommands(command, {
    import: {
      summary: 'Validates the RLP blocks of one or more files and stores them on the chain of the data path.',
      options: [
        'from',
        'genesis-file',
        'data-path',
        'data-storage-format',
        'skip-pow-validation-enabled',
        'node-private-key-file',
        'min-gas-price',
        'revert-reason-enabled',
        'start-block',
        'end-block',
        'logging',
      ],
    },
    export: {
      summary: 'Writes the canonical blocks of the data path as concatenated RLP.',
      options: ['to', 'genesis-file', 'data-path', 'start-block', 'end-block', 'logging'],
    },
  })
}

/** Checks the subcommand and options of `blocks`; throws CliError (exit 2) on a mistake. */
export function parseBlocksOptions(subcommand: string, o: Record<string, unknown>): BlocksOptions {
  if (!SUBCOMMANDS.includes(subcommand as BlocksOptions['subcommand'])) {
    throw new CliError(`Unknown blocks subcommand: ${subcommand} (expected ${SUBCOMMANDS.join(', ')})`)
  }
  const level = optString(o, 'logging') ?? 'WARN'
  if (!setLogLevel(level)) throw new CliError(`Invalid value for option --logging: '${level}'`)
  const isImport = subcommand === 'import'
  const files = isImport ? allStrings(o.from) : allStrings(o.to).slice(-1)
  if (files.length === 0) throw new CliError(`Missing option --${isImport ? 'from' : 'to'}`)
  const format = (optString(o, 'format') ?? 'RLP').toUpperCase()
  if (format !== 'RLP' && format !== 'JSON')
    throw new CliError(`Invalid value for option --format: '${format}' (expected RLP or JSON)`)
  const storage = optString(o, 'dataStorageFormat')
  const parsed = storage === undefined ? undefined : parseStorageFormat(storage)
  if (storage !== undefined && (!isImport || !parsed)) {
    throw new CliError(
      isImport
        ? `Invalid value for option --data-storage-format: '${storage.toUpperCase()}' (expected ${STORAGE_FORMAT_NAMES})`
        : 'Option --data-storage-format is for blocks import',
    )
  }
  const start = blockOpt(o, 'startBlock', 'start-block')
  const end = blockOpt(o, 'endBlock', 'end-block')
  const minGasPrice = optString(o, 'minGasPrice')
  if (minGasPrice !== undefined && !/^(\d+|0x[0-9a-fA-F]+)$/.test(minGasPrice))
    throw new CliError(`Invalid value for option --min-gas-price: '${minGasPrice}' (expected a non-negative integer)`)
  if (start !== undefined && end !== undefined && end <= start) {
    throw new CliError(`Invalid value for option --end-block: '${end}' (must be above --start-block ${start})`)
  }
  return {
    subcommand: subcommand as BlocksOptions['subcommand'],
    files,
    genesisFile: optString(o, 'genesisFile'),
    dataPath: optString(o, 'dataPath') ?? 'basalt-data',
    nodePrivateKeyFile: optString(o, 'nodePrivateKeyFile'),
    format,
    isPowValidationSkipped: optBool(o, 'skipPowValidationEnabled', 'skip-pow-validation-enabled', false),
    startBlock: start ?? (isImport ? 0n : 1n),
    endBlock: end,
    minGasPrice: minGasPrice === undefined ? undefined : BigInt(minGasPrice),
    dataStorageFormat: parsed?.format,
    isBonsaiArchive: parsed?.isBonsaiArchive,
    isRevertReasonEnabled: optBool(o, 'revertReasonEnabled', 'revert-reason-enabled', false),
    kzgTrustedSetup: kzgTrustedSetupOpt(optString(o, 'kzgTrustedSetup')),
  }
}

function allStrings(v: unknown): string[] {
  if (v === undefined) return []
  return (Array.isArray(v) ? v : [v]).map((x) => optString({ x }, 'x')!).filter((x) => x.length > 0)
}

function blockOpt(o: Record<string, unknown>, key: string, flag: string): bigint | undefined {
  const v = optString(o, key)
  if (v === undefined) return undefined
  if (!/^\d+$/.test(v)) throw new CliError(`Invalid value for option --${flag}: '${v}' (expected a block number)`)
  return BigInt(v)
}
