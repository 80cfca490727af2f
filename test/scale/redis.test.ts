import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildRelease } from '../../indexer/build.js'
import { ApiKeyStore, generateKey, type ApiKey } from '../../src/auth/keys.js'
import { openBackends, type Backends } from '../../src/backends.js'
import { loadConfig } from '../../src/config.js'
import { buildApp } from '../../src/http/app.js'
import { HardwareFacts } from '../../src/service/facts.js'
import { DataDir } from '../../src/store/layout.js'
import { hasRedisServer, privateRedis, type PrivateRedis } from '../helpers/redis.js'
import { NO_REDIS, skipReason } from '../helpers/services.js'
import { SAMPLE_CORPUS } from '../helpers/sample-corpus.js'

const REDIS_URL = process.env.REDIS_URL
const skip = skipReason('redis rate limits', REDIS_URL ? undefined : NO_REDIS)
const skipOutage = skipReason('redis outage', hasRedisServer ? undefined : 'redis-server is not installed (a private instance is started and stopped for the outage test)')

const WINDOW_MS = 60_000

interface Instance {
  app: FastifyInstance
  backends: Backends
  warnings: string[]
  infos: string[]
}

let dataDir: string
/** The sample release, built once into a temp dir: the fast way to a real SQLite repository. */
async function sampleDataDir(): Promise<string> {
  if (dataDir) return dataDir
  dataDir = mkdtempSync(join(tmpdir(), 'hwfacts-redis-'))
  const r = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir })
  new DataDir(dataDir).promote(r.id)
  return dataDir
}

/** One service instance as src/server.ts wires it: backends from the configuration, then the app. */
async function instance(redisUrl: string, keys: ApiKey[], max: number): Promise<Instance> {
  const warnings: string[] = []
  const infos: string[] = []
  const cfg = loadConfig({ HWFACTS_DATA_DIR: await sampleDataDir(), REDIS_URL: redisUrl })
  const backends = await openBackends(cfg, { log: { warn: (m) => warnings.push(m), info: (m) => infos.push(m) } })
  const app = await buildApp({
    facts: new HardwareFacts(backends.repo, 'redis-test'),
    keys: new ApiKeyStore(keys),
    rateLimit: { max, timeWindowMs: WINDOW_MS },
    rateLimitStore: backends.rateLimitStore!,
    readinessChecks: backends.readinessChecks
  })
  await app.ready()
  return { app, backends, warnings, infos }
}

async function closeAll(...xs: Array<Instance | undefined>): Promise<void> {
  for (const x of xs) {
    await x?.app.close()
    await x?.backends.close()
  }
}

/** A fresh key pair per test run: budgets live in Redis, so ids must not collide with earlier runs. */
function key(name: string, rateLimit?: ApiKey['rateLimit']) {
  const { secret, record } = generateKey(`${name}-${process.pid}-${Date.now()}`)
  return { secret, record: rateLimit ? { ...record, rateLimit } : record }
}

