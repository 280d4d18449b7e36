/**
 * A listener thread (`--rpc-listener-threads`, node/listenerThreads.ts starts them): a further
 * listener on the JSON-RPC HTTP port, which the node's own listener shares with it (the kernel
 * spreads connections among them). It serves the same app as the node's listener
 * (server/rpcListener.ts: host allowlist, CORS, body limit, probes, WebSocket upgrade), answers the
 * head's read-only methods itself from the flat head state on its own read-only connection
 * (workerChain.ts), and relays every other request, batch and WebSocket session to the node's
 * thread, so that they are answered there exactly as on the node's own listener.
 *
 * It answers a request itself only when all of these hold, else it relays it:
 * - a single request (not a batch) for one of LOCAL_METHODS, at `latest` (or without a block);
 * - the node's thread has published its head (hash and state root after it) and nothing else is in
 *   flight: every committed state's trie nodes and code written, no automine block pending (a pass
 *   scheduled or running, a burst held back, a run of sends open: see DevSealer.isBlockPending);
 * - the flat tables of this thread's snapshot hold exactly that state root.
 * The node's thread publishes in the same turn as its head moves, so a request sent after a block
 * was sealed (its receipt seen) never reads an older state here.
 */
import type { Block } from '@ethereumjs/block'
import { withExecutionDeadline } from '../evm/executionDeadline.ts'
import { bodyText, RpcDispatcher, responseText } from '../jsonrpc/dispatcher.ts'
import { equalBytes } from '../primitives/hex.ts'
import { metrics } from '../primitives/metrics.ts'
import type { RpcContext } from '../rpc/context.ts'
import { executionTimeoutError } from '../rpc/eth/callErrors.ts'
import { ethCall } from '../rpc/eth/callMethods.ts'
import { blockNumber, chainId } from '../rpc/eth/chainMethods.ts'
import { getBalance, getCode, getStorageAt } from '../rpc/eth/stateMethods.ts'
import {
  type RelaySession,
  type RequestRelay,
  type RpcListenerOptions,
  startRpcListener,
} from '../server/rpcListener.ts'
import { openFlatView, type StateManager } from '../state/worldState.ts'
import type { WorkerChain } from './workerChain.ts'

/**
 * What a listener thread is told to serve: the node's HTTP listener's settings (its API groups with
 * rpc_modules' group), the chain id, and the buffer the head is published in (HEAD_BYTES).
 */
export type ListenInit = Pick<
  RpcListenerOptions,
  'host' | 'port' | 'apis' | 'hostAllowlist' | 'corsOrigins' | 'maxBatchSize' | 'maxRequestBytes' | 'maxFrameBytes'
> & { chainId: bigint; head: SharedArrayBuffer }

/**
 * The head the node's thread publishes: Int32 words [sequence (odd while it is written), every
 * state written (1), automine block pending or the chain id changed (1)], then the head's hash and its state root (32 bytes each).
 */
export const HEAD_WORDS = 3
export const HEAD_BYTES = HEAD_WORDS * 4 + 64

/** The methods a listener thread answers, with the index of their block parameter (-1: none). */
const LOCAL_METHODS: Record<string, number> = {
  eth_call: 1,
  eth_getBalance: 1,
  eth_getCode: 1,
  eth_getStorageAt: 2,
  eth_blockNumber: -1,
  eth_chainId: -1,
}

/** Messages between a listener thread and the node's thread. */
export type ToListener =
  | { type: 'answered'; id: number; body?: string; isParseError: boolean }
  | { type: 'sessionSend'; session: number; message: string }
export type FromListener =
  | { type: 'listening' }
  | { type: 'forward'; id: number; text: string }
  | { type: 'sessionOpen'; session: number }
  | { type: 'sessionMessage'; session: number; text: string }
  | { type: 'sessionClose'; session: number }
  | { type: 'counts'; answered: number; requests: Record<string, number>; errors: Record<string, number> }

/** A body's answer: its text (none for notifications), and whether it was a parse error (HTTP 400). */
interface Answer {
  body: string | undefined
  isParseError: boolean
}

/**
 * A read snapshot is let go this long after its last use, and at the latest this long after it was
 * taken (a held snapshot keeps SQLite's checkpoints from recycling the write-ahead log past it).
 */
const SNAPSHOT_IDLE_MS = 10
const SNAPSHOT_MAX_MS = 200

/** How often the thread's request counts are sent on to the node's metrics (while they change). */
const COUNTS_INTERVAL_MS = 100

