import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

/** An answer pinned to an immutable release never changes: a year, and no revalidation. */
export const PINNED_CACHE_CONTROL = 'private, max-age=31536000, immutable'

/**
 * Security and cache headers on every response: `nosniff` always; `Cache-Control: no-store` on
 * errors (a 429 or 503 must not be replayed from a cache), long-lived for an answer pinned to a
 * `corpus_release` or to the release of a cursor, and `no-cache` for answers about the promoted
 * release, which a promotion changes. Answers need a credential, so caches are private.
 */
export default fp(
  async function securityHeaders(app: FastifyInstance) {
    app.addHook('onRequest', (_req, reply, done) => {
      reply.header('x-content-type-options', 'nosniff')
      // Set before the handler: hijacked replies (/mcp) copy the headers set so far.
      reply.header('cache-control', 'no-store')
      done()
    })
    app.addHook('onSend', (req, reply, payload, done) => {
      if (reply.statusCode < 400) {
        const q = req.query as Record<string, unknown> | undefined
        const pinned = typeof q?.corpus_release === 'string' || typeof q?.cursor === 'string'
        reply.header('cache-control', pinned ? PINNED_CACHE_CONTROL : 'no-cache')
      } else reply.header('cache-control', 'no-store')
      done(null, payload)
    })
  },
  { name: 'security-headers' }
)
