/**
 * `basalt blocks import|export`: RLP block files (blocks concatenated, as hive's chain.rlp and
 * Besu's export write them) into and out of a data path, and Besu's JSON block files (blocks
 * described by their transactions, built here) into one. Import validates every block fully and
 * stops at the first bad one, keeping all blocks before it; ranges are by block number, the start
 * inclusive and the end exclusive, as in Besu.
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs'
import type { Block } from '@ethereumjs/block'
import type { CAC } from 'cac'
import { BlockImportError, importBlock } from '../chain/blockImporter.ts'
import { decodeBlockRlp, peekBlock, splitRlpItems } from '../chain/blockRlp.ts'
import type { Chain } from '../chain/chain.ts'
import { installKzgStandIn } from '../chain/kzgStandIn.ts'
import { bytesToHex } from '../primitives/hex.ts'
import { setLogLevel } from '../primitives/logger.ts'
import { loadOrCreateNodeKey } from '../primitives/nodeKey.ts'
import { importJsonBlocks, parseJsonBlocks } from '../producer/jsonBlocks.ts'
import { parseStorageFormat, STORAGE_FORMAT_NAMES, type StorageFormat } from '../state/storageFormat.ts'
import { optBool, optString } from './argv.ts'
import { CliError } from './cliError.ts'
import { describeSubcommands } from './subcommandHelp.ts'

const SUBCOMMANDS = ['import', 'export'] as const
/** Exit code of an import stopped by a bad block or an unreadable file (2 is for usage mistakes). */
const IMPORT_FAILED = 1

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
    .option('--start-block <n>', 'First block number (inclusive)')
    .option('--end-block <n>', 'Last block number (exclusive)')
    .option('--logging <level>', 'OFF, ERROR, WARN, INFO, DEBUG, TRACE, ALL', { default: 'WARN' })
    .action(async (subcommand: string, options: Record<string, unknown>) => {
      const opts = parseBlocksOptions(subcommand, options)
      const { openChain } = await import('../node/node.ts')
      const { chain, genesis, close } = await openChain({
        genesisFile: opts.genesisFile,
        dataPath: opts.dataPath,
        minGasPrice: opts.minGasPrice,
        dataStorageFormat: opts.dataStorageFormat,
        isBonsaiArchive: opts.isBonsaiArchive,
      })
      try {
        // Besu's BFT miners build no block outside their rounds: a JSON block file is refused there.
        const bft = ['qbft', 'ibft2'].find((engine) => genesis.config[engine] !== undefined)
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

function readBlockFile(file: string): Uint8Array {
  try {
    return readFileSync(file)
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${(e as Error).message}`, IMPORT_FAILED)
  }
}

interface ImportTally {
  imported: number
  skipped: number
  first?: bigint
  last?: bigint
  gasUsed: bigint
}

/** Imports the blocks of every file in order; stops at the first bad block (exit 1). */
export async function importFiles(chain: Chain, opts: BlocksOptions): Promise<ImportTally> {
  const tally: ImportTally = { imported: 0, skipped: 0, gasUsed: 0n }
  if (opts.format === 'JSON') return importJsonFiles(chain, opts, tally)
  installKzgStandIn(chain.common)
  const progress = new ImportProgress()
  for (const file of opts.files) {
    const inRange = splitRlpItemsOf(file)
      .map((rlp, i) => ({ rlp, ...peek(file, rlp, i) }))
      .filter(({ number: n }) => n >= opts.startBlock && (opts.endBlock === undefined || n < opts.endBlock))
    progress.total += inRange.length
    for (const { rlp, hash, number: n } of inRange) {
      // Re-running an import skips what is stored without decoding (and without loading KZG).
      if (chain.store.hasBlock(hash)) {
        tally.skipped++
        progress.update(tally.imported + tally.skipped, tally.gasUsed)
        continue
      }
      const block = await decodeBlockRlp(chain, rlp).catch((e: Error) => {
        throw new CliError(`${file}: cannot decode block ${n}: ${e.message}`, IMPORT_FAILED)
      })
      try {
        const r = await importBlock(chain, block, { setHead: true, skipPowValidation: opts.isPowValidationSkipped })
        if (r.isKnown) tally.skipped++
        else tally.imported++
        tally.first ??= n
        tally.last = n
        tally.gasUsed += block.header.gasUsed
      } catch (e) {
        progress.finish()
        process.stdout.write(`${summary(tally, progress.elapsedMs, chain)}\n`)
        if (e instanceof BlockImportError) {
          throw new CliError(`bad block ${e.number} (${bytesToHex(e.hash)}): ${e.reason}`, IMPORT_FAILED)
        }
        throw e
      }
      progress.update(tally.imported + tally.skipped, tally.gasUsed)
    }
  }
  progress.finish()
  process.stdout.write(`${summary(tally, progress.elapsedMs, chain)}\n`)
  return tally
}

/** Besu's JSON block files: each block built on its parent from its transactions, then imported. */
async function importJsonFiles(chain: Chain, opts: BlocksOptions, tally: ImportTally): Promise<ImportTally> {
  const startedMs = Date.now()
  const count = (block: Block) => {
    tally.imported++
    tally.first ??= block.header.number
    tally.last = block.header.number
    tally.gasUsed += block.header.gasUsed
  }
  // As Besu's clique miner, the node key seals the blocks of a clique chain.
  const cliqueKey =
    chain.common.consensusAlgorithm() === 'clique'
      ? loadOrCreateNodeKey(opts.dataPath, opts.nodePrivateKeyFile).privateKey
      : undefined
  const nowSeconds = () => BigInt(Math.floor(Date.now() / 1000))
  for (const file of opts.files) {
    const text = new TextDecoder().decode(readBlockFile(file))
    try {
      await importJsonBlocks(chain, parseJsonBlocks(text), nowSeconds, count, cliqueKey)
    } catch (e) {
      const reason =
        e instanceof BlockImportError
          ? `bad block ${e.number} (${bytesToHex(e.hash)}): ${e.reason}`
          : (e as Error).message
      throw new CliError(`${file}: ${reason}`, IMPORT_FAILED)
    }
  }
  process.stdout.write(`${summary(tally, Date.now() - startedMs, chain)}\n`)
  return tally
}

function peek(file: string, rlp: Uint8Array, index: number): { hash: Uint8Array; number: bigint } {
  try {
    return peekBlock(rlp)
  } catch (e) {
    throw new CliError(`${file}: cannot decode item ${index + 1}: ${(e as Error).message}`, IMPORT_FAILED)
  }
}

function splitRlpItemsOf(file: string): Uint8Array[] {
  try {
    return [...splitRlpItems(readBlockFile(file))]
  } catch (e) {
    if (e instanceof CliError) throw e
    throw new CliError(`${file}: ${(e as Error).message}`, IMPORT_FAILED)
  }
}

function rates(count: number, gasUsed: bigint, ms: number): string {
  const sec = Math.max(ms, 1) / 1000
  return `${(count / sec).toFixed(count / sec < 10 ? 1 : 0)} blocks/s, ${(Number(gasUsed) / 1e6 / sec).toFixed(1)} Mgas/s`
}

function summary(t: ImportTally, ms: number, chain: Chain): string {
  const range = t.first === undefined ? '' : ` (${t.first}..${t.last})`
  const skipped = t.skipped > 0 ? `, skipped ${t.skipped} already present` : ''
  const head = bytesToHex(chain.head.hash())
  return `imported ${t.imported} blocks${range}${skipped} in ${(ms / 1000).toFixed(2)} s: ${rates(t.imported, t.gasUsed, ms)}, head ${chain.head.header.number} ${head.slice(0, 10)}…`
}

/** Where the progress bar goes: a terminal gets it, anything else does not. */
export interface ProgressOutput {
  isTTY?: boolean
  write(text: string): unknown
}

/** A one-line progress bar with blocks/s and Mgas/s on a terminal (stderr by default); silent otherwise. */
export class ImportProgress {
  total = 0
  private readonly startedMs: number
  private lastDrawMs = Number.NEGATIVE_INFINITY
  private hasDrawn = false

  private readonly out: ProgressOutput
  private readonly nowMs: () => number

  constructor(out: ProgressOutput = process.stderr, nowMs: () => number = Date.now) {
    this.out = out
    this.nowMs = nowMs
    this.startedMs = nowMs()
  }

  get elapsedMs(): number {
    return this.nowMs() - this.startedMs
  }

  /** Redraws at most every 100 ms, and always for the last block. */
  update(done: number, gasUsed: bigint): void {
    const now = this.nowMs()
    if (this.out.isTTY !== true || (now - this.lastDrawMs < 100 && done < this.total)) return
    this.lastDrawMs = now
    this.hasDrawn = true
    const width = 30
    const filled = this.total === 0 ? width : Math.round((done / this.total) * width)
    const bar = `${'#'.repeat(filled)}${'.'.repeat(width - filled)}`
    this.out.write(`\r[${bar}] ${done}/${this.total} ${rates(done, gasUsed, this.elapsedMs)}   `)
  }

  finish(): void {
    if (this.hasDrawn) this.out.write('\n')
    this.hasDrawn = false
  }
}

/** Writes canonical blocks `startBlock`..`endBlock` (exclusive; default: through the head) as RLP. */
export function exportFile(chain: Chain, opts: BlocksOptions): Promise<number> {
  return exportBlocks(chain, opts.files[0], opts.startBlock, opts.endBlock ?? chain.head.header.number + 1n)
}

async function exportBlocks(chain: Chain, file: string, start: bigint, end: bigint): Promise<number> {
  const last = end - 1n > chain.head.header.number ? chain.head.header.number : end - 1n
  if (start > last)
    throw new CliError(`nothing to export: --start-block ${start} is above the head ${chain.head.header.number}`)
  const fd = openSync(file, 'w')
  let count = 0
  try {
    for (let n = start; n <= last; n++) {
      const block = await chain.getBlockByNumber(n)
      if (!block) throw new CliError(`block ${n} is missing from the data path`, IMPORT_FAILED)
      writeSync(fd, block.serialize())
      count++
    }
  } finally {
    closeSync(fd)
  }
  process.stdout.write(`exported ${count} blocks (${start}..${last}) to ${file}\n`)
  return count
}
