import { writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { ApiKeyStore, generateKey } from '../../src/auth/keys.js'
import auth from '../../src/http/auth.js'
import problems from '../../src/http/problem.js'
import { scratchDirs } from '../helpers/scratch.js'

/**
 * The auth plugin (src/http/auth.ts) on a minimal app of its own: the Problem handler, the plugin,
 * one route that needs the facts:read scope and one that needs none. No release is built, so this
 * suite is fast enough to run for every mutant of the `auth` mutation module. Expected values are
 * worked out by hand from the documented behaviour (docs/RELIABILITY.md "Guessing keys is limited",
 * the spec's part 5 and the RATE_LIMITED error code's guidance).
 */

const tmp = scratchDirs()
const good = generateKey('good')
const other = generateKey('other')
const noScope = generateKey('no-scope', [])
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` })

async function minimalApp(keys: ApiKeyStore, failures = { max: 3, timeWindowMs: 60_000 }): Promise<FastifyInstance> {
  const app = Fastify({ logger: false })
  await app.register(problems)
  await app.register(auth, { keys, failures })
  app.get('/guarded', { config: { scope: 'facts:read' } }, async (req) => ({ key: req.apiKey?.id ?? null, port: req.socket.remotePort }))
  // The key as the route sees it: null (not absent) without a scope.
  app.get('/open', async (req) => ({ key: req.apiKey }))
  await app.ready()
  return app
}

describe('failed credentials are limited per credential and per address, never a valid key', () => {
  const T0 = Date.UTC(2026, 0, 5, 12, 0, 0)
  let elapsed = 0
  /**
   * One clock for the test, as the limiter reads two: the wall clock (Date, for Retry-After) and the
   * monotonic one (performance.now, which the LRU cache's expiry reads). Timers stay real.
   */
  function freezeClock(): void {
    elapsed = 0
    vi.useFakeTimers({ toFake: ['Date'], now: T0 })
    const base = performance.now()
    vi.spyOn(performance, 'now').mockImplementation(() => base + elapsed)
  }
  async function advance(ms: number): Promise<void> {
    elapsed += ms
    vi.setSystemTime(T0 + elapsed)
    // lru-cache reads its clock at most once per real millisecond and reuses the value meanwhile.
    await new Promise((r) => setTimeout(r, 5))
  }
  afterEach(() => {
    vi.useRealTimers()
    vi.restoreAllMocks()
  })

  const keys = new ApiKeyStore([good.record, other.record, noScope.record])
  let app: FastifyInstance
  const get = (headers: Record<string, string> = {}, remoteAddress = '192.0.2.1', url = '/guarded') => app.inject({ url, headers, remoteAddress })
  /** A fresh app (a fresh count) per test. */
  async function fresh(failures?: { max: number; perAddressMax?: number; timeWindowMs: number }): Promise<void> {
    await app?.close()
    app = await minimalApp(keys, failures)
  }
  afterAll(async () => app?.close())

  async function expectLimited(headers: Record<string, string>, seconds: number, remoteAddress?: string): Promise<void> {
    const r = await get(headers, remoteAddress)
    expect(r.statusCode, r.body).toBe(429)
    expect(r.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(r.headers['retry-after']).toBe(String(seconds))
    expect(r.json()).toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
      detail: `Too many requests with this missing or wrong credential; retry in ${seconds} s.`
    })
  }

  it('one wrong credential is answered 401 max times, then 429; a good key from the same address keeps working', async () => {
    await fresh({ max: 3, perAddressMax: 10, timeWindowMs: 60_000 })
    freezeClock()
    for (let i = 0; i < 3; i++) expect((await get(bearer('typo'))).statusCode).toBe(401)
    await expectLimited(bearer('typo'), 60)
    expect((await get(bearer(good.secret))).json().key).toBe('good')
    // Another wrong credential has a count of its own.
    expect((await get(bearer('other-typo'))).statusCode).toBe(401)
  })

  it('past the per-address cap every wrong credential from it is 429 at once; good keys still answer, other addresses are not affected', async () => {
    await fresh({ max: 3, perAddressMax: 5, timeWindowMs: 60_000 })
    freezeClock()
    // Five distinct wrong credentials, each once: none reaches max, the address reaches its cap.
    for (let i = 0; i < 5; i++) expect((await get(bearer(`wrong-${i}`))).statusCode).toBe(401)
    await expectLimited(bearer('wrong-5'), 60)
    await expectLimited({}, 60)
    expect((await get(bearer(good.secret))).json().key).toBe('good')
    expect((await get(bearer(other.secret))).json().key).toBe('other')
    expect((await get(bearer('wrong-6'), '192.0.2.2')).statusCode).toBe(401)
  })

  it('the per-address cap is 10 × max when not given', async () => {
    await fresh({ max: 2, timeWindowMs: 60_000 })
    for (let i = 0; i < 20; i++) expect((await get(bearer(`w-${i}`))).statusCode).toBe(401)
    expect((await get(bearer('w-20'))).statusCode).toBe(429)
    expect((await get(bearer(good.secret))).statusCode).toBe(200)
  })

  it('a missing credential is counted per address; a malformed one as the credential it is', async () => {
    await fresh({ max: 2, perAddressMax: 100, timeWindowMs: 60_000 })
    expect((await get()).statusCode).toBe(401)
    expect((await get()).statusCode).toBe(401)
    expect((await get()).statusCode).toBe(429)
    expect((await get({}, '192.0.2.2')).statusCode).toBe(401)
    expect((await get({ authorization: 'Basic abc' })).statusCode).toBe(401)
    expect((await get({ authorization: 'Basic abc' })).statusCode).toBe(401)
    expect((await get({ authorization: 'Basic abc' })).statusCode).toBe(429)
    expect((await get(bearer(good.secret))).statusCode).toBe(200)
  })

  it('a good key without the scope (403) is not a failed credential', async () => {
    await fresh({ max: 1, timeWindowMs: 60_000 })
    for (let i = 0; i < 4; i++) expect((await get(bearer(noScope.secret))).statusCode).toBe(403)
    expect((await get(bearer(good.secret))).statusCode).toBe(200)
  })

  it('routes without a scope are not limited', async () => {
    await fresh({ max: 1, timeWindowMs: 60_000 })
    expect((await get(bearer('wrong'))).statusCode).toBe(401)
    expect((await get(bearer('wrong'))).statusCode).toBe(429)
    const open = await get(bearer('wrong'), '192.0.2.1', '/open')
    expect(open.statusCode).toBe(200)
    expect(open.json()).toEqual({ key: null })
  })

  it('Retry-After counts the whole seconds left of the window that began with the first failure', async () => {
    await fresh()
    freezeClock()
    expect((await get(bearer('w'))).statusCode).toBe(401)
    await advance(20_000)
    expect((await get(bearer('w'))).statusCode).toBe(401)
    await advance(20_000)
    expect((await get(bearer('w'))).statusCode).toBe(401)
    // 40 s of the 60 s window gone: 20 s left.
    await expectLimited(bearer('w'), 20)
    // 19.5 s left is 20 s to wait (rounded up, never early).
    await advance(500)
    await expectLimited(bearer('w'), 20)
    await advance(500)
    await expectLimited(bearer('w'), 19)
    // The last millisecond of the window: still limited, 1 s to wait (never 0).
    await advance(18_999)
    await expectLimited(bearer('w'), 1)
    // 429s do not extend the window.
    await advance(2)
    expect((await get(bearer('w'))).statusCode).toBe(401)
  })

  it('after the window the credential starts a new count and a new window', async () => {
    await fresh({ max: 2, timeWindowMs: 10_000 })
    freezeClock()
    expect((await get(bearer('w'))).statusCode).toBe(401)
    expect((await get(bearer('w'))).statusCode).toBe(401)
    await expectLimited(bearer('w'), 10)
    await advance(10_001)
    expect((await get(bearer('w'))).statusCode).toBe(401)
    await advance(3_000)
    expect((await get(bearer('w'))).statusCode).toBe(401)
    await expectLimited(bearer('w'), 7)
    await advance(7_001)
    expect((await get(bearer('w'))).statusCode).toBe(401)
  })
})

describe('the credential remembered on a kept-alive connection', () => {
  const keys = new ApiKeyStore([good.record, other.record, noScope.record])
  let app: FastifyInstance
  let port: number
  beforeAll(async () => {
    app = await minimalApp(keys, { max: 1000, timeWindowMs: 60_000 })
    await app.listen({ port: 0, host: '127.0.0.1' })
    port = (app.server.address() as AddressInfo).port
  })
  afterAll(async () => app?.close())
  afterEach(() => vi.restoreAllMocks())

  /** A client of one kept-alive connection: every request of it must arrive on the same socket. */
  function connection() {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    let clientPort: number | undefined
    const send = (headers: Record<string, string>) =>
      new Promise<{ status: number; key?: string | null }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path: '/guarded', agent, headers }, (res) => {
          let body = ''
          res.setEncoding('utf8')
          res.on('data', (c: string) => (body += c))
          res.on('end', () => {
            const json = JSON.parse(body) as { key?: string | null; port?: number }
            if (res.statusCode === 200) {
              clientPort ??= json.port
              expect(json.port, 'the same connection').toBe(clientPort)
            }
            resolve({ status: res.statusCode!, key: json.key })
          })
        })
        req.on('error', reject)
        req.end()
      })
    return { send, close: () => agent.destroy() }
  }

  it('the same header again on the connection is not hashed again; another header is', async () => {
    const verify = vi.spyOn(keys, 'verify')
    const c = connection()
    try {
      expect(await c.send(bearer(good.secret))).toEqual({ status: 200, key: 'good' })
      expect(await c.send(bearer(good.secret))).toEqual({ status: 200, key: 'good' })
      expect(verify).toHaveBeenCalledTimes(1)
      expect(await c.send(bearer(other.secret))).toEqual({ status: 200, key: 'other' })
      expect(verify).toHaveBeenCalledTimes(2)
      // Only the last credential of the connection is remembered.
      expect(await c.send(bearer(good.secret))).toEqual({ status: 200, key: 'good' })
      expect(verify).toHaveBeenCalledTimes(3)
    } finally {
      c.close()
    }
    // Another connection remembers nothing of this one.
    const d = connection()
    try {
      expect(await d.send(bearer(good.secret))).toEqual({ status: 200, key: 'good' })
      expect(verify).toHaveBeenCalledTimes(4)
    } finally {
      d.close()
    }
  })

  it('a wrong header after a good one is refused, whatever its length; a wrong one is never remembered', async () => {
    const verify = vi.spyOn(keys, 'verify')
    const c = connection()
    try {
      expect((await c.send(bearer(good.secret))).status).toBe(200)
      // Same length as the remembered header, one character changed.
      const last = good.secret.at(-1) === 'A' ? 'B' : 'A'
      expect((await c.send(bearer(good.secret.slice(0, -1) + last))).status).toBe(401)
      expect((await c.send(bearer(good.secret + 'x'))).status).toBe(401)
      expect((await c.send(bearer(good.secret.slice(0, -1)))).status).toBe(401)
      expect((await c.send(bearer(good.secret))).status).toBe(200)
      const before = verify.mock.calls.length
      expect((await c.send(bearer('wrong'))).status).toBe(401)
      expect((await c.send(bearer('wrong'))).status).toBe(401)
      expect(verify.mock.calls.length).toBe(before + 2)
    } finally {
      c.close()
    }
  })

  it('the scope is checked on every request, remembered credential or not', async () => {
    const c = connection()
    try {
      expect((await c.send(bearer(noScope.secret))).status).toBe(403)
      expect((await c.send(bearer(noScope.secret))).status).toBe(403)
    } finally {
      c.close()
    }
  })

  it('a reload (SIGHUP) is seen on an open connection: a removed key stops working there, a refused file changes nothing', async () => {
    const file = join(tmp('hwfacts-auth-plugin-'), 'api-keys.json')
    const c = connection()
    try {
      expect(await c.send(bearer(good.secret))).toEqual({ status: 200, key: 'good' })
      writeFileSync(file, JSON.stringify({ keys: [{ ...other.record, releases: '*' }] }))
      expect(() => keys.reload(file)).toThrow('no key of this file is used')
      expect(await c.send(bearer(good.secret))).toEqual({ status: 200, key: 'good' })
      writeFileSync(file, JSON.stringify({ keys: [other.record] }))
      expect(keys.reload(file)).toBe(1)
      // Same connection, same header: verified again against the new keys.
      expect((await c.send(bearer(good.secret))).status).toBe(401)
      expect(await c.send(bearer(other.secret))).toEqual({ status: 200, key: 'other' })
      keys.replace([good.record, other.record, noScope.record])
      expect(await c.send(bearer(good.secret))).toEqual({ status: 200, key: 'good' })
    } finally {
      c.close()
    }
  })
})
