/**
 * Log criteria (addresses and positional topics) and matching them against logs in memory, for
 * filters and subscriptions fed by new blocks; the SQLite log index answers the same criteria for
 * stored ranges. Also lists a block's logs from its receipts and reads a header's timestamp without
 * decoding the whole header.
 */
import type { Block } from '@ethereumjs/block'
import { equalBytes } from '../primitives/hex.ts'
import type { StoredLog } from '../storage/chainStore.ts'
import type { Receipt } from './receipts.ts'

/** Any-of addresses (empty: any); per position any-of topics (null or empty: any). */
export interface LogCriteria {
  addresses: Uint8Array[]
  topics: (Uint8Array[] | null)[]
}

/** Whether a log with `address` and `topics` meets `c`. */
export function matchesLog(c: LogCriteria, address: Uint8Array, topics: Uint8Array[]): boolean {
  if (c.addresses.length > 0 && !c.addresses.some((a) => equalBytes(a, address))) return false
  for (let i = 0; i < c.topics.length; i++) {
    const alts = c.topics[i]
    if (!alts || alts.length === 0) continue
    const topic = topics[i]
    if (!topic || !alts.some((t) => equalBytes(t, topic))) return false
  }
  return true
}

/** True when no log can match (a constraint on a topic position past the fourth). */
export function isUnsatisfiable(c: LogCriteria): boolean {
  return c.topics.some((alts, i) => i > 3 && alts !== null && alts.length > 0)
}

/** The logs of `block` in index order, as the log index stores them. */
export function blockLogs(block: Block, receipts: Receipt[]): StoredLog[] {
  const blockHash = block.hash()
  const blockNumber = Number(block.header.number)
  const blockTimestamp = Number(block.header.timestamp)
  const out: StoredLog[] = []
  receipts.forEach((r, txIndex) => {
    const txHash = block.transactions[txIndex]?.hash() ?? new Uint8Array(32)
    for (const [address, topics, data] of r.logs) {
      out.push({ blockNumber, logIndex: out.length, blockHash, txHash, txIndex, address, topics, data, blockTimestamp })
    }
  })
  return out
}

const TIMESTAMP_FIELD = 11

/**
 * The timestamp (12th field) of an RLP-encoded header, found by skipping the fields before it;
 * a full decode per block would dominate large log queries.
 */
export function headerTimestamp(rlp: Uint8Array): bigint {
  let pos = listPayloadStart(rlp)
  for (let field = 0; field < TIMESTAMP_FIELD; field++) pos = skipItem(rlp, pos)
  const { start, length } = stringItem(rlp, pos)
  let n = 0n
  for (let i = start; i < start + length; i++) n = (n << 8n) | BigInt(rlp[i])
  return n
}

function listPayloadStart(b: Uint8Array): number {
  const p = b[0]
  if (p >= 0xc0 && p <= 0xf7) return 1
  if (p > 0xf7) return 1 + (p - 0xf7)
  throw new Error('header RLP is not a list')
}

function stringItem(b: Uint8Array, pos: number): { start: number; length: number } {
  const p = b[pos]
  if (p < 0x80) return { start: pos, length: 1 }
  if (p <= 0xb7) return { start: pos + 1, length: p - 0x80 }
  if (p < 0xc0) {
    const lenOfLen = p - 0xb7
    return { start: pos + 1 + lenOfLen, length: readLength(b, pos + 1, lenOfLen) }
  }
  throw new Error('expected an RLP string in the header')
}

function skipItem(b: Uint8Array, pos: number): number {
  const p = b[pos]
  if (p < 0xc0) {
    const { start, length } = stringItem(b, pos)
    return start + length
  }
  if (p <= 0xf7) return pos + 1 + (p - 0xc0)
  const lenOfLen = p - 0xf7
  return pos + 1 + lenOfLen + readLength(b, pos + 1, lenOfLen)
}

function readLength(b: Uint8Array, pos: number, size: number): number {
  let n = 0
  for (let i = 0; i < size; i++) n = n * 256 + b[pos + i]
  return n
}
