/**
 * Where a forked dev chain starts (`basalt run --fork-url URL [--fork-block-number N]`): the remote
 * chain's block N (its latest by default) becomes the local chain's first block, with the remote's
 * chain id, and the remote state at N is read lazily through the fork cache (state/forkSource.ts).
 * The fork point is recorded in the database, so a restart on the same data path starts without
 * asking the remote anything; a data path forked at another block is refused.
 */
import { type Block, createBlock, createBlockHeaderFromRPC } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { bigintToBytes, bytesToBigint, bytesToHex, equalBytes, hexToBytes, toQuantity } from '../primitives/hex.ts'
import { CachedForkSource, ForkRemoteError, httpRemote, type RemoteCall } from '../state/forkSource.ts'
import type { ChainStore } from '../storage/chainStore.ts'
import { type ForkCacheStore, MemoryForkCache, SqliteForkCache } from '../storage/forkCache.ts'
import { openSqlite, type SqlDatabase } from '../storage/sqlite.ts'

/** `basalt run`'s fork options. */
export interface ForkConfig {
  url: string
  /** The remote block to fork at; the remote's latest when absent. */
  blockNumber?: bigint
  /** Where fetched values are kept: the node's database (`db`), nowhere (`off`), or a file of their own. */
  cache: string
}

const META_FORK = 'fork'

export interface ForkPoint {
  chainId: bigint
  number: bigint
  /** The remote block as `eth_getBlockByNumber` answered it (without transactions). */
  blockJson: Record<string, unknown>
  remote: RemoteCall
}

/** The recorded fork point of this data path, or the remote's block N (fetched and checked). */
export async function resolveForkPoint(config: ForkConfig, store: ChainStore): Promise<ForkPoint> {
  const remote = httpRemote(config.url)
  const stored = store.readMeta(META_FORK)
  if (stored) {
    const [chainId, number, json] = RLP.decode(stored) as Uint8Array[]
    const point = { chainId: bytesToBigint(chainId), number: bytesToBigint(number), remote }
    if (config.blockNumber !== undefined && config.blockNumber !== point.number) {
      throw new Error(
        `the data path holds a chain forked at block ${point.number}, not at ${config.blockNumber}; use another --data-path`,
      )
    }
    return { ...point, blockJson: JSON.parse(new TextDecoder().decode(json)) }
  }
  const chainId = BigInt(String(await remote('eth_chainId', [])))
  const number = config.blockNumber ?? BigInt(String(await remote('eth_blockNumber', [])))
  const blockJson = (await remote('eth_getBlockByNumber', [toQuantity(number), false])) as Record<
    string,
    unknown
  > | null
  if (!blockJson) throw new ForkRemoteError(`fork remote ${config.url} has no block ${number}`)
  const record = RLP.encode([
    bigintToBytes(chainId),
    bigintToBytes(number),
    new TextEncoder().encode(JSON.stringify(blockJson)),
  ])
  store.writeMeta(META_FORK, record)
  return { chainId, number, blockJson, remote }
}

/** The remote's block N as the local chain's first block; refused when its hash does not come out the same. */
export function forkAnchorBlock(point: ForkPoint, common: Common): Block {
  const c = common.copy()
  const header = createBlockHeaderFromRPC(point.blockJson as never, { common: c, setHardfork: true })
  const expected = hexToBytes(String(point.blockJson.hash))
  if (!equalBytes(header.hash(), expected)) {
    throw new Error(
      `cannot rebuild the remote's block ${point.number} (${bytesToHex(expected)}) under this node's hardforks: got ${bytesToHex(header.hash())}`,
    )
  }
  return createBlock(
    { header, withdrawals: header.withdrawalsRoot ? [] : undefined },
    { common: header.common, freeze: false },
  )
}

/** The fork source reading the remote at the fork block through the configured cache. */
export async function openForkSource(
  config: ForkConfig,
  point: ForkPoint,
  anchor: Block,
  db: SqlDatabase,
): Promise<{ source: CachedForkSource; close(): void }> {
  let cache: ForkCacheStore
  let close = () => {}
  if (config.cache === 'off') cache = new MemoryForkCache()
  else if (config.cache === 'db') cache = new SqliteForkCache(db)
  else {
    const file = await openSqlite(config.cache)
    file.exec('PRAGMA journal_mode = WAL')
    cache = new SqliteForkCache(file)
    close = () => file.close()
  }
  return { source: new CachedForkSource(point.remote, cache, anchor.hash(), point.number), close }
}
