/**
 * The GraphQL listener (Besu's --graphql-http-*): a hono app on the runtime's server with `POST /graphql`
 * (JSON `{query, variables, operationName}`, or a bare query in any other body) and
 * `GET /graphql?query=…` (either also at `/graphql/`); `/` redirects there (308) and other methods get 405. Plain HTTP only:
 * there is no WebSocket handler, so an upgrade request is answered as an ordinary GET. Owns HTTP
 * concerns — host allowlist (403), CORS, body limit, malformed JSON — and hands requests to the
 * GraphQL service.
 */
import { type Context, Hono } from 'hono'
import type { GraphqlRequest, GraphqlResponse, GraphqlService } from '../graphql/graphqlService.ts'
import { createLogger } from '../primitives/logger.ts'
import { createServerRuntime } from '../runtime/httpServer.ts'
import { hostAndCorsGuard } from './httpGuard.ts'
import type { RunningListener } from './rpcListener.ts'

const log = createLogger('server')
/** As the JSON-RPC listener (Besu: 5 MiB). */
const MAX_BODY_BYTES = 5 * 1024 * 1024

export interface GraphqlListenerOptions {
  host: string
  port: number
  hostAllowlist: string[]
  corsOrigins: string[]
}

/** Serves `service` on `opts.host:opts.port` (0 picks a free port). */
export async function startGraphqlListener(
  service: GraphqlService,
  opts: GraphqlListenerOptions,
): Promise<RunningListener> {
  const app = new Hono()
  app.use('*', hostAndCorsGuard(opts.hostAllowlist, opts.corsOrigins))
  // As Besu: a request to the root is sent on to the endpoint.
  app.on(['GET', 'POST'], '/', (c) => c.body(null, 308, { location: '/graphql' }))
  // Besu's router takes the endpoint with and without a trailing slash (its own tests post to `/graphql/`).
  for (const path of ['/graphql', '/graphql/']) {
    app.get(path, async (c) => {
      const q = c.req.query()
      return reply(
        c,
        await service.execute({ query: q.query, variables: q.variables, operationName: q.operationName }, true),
      )
    })
    app.post(path, async (c) => {
      const text = await c.req.text()
      if (text.length > MAX_BODY_BYTES) return c.text('Request body too large', 413)
      const request = parseBody(text, c.req.header('content-type') ?? '')
      if (!request)
        return reply(c, {
          status: 400,
          body: { errors: [{ message: 'Invalid JSON body', extensions: { classification: 'InvalidSyntax' } }] },
        })
      return reply(c, await service.execute(request))
    })
    app.all(path, (c) => c.body(null, 405, { allow: 'GET, POST' }))
  }

  const runtime = await createServerRuntime({
    maxRequestBodyBytes: MAX_BODY_BYTES,
    maxWsFrameBytes: MAX_BODY_BYTES,
    idleTimeoutS: 120,
  })
  const server = await runtime.serve(opts.host, opts.port, app.fetch)
  log.info('listening', { url: `http://${opts.host}:${server.port}/graphql`, api: 'GraphQL' })
  return server
}

/**
 * A JSON body when the client says so; any other body is a bare query, as Besu reads it, unless it
 * is a JSON object (clients that post JSON without naming it, like `curl -d`).
 */
function parseBody(text: string, contentType: string): GraphqlRequest | undefined {
  const type = contentType.toLowerCase()
  if (type.startsWith('application/graphql')) return { query: text }
  const isJson = type.startsWith('application/json')
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return isJson ? undefined : { query: text }
  }
  if (typeof json === 'object' && json !== null && !Array.isArray(json)) return json as GraphqlRequest
  return isJson ? undefined : { query: text }
}

function reply(c: Context, res: GraphqlResponse): Response {
  return c.body(JSON.stringify(res.body), res.status as 200, { 'content-type': 'application/json; charset=utf-8' })
}
