/**
 * One JSON-RPC listener (HTTP with WebSocket upgrade, or WebSocket only): a hono app on the runtime's
 * server (runtime/httpServer.ts).
 * Owns HTTP concerns — host allowlist (403), CORS, body limits, parse errors as HTTP 400,
 * /liveness and /readiness — and hands request bodies to the dispatcher.
 */
import { Hono } from 'hono'
import type { DispatchOptions, RpcDispatcher } from '../jsonrpc/dispatcher.ts'
import { createLogger } from '../primitives/logger.ts'
import type { Connection, RpcContext, RpcServices } from '../rpc/context.ts'
import { createServerRuntime, type HttpServer } from '../runtime/httpServer.ts'
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
  /** Whether plain HTTP POSTs are served (false: WebSocket only). */
  isHttpServed: boolean
}

/** A started listener: its bound port and how to stop it. */
export type RunningListener = HttpServer

let nextConnectionId = 1

export async function startRpcListener(
  dispatcher: RpcDispatcher<RpcContext>,
  services: RpcServices,
  opts: RpcListenerOptions,
): Promise<RunningListener> {
  const dispatch: DispatchOptions = { enabledGroups: new Set(opts.apis), maxBatchSize: opts.maxBatchSize }
  const httpCtx: RpcContext = { ...services, apis: opts.apis }
  // A larger frame closes the connection with 1009 (message too big), as Besu's does.
  const runtime = await createServerRuntime({
    maxRequestBodyBytes: MAX_BODY_BYTES,
    maxWsFrameBytes: MAX_WS_FRAME_BYTES,
    idleTimeoutS: IDLE_TIMEOUT_S,
  })
  const { upgradeWebSocket } = runtime
  const app = new Hono()
  const isHostAllowed = hostChecker(opts.hostAllowlist)

  app.use('*', hostAndCorsGuard(opts.hostAllowlist, opts.corsOrigins))
  app.get('/liveness', (c) => c.json({ status: 'UP' }))
  app.get('/readiness', (c) => c.json({ status: 'UP' }))
  app.get(
    '/',
    upgradeWebSocket(() => {
      const closers: (() => void)[] = []
      let ctx: RpcContext
      return {
        onOpen(_evt, ws) {
          const connection: Connection = {
            id: nextConnectionId++,
            send: (m) => ws.send(m),
            onClose: (fn) => closers.push(fn),
          }
          ctx = { ...services, apis: opts.apis, connection }
        },
        async onMessage(evt, ws) {
          const text = typeof evt.data === 'string' ? evt.data : new TextDecoder().decode(evt.data as ArrayBuffer)
          const { body } = await dispatcher.handleText(text, ctx, dispatch)
          if (body !== undefined) ws.send(body)
        },
        onClose() {
          for (const fn of closers) fn()
        },
      }
    }),
  )
  // A plain GET / is a health probe; Besu answers it 201 with no body.
  app.get('/', (c) => c.body(null, 201))
  if (opts.isHttpServed) {
    app.post('/', async (c) => {
      const { body, status, headers } = await rpcAnswer(c.req.raw)
      return body === null ? c.body(null, status) : c.body(body, status, headers)
    })
  }

  const rpcAnswer = async (req: Request): Promise<RpcAnswer> => {
    const text = await req.text()
    if (text.length > MAX_BODY_BYTES)
      return { body: 'Request body too large', status: 413, headers: { ...TEXT_HEADERS } }
    const { body, isParseError } = await dispatcher.handleText(text, httpCtx, dispatch)
    if (body === undefined) return { body: null, status: 200 }
    return { body, status: isParseError ? 400 : 200, headers: { ...JSON_HEADERS } }
  }
  const postRpc = async (req: Request): Promise<Response> => {
    const { body, status, headers } = await rpcAnswer(req)
    return new Response(body, { status, headers })
  }
  // The hot path: a same-origin POST / from an allowed host needs none of the router's work (CORS,
  // WebSocket upgrade, probes), so it goes straight to the dispatcher; everything else to hono.
  const fetch: typeof app.fetch = (req, server) =>
    opts.isHttpServed &&
    req.method === 'POST' &&
    isRootPath(req.url) &&
    !req.headers.has('origin') &&
    isHostAllowed(req.headers.get('host') ?? undefined)
      ? postRpc(req)
      : app.fetch(req, server)

  const server = await runtime.serve(opts.host, opts.port, fetch)
  log.info('listening', {
    url: `${opts.isHttpServed ? 'http' : 'ws'}://${opts.host}:${server.port}`,
    apis: opts.apis.join(','),
    http: opts.isHttpServed,
  })
  return server
}

// Copied per response: Node's server adapter adds content-length to the object it is given.
const JSON_HEADERS = { 'content-type': 'application/json' }
const TEXT_HEADERS = { 'content-type': 'text/plain; charset=UTF-8' }

interface RpcAnswer {
  body: string | null
  status: 200 | 400 | 413
  headers?: Record<string, string>
}

/** Whether an absolute request URL's path is exactly `/` (no query). */
function isRootPath(url: string): boolean {
  return url.indexOf('/', url.indexOf('//') + 2) === url.length - 1
}
