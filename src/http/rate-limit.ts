import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit'

export interface RateLimitOptions {
  /** Default budget per API key (per client IP for unauthenticated calls). */
  rateLimit?: { max: number; timeWindowMs: number }
  /** Shared store for several instances (backends.ts: Redis behind a circuit breaker); in-process when absent. */
  rateLimitStore?: FastifyRateLimitStoreCtor
}

const LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']

/**
 * When the shared store fails (Redis down or hung), the limiter lets the request through with the
 * headers of a count of 0: the whole budget left, a reset of 0 s. A counted request always has at
 * least 1 used, so remaining = limit means "not counted", and the headers, which would promise a
 * limit that is not enforced, are removed: no X-RateLimit-* header means no limit applied.
 */
export function dropUncountedLimitHeaders(reply: FastifyReply): void {
  const limit = reply.getHeader('x-ratelimit-limit')
  if (limit !== undefined && String(limit) === String(reply.getHeader('x-ratelimit-remaining'))) for (const h of LIMIT_HEADERS) reply.removeHeader(h)
}

/** A window's length as the 429 detail names it: `120 s`, `1 s`, `1.5 s`. */
const windowText = (ms: number) => `${ms / 1000} s`

/**
 * Per-key budgets on every route (a key record's own `rateLimit` first), counted after the bearer
 * check (auth runs at onRequest, this at preHandler). With a shared store that fails, requests
 * are let through rather than refused.
 */
export async function rateLimits(app: FastifyInstance, opts: RateLimitOptions): Promise<void> {
  const limit = opts.rateLimit ?? { max: 600, timeWindowMs: 60_000 }
  const windowMs = (req: FastifyRequest) => req.apiKey?.rateLimit?.timeWindowMs ?? limit.timeWindowMs
  await app.register(rateLimit, {
    global: true,
    hook: 'preHandler',
    max: (req) => req.apiKey?.rateLimit?.max ?? limit.max,
    timeWindow: windowMs,
    keyGenerator: (req) => (req.apiKey ? `key:${req.apiKey.id}` : `ip:${req.ip}`),
    ...(opts.rateLimitStore ? { store: opts.rateLimitStore, skipOnError: true } : {}),
    // The plugin's `after` is the time left until the window resets, not the window: named from the budget itself.
    errorResponseBuilder: (req, c) => ({
      statusCode: 429,
      code: 'RATE_LIMITED',
      message: `Rate limit of ${c.max} requests per ${windowText(windowMs(req))} exceeded; retry in ${Math.ceil(c.ttl / 1000)} s.`
    })
  })
  app.addHook('onSend', (_req, reply, payload, done) => {
    dropUncountedLimitHeaders(reply)
    done(null, payload)
  })
}