export class ListenerThread {
  private readonly wc: WorkerChain
  private readonly init: ListenInit
  private readonly post: (m: FromListener) => void
  private readonly words: Int32Array
  private readonly bytes: Uint8Array
  private readonly dispatcher: RpcDispatcher<RpcContext>
  private readonly ctx: RpcContext
  private readonly isEthEnabled: boolean
  private readonly waiting = new Map<number, (a: Answer) => void>()
  private readonly sessions = new Map<number, (message: string) => void>()
  private nextId = 0
  private view?: { root: Uint8Array; state: StateManager }
  private readonly sent = { requests: new Map<string, number>(), errors: new Map<string, number>() }
  private countsTimer?: ReturnType<typeof setTimeout>
  /** The last publication read, and its head block. */
  private head?: { seq: number; hash: Uint8Array; root: Uint8Array }
  private headBlock?: { seq: number; block: Block }
  /** The publication the held snapshot serves, when and since when one is held, and its last use. */
  private heldSeq?: number
  private heldSinceMs = 0
  private lastUseMs = 0
  private releaseTimer?: ReturnType<typeof setTimeout>
  /** Requests answered here and not yet counted on the node's thread. */
  private answered = 0

  constructor(wc: WorkerChain, init: ListenInit, post: (m: FromListener) => void) {
    this.wc = wc
    this.init = init
    this.post = post
    this.words = new Int32Array(init.head, 0, HEAD_WORDS)
    this.bytes = new Uint8Array(init.head, HEAD_WORDS * 4, 64)
    this.dispatcher = new RpcDispatcher<RpcContext>(
      [{ group: 'ETH', methods: [ethCall, getBalance, getCode, getStorageAt, blockNumber, chainId] }],
      executionTimeoutError,
      (handle) => withExecutionDeadline(wc.init.rpcEvmTimeoutMs, handle),
    )
    const chain = wc.chain
    // The worker's chain, reading the state at the head from the flat tables of the snapshot.
    const headChain = Object.create(chain, {
      bonsai: { value: wc.source.bonsai },
      postStateRoot: { value: wc.source.postStateRoot },
      stateAt: { value: (block: Block) => this.stateAt(block) },
    })
    this.ctx = {
      chain: headChain,
      settings: { chainId: init.chainId, rpcGasCap: wc.init.rpcGasCap, rpcEvmTimeoutMs: wc.init.rpcEvmTimeoutMs },
      apis: init.apis,
    } as unknown as RpcContext
    this.isEthEnabled = init.apis.includes('ETH')
  }

  async listen(): Promise<void> {
    const relay: RequestRelay = {
      answer: async (text) => (await this.answerHere(text)) ?? this.forward(text),
      openSession: (send) => this.openSession(send),
    }
    const { host, port, apis, hostAllowlist, corsOrigins, maxBatchSize, maxRequestBytes, maxFrameBytes } = this.init
    await startRpcListener(relay, {
      host,
      port,
      apis,
      hostAllowlist,
      corsOrigins,
      maxBatchSize,
      maxRequestBytes,
      maxFrameBytes,
      isHttpServed: true,
      sharedPort: 'further',
    })
    this.post({ type: 'listening' })
  }

  /** A message of the node's thread: a relayed answer, or a message for a WebSocket session. */
  receive(m: ToListener): void {
    if (m.type === 'answered') {
      this.waiting.get(m.id)?.({ body: m.body, isParseError: m.isParseError })
      this.waiting.delete(m.id)
    } else this.sessions.get(m.session)?.(m.message)
  }

  private forward(text: string): Promise<Answer> {
    const id = this.nextId++
    return new Promise((resolve) => {
      this.waiting.set(id, resolve)
      this.post({ type: 'forward', id, text })
    })
  }

  private openSession(send: (message: string) => void): RelaySession {
    const session = this.nextId++
    this.sessions.set(session, send)
    this.post({ type: 'sessionOpen', session })
    return {
      message: (text) => this.post({ type: 'sessionMessage', session, text }),
      close: () => {
        this.sessions.delete(session)
        this.post({ type: 'sessionClose', session })
      },
    }
  }