const get = (i: Instance, secret: string, url = '/v1/release') => i.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${secret}` } })

async function waitFor(cond: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`condition not met within ${ms} ms`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

afterAll(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

describe.skipIf(skip !== undefined)('rate limits shared through Redis', () => {
  const shared = key('shared')
  const small = key('small', { max: 2, timeWindowMs: WINDOW_MS })
  let a: Instance
  let b: Instance

  beforeAll(async () => {
    a = await instance(REDIS_URL!, [shared.record, small.record], 5)
    b = await instance(REDIS_URL!, [shared.record, small.record], 5)
  })
  afterAll(() => closeAll(a, b))

  it('two instances spend one budget per API key; the 6th request of 5 allowed is a 429 Problem', async () => {
    const codes: number[] = []
    for (const i of [a, a, a, b, b]) codes.push((await get(i, shared.secret)).statusCode)
    expect(codes).toEqual([200, 200, 200, 200, 200])
    const last = await get(b, shared.secret)
    expect(last.statusCode).toBe(429)
    expect(last.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(last.json()).toMatchObject({ status: 429, code: 'RATE_LIMITED' })
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0)
    expect(last.headers['x-ratelimit-limit']).toBe('5')
    expect(last.headers['x-ratelimit-remaining']).toBe('0')
    expect(Number(last.headers['x-ratelimit-reset'])).toBeGreaterThan(0)
    // Still limited on the other instance.
    expect((await get(a, shared.secret)).statusCode).toBe(429)
  })

  it("applies a key record's own rateLimit, independently of other keys", async () => {
    const first = await get(a, small.secret)
    expect(first.statusCode).toBe(200)
    expect(first.headers['x-ratelimit-limit']).toBe('2')
    expect((await get(b, small.secret)).statusCode).toBe(200)
    expect((await get(a, small.secret)).statusCode).toBe(429)
  })

  it('/readyz shows Redis as a passing non-critical check', async () => {
    const r = await a.app.inject({ method: 'GET', url: '/readyz' })
    expect(r.statusCode).toBe(200)
    expect(r.json().checks.redis).toEqual({ ok: true, critical: false })
  })
})

describe.skipIf(skipOutage !== undefined)('when Redis goes away', () => {
  let svc: Instance | undefined
  let redis: PrivateRedis | undefined
  const k = key('outage')

  beforeAll(async () => {
    redis = await privateRedis()
  })
  afterAll(async () => {
    await closeAll(svc)
    redis?.stop()
  })

  it('keeps answering without limits, reports it once, and enforces limits again when Redis returns', { timeout: 60_000 }, async () => {
    const { url, services } = redis!
    svc = await instance(url, [k.record], 3)
    const s = svc
    expect((await get(s, k.secret)).statusCode).toBe(200)

    services('redis-stop')
    const during: number[] = []
    for (let i = 0; i < 8; i++) during.push((await get(s, k.secret)).statusCode)
    expect(during).toEqual(Array(8).fill(200))
    const ready = await s.app.inject({ method: 'GET', url: '/readyz' })
    expect(ready.statusCode).toBe(200)
    expect(ready.json().status).toBe('ok')
    expect(ready.json().checks.redis).toMatchObject({ ok: false, critical: false })
    // ioredis retries every second; the outage is logged once, not per attempt or per request.
    await new Promise((r) => setTimeout(r, 2500))
    expect(s.warnings).toHaveLength(1)
    expect(s.warnings[0]).toMatch(/rate limits are not enforced/)

    services('redis-start')
    await waitFor(async () => (await s.app.inject({ method: 'GET', url: '/readyz' })).json().checks.redis.ok === true, 10_000)
    expect(s.infos.some((m) => /reachable again/.test(m))).toBe(true)
    // The restarted Redis is empty: a fresh budget of 3, then 429.
    const after: number[] = []
    for (let i = 0; i < 4; i++) after.push((await get(s, k.secret)).statusCode)
    expect(after).toEqual([200, 200, 200, 429])
  })
})

describe.skipIf(skipOutage !== undefined)('when Redis hangs (process stopped)', () => {
  let svc: Instance | undefined
  let redis: PrivateRedis | undefined
  const k = key('hang')

  beforeAll(async () => {
    redis = await privateRedis()
  })
  afterAll(async () => {
    if (redis) process.kill(redis.pid, 'SIGCONT')
    await closeAll(svc)
    redis?.stop()
  })

  it('fails open within milliseconds once Redis is known to hang, and limits again when it answers', { timeout: 60_000 }, async () => {
    const { url, pid } = redis!
    svc = await instance(url, [k.record], 1000)
    const s = svc
    expect((await get(s, k.secret)).statusCode).toBe(200)

    process.kill(pid, 'SIGSTOP')
    // The first request finds out (one command timeout, 500 ms); the circuit opens.
    const first = performance.now()
    expect((await get(s, k.secret)).statusCode).toBe(200)
    expect(performance.now() - first).toBeGreaterThan(400)
    const times: number[] = []
    for (let i = 0; i < 50; i++) {
      const t0 = performance.now()
      expect((await get(s, k.secret)).statusCode).toBe(200)
      times.push(performance.now() - t0)
    }
    times.sort((x, y) => x - y)
    // Without the breaker every one of them waits for the 500 ms command timeout.
    expect(times[Math.floor(times.length * 0.9)]).toBeLessThan(50)
    expect(s.warnings.some((m) => /circuit open/.test(m))).toBe(true)
    const ready = await s.app.inject({ method: 'GET', url: '/readyz' })
    expect(ready.statusCode).toBe(200)
    expect(ready.json().checks.redis).toMatchObject({ ok: false, critical: false })

    process.kill(pid, 'SIGCONT')
    await waitFor(async () => {
      await get(s, k.secret)
      return s.infos.some((m) => /circuit closed/.test(m))
    }, 10_000)
    await waitFor(async () => (await s.app.inject({ method: 'GET', url: '/readyz' })).json().checks.redis.ok === true, 10_000)
    // Counting again: the budget of 1000 spent so far shows in the remaining count.
    const r = await get(s, k.secret)
    expect(Number(r.headers['x-ratelimit-remaining'])).toBeLessThan(1000)
  })
})
