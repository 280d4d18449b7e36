/**
 * The GraphQL listener (Besu's --graphql-http-*): a hono app on Bun.serve with `POST /graphql`
 * (JSON `{query, variables, operationName}`, or a bare `application/graphql` query) and
 * `GET /graphql?query=…`. Owns HTTP concerns — host allowlist (403), CORS, body limit, malformed
 * JSON — and hands requests to the GraphQL service.
 */
import { type Context, Hono } from 'hono'
import type { GraphqlRequest, GraphqlResponse, GraphqlService } from '../graphql/graphqlService.ts'
import { createLogger } from '../primitives/logger.ts'
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
export function startGraphqlListener(service: GraphqlService, opts: GraphqlListenerOptions): RunningListener {
  const app = new Hono()
  app.use('*', hostAndCorsGuard(opts.hostAllowlist, opts.corsOrigins))
  app.get('/graphql', async (c) => {
    const q = c.req.query()
    return reply(
      c,
      await service.execute({ query: q.query, variables: q.variables, operationName: q.operationName }, true),
    )
  })
  app.post('/graphql', async (c) => {
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

  const server = Bun.serve({
    hostname: opts.host,
    port: opts.port,
    fetch: app.fetch,
    maxRequestBodySize: MAX_BODY_BYTES,
    idleTimeout: 120,
  })
  log.info('listening', { url: `http://${opts.host}:${server.port}/graphql`, api: 'GraphQL' })
  return { port: server.port ?? opts.port, stop: async () => void (await server.stop(true)) }
}

function parseBody(text: string, contentType: string): GraphqlRequest | undefined {
  if (contentType.startsWith('application/graphql')) return { query: text }
  try {
    const json = JSON.parse(text) as unknown
    return typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as GraphqlRequest) : undefined
  } catch {
    return undefined
  }
}

function reply(c: Context, res: GraphqlResponse): Response {
  return c.body(JSON.stringify(res.body), res.status as 200, { 'content-type': 'application/json' })
}
