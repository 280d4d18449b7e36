/**
 * The Engine API listener (default 127.0.0.1:8550): JSON-RPC over HTTP and WebSocket for a consensus
 * client, serving the ENGINE and ETH groups. Every request must carry `Authorization: Bearer <JWT>`
 * signed HS256 with the shared secret and an `iat` within 60 s of now (execution-apis
 * src/engine/authentication.md); otherwise HTTP 401 and nothing runs. Hosts outside the allowlist
 * get 403.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Hono } from 'hono'
import { jwtVerify } from 'jose'
import { bodyText, type DispatchOptions, type RpcDispatcher } from '../jsonrpc/dispatcher.ts'
import { bytesToHex, hexToBytes } from '../primitives/hex.ts'
import { createLogger } from '../primitives/logger.ts'
import type { RpcContext, RpcServices } from '../rpc/context.ts'
import { createServerRuntime } from '../runtime/httpServer.ts'
import { hostChecker } from './httpGuard.ts'
import type { RunningListener } from './rpcListener.ts'

const log = createLogger('engine-server')
const MAX_BODY_BYTES = 128 * 1024 * 1024
/** Payloads with blobs are large: Bun's default WebSocket frame limit, kept on every runtime. */
const MAX_WS_FRAME_BYTES = 16 * 1024 * 1024
/** How far `iat` may be from the server's clock (authentication.md: ±60 s). */
export const JWT_IAT_WINDOW_SEC = 60
export const ENGINE_APIS = ['ENGINE', 'ETH']

export interface EngineListenerOptions {
  host: string
  port: number
  hostAllowlist: string[]
  /** The 32-byte HS256 secret; undefined disables authentication (`--engine-jwt-disabled`). */
  jwtSecret?: Uint8Array
  nowMs?: () => number
}

/**
 * The JWT secret: read from `file` (hex, with or without 0x), or generated into `jwt.hex` in the
 * data path (the temp directory for an in-memory chain) and reused from there; its location is logged.
 */
export function loadJwtSecret(file: string | undefined, dataPath: string): Uint8Array {
  if (file) {
    let secret: Uint8Array
    try {
      secret = hexToBytes(readFileSync(file, 'utf8').trim())
    } catch (e) {
      throw new Error(`cannot read the Engine JWT secret ${file}: ${(e as Error).message}`)
    }
    if (secret.length !== 32)
      throw new Error(`the Engine JWT secret in ${file} must be 32 bytes of hex, not ${secret.length}`)
    return secret
  }
  const out = join(
    dataPath === ':memory:' ? tmpdir() : dataPath,
    dataPath === ':memory:' ? `basalt-jwt-${process.pid}.hex` : 'jwt.hex',
  )
  if (existsSync(out)) {
    log.info('using Engine API JWT secret', { file: out })
    return loadJwtSecret(out, dataPath)
  }
  const secret = new Uint8Array(randomBytes(32))
  writeFileSync(out, bytesToHex(secret), { mode: 0o600 })
  log.info('generated Engine API JWT secret', { file: out })
  return secret
}

/** Whether an Authorization header holds a valid token for `secret` issued within the window. */
export async function isAuthorized(header: string | undefined, secret: Uint8Array, nowMs: number): Promise<boolean> {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '')
  if (!match) return false
  try {
    const { payload } = await jwtVerify(match[1], secret, { algorithms: ['HS256'], currentDate: new Date(nowMs) })
    return typeof payload.iat === 'number' && Math.abs(nowMs / 1000 - payload.iat) <= JWT_IAT_WINDOW_SEC
  } catch {
    return false
  }
}

export async function startEngineListener(
  dispatcher: RpcDispatcher<RpcContext>,
  services: RpcServices,
  opts: EngineListenerOptions,
): Promise<RunningListener> {
  const dispatch: DispatchOptions = { enabledGroups: new Set(ENGINE_APIS), maxBatchSize: 1024 }
  const ctx: RpcContext = { ...services, apis: ENGINE_APIS }
  const isHostAllowed = hostChecker(opts.hostAllowlist)
  const now = opts.nowMs ?? Date.now
  const runtime = await createServerRuntime({
    maxRequestBodyBytes: MAX_BODY_BYTES,
    maxWsFrameBytes: MAX_WS_FRAME_BYTES,
    idleTimeoutS: 120,
  })
  const { upgradeWebSocket } = runtime
  const app = new Hono()

  app.use('*', async (c, next) => {
    if (!isHostAllowed(c.req.header('host'))) return c.text('Host not authorized.', 403)
    if (opts.jwtSecret && !(await isAuthorized(c.req.header('authorization'), opts.jwtSecret, now()))) {
      return c.text('Unauthorized', 401)
    }
    await next()
  })
  app.get(
    '/',
    upgradeWebSocket(() => ({
      async onMessage(evt, ws) {
        const text = typeof evt.data === 'string' ? evt.data : new TextDecoder().decode(evt.data as ArrayBuffer)
        const { body, release } = await dispatcher.handleText(text, ctx, dispatch)
        if (body !== undefined) ws.send(bodyText(body))
        release?.()
      },
    })),
  )
  app.post('/', async (c) => {
    const text = await c.req.text()
    const { body, isParseError } = await dispatcher.handleText(text, ctx, dispatch)
    if (body === undefined) return c.body(null, 200)
    return c.body(body, isParseError ? 400 : 200, { 'content-type': 'application/json' })
  })

  const server = await runtime.serve(opts.host, opts.port, app.fetch)
  log.info('Engine API listening', {
    url: `http://${opts.host}:${server.port}`,
    isJwtEnabled: opts.jwtSecret !== undefined,
  })
  return server
}
