import { randomInt } from 'node:crypto'
import { once } from 'node:events'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiKeyStore, generateKey, type ApiKey } from '../../src/auth/keys.js'
import { rateLimitRedis } from '../../src/backends.js'
import auth from '../../src/http/auth.js'
import problems from '../../src/http/problem.js'
import { dropUncountedLimitHeaders, rateLimits, type RateLimitOptions } from '../../src/http/rate-limit.js'
import { NO_REDIS, skipReason } from '../helpers/services.js'

/**
 * The rate limiter (src/http/rate-limit.ts) on a minimal app (the Problem handler, the auth plugin,
 * the limiter, three routes), once with the in-process store and once with the Redis store the
 * service uses (`rateLimitRedis`, a real Redis: the global setup starts one when `redis-server` is
 * installed). Expected values from the documented rules (docs/scale-out.md "Rate limits across
 * instances", docs/RELIABILITY.md's limits table, the README's key record): a budget per API key
 * (per client address without one), the key record's own `rateLimit` (max and window) first, 600 a
 * minute by default, 429 `RATE_LIMITED` with `Retry-After`, and no `X-RateLimit-*` headers when the
 * shared store fails and nothing was counted.
 */

const REDIS_URL = process.env.REDIS_URL
const skipRedis = skipReason('rate limits with Redis', REDIS_URL ? undefined : NO_REDIS)
/** Counters in Redis outlive a run: every key id and client address of this file is new. */
const run = `${process.pid}-${Date.now()}`
const address = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`

function key(name: string, rateLimit?: ApiKey['rateLimit']) {
  const { secret, record } = generateKey(`${name}-${run}`)
  return { header: { authorization: `Bearer ${secret}` }, record: rateLimit ? { ...record, rateLimit } : record }
}

async function limitedApp(keys: ApiKey[], opts: RateLimitOptions): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  await app.register(problems)
  await app.register(auth, { keys: new ApiKeyStore(keys), failures: { max: 1000, timeWindowMs: 60_000 } })
  await rateLimits(app, opts)
  app.get('/guarded', { config: { scope: 'facts:read' } }, async () => ({ ok: true }))
  app.get('/open', async () => ({ ok: true }))
  app.get('/unlimited', { config: { rateLimit: false } }, async () => ({ ok: true }))
  await app.ready()
  return app
}

type Store = { name: string; store: () => RateLimitOptions['rateLimitStore'] }
let redis: Redis | undefined
const stores: Store[] = [{ name: 'in-process', store: () => undefined }]
if (!skipRedis) {
  stores.push({
    name: 'redis',
    store: () => {
      const r = rateLimitRedis(REDIS_URL!, { warn: () => {}, info: () => {} })
      redis = r.redis
      return r.store
    }
  })
}
afterAll(() => redis?.disconnect())

for (const { name, store } of stores) {
  describe(`rate limits (${name} store)`, () => {
    const ownMax = key('own-max', { max: 2, timeWindowMs: 60_000 })
    const ownWindow = key('own-window', { max: 2, timeWindowMs: 1000 })
    const plainA = key('plain-a')
    const plainB = key('plain-b')
    const plainC = key('plain-c')
    const plainD = key('plain-d')
    let app: FastifyInstance
    let defaults: FastifyInstance
    beforeAll(async () => {
      const s = store()
      // Connected first: until then the limiter lets requests through uncounted (fail open).
      if (redis && redis.status !== 'ready') await once(redis, 'ready')
      const records = [ownMax, ownWindow, plainA, plainB, plainC, plainD].map((k) => k.record)
      app = await limitedApp(records, { rateLimit: { max: 3, timeWindowMs: 120_000 }, ...(s ? { rateLimitStore: s } : {}) })
      defaults = await limitedApp(records, s ? { rateLimitStore: s } : {})
    })
    afterAll(async () => {
      await app?.close()
      await defaults?.close()
    })
    const get = (url: string, headers: Record<string, string>, remoteAddress = '127.0.0.1', on = app) => on.inject({ method: 'GET', url, headers, remoteAddress })

    it('without a configured limit: 600 a minute per key', async () => {
      const r = await get('/guarded', plainC.header, address(), defaults)
      expect(r.statusCode).toBe(200)
      expect(r.headers['x-ratelimit-limit']).toBe('600')
      expect(r.headers['x-ratelimit-remaining']).toBe('599')
      expect(Number(r.headers['x-ratelimit-reset'])).toBeGreaterThan(55)
      expect(Number(r.headers['x-ratelimit-reset'])).toBeLessThanOrEqual(60)
    })

    it('the configured budget per key, then 429 RATE_LIMITED with Retry-After and the same wait in the detail', async () => {
      const seen = []
      for (let i = 0; i < 4; i++) seen.push(await get('/guarded', plainA.header))
      expect(seen.slice(0, 3).map((r) => [r.statusCode, r.headers['x-ratelimit-limit'], r.headers['x-ratelimit-remaining']])).toEqual([
        [200, '3', '2'],
        [200, '3', '1'],
        [200, '3', '0']
      ])
      const over = seen[3]!
      expect(over.statusCode).toBe(429)
      expect(over.headers['content-type']).toMatch(/^application\/problem\+json/)
      const p = over.json()
      expect(p).toMatchObject({ code: 'RATE_LIMITED', status: 429 })
      const wait = Number(over.headers['retry-after'])
      // The window is 120 s: the wait is what is left of it, rounded up.
      expect(wait).toBeGreaterThan(100)
      expect(wait).toBeLessThanOrEqual(120)
      expect(over.headers['x-ratelimit-remaining']).toBe('0')
      expect(p.detail).toMatch(/^Rate limit of 3 requests per 120 s exceeded;/)
      expect(p.detail).toMatch(new RegExp(`retry in ${wait} s\\.$`))
    })

    it('per key, not per address: another key from the same address has its own budget, one key from two addresses one', async () => {
      const from = address()
      for (let i = 0; i < 3; i++) expect((await get('/guarded', plainB.header, from)).statusCode).toBe(200)
      expect((await get('/guarded', plainB.header, address())).statusCode).toBe(429)
      const other = await get('/guarded', plainD.header, from)
      expect([other.statusCode, other.headers['x-ratelimit-remaining']]).toEqual([200, '2'])
      // Nor does a key's budget use up the address's (requests without a key).
      const open = await get('/open', {}, from)
      expect([open.statusCode, open.headers['x-ratelimit-remaining']]).toEqual([200, '2'])
    })

    it("a key record's own max replaces the configured one", async () => {
      const codes = []
      for (let i = 0; i < 3; i++) codes.push((await get('/guarded', ownMax.header, address())).statusCode)
      expect(codes).toEqual([200, 200, 429])
    })

    it("a key record's own window: its budget comes back after 1 s, not after the configured 120 s", async () => {
      const first = await get('/guarded', ownWindow.header)
      expect(first.headers['x-ratelimit-limit']).toBe('2')
      expect(Number(first.headers['x-ratelimit-reset'])).toBe(1)
      await get('/guarded', ownWindow.header)
      const over = await get('/guarded', ownWindow.header)
      expect(over.statusCode).toBe(429)
      expect(over.headers['retry-after']).toBe('1')
      expect(over.json().detail).toMatch(/^Rate limit of 2 requests per 1 s exceeded;/)
      await new Promise((r) => setTimeout(r, 1200))
      expect((await get('/guarded', ownWindow.header)).statusCode).toBe(200)
    })

    it('without a key: per client address', async () => {
      const a = address()
      const codes = []
      for (let i = 0; i < 4; i++) codes.push((await get('/open', {}, a)).statusCode)
      expect(codes).toEqual([200, 200, 200, 429])
      expect((await get('/open', {}, address())).statusCode).toBe(200)
      // A route that opts out is not counted and shows no limit.
      const free = await get('/unlimited', {}, a)
      expect(free.statusCode).toBe(200)
      expect(free.headers['x-ratelimit-limit']).toBeUndefined()
    })
  })
}

describe('a shared store that fails: answered, without limits and without X-RateLimit-* headers', () => {
  it('requests pass and carry no limit headers', async () => {
    const failing = class {
      incr(_key: string, cb: (err: Error | null) => void) {
        cb(new Error('redis down'))
      }
      child() {
        return this
      }
    } as unknown as NonNullable<RateLimitOptions['rateLimitStore']>
    const k = key('failing')
    const app = await limitedApp([k.record], { rateLimit: { max: 1, timeWindowMs: 60_000 }, rateLimitStore: failing })
    try {
      for (let i = 0; i < 3; i++) {
        const r = await app.inject({ method: 'GET', url: '/guarded', headers: k.header })
        expect(r.statusCode).toBe(200)
        for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(r.headers[h], h).toBeUndefined()
      }
    } finally {
      await app.close()
    }
  })

  it('dropUncountedLimitHeaders removes them only when the whole budget is shown left', () => {
    const reply = (h: Record<string, string | number>) => {
      const headers = { ...h }
      return {
        headers,
        getHeader: (n: string) => headers[n],
        removeHeader: (n: string) => void delete headers[n]
      }
    }
    const counted = reply({ 'x-ratelimit-limit': 5, 'x-ratelimit-remaining': '4', 'x-ratelimit-reset': 60 })
    dropUncountedLimitHeaders(counted as never)
    expect(Object.keys(counted.headers)).toHaveLength(3)
    const uncounted = reply({ 'x-ratelimit-limit': 5, 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': 0, other: 'x' })
    dropUncountedLimitHeaders(uncounted as never)
    expect(uncounted.headers).toEqual({ other: 'x' })
  })
})
