/**
 * HTTP and WebSocket serving on all three runtimes: `Bun.serve` (hono/bun's WebSocket), `Deno.serve`
 * (hono/deno's), and Node's http server through `@hono/node-server` with `ws` behind
 * `@hono/node-ws`. Each listener gets the same limits everywhere: request body size (413 beyond
 * it), WebSocket frame size (the connection closes with 1009 beyond it) and idle timeout. The
 * server layer above builds hono apps and never sees which runtime serves them.
 */
import { defineWebSocketHelper, type UpgradeWebSocket, type WSEvents } from 'hono/ws'
import { runtimeName } from './runtime.ts'

export type FetchHandler = (req: Request, env?: unknown) => Response | Promise<Response>

export interface ServerLimits {
  maxRequestBodyBytes: number
  maxWsFrameBytes: number
  /** A connection with nothing to do for this long is closed. */
  idleTimeoutS: number
}

export interface HttpServer {
  /** The bound port (the one picked when 0 was asked). */
  port: number
  /** Stops listening and closes every connection, WebSockets included. */
  stop(): Promise<void>
}

/** One listener's server: the WebSocket upgrade middleware for its app, then `serve` to start it. */
export interface ServerRuntime {
  upgradeWebSocket: UpgradeWebSocket
  serve(hostname: string, port: number, fetch: FetchHandler, opts?: ServeOptions): Promise<HttpServer>
}

export interface ServeOptions {
  /**
   * A port several listeners of this process share (SO_REUSEPORT; the kernel spreads connections
   * among them): `first` binds it (alone for a moment first, so that a port another process holds
   * still fails the start), `further` joins a port a `first` listener holds. Bun on Linux only
   * (`isPortShared`); elsewhere the option is ignored.
   */
  sharedPort?: 'first' | 'further'
}

/** Whether this runtime's server shares ports (`sharedPort`: Bun on Linux). */
export function isPortShared(): boolean {
  return runtimeName() === 'bun' && process.platform === 'linux'
}

/** The server of this runtime with `limits`; every adapter module is loaded on first use only. */
export async function createServerRuntime(limits: ServerLimits): Promise<ServerRuntime> {
  switch (runtimeName()) {
    case 'bun':
      return bunServer(limits)
    case 'deno':
      return denoServer(limits)
    default:
      return nodeServer(limits)
  }
}

async function bunServer(limits: ServerLimits): Promise<ServerRuntime> {
  const { createBunWebSocket } = await import('hono/bun')
  const { upgradeWebSocket, websocket } = createBunWebSocket()
  return {
    upgradeWebSocket,
    serve: async (hostname, port, fetch, opts) => {
      if (opts?.sharedPort === 'first') {
        // Bound alone first: a port held by another process (with SO_REUSEPORT or not) fails here.
        const probe = Bun.serve({ hostname, port, fetch: () => new Response(null, { status: 503 }) })
        port = probe.port ?? port
        await probe.stop(true)
      }
      const server = Bun.serve({
        hostname,
        port,
        fetch: fetch as (req: Request, server: unknown) => Response | Promise<Response>,
        websocket: { ...websocket, maxPayloadLength: limits.maxWsFrameBytes, idleTimeout: limits.idleTimeoutS },
        maxRequestBodySize: limits.maxRequestBodyBytes,
        idleTimeout: limits.idleTimeoutS,
        reusePort: opts?.sharedPort !== undefined,
      })
      return { port: server.port ?? port, stop: async () => void (await server.stop(true)) }
    },
  }
}

/** Computed module names: the Bun bundle of the executable must not pull in the other runtimes' adapters. */
const adapter = (name: string) => ['hono', name].join('/')

interface DenoServe {
  serve(
    opts: { hostname: string; port: number; onListen(): void },
    handler: (req: Request, info: unknown) => Response | Promise<Response>,
  ): { addr: { port: number }; shutdown(): Promise<void> }
}

