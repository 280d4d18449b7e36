/**
 * Listener threads (`--rpc-listener-threads N`; listenerThread.ts runs in each): further listeners
 * on the JSON-RPC HTTP port that answer the head's read-only methods themselves and relay everything
 * else here, so that concurrent clients are answered on more than one core.
 *
 * This thread publishes its head in a shared buffer (listenerThread.ts, HEAD_BYTES): the head's hash
 * and the state root after it, whether every committed state is written, and whether automine has
 * a block pending (a pass scheduled or running, a burst held, a run of sends open) or the chain id
 * changed since the threads started. It publishes in
 * the same turn as the head moves (the chain's new-block and head-reset events), before every
 * request its dispatcher runs and after every relayed one, and every few milliseconds for what no
 * event tells (the state flush, a dev tool's state edit). A thread never answers from a state the
 * buffer and its own snapshot do not agree on, so a late publication only relays more requests.
 *
 * The threads start on the first sign of concurrent clients (requests of two connections
 * interleaved, server/rpcListener.ts), so an idle node or a lone client never pays for them;
 * connections opened before stay on this thread.
 */
import type { Chain } from '../chain/chain.ts'
import { bodyText, type DispatchOptions, type RpcDispatcher } from '../jsonrpc/dispatcher.ts'
import { createLogger } from '../primitives/logger.ts'
import { metrics } from '../primitives/metrics.ts'
import type { DevSealer } from '../producer/devSealer.ts'
import type { Connection, RpcContext, RpcServices } from '../rpc/context.ts'
import { entryPointSpecifier } from '../runtime/runtime.ts'
import { type StartedWorker, startWorker } from '../runtime/worker.ts'
import { newConnectionId } from '../server/rpcListener.ts'
import { type FromListener, HEAD_BYTES, HEAD_WORDS, type ListenInit, type ToListener } from './listenerThread.ts'
import type { CallWorkerInit, FromCallWorker, ToCallWorker } from './workerChain.ts'

const log = createLogger('listenerThreads')
/** How often the head is published for what no event tells (a state flush, a dev tool's edit). */
const PUBLISH_INTERVAL_MS = 20

export interface ListenerThreadsOptions extends Omit<ListenInit, 'head'> {
  count: number
  /** The worker's chain settings (as the call workers get them). */
  worker: CallWorkerInit
}

type Thread = StartedWorker<ToCallWorker, FromCallWorker>

export class ListenerThreads {
  private readonly buffer = new SharedArrayBuffer(HEAD_BYTES)
  private readonly words = new Int32Array(this.buffer, 0, HEAD_WORDS)
  private readonly bytes = new Uint8Array(this.buffer, HEAD_WORDS * 4, 64)
  private readonly chain: Chain
  private readonly sealer: DevSealer | undefined
  private readonly dispatcher: RpcDispatcher<RpcContext>
  private readonly services: RpcServices
  private readonly opts: ListenerThreadsOptions
  private readonly dispatch: DispatchOptions
  private threads: Thread[] = []
  private timer?: ReturnType<typeof setInterval>
  private isClosed = false
  private readonly unsubscribe: (() => void)[] = []
  /** Threads listening, and the requests they answered themselves (debug_metrics). */
  readonly counts = { listening: 0, answered: 0 }

  constructor(
    chain: Chain,
    sealer: DevSealer | undefined,
    dispatcher: RpcDispatcher<RpcContext>,
    services: RpcServices,
    opts: ListenerThreadsOptions,
  ) {
    this.chain = chain
    this.sealer = sealer
    this.dispatcher = dispatcher
    this.services = services
    this.opts = opts
    this.dispatch = { enabledGroups: new Set(opts.apis), maxBatchSize: opts.maxBatchSize }
  }

  /** Whether the threads were started. */
  get isStarted(): boolean {
    return this.timer !== undefined
  }

  /**
   * Writes the head, its state root and the two flags (a sequence lock: the first word is odd while
   * the rest is written). Cheap when nothing changed: nothing is written then.
   */
  publish(): void {
    if (!this.isStarted) return
    const head = this.chain.head
    const isWritten = this.chain.isStateWritten ? 1 : 0
    // A chain id changed since the threads opened their chains (anvil_setChainId) is not in their
    // rules: from then on they relay everything.
    const isBlockPending = this.sealer?.isBlockPending || this.services.settings.chainId !== this.opts.chainId ? 1 : 0
    const hash = head.hash()
    const root = this.chain.postStateRoot(head)
    const { words, bytes } = this
    let isSame = words[1] === isWritten && words[2] === isBlockPending
    for (let i = 0; isSame && i < 32; i++) isSame = bytes[i] === hash[i] && bytes[32 + i] === root[i]
    if (isSame) return
    Atomics.add(words, 0, 1)
    bytes.set(hash, 0)
    bytes.set(root, 32)
    Atomics.store(words, 1, isWritten)
    Atomics.store(words, 2, isBlockPending)
    Atomics.add(words, 0, 1)
  }

