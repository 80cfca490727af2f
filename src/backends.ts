import { once } from 'node:events'
import { createRequire } from 'node:module'
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit'
import { Redis } from 'ioredis'
import { pino } from 'pino'
import type { Config } from './config.js'
import type { ReadinessCheck } from './http/routes/health.js'
import { EngineRepository } from './store/search-engine/repository.js'
import { SqliteRepository } from './store/sqlite/store.js'
import type { ReleaseRepository } from './store/types.js'

export interface Backends {
  repo: ReleaseRepository
  redis?: Redis
  /** The rate-limit store over `redis`, behind its circuit breaker. */
  rateLimitStore?: FastifyRateLimitStoreCtor
  readinessChecks: ReadinessCheck[]
  close(): Promise<void>
}

export interface BackendLog {
  warn(msg: string): void
  info(msg: string): void
}

/** A Redis outage is logged at most this often: the client retries every second. */
const REDIS_WARN_EVERY_MS = 30_000

/** How long Redis is left alone after it stopped answering, before one probe asks again. */
const BREAKER_COOLDOWN_MS = 1000

/**
 * A circuit breaker over the rate-limit Redis. Dead Redis fails fast by itself (no offline queue);
 * a hung one (stopped process, DEBUG SLEEP, a black-holed network) would cost every request the
 * command timeout. So the first timeout opens the circuit: rate-limit calls then fail at once
 * (and the limiter lets the request through, as when Redis is dead) until a background PING
 * answers, tried once per cooldown.
 */
export class RedisBreaker {
  private openSince: number | undefined
  private probing = false
  private lastProbe = -Infinity

  constructor(
    private readonly redis: Redis,
    private readonly log: BackendLog
  ) {}

  get open(): boolean {
    return this.openSince !== undefined
  }

  /** Whether a call may go to Redis now; while open, starts a probe at most once per cooldown. */
  allow(): boolean {
    if (this.openSince === undefined) return true
    const now = performance.now()
    if (!this.probing && now - this.lastProbe >= BREAKER_COOLDOWN_MS) {
      this.probing = true
      this.lastProbe = now
      this.redis.ping().then(
        () => this.close(),
        () => {}
      ).finally(() => (this.probing = false))
    }
    return false
  }

  /** The outcome of a call that went to Redis. */
  result(err: Error | null): void {
    if (err && /timed out/i.test(err.message) && this.openSince === undefined) {
      this.openSince = performance.now()
      this.lastProbe = this.openSince
      this.log.warn(`redis does not answer within the command timeout: circuit open, rate limits are not enforced until it answers again`)
    }
  }

  /** Redis answered (a probe, or a fresh connection's ready check). */
  close(): void {
    if (this.openSince === undefined) return
    this.log.info(`redis answers again after ${Math.round(performance.now() - this.openSince)} ms: circuit closed, rate limits are enforced`)
    this.openSince = undefined
  }
}

interface RedisStoreCtor {
  new (continueExceeding: boolean, exponentialBackoff: boolean, redis: Redis, key?: string): FastifyRateLimitStore
}
// @fastify/rate-limit's own Redis store (its Lua script), not exported as a type: wrapped, not copied.
const RedisStore = createRequire(import.meta.url)('@fastify/rate-limit/store/RedisStore.js') as RedisStoreCtor

const CIRCUIT_OPEN = new Error('redis circuit open: rate limit skipped')

/** A rate-limit store that asks the breaker before each Redis call (the limiter runs with skipOnError). */
function guarded(inner: FastifyRateLimitStore, breaker: RedisBreaker): FastifyRateLimitStore {
  return {
    incr(key, cb, timeWindow, max) {
      if (!breaker.allow()) return cb(CIRCUIT_OPEN)
      inner.incr(
        key,
        (err, res) => {
          breaker.result(err)
          cb(err, res)
        },
        timeWindow,
        max
      )
    },
    child: (routeOptions) => guarded(inner.child(routeOptions), breaker)
  }
}

