/**
 * The work of `basalt blocks import|export` (blocksCommand.ts parses the command line and loads
 * this module only when the command runs, so that other commands do not evaluate the block, EVM and
 * state libraries it imports).
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs'
import type { Block } from '@ethereumjs/block'
import { BlockImportError, importBlock } from '../chain/blockImporter.ts'
import { decodeBlockRlp, peekBlock, splitRlpItems } from '../chain/blockRlp.ts'
import type { Chain } from '../chain/chain.ts'
import { installKzgStandIn } from '../chain/kzgStandIn.ts'
import { bytesToHex } from '../primitives/hex.ts'
import { loadOrCreateNodeKey } from '../primitives/nodeKey.ts'
import { importJsonBlocks, parseJsonBlocks } from '../producer/jsonBlocks.ts'
import { type BlocksOptions, IMPORT_FAILED } from './blocksCommand.ts'
import { CliError } from './cliError.ts'

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
