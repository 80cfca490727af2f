import { once } from 'node:events'
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
  readinessChecks: ReadinessCheck[]
  close(): Promise<void>
}

export interface BackendLog {
  warn(msg: string): void
  info(msg: string): void
}

/** A Redis outage is logged at most this often: the client retries every second. */
const REDIS_WARN_EVERY_MS = 30_000

/**
 * A Redis client for the shared rate-limit counters. The policy when Redis is unreachable: the
 * service keeps answering without limits (@fastify/rate-limit `skipOnError`), says so in a
 * warning and as a failing non-critical /readyz check, and enforces limits again once Redis is
 * back. So every command fails fast instead of queueing or hanging a request.
 */
export function rateLimitRedis(url: string, log: BackendLog): { redis: Redis; check: ReadinessCheck } {
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
  redis.on('error', (err: Error) => {
    down = true
    const now = performance.now()
    if (now - lastWarn < REDIS_WARN_EVERY_MS) return
    lastWarn = now
    log.warn(`redis unavailable (${err.message}): rate limits are not enforced until it is back`)
  })
  redis.on('ready', () => {
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
      await redis.ping()
      return { ok: true }
    }
  }
  return { redis, check }
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
  } else repo = new SqliteRepository(cfg.dataDir)

  const limits = cfg.redisUrl ? rateLimitRedis(cfg.redisUrl, log) : undefined
  if (limits) {
    readinessChecks.push(limits.check)
    await firstConnect(limits.redis, 1000)
  }

  return {
    repo,
    ...(limits ? { redis: limits.redis } : {}),
    readinessChecks,
    close: async () => {
      limits?.redis.disconnect()
      await repo.close()
    }
  }
}
