/**
 * The values a forked chain fetched from its remote (accounts, code, storage slots at the fork
 * block), so that a restart, a replay or a second chain forked at the same block asks the remote
 * nothing again. One table, `fork_cache`, in the node's database or in a file of its own
 * (`--fork-cache`); the table is created where it is missing, so one file can serve several chains.
 */
import type { ChainStore } from './chainStore.ts'
import type { SqlDatabase } from './sqlite.ts'

/** Raw key → value cache of fetched remote values; keys are built by the state layer. */
export interface ForkCacheStore {
  get(key: Uint8Array): Uint8Array | undefined
  put(key: Uint8Array, value: Uint8Array): void
}

export class SqliteForkCache implements ForkCacheStore {
  private readonly db: SqlDatabase

  constructor(db: SqlDatabase) {
    this.db = db
    db.exec('CREATE TABLE IF NOT EXISTS fork_cache (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID')
  }

  get(key: Uint8Array): Uint8Array | undefined {
    return (this.db.prepare('SELECT value FROM fork_cache WHERE key = ?').get(key)?.value as Uint8Array) ?? undefined
  }

  put(key: Uint8Array, value: Uint8Array): void {
    this.db.prepare('INSERT OR REPLACE INTO fork_cache (key, value) VALUES (?, ?)').run(key, value)
  }
}

/** `--fork-cache=off`: fetched values live as long as the process. */
export class MemoryForkCache implements ForkCacheStore {
  private readonly values = new Map<string, Uint8Array>()

  get(key: Uint8Array): Uint8Array | undefined {
    return this.values.get(Buffer.from(key).toString('hex'))
  }

  put(key: Uint8Array, value: Uint8Array): void {
    this.values.set(Buffer.from(key).toString('hex'), value)
  }
}

/** Meta row of a forked data path: JSON `{url, cache}`, the remote and cache a restart without `--fork-url` uses. */
const META_FORK_REMOTE = 'forkRemote'

/** Where a forked data path reads its remote and keeps fetched values (see `writeForkRemote`). */
export interface ForkRemoteRecord {
  url: string
  cache: string
}

export function readForkRemote(store: ChainStore): ForkRemoteRecord | undefined {
  const raw = store.readMeta(META_FORK_REMOTE)
  return raw ? (JSON.parse(new TextDecoder().decode(raw)) as ForkRemoteRecord) : undefined
}

/**
 * Records the remote URL a forked data path was last told (`--fork-url`, `anvil_setRpcUrl`, a
 * re-fork) and, when given, its fork cache setting; a restart without `--fork-url` uses them.
 */
export function writeForkRemote(store: ChainStore, url: string, cache?: string): void {
  const record: ForkRemoteRecord = { url, cache: cache ?? readForkRemote(store)?.cache ?? 'db' }
  store.writeMeta(META_FORK_REMOTE, new TextEncoder().encode(JSON.stringify(record)))
}
