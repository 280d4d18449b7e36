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
import { Account, createAddressFromString, KECCAK256_RLP } from '@ethereumjs/util'
import type { Chain } from '../chain/chain.ts'
import { DEV_ACCOUNT_BALANCE_WEI, devAccounts } from '../chain/devAccounts.ts'
import { bigintToBytes, bytesToBigint, bytesToHex, equalBytes, hexToBytes, toQuantity } from '../primitives/hex.ts'
import {
  type CachedForkSource,
  ForkMismatchError,
  ForkRemoteError,
  httpRemote,
  type RemoteCall,
} from '../state/forkSource.ts'
import type { TrieDb } from '../state/trieDb.ts'
import { openState } from '../state/worldState.ts'
import type { ChainStore } from '../storage/chainStore.ts'
import { type ForkCacheStore, MemoryForkCache, SqliteForkCache, writeForkRemote } from '../storage/forkCache.ts'
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

/** Where a shared fork cache records the fork point of `url` at block `n`. */
const cacheKey = (url: string, n: bigint) => new TextEncoder().encode(`fork point ${url} ${n}`)

export interface ForkPoint {
  chainId: bigint
  number: bigint
  /** The remote block as `eth_getBlockByNumber` answered it (without transactions). */
  blockJson: Record<string, unknown>
  remote: RemoteCall
}

/**
 * The recorded fork point of this data path; else the one a shared fork cache recorded for the same
 * URL and block (`--fork-block-number`); else the remote's block N, fetched and recorded in both.
 */
export async function resolveForkPoint(
  config: ForkConfig,
  store: ChainStore,
  cache: ForkCacheStore,
): Promise<ForkPoint> {
  const remote = httpRemote(config.url)
  writeForkRemote(store, config.url, config.cache)
  const stored = store.readMeta(META_FORK)
  if (stored) {
    const point = decodePoint(stored, remote)
    if (config.blockNumber !== undefined && config.blockNumber !== point.number) {
      throw new Error(
        `the data path holds a chain forked at block ${point.number}, not at ${config.blockNumber}; use another --data-path`,
      )
    }
    return point
  }
  const shared = config.blockNumber === undefined ? undefined : cache.get(cacheKey(config.url, config.blockNumber))
  if (shared) {
    store.writeMeta(META_FORK, shared)
    return decodePoint(shared, remote)
  }
  const { point, record } = await fetchForkPoint(config.url, remote, config.blockNumber)
  store.writeMeta(META_FORK, record)
  cache.put(cacheKey(config.url, point.number), record)
  return point
}

/** The remote's block `blockNumber` (its latest when absent) and chain id, with their recorded form. */
async function fetchForkPoint(
  url: string,
  remote: RemoteCall,
  blockNumber?: bigint,
): Promise<{ point: ForkPoint; record: Uint8Array }> {
  const chainId = BigInt(String(await remote('eth_chainId', [])))
  const number = blockNumber ?? BigInt(String(await remote('eth_blockNumber', [])))
  const blockJson = (await remote('eth_getBlockByNumber', [toQuantity(number), false])) as Record<
    string,
    unknown
  > | null
  if (!blockJson) throw new ForkRemoteError(`fork remote ${url} has no block ${number}`)
  const record = RLP.encode([
    bigintToBytes(chainId),
    bigintToBytes(number),
    new TextEncoder().encode(JSON.stringify(blockJson)),
  ])
  return { point: { chainId, number, blockJson, remote }, record }
}

function decodePoint(record: Uint8Array, remote: RemoteCall): ForkPoint {
  const [chainId, number, json] = RLP.decode(record) as Uint8Array[]
  return {
    chainId: bytesToBigint(chainId),
    number: bytesToBigint(number),
    blockJson: JSON.parse(new TextDecoder().decode(json)),
    remote,
  }
}

/** The remote's block N as the local chain's first block; refused when its hash does not come out the same. */
export function forkAnchorBlock(point: ForkPoint, common: Common): Block {
  const c = common.copy()
  const header = createBlockHeaderFromRPC(point.blockJson as never, { common: c, setHardfork: true })
  const expected = hexToBytes(String(point.blockJson.hash))
  if (!equalBytes(header.hash(), expected)) {
    throw new ForkMismatchError(
      `cannot rebuild the remote's block ${point.number} (${bytesToHex(expected)}) under this node's hardforks: got ${bytesToHex(header.hash())}`,
    )
  }
  return createBlock(
    { header, withdrawals: header.withdrawalsRoot ? [] : undefined },
    { common: header.common, freeze: false },
  )
}

/**
 * Moves a forked chain onto block `blockNumber` of the remote at `url` (its latest when absent), as
 * `anvil_reset` / `hardhat_reset` with `forking` do: the new fork point must have this chain's chain
 * id; the fork source then reads at it, the dev accounts are funded there, and the chain starts over
 * from it (`Chain.restartFrom`, which records the new fork point in the same transaction, so a restart
 * continues from it). Resolves to the fork block's number. Call inside `Chain.exclusive`.
 */
export async function refork(
  chain: Chain,
  source: CachedForkSource,
  cache: ForkCacheStore,
  url: string,
  blockNumber?: bigint,
): Promise<bigint> {
  const remote = httpRemote(url)
  const { point, record } = await fetchForkPoint(url, remote, blockNumber)
  const chainId = chain.common.chainId()
  if (point.chainId !== chainId) {
    throw new ForkMismatchError(
      `${url} serves chain id ${point.chainId}, not this chain's ${chainId}; another chain needs another --data-path`,
    )
  }
  const anchor = forkAnchorBlock(point, chain.common)
  source.useRemote(remote)
  source.moveTo(anchor.hash(), point.number)
  const localRoot = await fundDevAccounts(chain.trieDb, chain.common)
  await chain.restartFrom(anchor, localRoot, [[META_FORK, record]])
  writeForkRemote(chain.store, url)
  cache.put(cacheKey(url, point.number), record)
  return point.number
}

/** The store of fetched remote values `config.cache` names (see ForkConfig). */
export async function openForkCache(
  config: ForkConfig,
  db: SqlDatabase,
): Promise<{ cache: ForkCacheStore; close(): void }> {
  if (config.cache === 'off') return { cache: new MemoryForkCache(), close: () => {} }
  if (config.cache === 'db') return { cache: new SqliteForkCache(db), close: () => {} }
  const file = await openSqlite(config.cache)
  file.exec('PRAGMA journal_mode = WAL')
  // Several nodes may share the file: a writer waits for another's short write instead of failing.
  file.exec('PRAGMA busy_timeout = 5000')
  return { cache: new SqliteForkCache(file), close: () => file.close() }
}

/**
 * The fork block's local state: the dev accounts hold 10,000 ether each (as Anvil's do on a fork),
 * keeping the remote's nonce and code; everything else reads through to the remote.
 */
export async function fundDevAccounts(trieDb: TrieDb, common: Common): Promise<Uint8Array> {
  const state = openState(trieDb, common, KECCAK256_RLP, true)
  for (const a of devAccounts()) {
    const address = createAddressFromString(a.address)
    const account = (await state.getAccount(address)) ?? new Account()
    account.balance = DEV_ACCOUNT_BALANCE_WEI
    await state.putAccount(address, account)
  }
  return state.getStateRoot()
}
