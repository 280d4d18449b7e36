/**
 * debug_standardTraceBlockToFile and debug_standardTraceBadBlockToFile: EIP-3155 JSON-lines traces
 * of a block's transactions, one file per transaction (or only the one `txHash` names), written to
 * `traces/` under the data path (under a temp directory, removed at stop, for a `:memory:` chain). The
 * result lists the files' paths. Besu reference: DebugStandardTraceBlockToFile.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { type Block, createBlockFromRLP } from '@ethereumjs/block'
import { replayBlock } from '../../evm/tracers/blockReplayer.ts'
import { type StandardJsonOptions, StandardJsonTracer } from '../../evm/tracers/standardJsonTracer.ts'
import { codec, decoders, p } from '../../jsonrpc/codecs.ts'
import { defineMethod } from '../../jsonrpc/defineMethod.ts'
import { besuError, InvalidParamsError } from '../../jsonrpc/errors.ts'
import { bytesToHex, equalBytes } from '../../primitives/hex.ts'
import type { RpcContext } from '../context.ts'
import { mapTracingErrors, requireBlockByHash } from './traceRunner.ts'

interface FileTraceOptions extends StandardJsonOptions {
  txHash?: Uint8Array
}

const fileTraceOptions = codec('trace options', (v): FileTraceOptions => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return decoders.fail('expected an options object')
  const o = v as Record<string, unknown>
  const out: FileTraceOptions = {}
  for (const k of ['disableStack', 'enableMemory', 'disableMemory', 'enableReturnData'] as const) {
    if (o[k] !== undefined) out[k] = decoders.bool(o[k])
  }
  if (o.txHash !== undefined && o.txHash !== null) out.txHash = decoders.fixed(32, 'a transaction hash')(o.txHash)
  return out
}).optional({})

/** Traces the chosen transactions of `block` and writes one file each; resolves to their paths. */
async function traceToFiles(ctx: RpcContext, block: Block, opts: FileTraceOptions): Promise<string[]> {
  const indexes = block.transactions.flatMap((tx, i) =>
    opts.txHash === undefined || equalBytes(tx.hash(), opts.txHash) ? [i] : [],
  )
  if (opts.txHash !== undefined && indexes.length === 0) throw besuError('transactionNotFound')
  if (indexes.length === 0) return []
  const wanted = new Set(indexes)
  const traces = await mapTracingErrors(() =>
    replayBlock(
      ctx.chain,
      block,
      (_tx, i) => (wanted.has(i) ? new StandardJsonTracer(opts) : undefined),
      indexes[indexes.length - 1],
    ),
  )
  const dir = join(ctx.settings.filesDir, 'traces')
  mkdirSync(dir, { recursive: true })
  const stamp = Date.now().toString(36)
  return indexes.map((i) => {
    const name = `block_${bytesToHex(block.hash()).slice(0, 10)}-${i}-${bytesToHex(block.transactions[i].hash()).slice(0, 10)}-${stamp}.jsonl`
    const file = join(dir, name)
    writeFileSync(file, `${(traces.get(i) ?? []).join('\n')}\n`)
    return file
  })
}

/** EIP-3155 traces of a stored block's transactions, written to files. */
export const standardTraceBlockToFile = defineMethod({
  name: 'debug_standardTraceBlockToFile',
  besu: { kinds: ['blockHash', 'transactionTrace'] },
  params: [p.named('blockHash', p.hash), fileTraceOptions],
  handler: async (ctx: RpcContext, [hash, opts]) => traceToFiles(ctx, await requireBlockByHash(ctx, hash), opts),
})

/** EIP-3155 traces of a block that failed validation (from debug_getBadBlocks), written to files. */
export const standardTraceBadBlockToFile = defineMethod({
  name: 'debug_standardTraceBadBlockToFile',
  besu: { kinds: ['blockHash', 'transactionTrace'] },
  params: [p.named('blockHash', p.hash), fileTraceOptions],
  handler: async (ctx: RpcContext, [hash, opts]) => {
    const bad = ctx.chain.store.readBadBlocks().find((b) => equalBytes(b.hash, hash))
    if (!bad) throw besuError('blockNotFound')
    let block: Block
    try {
      block = createBlockFromRLP(bad.rlp, { common: ctx.chain.common, setHardfork: true })
    } catch {
      throw new InvalidParamsError('Invalid params: the bad block cannot be decoded')
    }
    return traceToFiles(ctx, block, opts)
  },
})

export const traceToFileMethods = [standardTraceBlockToFile, standardTraceBadBlockToFile]
