import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { ServiceError } from '../service/errors.js'

/** A route path (`/v1/error-codes/:code`) as its segments, null standing for a parameter. */
type RoutePattern = Array<string | null>

/**
 * A request path as the router sees it: cut at `?` or `#`, each segment percent-decoded (so
 * `/v1/%63ontext` is `/v1/context`, and an encoded `/` stays inside its segment); undefined when an
 * escape is malformed (the router answers that 400).
 */
export function pathSegments(url: string): string[] | undefined {
  const end = url.search(/[?#]/)
  try {
    return (end === -1 ? url : url.slice(0, end)).split('/').map(decodeURIComponent)
  } catch {
    return undefined
  }
}

const matches = (p: RoutePattern, segs: string[]) => p.length === segs.length && p.every((s, i) => s === null || s === segs[i])

/**
 * The /v1 interface is read-only: any method but GET on a /v1 route is 405 (spec §4, §7.4) —
 * HEAD, TRACE, methods without a route, with any body. Decided at onRequest, before a body is
 * read or a credential checked, so a body's size or type never turns a 405 into a 413 or 415.
 * The path is compared as the router decodes it, so an escaped spelling of a route is that route.
 */
export default fp(
  async function readOnlyV1(app: FastifyInstance) {
    const routes: RoutePattern[] = []
    app.addHook('onRoute', (r) => {
      const methods = Array.isArray(r.method) ? r.method : [r.method]
      if (methods.includes('GET') && r.url.startsWith('/v1/')) routes.push(r.url.split('/').map((s) => (s.startsWith(':') ? null : s)))
    })
    app.addHook('onRequest', (req, _reply, done) => {
      if (req.method === 'GET') return done()
      const segs = pathSegments(req.url)
      if (!segs || segs[1] !== 'v1' || !routes.some((p) => matches(p, segs))) return done()
      const path = segs.join('/')
      // A body, if any, is not parsed: Node discards it (within the request timeout) and keeps the connection.
      done(new ServiceError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}; this interface is read-only: use GET.`, null, { Allow: 'GET' }))
    })
  },
  { name: 'read-only-v1' }
)
