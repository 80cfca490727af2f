import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { ServiceError } from '../service/errors.js'

/** A route path (`/v1/error-codes/:code`) as a pattern over request paths. */
function pathPattern(url: string): RegExp {
  const src = url
    .split('/')
    .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/')
  return new RegExp(`^${src}$`)
}

/**
 * The /v1 interface is read-only: any method but GET on a /v1 route is 405 (spec §4, §7.4) —
 * HEAD, TRACE, methods without a route, with any body. Decided at onRequest, before a body is
 * read or a credential checked, so a body's size or type never turns a 405 into a 413 or 415.
 */
export default fp(
  async function readOnlyV1(app: FastifyInstance) {
    const routes: RegExp[] = []
    app.addHook('onRoute', (r) => {
      const methods = Array.isArray(r.method) ? r.method : [r.method]
      if (methods.includes('GET') && r.url.startsWith('/v1/')) routes.push(pathPattern(r.url))
    })
    app.addHook('onRequest', (req, _reply, done) => {
      if (req.method === 'GET' || !req.url.startsWith('/v1/')) return done()
      const q = req.url.indexOf('?')
      const path = q === -1 ? req.url : req.url.slice(0, q)
      if (!routes.some((p) => p.test(path))) return done()
      // A body, if any, is not parsed: Node discards it (within the request timeout) and keeps the connection.
      done(new ServiceError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${path}; this interface is read-only: use GET.`, null, { Allow: 'GET' }))
    })
  },
  { name: 'read-only-v1' }
)
