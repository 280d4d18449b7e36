/**
 * Log bloom cache files, as Besu keeps them: `caches/logBloom-<segment>.cache` under the data path,
 * each holding the 256-byte logs bloom of 100,000 consecutive canonical blocks (segment n covers
 * blocks n·100,000 … n·100,000 + 99,999). Only complete segments are written; the last, partial
 * one is not indexed. A query scans the blooms of its range and reads only the blocks whose bloom
 * may hold a match. Indexing runs in the background, in slices that leave the event loop to
 * requests, one request at a time. Owns the files only; `LogReader` decides when to use them.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import { RLP } from '@ethereumjs/rlp'
import { keccak_256 } from '@noble/hashes/sha3.js'
import { nextTurn } from '../primitives/clock.ts'
import { bytesToHex } from '../primitives/hex.ts'
import { createLogger } from '../primitives/logger.ts'
import type { Chain } from './chain.ts'
import type { LogCriteria } from './logFilter.ts'

const log = createLogger('logs')

export const BLOCKS_PER_SEGMENT = 100_000
export const BLOOM_BYTES = 256
const LOGS_BLOOM_FIELD = 6
/** Blocks indexed between two turns of the event loop. */
const SLICE_BLOCKS = 2_000
/** Beside each segment file: the hash of the segment's last block when it was written. */
const LAST_HASH_SUFFIX = '.last'

export interface CachingStatus {
  startBlock: bigint
  /** Undefined: up to the head (`latest`). */
  endBlock?: bigint
  currentBlock: bigint
  indexing: boolean
  requestAccepted: boolean
}

/** The three bit positions (of 2048) a value sets in a logs bloom (yellow paper, section 4.3.1). */
export function bloomBits(value: Uint8Array): [number, number, number] {
  const h = keccak_256(value)
  const bit = (i: number) => ((h[i] << 8) | h[i + 1]) & 2047
  return [bit(0), bit(2), bit(4)]
}

function hasBits(bloom: Uint8Array, offset: number, bits: [number, number, number]): boolean {
  for (const b of bits) if ((bloom[offset + BLOOM_BYTES - 1 - (b >> 3)] & (1 << (b & 7))) === 0) return false
  return true
}

/** Any-of groups of bit triples: a bloom may match when every group has one member it holds. */
export function criteriaBits(c: LogCriteria): [number, number, number][][] {
  const groups: [number, number, number][][] = []
  if (c.addresses.length > 0) groups.push(c.addresses.map(bloomBits))
  for (const alts of c.topics) if (alts && alts.length > 0) groups.push(alts.map(bloomBits))
  return groups
}

export class LogBloomCache {
  /** Before any request, as Besu's caching status: every block field 0 (endBlock "0x0", not "latest"). */
  private readonly status: CachingStatus = {
    startBlock: 0n,
    endBlock: 0n,
    currentBlock: 0n,
    indexing: false,
    requestAccepted: false,
  }
  private running?: Promise<void>
  /** Per segment: the hash of its last block when it was written. */
  private readonly lastHashes = new Map<number, string>()

  private readonly segmentBytes: number

  private readonly chain: Chain
  readonly dir: string
  readonly blocksPerSegment: number

  /** `blocksPerSegment` is Besu's 100,000; tests use small segments. */
  constructor(chain: Chain, dir: string, blocksPerSegment = BLOCKS_PER_SEGMENT) {
    this.chain = chain
    this.dir = dir
    this.blocksPerSegment = blocksPerSegment
    this.segmentBytes = blocksPerSegment * BLOOM_BYTES
  }

  segmentFile(segment: number): string {
    return join(this.dir, `logBloom-${segment}.cache`)
  }

  /**
   * Whether segment `n` has its complete file and still describes the canonical chain: the hash of
   * its last block, kept beside it, must be the canonical one (a reorg below it replaced that block).
   */
  hasSegment(segment: number): boolean {
    const file = this.segmentFile(segment)
    if (!existsSync(file) || statSync(file).size !== this.segmentBytes) return false
    let last = this.lastHashes.get(segment)
    if (last === undefined) {
      if (!existsSync(`${file}${LAST_HASH_SUFFIX}`)) return false
      last = bytesToHex(readFileSync(`${file}${LAST_HASH_SUFFIX}`))
      this.lastHashes.set(segment, last)
    }
    const canonical = this.chain.store.readCanonicalHash(BigInt((segment + 1) * this.blocksPerSegment - 1))
    return canonical !== undefined && bytesToHex(canonical) === last
  }

  get isIndexing(): boolean {
    return this.status.indexing
  }

  /** Asks for the segments of `[from, to]` to be written (complete ones only); answers the status. */
  requestCaching(from: bigint, to: bigint | undefined): CachingStatus {
    const isAccepted = !this.status.indexing && (to === undefined || from < to)
    this.status.requestAccepted = isAccepted
    if (isAccepted) {
      this.status.startBlock = from
      this.status.endBlock = to
      const last = to ?? this.chain.head.header.number
      const first = Number(from) - (Number(from) % this.blocksPerSegment)
      this.start(first / this.blocksPerSegment, Math.floor(Number(last) / this.blocksPerSegment), true)
    }
    return { ...this.status }
  }

