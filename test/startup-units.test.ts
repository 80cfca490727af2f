import { once } from 'node:events'
import { createServer, type AddressInfo, type Socket } from 'node:net'
import { readdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { openBackends, RedisBreaker, rateLimitRedis, type BackendLog } from '../src/backends.js'
import { loadConfig } from '../src/config.js'
import { boundHeapGrowth } from '../src/memory.js'
import { SqliteRepository } from '../src/store/sqlite/store.js'
import { hasRedisServer, privateRedis, type PrivateRedis } from './helpers/redis.js'
import { scratchDirs } from './helpers/scratch.js'

vi.mock('node:v8', async (original) => ({ ...(await original<typeof import('node:v8')>()), setFlagsFromString: vi.fn() }))
const v8 = await import('node:v8')

/**
 * What the process reads and opens before it serves (the `startup` mutation module): the
 * configuration (defaults and variables as README's "Configuration" table and docs/RELIABILITY.md
 * list them), the heap bound, and the backends (the SQLite store by default, the rate-limit Redis
 * with its circuit breaker, on a Redis of this file's own and on a port where none listens).
 */
const tmp = scratchDirs()

describe('loadConfig', () => {
  it('has README\'s defaults when nothing is set', () => {
    expect(loadConfig({})).toEqual({
      host: '127.0.0.1',
      port: 3000,
      dataDir: resolve('data'),
      sampleData: true,
      apiKeysFile: resolve('data', 'api-keys.json'),
      publicUrl: 'http://127.0.0.1:3000',
      timeouts: { requestMs: 10_000, headersMs: 5_000, keepAliveMs: 10_000, idleMs: 30_000 },
      authFailures: { max: 30, perAddressMax: 300, timeWindowMs: 60_000 },
      drainMs: 5_000,
      rateLimit: { max: 600, timeWindowMs: 60_000 },
      indexPrefix: 'hwfacts',
      mcpMaxBytes: 65_536,
      contextCacheBytes: 16 * 1024 * 1024,
      heapGrowthPercent: 30,
      logLevel: 'info'
    })
  })

  it('reads every variable', () => {
    const env = {
      HOST: '0.0.0.0',
      PORT: '8080',
      HWFACTS_DATA_DIR: '/srv/hw',
      HWFACTS_API_KEYS_FILE: '/etc/hw/keys.json',
      HWFACTS_CURSOR_SECRET: 's'.repeat(40),
      HWFACTS_PUBLIC_URL: 'https://facts.example',
      HWFACTS_REQUEST_TIMEOUT_MS: '11',
      HWFACTS_HEADERS_TIMEOUT_MS: '12',
      HWFACTS_KEEP_ALIVE_TIMEOUT_MS: '13',
      HWFACTS_IDLE_TIMEOUT_MS: '14',
      HWFACTS_AUTH_FAILURES_MAX: '15',
      HWFACTS_AUTH_FAILURES_PER_ADDRESS_MAX: '16',
      HWFACTS_AUTH_FAILURES_WINDOW_MS: '17',
      HWFACTS_DRAIN_MS: '0',
      HWFACTS_RATE_LIMIT_MAX: '18',
      HWFACTS_RATE_LIMIT_WINDOW_MS: '19',
      REDIS_URL: 'redis://r:6379',
      OPENSEARCH_URL: 'http://os:9200',
      HWFACTS_INDEX_PREFIX: 'hx',
      HWFACTS_MCP_MAX_BYTES: '20',
      HWFACTS_CONTEXT_CACHE_MB: '0',
      HWFACTS_HEAP_GROWTH_PERCENT: '0',
      LOG_LEVEL: 'warn'
    }
    expect(loadConfig(env)).toEqual({
      host: '0.0.0.0',
      port: 8080,
      dataDir: '/srv/hw',
      sampleData: false,
      apiKeysFile: '/etc/hw/keys.json',
      cursorSecret: 's'.repeat(40),
      publicUrl: 'https://facts.example',
      timeouts: { requestMs: 11, headersMs: 12, keepAliveMs: 13, idleMs: 14 },
      authFailures: { max: 15, perAddressMax: 16, timeWindowMs: 17 },
      drainMs: 0,
      rateLimit: { max: 18, timeWindowMs: 19 },
      redisUrl: 'redis://r:6379',
      searchEngineUrl: 'http://os:9200',
      searchEngineFlavor: 'opensearch',
      indexPrefix: 'hx',
      mcpMaxBytes: 20,
      contextCacheBytes: 0,
      heapGrowthPercent: 0,
      logLevel: 'warn'
    })
    expect(loadConfig({ HWFACTS_CONTEXT_CACHE_MB: '3' }).contextCacheBytes).toBe(3 * 1024 * 1024)
  })

  it('keys file under the data dir; Elasticsearch before OpenSearch; empty values are unset', () => {
    expect(loadConfig({ HWFACTS_DATA_DIR: '/srv/hw' }).apiKeysFile).toBe('/srv/hw/api-keys.json')
    const both = loadConfig({ ELASTICSEARCH_URL: 'http://es:9200', OPENSEARCH_URL: 'http://os:9200' })
    expect([both.searchEngineUrl, both.searchEngineFlavor]).toEqual(['http://es:9200', 'elasticsearch'])
    const emptyEs = loadConfig({ ELASTICSEARCH_URL: '', OPENSEARCH_URL: 'http://os:9200' })
    expect([emptyEs.searchEngineUrl, emptyEs.searchEngineFlavor]).toEqual(['http://os:9200', 'opensearch'])
    const none = loadConfig({ ELASTICSEARCH_URL: '', OPENSEARCH_URL: '', REDIS_URL: '', HWFACTS_CURSOR_SECRET: '', PORT: '' })
    for (const k of ['searchEngineUrl', 'searchEngineFlavor', 'redisUrl', 'cursorSecret']) expect(none).not.toHaveProperty(k)
    expect(none.port).toBe(3000)
  })

  it('publicUrl: the listen address (IPv6 in brackets), none on port 0 unless given', () => {
    expect(loadConfig({ HOST: '::1', PORT: '81' }).publicUrl).toBe('http://[::1]:81')
    expect(loadConfig({ PORT: '0' })).not.toHaveProperty('publicUrl')
    expect(loadConfig({ PORT: '0' }).port).toBe(0)
    expect(loadConfig({ PORT: '0', HWFACTS_PUBLIC_URL: 'https://x.example' }).publicUrl).toBe('https://x.example')
    expect(loadConfig({ PORT: '82', HWFACTS_PUBLIC_URL: '' }).publicUrl).toBe('http://127.0.0.1:82')
  })

  it('refuses numbers out of range, at their bounds', () => {
    expect(() => loadConfig({ PORT: '-1' })).toThrow('PORT must be an integer ≥ 0, not "-1"')
    expect(loadConfig({ HWFACTS_DRAIN_MS: '0' }).drainMs).toBe(0)
    expect(() => loadConfig({ HWFACTS_DRAIN_MS: '-1' })).toThrow('HWFACTS_DRAIN_MS must be an integer ≥ 0')
    for (const name of ['HWFACTS_REQUEST_TIMEOUT_MS', 'HWFACTS_HEADERS_TIMEOUT_MS', 'HWFACTS_KEEP_ALIVE_TIMEOUT_MS', 'HWFACTS_IDLE_TIMEOUT_MS', 'HWFACTS_AUTH_FAILURES_MAX', 'HWFACTS_AUTH_FAILURES_PER_ADDRESS_MAX', 'HWFACTS_AUTH_FAILURES_WINDOW_MS', 'HWFACTS_RATE_LIMIT_WINDOW_MS', 'HWFACTS_MCP_MAX_BYTES'])
      expect(() => loadConfig({ [name]: '0' })).toThrow(`${name} must be an integer ≥ 1, not "0"`)
    expect(loadConfig({ HWFACTS_RATE_LIMIT_MAX: '1' }).rateLimit.max).toBe(1)
  })
})

describe('boundHeapGrowth', () => {
  it('sets V8\'s growing factor when given one, leaves V8\'s policy at 0', () => {
    const set = vi.mocked(v8.setFlagsFromString)
    set.mockClear()
    boundHeapGrowth(0)
    expect(set).not.toHaveBeenCalled()
    boundHeapGrowth(1)
    expect(set.mock.calls).toEqual([['--heap-growing-percent=1']])
  })
})

/** A log that records its lines as [level, message]. */
function recorder(): BackendLog & { lines: Array<[string, string]> } {
  const lines: Array<[string, string]> = []
  return { lines, warn: (m) => void lines.push(['warn', m]), info: (m) => void lines.push(['info', m]) }
}

describe('RedisBreaker', () => {
  let now = 0
  afterEach(() => vi.restoreAllMocks())
  const clock = () => vi.spyOn(performance, 'now').mockImplementation(() => now)

  it('opens on the first timed-out call only, then lets no call through', () => {
    clock()
    now = 5000
    const log = recorder()
    const b = new RedisBreaker({ ping: () => new Promise(() => {}) } as unknown as Redis, log)
    expect([b.open, b.allow()]).toEqual([false, true])
    b.result(null)
    b.result(new Error('Connection is closed.'))
    expect(b.open).toBe(false)
    b.result(new Error('Command Timed Out'))
    expect(b.open).toBe(true)
    b.result(new Error('Command timed out'))
    expect(log.lines).toEqual([['warn', 'redis does not answer within the command timeout: circuit open, rate limits are not enforced until it answers again']])
    expect(b.allow()).toBe(false)
  })

  it('probes once per second while open; closes when a probe answers, saying after how long', async () => {
    clock()
    now = 1000
    const log = recorder()
    let pings = 0
    let answer: ((ok: boolean) => void) | undefined
    const redis = { ping: () => (pings++, new Promise((res, rej) => (answer = (ok) => (ok ? res('PONG') : rej(new Error('no')))))) }
    const b = new RedisBreaker(redis as unknown as Redis, log)
    b.result(new Error('timed out'))
    now = 1999
    expect(b.allow()).toBe(false)
    expect(pings).toBe(0)
    now = 2000
    expect(b.allow()).toBe(false)
    expect(pings).toBe(1)
    // One probe at a time, even past the cooldown.
    now = 3500
    expect(b.allow()).toBe(false)
    expect(pings).toBe(1)
    answer!(false)
    await new Promise((r) => setTimeout(r, 0))
    expect(b.open).toBe(true)
    b.allow()
    expect(pings).toBe(2)
    answer!(false)
    await new Promise((r) => setTimeout(r, 0))
    now = 4499
    b.allow()
    expect(pings).toBe(2)
    now = 4500
    b.allow()
    expect(pings).toBe(3)
    now = 4821.4
    answer!(true)
    await new Promise((r) => setTimeout(r, 0))
    expect(b.open).toBe(false)
    expect(log.lines.at(-1)).toEqual(['info', 'redis answers again after 3821 ms: circuit closed, rate limits are enforced'])
    b.close()
    expect(log.lines.filter(([l]) => l === 'info')).toHaveLength(1)
    expect(b.allow()).toBe(true)
  })
})

describe('the rate-limit Redis', () => {
  let redis: PrivateRedis | undefined
  const opened: Redis[] = []
  beforeAll(async () => {
    if (hasRedisServer) redis = await privateRedis()
  }, 30_000)
  afterAll(() => {
    for (const r of opened) r.disconnect()
    redis?.stop()
  })

  it.runIf(hasRedisServer)('counts per key in its own namespace through the store, and is ready', async () => {
    const log = recorder()
    const r = rateLimitRedis(redis!.url, log)
    opened.push(r.redis)
    expect(r.redis.options).toMatchObject({ connectTimeout: 500, commandTimeout: 500, maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false })
    expect(r.redis.options.retryStrategy!(7)).toBe(1000)
    await new Promise((res) => r.redis.once('ready', res))
    expect(r.check).toMatchObject({ name: 'redis', critical: false })
    expect(await r.check.check()).toEqual({ ok: true })
    const Store = r.store as unknown as new (p: object) => { incr: Function; child: Function }
    const incr = (s: { incr: Function }, key: string) => new Promise<{ current: number; ttl: number }>((res, rej) => s.incr(key, (err: Error | null, v: { current: number; ttl: number }) => (err ? rej(err) : res(v)), 60_000, 10))
    const store = new Store({})
    expect((await incr(store, 'k1')).current).toBe(1)
    expect((await incr(store, 'k1')).current).toBe(2)
    const child = store.child({ routeInfo: { method: 'GET', url: '/v1/x' } })
    expect((await incr(child, 'k2')).current).toBe(1)
    // @fastify/rate-limit's store prefixes its keys; this one names the service.
    expect((await r.redis.keys('*')).sort()).toEqual(['hwfacts-rl:GET/v1/x-k2', 'hwfacts-rl:k1'])
    // With the circuit open the store fails at once, without asking Redis.
    r.breaker.result(new Error('timed out'))
    await expect(incr(store, 'k1')).rejects.toThrow('redis circuit open: rate limit skipped')
    expect(await r.redis.get('hwfacts-rl:k1')).toBe('2')
    expect(await r.check.check()).toEqual({ ok: false, detail: 'redis does not answer (circuit open): rate limits not enforced' })
    expect(log.lines.map(([l]) => l)).toEqual(['warn'])
  })

  it.runIf(hasRedisServer)('passes the limiter\'s own options to @fastify/rate-limit\'s Redis store (neither by default)', async () => {
    const r = rateLimitRedis(redis!.url, recorder())
    opened.push(r.redis)
    await new Promise((res) => r.redis.once('ready', res))
    const Store = r.store as unknown as new (p: object) => { incr: Function }
    const incr = (s: { incr: Function }, key: string) => new Promise<{ current: number; ttl: number }>((res, rej) => s.incr(key, (err: Error | null, v: { current: number; ttl: number }) => (err ? rej(err) : res(v)), 60_000, 1))
    const twice = async (opts: object, key: string) => {
      const s = new Store(opts)
      await incr(s, key)
      await new Promise((res) => setTimeout(res, 20))
      await incr(s, key)
      return (await incr(s, key)).ttl
    }
    // Past max, the window runs on (its remaining time); continueExceeding restarts it; exponentialBackoff doubles it.
    expect(await twice({}, 'o1')).toBeLessThan(60_000)
    expect(await twice({ continueExceeding: true }, 'o2')).toBe(60_000)
    expect(await twice({ exponentialBackoff: true }, 'o3')).toBe(120_000)
  })

  it.runIf(hasRedisServer)('a hung Redis opens the circuit at its first timed-out call; it closes when Redis answers again', { timeout: 20_000 }, async () => {
    const own = await privateRedis()
    try {
      const log = recorder()
      const r = rateLimitRedis(own.url, log)
      opened.push(r.redis)
      await new Promise((res) => r.redis.once('ready', res))
      const store = new (r.store as unknown as new (p: object) => { incr: Function })({})
      const incr = () => new Promise<Error | null>((res) => store.incr('h', (e: Error | null) => res(e), 60_000, 10))
      expect(await incr()).toBeNull()
      process.kill(own.pid, 'SIGSTOP')
      try {
        expect((await incr())?.message).toMatch(/timed out/i)
        expect(r.breaker.open).toBe(true)
        expect(log.lines).toEqual([['warn', 'redis does not answer within the command timeout: circuit open, rate limits are not enforced until it answers again']])
      } finally {
        process.kill(own.pid, 'SIGCONT')
      }
      // The next probe, a second after the circuit opened, finds it answering.
      for (let i = 0; i < 60 && r.breaker.open; i++) {
        r.breaker.allow()
        await new Promise((res) => setTimeout(res, 100))
      }
      expect(r.breaker.open).toBe(false)
      expect(log.lines.at(-1)![0]).toBe('info')
      expect(log.lines.at(-1)![1]).toMatch(/^redis answers again after \d+ ms: circuit closed, rate limits are enforced$/)
      expect(await incr()).toBeNull()
    } finally {
      own.stop()
    }
  })

  it('without Redis: one warning per outage, a failing non-critical check, and calls refused at once', async () => {
    const log = recorder()
    const r = rateLimitRedis('redis://127.0.0.1:1', log)
    opened.push(r.redis)
    await new Promise((res) => r.redis.once('error', res))
    await new Promise((res) => r.redis.once('error', res))
    expect(log.lines).toHaveLength(1)
    expect(log.lines[0]![0]).toBe('warn')
    expect(log.lines[0]![1]).toMatch(/^redis unavailable \(connect ECONNREFUSED 127\.0\.0\.1:1\): rate limits are not enforced until it is back$/)
    expect((await r.check.check()).ok).toBe(false)
    expect((await r.check.check()).detail).toMatch(/^redis (connecting|reconnecting): rate limits not enforced$/)
    const store = new (r.store as unknown as new (p: object) => { incr: Function })({ continueExceeding: true })
    const err = await new Promise((res) => store.incr('k', (e: Error | null) => res(e), 1000, 1))
    expect(err).toBeInstanceOf(Error)
  })

  it.runIf(hasRedisServer)('says when Redis is back after an outage, and warns again at the next one', { timeout: 30_000 }, async () => {
    const own = await privateRedis()
    try {
      const log = recorder()
      const r = rateLimitRedis(own.url, log)
      opened.push(r.redis)
      await new Promise((res) => r.redis.once('ready', res))
      expect(log.lines).toEqual([])
      own.services('redis-stop')
      await new Promise((res) => r.redis.once('error', res))
      own.services('redis-start')
      await new Promise((res) => r.redis.once('ready', res))
      expect(log.lines.map(([l, m]) => [l, m.replace(/\(.*\)/, '(…)')])).toEqual([
        ['warn', 'redis unavailable (…): rate limits are not enforced until it is back'],
        ['info', 'redis reachable again: rate limits are enforced']
      ])
      own.services('redis-stop')
      await new Promise((res) => r.redis.once('error', res))
      expect(log.lines.map(([l]) => l)).toEqual(['warn', 'info', 'warn'])
    } finally {
      own.stop()
    }
  })
})

describe('openBackends', () => {
  it('the SQLite store of the data dir by default, with its non-critical pointer check; no Redis', async () => {
    const dir = tmp()
    const b = await openBackends(loadConfig({ HWFACTS_DATA_DIR: dir }), { log: recorder() })
    expect(b.repo).toBeInstanceOf(SqliteRepository)
    expect(b.readinessChecks.map((c) => [c.name, c.critical])).toEqual([['promoted', false]])
    expect(await b.readinessChecks[0]!.check()).toEqual(await (b.repo as SqliteRepository).pointerStatus())
    expect(b).not.toHaveProperty('redis')
    expect(b).not.toHaveProperty('rateLimitStore')
    await b.close()
  })

  it('with REDIS_URL: waits up to a second for it, adds its check, and disconnects on close', { timeout: 20_000 }, async () => {
    const log = recorder()
    // A port that accepts and never answers: Redis neither ready nor failed.
    const held: Socket[] = []
    const silent = createServer((sock) => void held.push(sock)).listen(0, '127.0.0.1')
    await once(silent, 'listening')
    const t0 = performance.now()
    const b = await openBackends(loadConfig({ HWFACTS_DATA_DIR: tmp(), REDIS_URL: `redis://127.0.0.1:${(silent.address() as AddressInfo).port}` }), { log })
    const waited = performance.now() - t0
    silent.close()
    expect(waited).toBeGreaterThanOrEqual(950)
    expect(waited).toBeLessThan(1900)
    // Refused at once: no wait.
    const t1 = performance.now()
    const refused = await openBackends(loadConfig({ HWFACTS_DATA_DIR: tmp(), REDIS_URL: 'redis://127.0.0.1:1' }), { log })
    expect(performance.now() - t1).toBeLessThan(900)
    // The caller's log gets the backends' messages.
    expect(log.lines.filter(([l, m]) => l === 'warn' && m.startsWith('redis unavailable (connect ECONNREFUSED 127.0.0.1:1)'))).toHaveLength(1)
    await refused.close()
    for (let i = 0; i < 100 && refused.redis!.status !== 'end'; i++) await new Promise((r) => setTimeout(r, 10))
    expect(refused.redis!.status).toBe('end')
    expect(b.readinessChecks.map((c) => [c.name, c.critical])).toEqual([
      ['promoted', false],
      ['redis', false]
    ])
    expect(b.redis).toBeDefined()
    expect(typeof b.rateLimitStore).toBe('function')
    await b.close()
    for (const sock of held) sock.destroy()
    if (!hasRedisServer) return
    const own = await privateRedis()
    try {
      const t2 = performance.now()
      const up = await openBackends(loadConfig({ HWFACTS_DATA_DIR: tmp(), REDIS_URL: own.url }), { log })
      expect(up.redis!.status).toBe('ready')
      expect(performance.now() - t2).toBeLessThan(900)
      await up.close()
    } finally {
      own.stop()
    }
  })
})

describe('cursorSecret', () => {
  it('names its source; refusals say how to recover; a data dir made for it; other read errors are not swallowed', async () => {
    const { cursorSecret } = await import('../src/auth/cursor-secret.js')
    expect(cursorSecret(tmp(), 'k'.repeat(32))).toEqual({ secret: 'k'.repeat(32), source: 'HWFACTS_CURSOR_SECRET' })
    expect(() => cursorSecret(tmp(), 'short')).toThrow(
      new Error('cursor secret HWFACTS_CURSOR_SECRET is 5 bytes long, shorter than 32; the service does not start on it (remove the file to have a new one made, or set HWFACTS_CURSOR_SECRET)')
    )
    const dir = join(tmp(), 'not', 'yet')
    expect(cursorSecret(dir, '').source).toBe(`${join(dir, 'cursor-secret')} (generated now)`)
    // A data "dir" that is a file: not a missing secret, an error to report.
    const file = join(tmp(), 'plain')
    writeFileSync(file, 'x')
    expect(() => cursorSecret(file, undefined)).toThrow(expect.objectContaining({ code: 'ENOTDIR' }))
  })

  it('a link that fails otherwise than on an existing name stops the start, and leaves no temporary file', async () => {
    const dir = tmp()
    vi.resetModules()
    vi.doMock('node:fs', async (original) => ({
      ...(await original<typeof import('node:fs')>()),
      linkSync: () => {
        throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' })
      }
    }))
    try {
      const { cursorSecret } = await import('../src/auth/cursor-secret.js')
      expect(() => cursorSecret(dir, undefined)).toThrow(expect.objectContaining({ code: 'EPERM' }))
      expect(readdirSync(dir)).toEqual([])
    } finally {
      vi.doUnmock('node:fs')
      vi.resetModules()
    }
  })

  it('when another instance links its secret first, that secret is used, and the own temporary file removed', async () => {
    const dir = tmp()
    const theirs = 'T'.repeat(43)
    vi.resetModules()
    vi.doMock('node:fs', async (original) => {
      const fs = await original<typeof import('node:fs')>()
      return {
        ...fs,
        linkSync: (from: string, to: string) => {
          fs.writeFileSync(to, theirs + '\n', { mode: 0o600 })
          fs.linkSync(from, to)
        }
      }
    })
    try {
      const { cursorSecret } = await import('../src/auth/cursor-secret.js')
      expect(cursorSecret(dir, undefined)).toEqual({ secret: theirs, source: join(dir, 'cursor-secret') })
      expect(readdirSync(dir)).toEqual(['cursor-secret'])
    } finally {
      vi.doUnmock('node:fs')
      vi.resetModules()
    }
  })
})