  /** Starts the threads (once). */
  start(): void {
    if (this.isStarted || this.isClosed) return
    this.timer = setInterval(() => this.publish(), PUBLISH_INTERVAL_MS)
    this.timer.unref?.()
    this.unsubscribe.push(
      this.chain.onNewBlock(() => this.publish()),
      this.chain.onHeadReset(() => this.publish()),
    )
    this.publish()
    for (let i = 0; i < this.opts.count; i++) this.startThread()
  }

  close(): void {
    this.isClosed = true
    clearInterval(this.timer)
    for (const fn of this.unsubscribe) fn()
    for (const t of this.threads) t.terminate()
    this.threads = []
  }

  private startThread(): void {
    // make build compiles callWorker.ts as an entry point of the executable; it runs listener threads too.
    const thread: Thread = startWorker(entryPointSpecifier('node/callWorker.ts', new URL('../', import.meta.url).href))
    this.threads.push(thread)
    const ctx: RpcContext = { ...this.services, apis: this.opts.apis }
    const sessions = new Map<number, { ctx: RpcContext; closers: (() => void)[] }>()
    const send = (m: ToListener) => thread.postMessage({ type: 'listener', message: m })
    const fail = (error: string) => {
      log.warn('a listener thread stopped; its connections are closed', { error })
      thread.terminate()
      this.threads = this.threads.filter((t) => t !== thread)
      for (const s of sessions.values()) for (const fn of s.closers) fn()
      sessions.clear()
    }
    thread.onMessage(async (message) => {
      if (typeof message === 'string') return
      if (message.type === 'ready') {
        const { count: _, worker: __, ...listen } = this.opts
        thread.postMessage({ type: 'listen', listen: { ...listen, head: this.buffer } })
        return
      }
      if (message.type === 'failed') return fail(message.error)
      if (message.type !== 'listener') return
      const m: FromListener = message.message
      switch (m.type) {
        case 'listening':
          this.counts.listening++
          return
        case 'forward': {
          const { body, isParseError } = await this.handle(m.text, ctx)
          return send({ type: 'answered', id: m.id, body, isParseError })
        }
        case 'sessionOpen': {
          const closers: (() => void)[] = []
          const connection: Connection = {
            id: newConnectionId(),
            send: (text) => send({ type: 'sessionSend', session: m.session, message: text }),
            onClose: (fn) => closers.push(fn),
          }
          sessions.set(m.session, { ctx: { ...this.services, apis: this.opts.apis, connection }, closers })
          return
        }
        case 'sessionMessage': {
          const session = sessions.get(m.session)
          if (!session) return
          const { body } = await this.handle(m.text, session.ctx)
          if (body !== undefined) send({ type: 'sessionSend', session: m.session, message: body })
          return
        }
        case 'sessionClose': {
          for (const fn of sessions.get(m.session)?.closers ?? []) fn()
          sessions.delete(m.session)
          return
        }
        case 'counts':
          this.counts.answered += m.answered
          for (const [method, n] of Object.entries(m.requests)) metrics.inc('rpc', 'requests', method, n)
          for (const [method, n] of Object.entries(m.errors)) metrics.inc('rpc', 'errors', method, n)
          return
      }
    })
    thread.onError(fail)
    thread.postMessage({ type: 'init', init: this.opts.worker })
  }

  /** A relayed body, answered by the dispatcher as on this thread's own listener. */
  private async handle(text: string, ctx: RpcContext): Promise<{ body: string | undefined; isParseError: boolean }> {
    // A request relayed after a send was answered may arrive before that send's block is sealed
    // (on the next turn here): it waits for the block, as a request on this thread's own listener
    // comes after it.
    const pass = this.sealer?.pendingPass()
    if (pass) await pass
    try {
      // Relayed as text: decoded here, so the body's bytes can be written again at once.
      const { body, isParseError, release } = await this.dispatcher.handleText(text, ctx, this.dispatch)
      const out = body === undefined ? undefined : bodyText(body)
      release?.()
      return { body: out, isParseError }
    } finally {
      this.publish()
    }
  }
}
