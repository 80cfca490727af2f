import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { ContractVersion } from '../model/versions.js'
import { ServiceError } from '../service/errors.js'
import { routeServed } from './versions.js'

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

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The only method this route's path answers; any other is 405 (the /v1 routes: GET). */
    onlyMethod?: 'POST'
  }
}

/**
 * The /v1 interface is read-only: any method but GET on a /v1 route is 405 (spec §4, §7.4) —
 * HEAD, TRACE, methods without a route, with any body; likewise any method but POST on a route
 * whose config says `onlyMethod: 'POST'` (/mcp). Decided at onRequest, before a body is read or a
 * credential checked, so a body's size or type never turns a 405 into a 413 or 415. The path is
 * compared as the router decodes it, so an escaped spelling of a route is that route.
 */
export default fp(
  async function onlyMethods(app: FastifyInstance) {
    const routes: Array<{ pattern: RoutePattern; allow: string; since: ContractVersion | undefined }> = []
    app.addHook('onRoute', (r) => {
      const methods = Array.isArray(r.method) ? r.method : [r.method]
      const allow = r.config?.onlyMethod ?? (methods.includes('GET') && r.url.startsWith('/v1/') ? 'GET' : undefined)
      if (allow) routes.push({ pattern: r.url.split('/').map((s) => (s.startsWith(':') ? null : s)), allow, since: r.config?.since })
    })
    app.addHook('onRequest', (req, _reply, done) => {
      // The hot path: a plain GET of a path no POST-only route could be.
      if (req.method === 'GET' && !req.url.includes('%') && !routes.some((r) => r.allow !== 'GET' && req.url.startsWith(r.pattern.join('/')))) return done()
      const segs = pathSegments(req.url)
      // A route the request's contract version lacks is an unknown path: 404, not 405.
      const route = segs && routes.find((r) => matches(r.pattern, segs) && routeServed(req, r.since))
      if (!route || req.method === route.allow) return done()
      const path = segs.join('/')
      const why = route.allow === 'GET' ? 'this interface is read-only: use GET' : `use ${route.allow}`
      // A body, if any, is not parsed: Node discards it (within the request timeout) and keeps the connection.
      done(new ServiceError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}; ${why}.`, null, { Allow: route.allow }))
    })
  },
  { name: 'only-methods' }
)
