/**
 * Besu's `--tx-pool-enable-save-restore`: the pool written to a file when the node stops and read
 * back when it starts, in Besu's format, so that either client reads the other's file. One line per
 * transaction: its score (Besu's; 127, the highest, is written), `l` (sent over JSON-RPC) or `r`
 * (from a peer), and the base64 of its pooled RLP (legacy: the RLP list; typed: the RLP string of
 * `type || payload`, blob transactions with their sidecar). Lines without a score are read too, as
 * Besu's older files have them. The file is removed once read.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { RLP } from '@ethereumjs/rlp'
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx'
import { decodeBlobTxOffThread } from '../chain/blobTxDecode.ts'
import type { Chain } from '../chain/chain.ts'
import { txToWire } from '../p2p/eth/messages.ts'
import { createLogger } from '../primitives/logger.ts'
import type { TxPool } from '../txpool/txPool.ts'

const log = createLogger('txpool')
/** The score written for every transaction: Besu's highest, which its restore keeps. */
const SCORE = 127
const LINE = /^(-?\d+)?([lr])([A-Za-z0-9+/=]+)$/

/** Writes the pool's transactions to `file`, replacing it; returns how many. */
export function savePool(pool: TxPool, file: string): number {
  const lines = pool.all().map((t) => {
    const pooled = RLP.encode(txToWire(t.tx) as never)
    return `${SCORE}${t.isLocal ? 'l' : 'r'}${Buffer.from(pooled).toString('base64')}`
  })
  const tmp = `${file}.tmp`
  writeFileSync(tmp, lines.length === 0 ? '' : `${lines.join('\n')}\n`)
  renameSync(tmp, file)
  return lines.length
}

/**
 * Adds the transactions of `file` to the pool (each as local or remote, as it was), then removes the
 * file; lines that do not read and transactions the pool refuses now are skipped. Returns how many
 * were added and skipped.
 */
export async function restorePool(
  pool: TxPool,
  chain: Chain,
  file: string,
): Promise<{ added: number; skipped: number }> {
  if (!existsSync(file)) return { added: 0, skipped: 0 }
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
  let added = 0
  for (const line of lines) {
    const m = LINE.exec(line)
    if (!m) continue
    try {
      const tx = await decodePooled(chain, Buffer.from(m[3], 'base64'))
      await pool.add(tx, { isLocal: m[2] === 'l' })
      added++
    } catch (e) {
      log.debug('skipped a saved transaction', { error: (e as Error).message })
    }
  }
  rmSync(file, { force: true })
  return { added, skipped: lines.length - added }
}

/** A transaction from its pooled RLP: a list (legacy) or a string holding `type || payload`. */
function decodePooled(chain: Chain, pooled: Uint8Array): Promise<TypedTransaction> {
  const common = chain.commonForNextBlock()
  const item = RLP.decode(pooled)
  if (!(item instanceof Uint8Array)) return Promise.resolve(createTxFromRLP(pooled, { common }))
  if (item[0] === 3) return decodeBlobTxOffThread(common, item)
  return Promise.resolve(createTxFromRLP(item, { common }))
}
