import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { ApiKey, ApiKeyStore, Scope } from '../auth/keys.js'
import { ServiceError } from '../service/errors.js'

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ApiKey | null
  }
  interface FastifyContextConfig {
    /** Scope a bearer credential must carry; absent for unauthenticated routes. */
    scope?: Scope
  }
}

const CHALLENGE = 'Bearer realm="hardware-facts"'

/** Checks that a key may read a release other than the promoted one (spec §5.5: 403 when not permitted). */
export function assertReleaseAllowed(key: ApiKey | null, corpusRelease: unknown): void {
  if (!key || typeof corpusRelease !== 'string') return
  if (key.releases.includes('*') || key.releases.includes(corpusRelease)) return
  throw new ServiceError('FORBIDDEN', `This API key may not read corpus release ${corpusRelease}.`, 'corpus_release')
}

export function authenticate(keys: ApiKeyStore, req: FastifyRequest, scope: Scope): ApiKey {
  const h = req.headers.authorization
  if (h === undefined) throw new ServiceError('UNAUTHENTICATED', 'This endpoint needs `Authorization: Bearer <API_KEY>`.', null, { 'WWW-Authenticate': CHALLENGE })
  const m = /^Bearer +(\S+) *$/i.exec(h)
  const key = m ? keys.verify(m[1]!) : undefined
  if (!key)
    throw new ServiceError('UNAUTHENTICATED', 'The bearer credential is malformed or not a valid API key.', null, {
      'WWW-Authenticate': `${CHALLENGE}, error="invalid_token"`
    })
  if (!key.scopes.includes(scope)) throw new ServiceError('FORBIDDEN', `This API key lacks the ${scope} scope.`)
  return key
}

/**
 * Bearer API keys on every route whose config names a scope. Runs at onRequest, before the rate
 * limiter, so budgets are per key; the Authorization header is redacted from logs by the app.
 */
export default fp(
  async function auth(app: FastifyInstance, opts: { keys: ApiKeyStore }) {
    app.decorateRequest('apiKey', null)
    // A callback hook: the check is synchronous, and an async hook costs a promise per request.
    app.addHook('onRequest', (req, _reply, done) => {
      const scope = req.routeOptions.config.scope
      if (!scope) return done()
      try {
        req.apiKey = authenticate(opts.keys, req, scope)
        assertReleaseAllowed(req.apiKey, (req.query as Record<string, unknown> | undefined)?.corpus_release)
      } catch (err) {
        return done(err as Error)
      }
      done()
    })
  },
  { name: 'auth' }
)