async function denoServer(limits: ServerLimits): Promise<ServerRuntime> {
  const { upgradeWebSocket } = (await import(adapter('deno'))) as { upgradeWebSocket: UpgradeWebSocket }
  const deno = (globalThis as unknown as { Deno: DenoServe }).Deno
  return {
    // Deno has no frame limit of its own: a larger message closes the socket as Bun's limit does.
    upgradeWebSocket: defineWebSocketHelper((c, events, options) =>
      // Not an upgrade: undefined hands the request to the next route, as the other adapters do.
      c.req.header('upgrade')?.toLowerCase() === 'websocket'
        ? upgradeWebSocket(c, limitFrames(events, limits.maxWsFrameBytes), {
            idleTimeout: limits.idleTimeoutS,
            ...options,
          })
        : undefined,
    ),
    serve: async (hostname, port, fetch) => {
      const server = deno.serve(
        { hostname, port, onListen() {} },
        (req, info) => limitBody(req, limits) ?? fetch(req, info),
      )
      return { port: server.addr.port, stop: () => server.shutdown() }
    },
  }
}

type NodeUpgradeRequest = (url: URL, init: RequestInit, env: unknown) => Response | Promise<Response>

interface NodeHttpServer {
  once(event: 'listening' | 'error', fn: (e?: Error) => void): void
  address(): { port: number } | string | null
  listening: boolean
  setTimeout(ms: number): void
  keepAliveTimeout: number
  close(cb: () => void): void
  closeAllConnections(): void
}

async function nodeServer(limits: ServerLimits): Promise<ServerRuntime> {
  const { serve } = (await import(['@hono', 'node-server'].join('/'))) as {
    serve(opts: { fetch: FetchHandler; hostname: string; port: number }): NodeHttpServer
  }
  const { createNodeWebSocket } = (await import(['@hono', 'node-ws'].join('/'))) as {
    createNodeWebSocket(init: { app: { request: NodeUpgradeRequest } }): {
      upgradeWebSocket: UpgradeWebSocket
      injectWebSocket(server: NodeHttpServer): void
      wss: { options: { maxPayload: number }; clients: Set<{ terminate(): void }> }
    }
  }
  let handler: FetchHandler = () => new Response(null, { status: 503 })
  // The upgrade goes through the app once more, as a request carrying the upgrade headers.
  const request: NodeUpgradeRequest = (url, init, env) => handler(new Request(url.href, init), env)
  const ws = createNodeWebSocket({ app: { request } })
  ws.wss.options.maxPayload = limits.maxWsFrameBytes
  return {
    upgradeWebSocket: ws.upgradeWebSocket,
    serve: async (hostname, port, fetch) => {
      handler = fetch
      const server = serve({ hostname, port, fetch: (req, env) => limitBody(req, limits) ?? fetch(req, env) })
      server.setTimeout(limits.idleTimeoutS * 1000)
      server.keepAliveTimeout = limits.idleTimeoutS * 1000
      ws.injectWebSocket(server)
      if (!server.listening)
        await new Promise<void>((resolve, reject) => {
          server.once('listening', () => resolve())
          server.once('error', (e) => reject(e))
        })
      const address = server.address()
      return {
        port: typeof address === 'object' && address ? address.port : port,
        stop: () =>
          new Promise<void>((resolve) => {
            for (const client of ws.wss.clients) client.terminate()
            server.close(() => resolve())
            server.closeAllConnections()
          }),
      }
    },
  }
}

/** 413 for a body that declares itself larger than the limit (Bun answers the same before the app). */
function limitBody(req: Request, limits: ServerLimits): Response | undefined {
  const length = Number(req.headers.get('content-length') ?? 0)
  if (length > limits.maxRequestBodyBytes) return new Response('Request body too large', { status: 413 })
  return undefined
}

/** Closes the connection with 1009 (message too big) on a frame over `maxBytes`, as Bun's limit does. */
function limitFrames<T>(events: WSEvents<T>, maxBytes: number): WSEvents<T> {
  return {
    ...events,
    onMessage(evt, ws) {
      const data = evt.data as unknown
      const size = typeof data === 'string' ? new TextEncoder().encode(data).length : (data as ArrayBuffer).byteLength
      if (size > maxBytes) return ws.close(1009, 'Message too big')
      return events.onMessage?.(evt, ws)
    },
  }
}