/**
 * A Redis client for the shared rate-limit counters. The policy when Redis is unreachable or hung:
 * the service keeps answering without limits (@fastify/rate-limit `skipOnError`), says so in a
 * warning and as a failing non-critical /readyz check, and enforces limits again once Redis is
 * back. So every command fails fast instead of queueing or hanging a request.
 */
export function rateLimitRedis(url: string, log: BackendLog): { redis: Redis; breaker: RedisBreaker; store: FastifyRateLimitStoreCtor; check: ReadinessCheck } {
  const redis = new Redis(url, {
    connectTimeout: 500,
    commandTimeout: 500,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: false,
    // Never give up: reconnect every second for as long as the process runs.
    retryStrategy: () => 1000
  })
  let lastWarn = -Infinity
  let down = false
  // One warning per outage, whether Redis is gone (connection errors) or hung (the breaker).
  const warn = (msg: string) => {
    const now = performance.now()
    if (now - lastWarn < REDIS_WARN_EVERY_MS) return
    lastWarn = now
    log.warn(msg)
  }
  const breaker = new RedisBreaker(redis, { warn, info: (m) => log.info(m) })
  redis.on('error', (err: Error) => {
    down = true
    warn(`redis unavailable (${err.message}): rate limits are not enforced until it is back`)
  })
  redis.on('ready', () => {
    breaker.close()
    if (!down) return
    down = false
    lastWarn = -Infinity
    log.info('redis reachable again: rate limits are enforced')
  })
  const check: ReadinessCheck = {
    name: 'redis',
    critical: false,
    check: async () => {
      if (redis.status !== 'ready') return { ok: false, detail: `redis ${redis.status}: rate limits not enforced` }
      // allow() also starts a probe, so the circuit closes without waiting for a rate-limited request.
      if (!breaker.allow()) return { ok: false, detail: 'redis does not answer (circuit open): rate limits not enforced' }
      await redis.ping()
      return { ok: true }
    }
  }
  const store = class {
    constructor(params: { continueExceeding?: boolean; exponentialBackoff?: boolean }) {
      return guarded(new RedisStore(params.continueExceeding ?? false, params.exponentialBackoff ?? false, redis, 'hwfacts-rl:'), breaker)
    }
  } as unknown as FastifyRateLimitStoreCtor
  return { redis, breaker, store, check }
}

/** At startup, give Redis a moment to connect so the first requests are already limited; never block longer. */
async function firstConnect(redis: Redis, ms: number): Promise<void> {
  if (redis.status === 'ready') return
  const ac = new AbortController()
  const timer = setTimeout(() => ac.abort(), ms)
  await once(redis, 'ready', { signal: ac.signal }).catch(() => {})
  clearTimeout(timer)
}

/** The release store and rate-limit store the configuration asks for; embedded SQLite by default. */
export async function openBackends(cfg: Config, opts: { log?: BackendLog } = {}): Promise<Backends> {
  const logger = opts.log ?? pino({ level: cfg.logLevel, name: 'backends' })
  const log: BackendLog = { warn: (m) => logger.warn(m), info: (m) => logger.info(m) }
  const readinessChecks: ReadinessCheck[] = []

  let repo: ReleaseRepository
  if (cfg.searchEngineUrl && cfg.searchEngineFlavor) {
    const engine = await EngineRepository.connect(cfg.searchEngineUrl, cfg.searchEngineFlavor, cfg.indexPrefix)
    readinessChecks.push({ name: 'search-engine', critical: true, check: () => engine.health() })
    repo = engine
  } else {
    const sqlite = new SqliteRepository(cfg.dataDir)
    // Not critical: with a missing or garbled pointer the last good release is still served.
    readinessChecks.push({ name: 'promoted', critical: false, check: async () => sqlite.pointerStatus() })
    repo = sqlite
  }

  const limits = cfg.redisUrl ? rateLimitRedis(cfg.redisUrl, log) : undefined
  if (limits) {
    readinessChecks.push(limits.check)
    await firstConnect(limits.redis, 1000)
  }

  return {
    repo,
    ...(limits ? { redis: limits.redis, rateLimitStore: limits.store } : {}),
    readinessChecks,
    close: async () => {
      limits?.redis.disconnect()
      await repo.close()
    }
  }
}
