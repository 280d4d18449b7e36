/**
 * One eth/68 peer: its STATUS, the head it announced last, what it already knows (so nothing is sent
 * back to where it came from), and our requests to it, matched to responses by their 64-bit id.
 */
import type { PeerHandle } from '../peerManager.ts'
import type { SyncPeer } from './blockSync.ts'
import { EthCode, encodeHeaderQuery, encodeRequest, type HeaderQuery, type Status } from './messages.ts'

const REQUEST_TIMEOUT_MS = 10_000
const KNOWN_BLOCKS = 1024
const KNOWN_TXS = 32_768

type Nested = Uint8Array | Nested[]

/** A set that forgets its oldest half when full. */
export class BoundedSet {
  private items = new Set<string>()
  private readonly max: number

  constructor(max: number) {
    this.max = max
  }
  add(key: string): void {
    if (this.items.size >= this.max) this.items = new Set([...this.items].slice(this.max / 2))
    this.items.add(key)
  }
  has(key: string): boolean {
    return this.items.has(key)
  }
}

interface PendingRequest {
  responseCode: number
  resolve: (body: Nested[]) => void
  reject: (e: Error) => void
  timer: ReturnType<typeof setTimeout>
}

export class EthPeer implements SyncPeer {
  status?: Status
  headHash: Uint8Array = new Uint8Array(32)
  td = 0n
  readonly knownBlocks = new BoundedSet(KNOWN_BLOCKS)
  readonly knownTxs = new BoundedSet(KNOWN_TXS)
  private readonly pending = new Map<bigint, PendingRequest>()
  private nextId = BigInt(Math.floor(Math.random() * 2 ** 32)) << 16n

  readonly handle: PeerHandle
  private readonly timeoutMs: number

  constructor(handle: PeerHandle, timeoutMs = REQUEST_TIMEOUT_MS) {
    this.handle = handle
    this.timeoutMs = timeoutMs
  }

  get id(): string {
    return this.handle.id
  }

  get isReady(): boolean {
    return this.status !== undefined
  }

  send(code: number, payload: Uint8Array): boolean {
    return this.handle.send(code, payload)
  }

  /** Sends a request and resolves to the response's body, or rejects on timeout or disconnect. */
  request(code: number, responseCode: number, body: unknown[]): Promise<Nested[]> {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id)
        reject(new Error(`request ${code} timed out`))
      }, this.timeoutMs)
      this.pending.set(id, { responseCode, resolve, reject, timer })
      if (!this.send(code, encodeRequest(id, body))) {
        clearTimeout(timer)
        this.pending.delete(id)
        reject(new Error('peer disconnected'))
      }
    })
  }

  /** Hands a response to its request; false when nothing waits for it (or it is of another kind). */
  resolveResponse(code: number, id: bigint, body: Nested[]): boolean {
    const p = this.pending.get(id)
    if (!p || p.responseCode !== code) return false
    this.pending.delete(id)
    clearTimeout(p.timer)
    p.resolve(body)
    return true
  }

  getHeaders(q: HeaderQuery): Promise<Nested[]> {
    return this.request(EthCode.getBlockHeaders, EthCode.blockHeaders, encodeHeaderQuery(q))
  }

  getBodies(hashes: Uint8Array[]): Promise<Nested[]> {
    return this.request(EthCode.getBlockBodies, EthCode.blockBodies, hashes)
  }

  getPooledTransactions(hashes: Uint8Array[]): Promise<Nested[]> {
    return this.request(EthCode.getPooledTransactions, EthCode.pooledTransactions, hashes)
  }

  /** Fails every request still waiting (the session ended). */
  close(): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer)
      p.reject(new Error('peer disconnected'))
    }
    this.pending.clear()
  }
}
