/**
 * EIP-2124 fork identifiers: the CRC32 of the genesis hash and every fork activation the head has
 * passed (block numbers, then timestamps), with the next activation; and the rules that accept or
 * reject a peer's fork id against our schedule. Computed from our chain config, so a custom genesis
 * needs no fork hashes set in advance.
 */
import type { Common } from '@ethereumjs/common'
import { bigintToPaddedBytes, concatBytes } from '../../primitives/hex.ts'

export interface ForkId {
  /** 4-byte CRC32 checksum. */
  hash: Uint8Array
  /** The next activation (block number or timestamp), 0 when none is scheduled. */
  next: bigint
}

/** One activation point: a block number or a timestamp. */
export interface ForkPoint {
  at: bigint
  isTime: boolean
}

export interface HeadPosition {
  number: bigint
  timestamp: bigint
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    t[n] = c >>> 0
  }
  return t
})()

/** IEEE CRC32 (the checksum EIP-2124 names), big-endian in 4 bytes. */
export function crc32(bytes: Uint8Array): Uint8Array {
  let c = 0xffffffff
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8)
  return bigintToPaddedBytes(BigInt((c ^ 0xffffffff) >>> 0), 4)
}

/**
 * The chain's activation points in order: block forks after genesis, then time forks after the
 * genesis timestamp; forks sharing a point count once.
 */
export function forkSchedule(common: Common, genesisTimestamp: bigint): ForkPoint[] {
  const blocks = new Set<bigint>()
  const times = new Set<bigint>()
  for (const hf of common.hardforks()) {
    if (hf.block !== null && hf.block !== undefined && BigInt(hf.block) > 0n) blocks.add(BigInt(hf.block))
    if (hf.timestamp !== null && hf.timestamp !== undefined && BigInt(hf.timestamp) > genesisTimestamp)
      times.add(BigInt(hf.timestamp))
  }
  const sorted = (s: Set<bigint>) => [...s].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  return [...sorted(blocks).map((at) => ({ at, isTime: false })), ...sorted(times).map((at) => ({ at, isTime: true }))]
}

const isPassed = (f: ForkPoint, head: HeadPosition) => (f.isTime ? head.timestamp >= f.at : head.number >= f.at)

/** The checksums after 0, 1, … n forks. */
function checksums(genesisHash: Uint8Array, schedule: ForkPoint[]): Uint8Array[] {
  const out = [crc32(genesisHash)]
  let data = genesisHash
  for (const f of schedule) {
    data = concatBytes(data, bigintToPaddedBytes(f.at, 8))
    out.push(crc32(data))
  }
  return out
}

/** Our fork id at `head`. */
export function forkIdAt(genesisHash: Uint8Array, schedule: ForkPoint[], head: HeadPosition): ForkId {
  const passed = schedule.findIndex((f) => !isPassed(f, head))
  const count = passed === -1 ? schedule.length : passed
  return { hash: checksums(genesisHash, schedule)[count], next: schedule[count]?.at ?? 0n }
}

/** Undefined when a peer announcing `remote` is compatible with us at `head`, else the reason. */
export function checkForkId(
  genesisHash: Uint8Array,
  schedule: ForkPoint[],
  head: HeadPosition,
  remote: ForkId,
): string | undefined {
  const sums = checksums(genesisHash, schedule)
  const firstUnpassed = schedule.findIndex((f) => !isPassed(f, head))
  const k = firstUnpassed === -1 ? schedule.length : firstUnpassed
  const same = (a: Uint8Array) => a.every((b, i) => b === remote.hash[i])
  if (same(sums[k])) {
    if (remote.next === 0n) return undefined
    // The remote's next fork is one our head has already passed without it: we forked away.
    const nextIsTime = remote.next > 1_438_269_973n
    const passedNext = nextIsTime ? head.timestamp >= remote.next : head.number >= remote.next
    return passedNext ? 'local head is past the remote fork id next fork' : undefined
  }
  for (let j = 0; j < k; j++) {
    if (!same(sums[j])) continue
    return schedule[j].at === remote.next ? undefined : 'remote fork id is stale (the remote needs a software update)'
  }
  for (let j = k + 1; j < sums.length; j++) if (same(sums[j])) return undefined
  return 'unknown fork id checksum'
}
