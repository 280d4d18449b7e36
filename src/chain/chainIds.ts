/**
 * The chain id as a per-block property: the id in force from block N on. A chain starts with its
 * genesis id; the dev tools' `anvil_setChainId` adds an entry for the block after the head. Each
 * stored block is decoded and replayed under the id its transactions were signed with (the rules of
 * `rulesAt(number)`), while the chain's own `Common` carries the latest id, so new transactions,
 * new blocks and calls follow the new one. The schedule is kept in the meta table, so a restart
 * (and crash recovery) sees it. Does not decide who may change the id (rpc/dev does).
 */
import type { Common } from '@ethereumjs/common'
import type { ChainStore } from '../storage/chainStore.ts'

/** Meta row: JSON `[[fromBlock, chainId], …]` (decimal strings), in block order, first entry from 0. */
const META_CHAIN_IDS = 'chainIds'

interface ChainIdEntry {
  from: bigint
  chainId: bigint
}

/** The chain id the stored schedule puts in force last (undefined when none is stored: the genesis id). */
export function latestStoredChainId(store: ChainStore): bigint | undefined {
  const raw = store.readMeta(META_CHAIN_IDS)
  if (!raw) return undefined
  const entries = JSON.parse(new TextDecoder().decode(raw)) as [string, string][]
  return entries.length > 0 ? BigInt(entries[entries.length - 1][1]) : undefined
}

/** Gives `common` (and the copies made from it afterwards) another chain id; earlier copies keep theirs. */
function setChainIdOf(common: Common, chainId: bigint): void {
  // Copies of a Common share its chain parameters object, so it is replaced, never changed in place.
  const c = common as unknown as { _chainParams: Record<string, unknown> }
  c._chainParams = { ...c._chainParams, chainId: Number(chainId) }
}

export class ChainIdSchedule {
  private entries: ChainIdEntry[]
  private readonly commons = new Map<bigint, Common>()
  private readonly store: ChainStore
  private readonly common: Common

  /** Loads the stored schedule and puts the latest id on `common` (the chain's rules). */
  constructor(store: ChainStore, common: Common) {
    this.store = store
    this.common = common
    const raw = store.readMeta(META_CHAIN_IDS)
    this.entries = raw
      ? (JSON.parse(new TextDecoder().decode(raw)) as [string, string][]).map(([from, id]) => ({
          from: BigInt(from),
          chainId: BigInt(id),
        }))
      : [{ from: 0n, chainId: common.chainId() }]
    const latest = this.entries[this.entries.length - 1].chainId
    if (latest !== common.chainId()) setChainIdOf(common, latest)
  }

  /** The chain id of block `number`. */
  chainIdAt(number: bigint): bigint {
    for (let i = this.entries.length - 1; i > 0; i--) if (this.entries[i].from <= number) return this.entries[i].chainId
    return this.entries[0].chainId
  }

  /** The chain's rules under the chain id of block `number` (the chain's own `Common` when it is the latest). */
  rulesAt(number: bigint): Common {
    const chainId = this.chainIdAt(number)
    if (chainId === this.common.chainId()) return this.common
    let c = this.commons.get(chainId)
    if (!c) {
      c = this.common.copy()
      setChainIdOf(c, chainId)
      this.commons.set(chainId, c)
    }
    return c
  }

  /** The head moved back to `head`: the latest id stays in force from the block after it. */
  followHead(head: bigint): void {
    const latest = this.entries[this.entries.length - 1]
    if (latest.from > head + 1n) this.set(head + 1n, latest.chainId)
  }

  /**
   * Makes `chainId` the id from block `from` on (entries from that block on are replaced: the head
   * was rolled back below them), stores the schedule and puts the id on the chain's rules.
   */
  set(from: bigint, chainId: bigint): void {
    const kept = this.entries.filter((e) => e.from < from || e.from === 0n)
    const last = kept[kept.length - 1]
    this.entries = last?.chainId === chainId ? kept : [...kept, { from, chainId }]
    const json = JSON.stringify(this.entries.map((e) => [e.from.toString(), e.chainId.toString()]))
    this.store.writeMeta(META_CHAIN_IDS, new TextEncoder().encode(json))
    this.commons.clear()
    setChainIdOf(this.common, chainId)
  }
}
