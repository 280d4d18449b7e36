/**
 * Which chain a data path holds, as far as the configuration that opened it tells: recorded in the
 * meta table once the chain is open, so that a restart over the same data path with the same
 * configuration can answer `eth_chainId` and `net_version` before the chain is opened again (as a
 * new dev data path does). Only the configuration's genesis is compared (the dev genesis, or a
 * genesis file by its content's SHA-256): opening the chain still checks the stored genesis block,
 * and a refused start exits as before. Everything this module imports stays light: it is evaluated
 * before the first answer.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { latestStoredChainId } from '../chain/chainIds.ts'
import type { ChainStore } from '../storage/chainStore.ts'
import { readForkRemote } from '../storage/forkCache.ts'
import type { NodeConfig } from './config.ts'

/** Meta row: JSON `{ source, chainId }`, the genesis the chain was opened with and its chain id (decimal). */
const META_CHAIN_SOURCE = 'chainSource'

interface ChainSourceRecord {
  source: string
  chainId: string
}

/**
 * The genesis `config` names: `dev` for the dev chain, `genesis-file sha256:<hex>` for a genesis file
 * (undefined when it cannot be read: opening the chain reports that), undefined for a fork.
 */
export function chainSourceOf(config: Pick<NodeConfig, 'genesisFile' | 'fork'>): string | undefined {
  if (config.fork) return undefined
  if (!config.genesisFile) return 'dev'
  try {
    return `genesis-file sha256:${createHash('sha256').update(readFileSync(config.genesisFile)).digest('hex')}`
  } catch {
    return undefined
  }
}

/**
 * The chain id a restart of the data path of `store` under `config` will have, when the data path
 * recorded that it was opened with the same genesis and holds no fork: the genesis id, or the last
 * one `anvil_setChainId` stored. Undefined when only opening the chain can tell.
 */
export function restartChainId(
  store: ChainStore,
  config: Pick<NodeConfig, 'genesisFile' | 'fork'>,
): bigint | undefined {
  const raw = store.readMeta(META_CHAIN_SOURCE)
  if (!raw || readForkRemote(store)) return undefined
  const source = chainSourceOf(config)
  try {
    const record = JSON.parse(new TextDecoder().decode(raw)) as ChainSourceRecord
    if (source === undefined || record.source !== source) return undefined
    return latestStoredChainId(store) ?? BigInt(record.chainId)
  } catch {
    // An unreadable record: opening the chain tells (and writes it again).
    return undefined
  }
}

/**
 * Records the genesis an opened chain came from and its genesis chain id (a forked chain records
 * nothing and clears what an earlier start recorded). Written only when it changed.
 */
export function recordChainSource(
  store: ChainStore,
  config: Pick<NodeConfig, 'genesisFile' | 'fork'>,
  isForked: boolean,
  genesisChainId: bigint,
): void {
  const source = isForked ? undefined : chainSourceOf(config)
  const text = source === undefined ? undefined : JSON.stringify({ source, chainId: genesisChainId.toString() })
  const raw = store.readMeta(META_CHAIN_SOURCE)
  if ((raw && new TextDecoder().decode(raw)) === text) return
  if (text === undefined) store.deleteMeta(META_CHAIN_SOURCE)
  else store.writeMeta(META_CHAIN_SOURCE, new TextEncoder().encode(text))
}
