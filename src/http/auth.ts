import { timingSafeEqual } from 'node:crypto'
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

/**
 * The credential last verified on each connection. A keep-alive client sends the same header with
 * every request: comparing it with the one remembered (in constant time) spares a sha256 per
 * request. It is kept per key store, and only as long as the connection lives.
 */
const verifiedOnSocket = new WeakMap<object, { keys: ApiKeyStore; header: Buffer; key: ApiKey }>()

function verifyHeader(keys: ApiKeyStore, req: FastifyRequest, h: string): ApiKey | undefined {
  const socket = req.raw.socket
  const seen = socket ? verifiedOnSocket.get(socket) : undefined
  const header = Buffer.from(h, 'latin1')
  if (seen?.keys === keys && seen.header.length === header.length && timingSafeEqual(seen.header, header)) return seen.key
  const m = /^Bearer +(\S+) *$/i.exec(h)
  const key = m ? keys.verify(m[1]!) : undefined
  if (key && socket) verifiedOnSocket.set(socket, { keys, header, key })
  return key
}

export function authenticate(keys: ApiKeyStore, req: FastifyRequest, scope: Scope): ApiKey {
  const h = req.headers.authorization
  if (h === undefined) throw new ServiceError('UNAUTHENTICATED', 'This endpoint needs `Authorization: Bearer <API_KEY>`.', null, { 'WWW-Authenticate': CHALLENGE })
  const key = verifyHeader(keys, req, h)
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
