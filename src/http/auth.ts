import { timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { LRUCache } from 'lru-cache'
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

/**
 * The credential last verified on each connection. A keep-alive client sends the same header with
 * every request: comparing it with the one remembered (in constant time) spares a sha256 per
 * request. It is kept per key store and generation (a reload forgets it), and only as long as the
 * connection lives.
 */
const verifiedOnSocket = new WeakMap<object, { keys: ApiKeyStore; generation: number; header: Buffer; key: ApiKey }>()

function verifyHeader(keys: ApiKeyStore, req: FastifyRequest, h: string): ApiKey | undefined {
  const socket = req.raw.socket
  const seen = socket ? verifiedOnSocket.get(socket) : undefined
  const header = Buffer.from(h, 'latin1')
  if (seen?.keys === keys && seen.generation === keys.generation && seen.header.length === header.length && timingSafeEqual(seen.header, header)) return seen.key
  const m = /^Bearer +(\S+) *$/i.exec(h)
  const key = m ? keys.verify(m[1]!) : undefined
  if (key && socket) verifiedOnSocket.set(socket, { keys, generation: keys.generation, header, key })
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
 * Missing or wrong credentials counted per client address: past `max` in a window, the address
 * gets 429 on every authenticated route until the window ends, without its credentials being
 * checked, so keys cannot be guessed at request rate.
 */
class FailedAttempts {
  private readonly byAddress: LRUCache<string, { count: number; until: number }>

  constructor(private readonly limit: { max: number; timeWindowMs: number }) {
    // Bounded: an attacker with many addresses fills it, and the oldest are forgotten first.
    this.byAddress = new LRUCache({ max: 100_000, ttl: limit.timeWindowMs })
  }

  check(address: string): void {
    const e = this.byAddress.get(address)
    if (e && e.count >= this.limit.max) {
      const s = Math.max(1, Math.ceil((e.until - Date.now()) / 1000))
      throw new ServiceError('RATE_LIMITED', `Too many requests with a missing or wrong credential from this address; retry in ${s} s.`, null, { 'Retry-After': String(s) })
    }
  }

  fail(address: string): void {
    const e = this.byAddress.get(address)
    if (e) e.count++
    else this.byAddress.set(address, { count: 1, until: Date.now() + this.limit.timeWindowMs })
  }
}

/**
 * Bearer API keys on every route whose config names a scope. Runs at onRequest, before the rate
 * limiter, so budgets are per key; the Authorization header is redacted from logs by the app.
 * Which releases a key may read is decided where the release is known: the service layer.
 */
export default fp(
  async function auth(app: FastifyInstance, opts: { keys: ApiKeyStore; failures: { max: number; timeWindowMs: number } }) {
    const failures = new FailedAttempts(opts.failures)
    app.decorateRequest('apiKey', null)
    // A callback hook: the check is synchronous, and an async hook costs a promise per request.
    app.addHook('onRequest', (req, _reply, done) => {
      const scope = req.routeOptions.config.scope
      if (!scope) return done()
      try {
        failures.check(req.ip)
        req.apiKey = authenticate(opts.keys, req, scope)
      } catch (err) {
        if (err instanceof ServiceError && err.code === 'UNAUTHENTICATED') failures.fail(req.ip)
        return done(err as Error)
      }
      done()
    })
  },
  { name: 'auth' }
)
