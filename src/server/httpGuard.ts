/**
 * The checks every HTTP listener makes before routing: the Host header against the allowlist (403),
 * and CORS for browser requests (403 for an origin not allowed, preflight answered here).
 */
import type { MiddlewareHandler } from 'hono'

/**
 * A hono middleware enforcing `hostAllowlist` and `corsOrigins` (`*` allows any in both). As in
 * Besu, each CORS origin is a regular expression the whole Origin header must match
 * (`http://localhost:.*`); an origin written out plainly matches itself.
 */
export function hostAndCorsGuard(hostAllowlist: string[], corsOrigins: string[]): MiddlewareHandler {
  const isHostAllowed = hostChecker(hostAllowlist)
  const isAnyOrigin = corsOrigins.includes('*')
  const originPattern = corsOrigins.length && !isAnyOrigin ? new RegExp(`^(?:${corsOrigins.join('|')})$`) : undefined
  const isOriginAllowed = (origin: string) => isAnyOrigin || originPattern?.test(origin) === true
  return async (c, next) => {
    if (!isHostAllowed(c.req.header('host'))) return c.text('Host not authorized.', 403)
    const origin = c.req.header('origin')
    if (origin !== undefined) {
      if (!isOriginAllowed(origin)) return c.text('Origin not allowed.', 403)
      c.header('Access-Control-Allow-Origin', isAnyOrigin ? '*' : origin)
      c.header('Vary', 'Origin')
      if (c.req.method === 'OPTIONS') {
        c.header('Access-Control-Allow-Methods', 'GET, POST, OPTIONS')
        c.header('Access-Control-Allow-Headers', c.req.header('access-control-request-headers') ?? 'content-type')
        c.header('Access-Control-Max-Age', '86400')
        return c.body(null, 204)
      }
    }
    await next()
  }
}

/** A Host-header test for an allowlist (`*` allows any); the port is ignored. */
export function hostChecker(allowlist: string[]): (host: string | undefined) => boolean {
  if (allowlist.includes('*')) return () => true
  const allowed = new Set(allowlist.map((h) => h.toLowerCase()))
  // The last header and its answer: a client sends the same Host on every request.
  let lastHost: string | undefined
  let isLastAllowed = false
  return (host) => {
    if (!host) return false
    if (host === lastHost) return isLastAllowed
    const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]
    isLastAllowed = allowed.has(name.toLowerCase())
    lastHost = host
    return isLastAllowed
  }
}
