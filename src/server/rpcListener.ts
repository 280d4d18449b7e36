/**
 * One JSON-RPC listener (HTTP with WebSocket upgrade, or WebSocket only): a hono app on the runtime's
 * server (runtime/httpServer.ts).
 * Owns HTTP concerns — host allowlist (403), CORS, body limits, parse errors as HTTP 400,
 * /liveness and /readiness — and hands request bodies to the dispatcher. A listener may start
 * before the chain is loaded (`RpcGate`): requests then wait for it, except the few answers the
 * configuration alone gives.
 */
import { Hono } from 'hono'
import { bodyText, type DispatchOptions, type ResponseBody, type RpcDispatcher } from '../jsonrpc/dispatcher.ts'
import { createLogger } from '../primitives/logger.ts'
import { ALWAYS_ENABLED_GROUP, type Connection, type RpcContext, type RpcServices } from '../rpc/context.ts'
import { createServerRuntime, type HttpServer } from '../runtime/httpServer.ts'
import { runtimeName } from '../runtime/runtime.ts'
import { hostAndCorsGuard, hostChecker } from './httpGuard.ts'

const log = createLogger('server')
/** Besu's defaults: --rpc-http-max-request-content-length 5 MiB, --rpc-ws-max-frame-size 1 MiB. */
const MAX_BODY_BYTES = 5 * 1024 * 1024
const MAX_WS_FRAME_BYTES = 1024 * 1024
const IDLE_TIMEOUT_S = 120

export interface RpcListenerOptions {
  host: string
  port: number
  apis: string[]
  hostAllowlist: string[]
  corsOrigins: string[]
  maxBatchSize: number
  /** The largest request body (Besu's default 5 MiB) and WebSocket frame (1 MiB). */
  maxRequestBytes?: number
  maxFrameBytes?: number
  /** Whether plain HTTP POSTs are served (false: WebSocket only). */
  isHttpServed: boolean
  /** A port shared with listener threads (runtime/httpServer.ts `sharedPort`). */
  sharedPort?: 'first' | 'further'
  /**
   * Called when concurrent clients show (requests of two connections interleaved), until it answers
   * true. Bun only (its server tells a request's remote port).
   */
  onConcurrency?: () => boolean
}

/**
 * Where a listener thread's requests go: bodies answered (by the thread itself or the node's
 * thread), and WebSocket sessions relayed to the node's thread, whose answers and notifications
 * come back through `send`.
 */
export interface RequestRelay {
  answer(text: string): Promise<{ body: string | undefined; isParseError: boolean }>
  openSession(send: (message: string) => void): RelaySession
}

export interface RelaySession {
  message(text: string): void
  close(): void
}

/** A started listener: its bound port and how to stop it. */
export type RunningListener = HttpServer

let nextConnectionId = 1

/** A new WebSocket connection's id (unique in this thread: connections relayed from listener threads take theirs here too). */
export function newConnectionId(): number {
  return nextConnectionId++
}

/** What a listener hands requests to: the dispatcher and the node's services. */
export interface RpcBackend {
  dispatcher: RpcDispatcher<RpcContext>
  services: RpcServices
}

/** Methods answered from the configuration alone while the chain loads, with their API group. */
export interface EarlyAnswers {
  chainId?: bigint
  networkId?: bigint
  clientVersion: string
}

const EARLY_GROUPS: Record<string, string> = {
  eth_chainId: 'ETH',
  net_version: 'NET',
  web3_clientVersion: 'WEB3',
  rpc_modules: ALWAYS_ENABLED_GROUP,
}

/**
 * The backend of listeners started before the chain is loaded. Until `open`, every request waits
 * (bounded by the node's start: if it fails the process exits), except a single request for one of
 * `EARLY_GROUPS`' methods without parameters, answered from `early` once it is set (after the data
 * path is locked) with what the dispatcher would answer.
 */
export class RpcGate {
  backend: RpcBackend | undefined
  early: EarlyAnswers | undefined
  readonly ready: Promise<RpcBackend>
  private resolveReady: (b: RpcBackend) => void = () => {}
  private readonly onOpen: (() => void)[] = []

  constructor(backend?: RpcBackend) {
    this.backend = backend
    this.ready = backend ? Promise.resolve(backend) : new Promise((resolve) => (this.resolveReady = resolve))
  }

  open(backend: RpcBackend): void {
    this.backend = backend
    this.resolveReady(backend)
    for (const fn of this.onOpen.splice(0)) fn()
  }

  /** Runs `fn` when the gate opens (now if it is open). */
  whenOpen(fn: () => void): void {
    if (this.backend) fn()
    else this.onOpen.push(fn)
  }