  /** Rewrites every segment below the one holding `blockNumber`; false when indexing already. */
  repair(blockNumber: bigint): boolean {
    if (this.status.indexing) return false
    const below = Math.floor(Number(blockNumber) / this.blocksPerSegment) - 1
    if (below >= 0) this.start(0, below, true)
    return true
  }

  /** Writes the complete segments that are missing (at start and when a segment fills up). */
  ensureComplete(): void {
    if (this.status.indexing) return
    const complete = Math.floor(Number(this.chain.head.header.number + 1n) / this.blocksPerSegment) - 1
    if (complete >= 0) this.start(0, complete, false)
  }

  /** Deletes the files of the segments holding blocks `from` … `to`. */
  removeSegments(from: bigint, to: bigint): void {
    for (let s = Number(from / BigInt(this.blocksPerSegment)); s <= Number(to / BigInt(this.blocksPerSegment)); s++) {
      rmSync(this.segmentFile(s), { force: true })
      rmSync(`${this.segmentFile(s)}${LAST_HASH_SUFFIX}`, { force: true })
      this.lastHashes.delete(s)
    }
  }

  /** Resolves once the running indexing (if any) is done. */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve()
  }

  /**
   * Blocks of `[from, to]` inside complete segments whose bloom may match `c`, and the sub-ranges
   * the cache covers (the caller reads the rest from the log index).
   */
  candidates(from: number, to: number, c: LogCriteria): { covered: [number, number][]; blocks: number[] } {
    const groups = criteriaBits(c)
    const covered: [number, number][] = []
    const blocks: number[] = []
    for (let s = Math.floor(from / this.blocksPerSegment); s <= Math.floor(to / this.blocksPerSegment); s++) {
      if (!this.hasSegment(s)) continue
      const lo = Math.max(from, s * this.blocksPerSegment)
      const hi = Math.min(to, (s + 1) * this.blocksPerSegment - 1)
      const bytes = readRange(
        this.segmentFile(s),
        (lo % this.blocksPerSegment) * BLOOM_BYTES,
        (hi - lo + 1) * BLOOM_BYTES,
      )
      covered.push([lo, hi])
      for (let i = 0; i <= hi - lo; i++) {
        const offset = i * BLOOM_BYTES
        if (groups.every((alts) => alts.some((bits) => hasBits(bytes, offset, bits)))) blocks.push(lo + i)
      }
    }
    return { covered, blocks }
  }

  private start(firstSegment: number, lastSegment: number, isForced: boolean): void {
    this.status.indexing = true
    this.status.currentBlock = BigInt(firstSegment * this.blocksPerSegment)
    this.running = (async () => {
      try {
        mkdirSync(this.dir, { recursive: true })
        for (let s = firstSegment; s <= lastSegment; s++) {
          await nextTurn()
          if (!isForced && this.hasSegment(s)) continue
          if (!(await this.writeSegment(s))) break
        }
      } catch (e) {
        log.error('log bloom indexing failed', { error: e instanceof Error ? e.message : String(e) })
      } finally {
        this.status.indexing = false
        this.running = undefined
      }
    })()
  }

  /** Writes segment `s` when all its blocks are canonical; false when it is not complete yet. */
  private async writeSegment(s: number): Promise<boolean> {
    const first = s * this.blocksPerSegment
    if (BigInt(first + this.blocksPerSegment - 1) > this.chain.head.header.number) return false
    const out = new Uint8Array(this.segmentBytes)
    for (let i = 0; i < this.blocksPerSegment; i++) {
      if (i % SLICE_BLOCKS === 0 && i > 0) await nextTurn()
      const n = BigInt(first + i)
      const hash = this.chain.store.readCanonicalHash(n)
      const rlp = hash && this.chain.store.readHeaderRlp(hash)
      if (!rlp) return false
      out.set((RLP.decode(rlp) as Uint8Array[])[LOGS_BLOOM_FIELD], i * BLOOM_BYTES)
      this.status.currentBlock = n
    }
    const lastHash = this.chain.store.readCanonicalHash(BigInt(first + this.blocksPerSegment - 1))!
    const tmp = `${this.segmentFile(s)}.tmp`
    writeFileSync(tmp, out)
    writeFileSync(`${this.segmentFile(s)}${LAST_HASH_SUFFIX}`, lastHash)
    renameSync(tmp, this.segmentFile(s))
    this.lastHashes.set(s, bytesToHex(lastHash))
    log.info('indexed log blooms', { segment: s, from: first, to: first + this.blocksPerSegment - 1 })
    return true
  }
}

function readRange(file: string, offset: number, length: number): Uint8Array {
  const fd = openSync(file, 'r')
  try {
    const out = new Uint8Array(length)
    readSync(fd, out, 0, length, offset)
    return out
  } finally {
    closeSync(fd)
  }
}