  /** The answer given here, or undefined when the node's thread must answer (see the module's rules). */
  private async answerHere(text: string): Promise<Answer | undefined> {
    if (!this.isEthEnabled) return undefined
    let payload: unknown
    try {
      payload = JSON.parse(text)
    } catch {
      return undefined
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined
    const { method, params } = payload as { method?: unknown; params?: unknown }
    if (typeof method !== 'string' || !Object.hasOwn(LOCAL_METHODS, method)) return undefined
    const at = LOCAL_METHODS[method]
    if (at >= 0) {
      if (!Array.isArray(params)) return undefined
      const ref = params[at]
      if (ref !== undefined && ref !== 'latest') return undefined
    }
    const head = this.published()
    if (!head) {
      this.release()
      return undefined
    }
    const snapshotRoot = this.snapshotAt(head.seq)
    if (!snapshotRoot || !equalBytes(snapshotRoot, head.root)) return undefined
    const out = await this.wc.read(async () => {
      if (this.headBlock?.seq !== head.seq) {
        const block = await this.wc.chain.getBlockByHash(head.hash)
        if (!block) return undefined
        this.wc.remember(block, head.root)
        this.headBlock = { seq: head.seq, block }
      }
      this.wc.chain.head = this.headBlock.block
      return { payload: await this.dispatcher.handlePayload(payload, this.ctx, this.dispatchOptions) }
    })
    if (!out) return undefined
    this.answered++
    this.countsChanged()
    return { body: out.payload === undefined ? undefined : bodyText(responseText(out.payload)), isParseError: false }
  }

  private readonly dispatchOptions = {
    enabledGroups: new Set(['ETH']),
    maxBatchSize: 1,
  }

  /** The published head, or undefined while it is written or anything is in flight on the node's thread. */
  private published(): { seq: number; hash: Uint8Array; root: Uint8Array } | undefined {
    const seq = Atomics.load(this.words, 0)
    if (seq & 1 || Atomics.load(this.words, 1) !== 1 || Atomics.load(this.words, 2) !== 0) return undefined
    if (seq === this.head?.seq) return this.head
    const head = { seq, hash: this.bytes.slice(0, 32), root: this.bytes.slice(32, 64) }
    if (Atomics.load(this.words, 0) !== seq) return undefined
    this.head = head
    return head
  }

  /**
   * The flat state root of the read snapshot for publication `seq`: one snapshot serves the
   * requests of a publication while they keep coming; a new publication (a block, a flush, an
   * edit) takes a new snapshot, opened after what it announces was committed.
   */
  private snapshotAt(seq: number): Uint8Array | undefined {
    if (this.heldSeq !== seq) {
      this.release()
      this.heldSeq = seq
      this.heldSinceMs = performance.now()
    }
    this.lastUseMs = performance.now()
    this.releaseTimer ??= setTimeout(() => this.releaseIfIdle(), SNAPSHOT_IDLE_MS)
    return this.wc.hold()
  }

  private releaseIfIdle(): void {
    this.releaseTimer = undefined
    const nowMs = performance.now()
    if (nowMs - this.lastUseMs >= SNAPSHOT_IDLE_MS || nowMs - this.heldSinceMs >= SNAPSHOT_MAX_MS) this.release()
    else this.releaseTimer = setTimeout(() => this.releaseIfIdle(), SNAPSHOT_IDLE_MS)
  }

  private release(): void {
    this.heldSeq = undefined
    this.wc.release()
  }

  /** The flat view of the state after `block` (only ever the head here), kept while its root stays. */
  private stateAt(block: Block): StateManager {
    const root = this.wc.source.postStateRoot(block)
    if (!this.view || !equalBytes(this.view.root, root)) {
      const { trieDb, common } = this.wc.chain
      this.view = { root, state: openFlatView(trieDb, common, root, this.wc.source.bonsai!) }
    }
    return this.view.state
  }

  /** Sends the requests counted here since the last time, soon (the node's metrics show them). */
  private countsChanged(): void {
    this.countsTimer ??= setTimeout(() => {
      this.countsTimer = undefined
      const rpc = metrics.snapshot().rpc ?? {}
      const delta = (now: unknown, sent: Map<string, number>) => {
        const out: Record<string, number> = {}
        for (const [method, n] of Object.entries((now ?? {}) as Record<string, number>)) {
          const d = n - (sent.get(method) ?? 0)
          if (d > 0) out[method] = d
          sent.set(method, n)
        }
        return out
      }
      const answered = this.answered
      this.answered = 0
      this.post({
        type: 'counts',
        answered,
        requests: delta(rpc.requests, this.sent.requests),
        errors: delta(rpc.errors, this.sent.errors),
      })
    }, COUNTS_INTERVAL_MS)
  }
}