  /** The answer to `text` from the configuration alone, or undefined when it must wait for the chain. */
  earlyAnswer(text: string, apis: string[]): string | undefined {
    const early = this.early
    if (early === undefined) return undefined
    let req: { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown }
    try {
      req = JSON.parse(text)
    } catch {
      return undefined
    }
    if (typeof req !== 'object' || req === null || Array.isArray(req) || req.jsonrpc !== '2.0') return undefined
    const { id, method, params } = req
    if (!(typeof id === 'string' || Number.isSafeInteger(id)) || typeof method !== 'string') return undefined
    if (params !== undefined && !(Array.isArray(params) && params.length === 0)) return undefined
    if (!Object.hasOwn(EARLY_GROUPS, method) || !apis.includes(EARLY_GROUPS[method])) return undefined
    const result =
      method === 'eth_chainId'
        ? early.chainId === undefined
          ? undefined
          : `0x${early.chainId.toString(16)}`
        : method === 'net_version'
          ? early.networkId?.toString()
          : method === 'web3_clientVersion'
            ? early.clientVersion
            : Object.fromEntries(apis.map((a) => [a.toLowerCase(), '1.0']))
    return result === undefined ? undefined : JSON.stringify({ jsonrpc: '2.0', id, result })
  }
}

export async function startRpcListener(
  backend: RpcBackend | RpcGate | RequestRelay,
  opts: RpcListenerOptions,
): Promise<RunningListener> {
  const relay = 'answer' in backend ? backend : undefined
  const gate = backend instanceof RpcGate ? backend : new RpcGate('answer' in backend ? undefined : backend)
  const dispatch: DispatchOptions = { enabledGroups: new Set(opts.apis), maxBatchSize: opts.maxBatchSize }
  let httpCtx: RpcContext | undefined
  const maxBodyBytes = opts.maxRequestBytes ?? MAX_BODY_BYTES
  // A larger frame closes the connection with 1009 (message too big), as Besu's does.
  const runtime = await createServerRuntime({
    maxRequestBodyBytes: maxBodyBytes,
    maxWsFrameBytes: opts.maxFrameBytes ?? MAX_WS_FRAME_BYTES,
    idleTimeoutS: IDLE_TIMEOUT_S,
  })
  const { upgradeWebSocket } = runtime
  const app = new Hono()
  const isHostAllowed = hostChecker(opts.hostAllowlist)

  app.use('*', hostAndCorsGuard(opts.hostAllowlist, opts.corsOrigins))
  app.get('/liveness', (c) => c.json({ status: 'UP' }))
  // Besu answers 503 DOWN while the node is not ready to serve: here, while the chain loads.
  // A relay's listener (a listener thread) starts once the node serves.
  app.get('/readiness', (c) => (relay || gate.backend ? c.json({ status: 'UP' }) : c.json({ status: 'DOWN' }, 503)))
  app.get(
    '/',
    upgradeWebSocket(() => {
      const closers: (() => void)[] = []
      let connection: Connection
      let ctx: RpcContext | undefined
      let session: RelaySession | undefined
      return {
        onOpen(_evt, ws) {
          if (relay) session = relay.openSession((m) => ws.send(m))
          connection = {
            id: newConnectionId(),
            send: (m) => ws.send(m),
            onClose: (fn) => closers.push(fn),
          }
        },
        async onMessage(evt, ws) {
          const text = typeof evt.data === 'string' ? evt.data : new TextDecoder().decode(evt.data as ArrayBuffer)
          if (session) return session.message(text)
          const early = gate.backend ? undefined : gate.earlyAnswer(text, opts.apis)
          if (early !== undefined) return ws.send(early)
          const { dispatcher, services } = gate.backend ?? (await gate.ready)
          ctx ??= { ...services, apis: opts.apis, connection }
          const { body, release } = await dispatcher.handleText(text, ctx, dispatch)
          if (body !== undefined) ws.send(bodyText(body))
          release?.()
        },
        onClose() {
          session?.close()
          for (const fn of closers) fn()
        },
      }
    }),
  )
  // A plain GET / is a health probe; Besu answers it 201 with no body.
  app.get('/', (c) => c.body(null, 201))
  if (opts.isHttpServed) {
    app.post('/', async (c) => {
      const answer = await rpcAnswer(c.req.raw)
      const { body, status, type } = answer
      const res =
        body === null || type === undefined ? c.body(null, status) : c.body(body, status, { ...HEADERS[type] })
      if (isBodyCopied) answer.release?.()
      return res
    })
  }

  const rpcAnswer = async (req: Request): Promise<RpcAnswer> => {
    const text = await req.text()
    if (text.length > maxBodyBytes) return { body: 'Request body too large', status: 413, type: 'text' }
    if (relay) return answerOf(await relay.answer(text))
    const early = gate.backend ? undefined : gate.earlyAnswer(text, opts.apis)
    if (early !== undefined) return { body: early, status: 200, type: 'json' }
    const { dispatcher, services } = gate.backend ?? (await gate.ready)
    httpCtx ??= { ...services, apis: opts.apis }
    return answerOf(await dispatcher.handleText(text, httpCtx, dispatch))
  }
  const postRpc = async (req: Request): Promise<Response> => {
    const answer = await rpcAnswer(req)
    const { body, status, type } = answer
    const res = new Response(body, type === undefined ? { status } : { status, headers: RESPONSE_HEADERS[type] })
    if (isBodyCopied) answer.release?.()
    return res
  }
  // The hot path: a same-origin POST / from an allowed host needs none of the router's work (CORS,
  // WebSocket upgrade, probes), so it goes straight to the dispatcher; everything else to hono.
  const watch = opts.onConcurrency ? new ConcurrencyWatch(opts.onConcurrency) : undefined
  const fetch: typeof app.fetch = (req, server) => {
    if (watch?.isWatching) watch.saw((server as BunServer | undefined)?.requestIP?.(req)?.port)
    return opts.isHttpServed &&
      req.method === 'POST' &&
      isRootPath(req.url) &&
      !req.headers.has('origin') &&
      isHostAllowed(req.headers.get('host') ?? undefined)
      ? postRpc(req)
      : app.fetch(req, server)
  }

  const server = await runtime.serve(opts.host, opts.port, fetch, { sharedPort: opts.sharedPort })
  // Logged once the node serves: a start that fails after the bind prints its error line alone.
  gate.whenOpen(() =>
    log.info('listening', {
      url: `${opts.isHttpServed ? 'http' : 'ws'}://${opts.host}:${server.port}`,
      apis: opts.apis.join(','),
      http: opts.isHttpServed,
    }),
  )
  return server
}

