import type { FastifyInstance } from 'fastify'
import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit'

export interface RateLimitOptions {
  /** Default budget per API key (per client IP for unauthenticated calls). */
  rateLimit?: { max: number; timeWindowMs: number }
  /** Shared store for several instances (backends.ts: Redis behind a circuit breaker); in-process when absent. */
  rateLimitStore?: FastifyRateLimitStoreCtor
}

/**
 * Per-key budgets on every route (a key record's own `rateLimit` first), counted after the bearer
 * check (auth runs at onRequest, this at preHandler). With a shared store that fails, requests
 * are let through rather than refused.
 */
export async function rateLimits(app: FastifyInstance, opts: RateLimitOptions): Promise<void> {
  const limit = opts.rateLimit ?? { max: 600, timeWindowMs: 60_000 }
  await app.register(rateLimit, {
    global: true,
    hook: 'preHandler',
    max: (req) => req.apiKey?.rateLimit?.max ?? limit.max,
    timeWindow: (req) => req.apiKey?.rateLimit?.timeWindowMs ?? limit.timeWindowMs,
    keyGenerator: (req) => (req.apiKey ? `key:${req.apiKey.id}` : `ip:${req.ip}`),
    ...(opts.rateLimitStore ? { store: opts.rateLimitStore, skipOnError: true } : {}),
    errorResponseBuilder: (_req, c) => ({
      statusCode: 429,
      code: 'RATE_LIMITED',
      message: `Rate limit of ${c.max} requests per ${c.after} exceeded; retry in ${Math.ceil(c.ttl / 1000)} s.`
    })
  })
}
