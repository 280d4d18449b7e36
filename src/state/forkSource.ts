/**
 * Where a forked chain's state comes from when the local trie has never held an account or slot:
 * the remote chain at the fork block, read over standard JSON-RPC (`eth_getProof` for an account
 * with its code hash and storage root, `eth_getCode`, `eth_getStorageAt`) and kept in the fork
 * cache, so that every later read of the same value (a replay, a restart) gets the same answer
 * without asking the remote again.
 */
import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_NULL, KECCAK256_RLP, unpadBytes } from '@ethereumjs/util'
import { keccak_256 } from '@noble/hashes/sha3.js'
import {
  bigintToBytes,
  bytesToBigint,
  bytesToHex,
  concatBytes,
  equalBytes,
  hexToBytes,
  toQuantity,
} from '../primitives/hex.ts'
import type { ForkCacheStore } from '../storage/forkCache.ts'

/** How long one remote call may take. */
const REMOTE_TIMEOUT_MS = 15_000

/** The remote failed or answered something unusable; the message says which call. */
export class ForkRemoteError extends Error {
  /** The remote's JSON-RPC error code, when it answered with an error. */
  readonly code?: number

  constructor(message: string, code?: number) {
    super(message)
    this.code = code
    this.name = 'ForkRemoteError'
  }
}

/** A fork point this chain cannot move to (another chain id, a block Basalt cannot rebuild). */
export class ForkMismatchError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ForkMismatchError'
  }
}

/** The remote does not serve the method (-32601 unknown, -32604 not enabled). */
function isUnsupported(e: unknown): boolean {
  return e instanceof ForkRemoteError && (e.code === -32601 || e.code === -32604)
}

export interface RemoteAccount {
  nonce: bigint
  balance: bigint
  codeHash: Uint8Array
  /** False only when the remote's storage root is the empty trie's: no slot needs asking for. */
  hasStorage: boolean
}

/** The remote state at the fork block, one value at a time. */
export interface ForkSource {
  account(address: Uint8Array): Promise<RemoteAccount | undefined>
  code(address: Uint8Array, codeHash: Uint8Array): Promise<Uint8Array>
  /** The slot's value without leading zeros (empty for zero). */
  storage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array>
  /** The hash of the remote's block `n`, when it is not after the fork block. */
  blockHash(n: bigint): Promise<Uint8Array | undefined>
}

export type RemoteCall = (method: string, params: unknown[]) => Promise<unknown>

/** A JSON-RPC client of `url` with a bounded time per call. */
export function httpRemote(url: string, timeoutMs = REMOTE_TIMEOUT_MS): RemoteCall {
  let id = 0
  return async (method, params) => {
    let body: { result?: unknown; error?: { code: number; message: string } }
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
        signal: AbortSignal.timeout(timeoutMs),
      })
      if (!res.ok) throw new Error(`HTTP ${res.status}`)
      body = (await res.json()) as typeof body
    } catch (e) {
      throw new ForkRemoteError(`fork remote ${url} failed on ${method}: ${(e as Error).message}`)
    }
    if (body.error)
      throw new ForkRemoteError(`fork remote ${url} refused ${method}: ${body.error.message}`, body.error.code)
    return body.result
  }
}

const KIND_ACCOUNT = 1
const KIND_CODE = 2
const KIND_STORAGE = 3
const KIND_BLOCK = 4
const KIND_HISTORY = 5
const NO_ACCOUNT = new Uint8Array(0)

/** The remote's state at block `blockHash` (number `blockNumber`), through `cache`. */
export class CachedForkSource implements ForkSource {
  private readonly inFlight = new Map<string, Promise<Uint8Array>>()
  private tag: string

  private remote: RemoteCall
  private readonly cache: ForkCacheStore
  private forkHash: Uint8Array
  /** The fork block's number: blocks up to it are the remote's. */
  number: bigint

  constructor(remote: RemoteCall, cache: ForkCacheStore, forkHash: Uint8Array, number: bigint) {
    this.remote = remote
    this.cache = cache
    this.forkHash = forkHash
    this.number = number
    this.tag = toQuantity(number)
  }

  /** Reads from now on at another fork block (`anvil_reset` to another fork point). */
  moveTo(forkHash: Uint8Array, number: bigint): void {
    this.forkHash = forkHash
    this.number = number
    this.tag = toQuantity(number)
    this.inFlight.clear()
  }

  /**
   * Sends later fetches to another endpoint of the same chain (`anvil_setRpcUrl`); what is cached
   * stays, since it is keyed by the fork block's hash.
   */
  useRemote(remote: RemoteCall): void {
    this.remote = remote
  }

  async blockHash(n: bigint): Promise<Uint8Array | undefined> {
    const json = await this.block(n, false)
    return json ? hexToBytes(String(json.hash)) : undefined
  }

  /**
   * The remote's block (by number or hash) as its `eth_getBlockBy*` answers it, or null when it has
   * none at or below the fork block.
   */
  async block(ref: bigint | Uint8Array, isFull: boolean): Promise<Record<string, unknown> | null> {
    const byNumber = typeof ref === 'bigint'
    const id = byNumber ? bigintToBytes(ref) : ref
    const key = concatBytes(this.forkHash, Uint8Array.of(KIND_BLOCK, isFull ? 1 : 0, byNumber ? 0 : 1), id)
    const [method, first] = byNumber
      ? ['eth_getBlockByNumber', toQuantity(ref)]
      : ['eth_getBlockByHash', bytesToHex(ref)]
    const json = (await this.cachedJson(key, method, [first, isFull])) as Record<string, unknown> | null
    return json && BigInt(String(json.number)) <= this.number ? json : null
  }