type BodyType = 'json' | 'text'
// Copied per response given to hono: Node's server adapter adds content-length to the object it is given.
const HEADERS: Record<BodyType, Record<string, string>> = {
  json: { 'content-type': 'application/json' },
  text: { 'content-type': 'text/plain; charset=UTF-8' },
}
// Shared by the responses of the hot path: a Response copies a Headers object it is given (Node's
// adapter reads it into a new object), and building one from a plain object on every request cost
// about 1.7 µs (docs/performance.md, "Issue 18: the read rows, fourth round").
const RESPONSE_HEADERS: Record<BodyType, Headers> = {
  json: new Headers(HEADERS.json),
  text: new Headers(HEADERS.text),
}

interface RpcAnswer {
  body: ResponseBody | null
  status: 200 | 400 | 413
  /** The body's content type; undefined for no body. */
  type?: BodyType
  /** Lets the body's bytes be written again, once the response made from them no longer needs them. */
  release?: () => void
}

/**
 * Whether a `Response` made from bytes has copied them, so that they can be written again at once.
 * Bun's does (checked: a 40 MB body overwritten right after, read by paused clients, arrived whole);
 * Node's server adapter keeps the bytes to write them later, and Deno's was not checked.
 */
const isBodyCopied = runtimeName() === 'bun'

interface BunServer {
  requestIP?(req: Request): { port: number } | null
}

/**
 * Tells concurrent clients from the remote ports of successive requests: a client alone keeps its
 * port (keep-alive) or takes a new one per request; a request from a port that was used, within the
 * last second, before a request from another port comes from one of two connections open at once.
 */
class ConcurrencyWatch {
  isWatching = true
  private last?: number
  private readonly seenMs = new Map<number, number>()
  private readonly onConcurrency: () => boolean

  constructor(onConcurrency: () => boolean) {
    this.onConcurrency = onConcurrency
  }

  saw(port: number | undefined): void {
    if (port === undefined || port === this.last) return
    const nowMs = performance.now()
    const seenMs = this.seenMs.get(port)
    if (seenMs !== undefined && nowMs - seenMs < 1_000 && this.onConcurrency()) {
      this.isWatching = false
      this.seenMs.clear()
      return
    }
    if (this.seenMs.size >= 256) this.seenMs.clear()
    if (this.last !== undefined) this.seenMs.set(this.last, nowMs)
    this.last = port
  }
}

/** The HTTP answer to a dispatched body. */
function answerOf({
  body,
  isParseError,
  release,
}: {
  body: ResponseBody | undefined
  isParseError: boolean
  release?: () => void
}): RpcAnswer {
  if (body === undefined) return { body: null, status: 200 }
  return { body, status: isParseError ? 400 : 200, type: 'json', release }
}

/** Whether an absolute request URL's path is exactly `/` (no query). */
function isRootPath(url: string): boolean {
  return url.indexOf('/', url.indexOf('//') + 2) === url.length - 1
}
