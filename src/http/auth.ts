import { hash, timingSafeEqual } from 'node:crypto'
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

export interface AuthFailureLimits {
  /** Failures of one presented credential (or of a missing one, per address) in a window before 429. */
  max: number
  /** Failures of every credential from one address in a window before its wrong credentials get 429 at once (10 × max when absent). */
  perAddressMax?: number
  timeWindowMs: number
}

export const DEFAULT_AUTH_FAILURES: AuthFailureLimits = { max: 30, perAddressMax: 300, timeWindowMs: 60_000 }

/**
 * Missing or wrong credentials, counted per presented credential (its sha256; a missing one per
 * client address) and, with a higher cap, per client address. Past either limit a wrong credential
 * is answered 429 instead of 401. A valid key is never refused: behind a proxy every client shares
 * one address, and one client's typos must not lock the others out. Guessing stays bounded by the
 * keys themselves (256 random bits, so a guess at request rate never succeeds); what is limited is
 * the noise of retried wrong credentials.
 */
class FailedAttempts {
  private readonly counts: LRUCache<string, { count: number; until: number }>

  constructor(private readonly limit: AuthFailureLimits) {
    // Bounded: an attacker with many addresses or credentials fills it, and the oldest are forgotten first.
    this.counts = new LRUCache({ max: 100_000, ttl: limit.timeWindowMs })
  }

  /** Counts a failure; the 429 to answer instead of 401 when a limit was already reached. */
  fail(address: string, header: string | undefined): ServiceError | undefined {
    const credential = header === undefined ? `none ${address}` : `key ${hash('sha256', header, 'base64')}`
    const over = this.bump(credential, this.limit.max) ?? this.bump(`ip ${address}`, this.limit.perAddressMax ?? 10 * this.limit.max)
    if (over === undefined) return undefined
    const s = Math.max(1, Math.ceil((over - Date.now()) / 1000))
    return new ServiceError('RATE_LIMITED', `Too many requests with this missing or wrong credential; retry in ${s} s.`, null, { 'Retry-After': String(s) })
  }

  /** Counts one more under `key`; the end of its window when it was already at `max`. */
  private bump(key: string, max: number): number | undefined {
    const e = this.counts.get(key)
    if (!e) return void this.counts.set(key, { count: 1, until: Date.now() + this.limit.timeWindowMs })
    if (e.count >= max) return e.until
    e.count++
    return undefined
  }
}

/**
 * Bearer API keys on every route whose config names a scope. Runs at onRequest, before the rate
 * limiter, so budgets are per key; the Authorization header is redacted from logs by the app.
 * Which releases a key may read is decided where the release is known: the service layer.
 */
export default fp(
  async function auth(app: FastifyInstance, opts: { keys: ApiKeyStore; failures: AuthFailureLimits }) {
    const failures = new FailedAttempts(opts.failures)
    app.decorateRequest('apiKey', null)
    // A callback hook: the check is synchronous, and an async hook costs a promise per request.
    app.addHook('onRequest', (req, _reply, done) => {
      const scope = req.routeOptions.config.scope
      if (!scope) return done()
      try {
        req.apiKey = authenticate(opts.keys, req, scope)
      } catch (err) {
        if (err instanceof ServiceError && err.code === 'UNAUTHENTICATED') return done(failures.fail(req.ip, req.headers.authorization) ?? err)
        return done(err as Error)
      }
      done()
    })
  },
  { name: 'auth' }
)