  /**
   * The remote's answer to `method(params)`, a question about its history up to the fork block (a
   * transaction, a receipt, logs, a trace), fetched once and cached; the caller checks that the
   * answer is about a block up to the fork block.
   */
  history(method: string, params: unknown[]): Promise<unknown> {
    const question = new TextEncoder().encode(JSON.stringify([method, params]))
    return this.cachedJson(concatBytes(this.forkHash, Uint8Array.of(KIND_HISTORY), question), method, params)
  }

  private async cachedJson(key: Uint8Array, method: string, params: unknown[]): Promise<unknown> {
    const raw = await this.cached(key, async () =>
      new TextEncoder().encode(JSON.stringify((await this.remote(method, params)) ?? null)),
    )
    return JSON.parse(new TextDecoder().decode(raw))
  }

  async account(address: Uint8Array): Promise<RemoteAccount | undefined> {
    const raw = await this.cached(concatBytes(this.forkHash, Uint8Array.of(KIND_ACCOUNT), address), () =>
      this.fetchAccount(address),
    )
    if (raw.length === 0) return undefined
    const [nonce, balance, codeHash, hasStorage] = RLP.decode(raw) as Uint8Array[]
    return { nonce: bytesToBigint(nonce), balance: bytesToBigint(balance), codeHash, hasStorage: hasStorage.length > 0 }
  }

  code(address: Uint8Array, codeHash: Uint8Array): Promise<Uint8Array> {
    return this.cached(concatBytes(Uint8Array.of(KIND_CODE), codeHash), async () =>
      hexToBytes(String(await this.remote('eth_getCode', [bytesToHex(address), this.tag]))),
    )
  }

  storage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    const key = concatBytes(this.forkHash, Uint8Array.of(KIND_STORAGE), address, slot)
    return this.cached(key, async () =>
      unpadBytes(
        hexToBytes(String(await this.remote('eth_getStorageAt', [bytesToHex(address), bytesToHex(slot), this.tag]))),
      ),
    )
  }

  private async fetchAccount(address: Uint8Array): Promise<Uint8Array> {
    const proof = await this.remote('eth_getProof', [bytesToHex(address), [], this.tag]).catch(async (e) => {
      if (!isUnsupported(e)) throw e
      return this.fetchAccountFields(address)
    })
    return encodeAccount(proof as Record<string, string | undefined>)
  }

  /**
   * For a remote without `eth_getProof` (Hardhat's node): balance, nonce and code one call each.
   * Without the storage root, every slot of a contract is asked for.
   */
  private async fetchAccountFields(address: Uint8Array): Promise<Record<string, string>> {
    const params = [bytesToHex(address), this.tag]
    const [balance, nonce, code] = await Promise.all(
      ['eth_getBalance', 'eth_getTransactionCount', 'eth_getCode'].map((m) => this.remote(m, params)),
    )
    const codeBytes = hexToBytes(String(code))
    const codeHash = bytesToHex(keccak_256(codeBytes))
    if (codeBytes.length > 0) this.cache.put(concatBytes(Uint8Array.of(KIND_CODE), hexToBytes(codeHash)), codeBytes)
    const storageHash = codeBytes.length > 0 ? bytesToHex(KECCAK256_NULL) : bytesToHex(KECCAK256_RLP)
    return { balance: String(balance), nonce: String(nonce), codeHash, storageHash }
  }

  /** The cached value under `key`, fetched once (concurrent askers share the fetch) and stored. */
  private async cached(key: Uint8Array, fetchValue: () => Promise<Uint8Array>): Promise<Uint8Array> {
    const hit = this.cache.get(key)
    if (hit !== undefined) return hit
    const id = bytesToHex(key)
    let pending = this.inFlight.get(id)
    if (!pending) {
      pending = fetchValue().then(
        (v) => {
          this.cache.put(key, v)
          return v
        },
        (e) => {
          throw e instanceof ForkRemoteError
            ? e
            : new ForkRemoteError(`fork remote answered badly: ${(e as Error).message}`)
        },
      )
      pending.finally(() => this.inFlight.delete(id)).catch(() => {})
      this.inFlight.set(id, pending)
    }
    return pending
  }
}

/** The cached form of an account: empty when the remote has none, else RLP [nonce, balance, codeHash, hasStorage]. */
function encodeAccount(proof: Record<string, string | undefined>): Uint8Array {
  const nonce = BigInt(proof.nonce ?? 0)
  const balance = BigInt(proof.balance ?? 0)
  // Some nodes answer zero hashes for an account that does not exist.
  const codeHash = orIfZero(proof.codeHash, KECCAK256_NULL)
  const storageHash = orIfZero(proof.storageHash, KECCAK256_RLP)
  const isEmpty = nonce === 0n && balance === 0n && equalBytes(codeHash, KECCAK256_NULL)
  const hasStorage = !equalBytes(storageHash, KECCAK256_RLP)
  if (isEmpty && !hasStorage) return NO_ACCOUNT
  return RLP.encode([
    bigintToBytes(nonce),
    bigintToBytes(balance),
    codeHash,
    hasStorage ? Uint8Array.of(1) : new Uint8Array(0),
  ])
}

function orIfZero(hash: string | undefined, fallback: Uint8Array): Uint8Array {
  const bytes = hexToBytes(hash ?? '0x')
  return bytes.every((b) => b === 0) ? fallback : bytes
}
