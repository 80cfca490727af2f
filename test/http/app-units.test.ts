import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { afterAll, describe, expect, it } from 'vitest'
import type { AppOptions } from '../../src/http/app.js'
import type { ApiKeyStore } from '../../src/auth/keys.js'
import type { Contract } from '../../src/http/contract.js'
import type { HardwareFacts } from '../../src/service/facts.js'
import { drainAndClose, LINGER_MS } from '../../src/http/drain.js'
import { testApp, type TestApp } from '../helpers/app.js'
import { promoteSampleRelease } from '../helpers/sample-corpus.js'
import { scratchDirs } from '../helpers/scratch.js'
import { expectProblem } from '../helpers/problem.js'
import { parseRaw, raw } from '../helpers/raw-http.js'

/**
 * The app as buildApp assembles it (src/http/app.ts) and the drain flag, over the sample corpus'
 * release (built once for the file, in the first test that needs it: a few small files, a small
 * release that opens at once). Expected values: the spec's endpoint table (§4), statuses and codes
 * (§5, §7), the package's version. Each route alone is test/http/routes-units.test.ts's. The app is
 * made inside the first test that needs it (not in a hook): a mutant of its set-up then fails that
 * test instead of the file.
 */
type Obj = Record<string, any>
const SEED = '2026-08-26' as const
const DEPTH = '2026-12-01' as const
const SPEC = readFileSync(new URL('../../../shared/spec/service-spec.md', import.meta.url), 'utf8')
const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
/** §4's GET endpoints: the unauthenticated table's rows and the fact endpoints' headings. */
const SPEC_OPEN = [...SPEC.matchAll(/^\| GET \| (\S+) \|/gm)].map((m) => m[1]!.replace(/\{(\w+)\}/, '{$1}'))
const SPEC_FACTS = [...SPEC.matchAll(/^#### GET (\S+)/gm)].map((m) => m[1]!)

const tmp = scratchDirs()
let dataDir: string | undefined
/** The sample corpus' release, promoted in a data directory of the file's own. */
async function sampleData(): Promise<string> {
  if (dataDir) return dataDir
  const d = tmp('hwfacts-app-')
  await promoteSampleRelease(d)
  return (dataDir = d)
}

const logged: Obj[] = []
let seen: { facts: HardwareFacts; keys: ApiKeyStore; contract: Contract } | undefined
/** The main app's readiness checks: a test adds and removes some. */
const checks: NonNullable<AppOptions['readinessChecks']> = []
const OPTS: Partial<AppOptions> = {
  readinessChecks: checks,
  publicUrl: 'https://facts.example//',
  version: '9.8.7-test',
  timeouts: { requestMs: 4_000, headersMs: 6_000, keepAliveMs: 3_000, idleMs: 7_000 },
  logger: { level: 'info', stream: { write: (line: string) => void logged.push(JSON.parse(line)) } },
  plugins: [
    async (app, ctx) => {
      seen = ctx
      app.get('/plugged', async () => ({ plugged: true }))
      // A body route like POST /mcp: the app's body limit applies.
      app.post('/plugged', async (req) => ({ bytes: JSON.stringify(req.body).length }))
    }
  ]
}
let main: TestApp | undefined
const made: TestApp[] = []
afterAll(async () => {
  for (const t of made) await t.close()
})
async function app(): Promise<TestApp> {
  if (!main) made.push((main = await testApp(await sampleData(), OPTS, [{ releases: [] }])))
  return main
}
let port: number | undefined
/** The main app listening (for raw-socket requests); closed with it. */
const listening = async () => (port ??= Number(new URL(await (await app()).app.listen({ port: 0, host: '127.0.0.1' })).port))
const get = async (url: string, headers: Obj = {}) => (await app()).app.inject({ url, headers })
const authed = async (url: string, version?: string) => {
  const t = await app()
  return t.app.inject({ url, headers: { ...t.auth, ...(version ? { 'service-version': version } : {}) } })
}
const json = async (url: string, version?: string) => {
  const r = await authed(url, version)
  expect(r.statusCode, `${url}: ${r.body}`).toBe(200)
  expect(r.headers['content-type']).toBe('application/json; charset=utf-8')
  return r.json() as Obj
}

/**
 * What buildApp decides while it builds (Fastify's options, the hooks' order, each route's
 * registration and handler) runs once, in the first test: a mutation run tries a mutant of it against
 * that test alone. So the first test checks each such choice once; the tests after it go into detail.
 */
it('buildApp: each option, hook and route as built, once', async () => {
  const t = await app()
  // The routes, each answering (its handler is the one registered), with the credential where §5 wants one.
  for (const url of ['/ping', '/livez', '/readyz', '/health', '/healthz', '/openapi.json', '/v1/error-codes/NOT_FOUND', '/docs/json', '/plugged']) expect((await get(url)).statusCode, url).toBe(200)
  const id = (await t.facts.release()).id
  const fact = ['/v1/release', '/v1/parts/resolve?q=STM32F407VG', '/v1/catalog/search?q=STM32F407', '/v1/catalog/part?part=STM32F407VG', '/v1/coverage?part=STM32F407VG', '/v1/sources?part=STM32F407VG', '/v1/context?part=STM32F407VG&topic=registers&limit=1', '/v1/compare/parts?part=STM32F407VG&other=STM32F407VE&topic=registers&limit=1', `/v1/compare/releases?part=STM32F407VG&topic=registers&from_release=${id}&limit=1`]
  for (const url of fact) {
    expect(Object.keys(await json(url)).length, url).toBeGreaterThan(1)
    expectProblem(await get(url), 401, 'UNAUTHENTICATED')
  }
  for (const url of ['/v1/check?part=STM32F407VG&vdd=3.3', '/v1/discrepancies?part=STM32F407VG']) {
    expect(Object.keys(await json(url, DEPTH)).length, url).toBeGreaterThan(1)
    expectProblem(await authed(url, SEED), 404, 'NOT_FOUND')
  }
  expect((await json('/v1/context?part=STM32F407VG&topic=errata&limit=1&revision=A')).facts).toBeDefined()
  expect((await authed('/v1/context?part=STM32F407VG&topic=errata&limit=1&revision=A')).headers.deprecation).toBe(`@${Date.UTC(2026, 7, 26) / 1000}`)
  expect((await get('/livez')).json().version).toBe('9.8.7-test')
  expect((await get('/readyz')).json().api).toEqual({ version: SEED, openapi_sha256: seen!.contract.digest(SEED) })
  // Options: timeouts, request ids and their log, the Problem base, Ajv's coercion, defaults and strictness, the router.
  expect([t.app.server.requestTimeout, t.app.server.headersTimeout, t.app.server.keepAliveTimeout, t.app.server.timeout]).toEqual([4_000, 4_000, 3_000, 7_000])
  const upper = 'ABCDEF01-2345-6789-ABCD-EF0123456789'
  expect((await get('/ping', { 'x-request-id': upper })).headers['x-request-id']).toBe(upper.toLowerCase())
  const other = await get('/ping', { 'x-request-id': 'client-1' })
  expect(other.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
  expect(logged.find((l) => l.reqId === other.headers['x-request-id'] && l.msg === 'incoming request')?.clientRequestId).toBe('client-1')
  expect(expectProblem(await get('/nowhere'), 404, 'NOT_FOUND').docUrl).toMatch(/^https:\/\/facts\.example\/+v1\/error-codes\/NOT_FOUND$/)
  expectProblem(await authed('/v1/parts/resolve?q=STM32F4&q=STM32F1'), 400, 'INVALID_PARAMETER', 'q')
  expectProblem(await authed('/v1/parts/resolve?q=STM32F4&candidate_limit=0x3'), 400, 'INVALID_PARAMETER', 'candidate_limit')
  expectProblem(await authed('/v1/parts/resolve?q=STM32F4&nope=1'), 400, 'UNKNOWN_PARAMETER', 'nope')
  expect((await json('/v1/parts/resolve?q=STM32F4&candidate_limit=1')).candidates.length).toBeLessThanOrEqual(1)
  expect((await json('/v1/catalog/search?q=STM32F4')).results.length).toBeGreaterThan(0)
  expectProblem(await get('/ping/'), 404, 'NOT_FOUND')
  expectProblem(await get('/ping', { 'service-version': 'x' }), 400, 'UNSUPPORTED_SERVICE_VERSION', 'Service-Version')
  expectProblem(await t.app.inject({ method: 'POST', url: '/v1/release' }), 405, 'METHOD_NOT_ALLOWED')
  expectProblem(await get(`/v1/error-codes/NOT_FOUND?x=${'a'.repeat(8200)}`), 414, 'URI_TOO_LONG', 'x')
  expectProblem(await get('/v1/%E0'), 400, 'MALFORMED_REQUEST')
  // The router's query parser (querystring.ts), not Fastify's: a bad escape in a parameter is a Problem naming it.
  expectProblem(await authed('/v1/parts/resolve?q=%ZZ'), 400, 'MALFORMED_REQUEST', 'q')
  // The contract's document names the configured public URL as its server.
  expect((await get('/openapi.json')).json().servers).toEqual([{ url: 'https://facts.example', description: 'This deployment' }])
  // Bodies up to 1 MiB (the app's bound; POST /mcp sets its own, smaller one).
  const body = (n: number) => JSON.stringify({ s: 'x'.repeat(n - 8) })
  const post = (n: number) => t.app.inject({ method: 'POST', url: '/plugged', headers: { 'content-type': 'application/json' }, payload: body(n) })
  expect((await post(1 << 20)).json()).toEqual({ bytes: 1 << 20 })
  expectProblem(await post((1 << 20) + 1), 413, 'PAYLOAD_TOO_LARGE')
  expect(seen!.facts).toBe(t.facts)
  const port = await listening()
  expectProblem(parseRaw((await raw(port, ['GET /ping HTTP/1.1\r\nConnection: close\r\n\r\n'])).text), 400, 'MALFORMED_REQUEST', 'Host')
  const garbage = parseRaw((await raw(port, ['GET /ping HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'])).text)
  expect(garbage.headers['content-type']).toMatch(/^application\/problem\+json/)
  t.app.draining = true
  try {
    expect((await get('/ping')).headers.connection).toBe('close')
  } finally {
    t.app.draining = false
  }
}, 240_000)

describe('the document: every operation the spec lists, described', () => {
  it('each version document has the spec endpoints with an operationId and summary, security as §5 says', async () => {
    const t = await app()
    for (const v of [SEED, DEPTH]) {
      const doc = (await t.app.inject({ url: '/openapi.json', headers: { 'service-version': v } })).json() as Obj
      const ops = Object.entries(doc.paths as Obj).flatMap(([path, item]) => Object.entries(item as Obj).map(([m, op]) => ({ path, m, op: op as Obj })))
      const ids = ops.filter((o) => o.path !== '/plugged').map((o) => o.op.operationId)
      expect(new Set(ids).size, v).toBe(ids.length)
      for (const { path, op } of ops) {
        if (path === '/plugged') continue
        expect(op.operationId, path).toMatch(/^\w+$/)
        expect(op.summary, path).toMatch(/\w{3}/)
        // A fact operation says what it answers; its description is the route's own.
        if (path.startsWith('/v1/') && !['/v1/release', '/v1/error-codes/{code}'].includes(path)) expect(op.description, path).toMatch(/\w{3}.{20}/)
      }
      for (const p of SPEC_OPEN) expect(doc.paths[p]?.get?.security, `${v} ${p}`).toEqual([])
      for (const p of SPEC_FACTS) expect(doc.paths[p]?.get?.security, `${v} ${p}`).toEqual([{}, { bearerAuth: [] }])
      for (const p of ['/v1/compare/parts', '/v1/compare/releases']) expect(doc.paths[p].get.security).toEqual([{}, { bearerAuth: [] }])
    }
    expect(SPEC_OPEN).toContain('/v1/error-codes/{code}')
    expect(SPEC_FACTS).toContain('/v1/sources')
  })
})

describe('app.ts: options and hooks', () => {
  it('X-Request-Id: a client UUID is kept (lower case), anything else replaced by a UUID of ours and logged apart', async () => {
    const upper = 'ABCDEF01-2345-6789-ABCD-EF0123456789'
    const kept = await get('/ping', { 'x-request-id': upper })
    expect(kept.headers['x-request-id']).toBe(upper.toLowerCase())
    expect(logged.find((l) => l.reqId === upper.toLowerCase() && l.msg === 'incoming request')?.clientRequestId).toBeUndefined()
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
    for (const other of [`x${upper}`, `${upper}x`, 'client-1', 'g'.repeat(200)]) {
      const r = await get('/ping', { 'x-request-id': other })
      const id = r.headers['x-request-id'] as string
      expect(id, other).toMatch(uuid)
      expect(id).not.toBe(other.toLowerCase())
      const line = logged.find((l) => l.reqId === id && l.msg === 'incoming request')
      expect(line?.clientRequestId, other).toBe(other.slice(0, 128))
    }
    const none = await get('/ping')
    expect(none.headers['x-request-id']).toMatch(uuid)
    expect(logged.find((l) => l.reqId === none.headers['x-request-id'] && l.msg === 'incoming request')).not.toHaveProperty('clientRequestId')
    // Two X-Request-Id headers: logged joined.
    const two = await get('/ping', { 'x-request-id': ['a', 'b'] })
    expect(logged.find((l) => l.reqId === two.headers['x-request-id'] && l.msg === 'incoming request')?.clientRequestId).toBe('a, b')
    // Every answer carries its id, Problems too (the body's requestId).
    const nf = await get('/nowhere', { 'x-request-id': upper })
    expect(nf.headers['x-request-id']).toBe(upper.toLowerCase())
    expect(expectProblem(nf, 404, 'NOT_FOUND').requestId).toBe(upper.toLowerCase())
  })

  it('the connection timeouts given: request, headers (never after the request deadline), keep-alive, idle', async () => {
    const s = (await app()).app.server
    expect(s.requestTimeout).toBe(4_000)
    expect(s.headersTimeout).toBe(4_000)
    expect(s.keepAliveTimeout).toBe(3_000)
    expect(s.timeout).toBe(7_000)
  })

  it('the plugins get the facts, the keys and the contract; the app answers in the problem, header and version rules', async () => {
    const t = await app()
    expect((await get('/plugged')).json()).toEqual({ plugged: true })
    expect(seen!.facts).toBe(t.facts)
    expect(seen!.keys.constructor.name).toBe('ApiKeyStore')
    // Strict query and integers, unknown parameters, no trailing-slash twin, the not-found Problem.
    expectProblem(await authed('/v1/parts/resolve?q=STM32F4&q=STM32F1'), 400, 'INVALID_PARAMETER', 'q')
    expectProblem(await authed('/v1/parts/resolve?q=STM32F4&candidate_limit=0x3'), 400, 'INVALID_PARAMETER', 'candidate_limit')
    expectProblem(await authed('/v1/parts/resolve?q=STM32F4&nope=1'), 400, 'UNKNOWN_PARAMETER', 'nope')
    expectProblem(await authed('/v1/parts/resolve?candidate_limit=3'), 400, 'MISSING_PARAMETER', 'q')
    expectProblem(await get('/ping/'), 404, 'NOT_FOUND')
    expectProblem(await get('/ping', { 'service-version': 'x' }), 400, 'UNSUPPORTED_SERVICE_VERSION', 'Service-Version')
    expectProblem(await authed('/v1/release?x=1'), 400, 'UNKNOWN_PARAMETER', 'x')
    const r = await get('/v1/release', { 'content-type': 'application/json' })
    expectProblem(r, 401, 'UNAUTHENTICATED')
    expectProblem(await get('/v1/release', { authorization: 'Bearer nope' }), 401, 'UNAUTHENTICATED')
    // A 405 is decided before the credential.
    expectProblem(await (await app()).app.inject({ method: 'POST', url: '/v1/release' }), 405, 'METHOD_NOT_ALLOWED')
    // A bad escape in the path is the framework's 400, answered as a Problem with the public URL as base.
    const bad = expectProblem(await get('/v1/%E0'), 400, 'MALFORMED_REQUEST')
    expect(bad.docUrl).toMatch(/^https:\/\/facts\.example\//)
    // Defaults from the schema (candidate_limit 10) and coerced integers reach the service.
    const res = await json('/v1/parts/resolve?q=STM32F4&candidate_limit=2')
    expect(res.candidates.length).toBeLessThanOrEqual(2)
  })

  it('without Host, a 400 Problem (not Node’s bare 400); a malformed request line, a Problem too', async () => {
    const port = await listening()
    expectProblem(parseRaw((await raw(port, ['GET /ping HTTP/1.1\r\nConnection: close\r\n\r\n'])).text), 400, 'MALFORMED_REQUEST', 'Host')
    const garbage = parseRaw((await raw(port, ['GET /ping HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'])).text)
    expect(garbage.statusCode).toBe(400)
    expect(garbage.headers['content-type']).toMatch(/^application\/problem\+json/)
  })
})

describe('the drain flag', () => {
  it('draining: /readyz says so, and every answer closes its connection', async () => {
    const t = await app()
    expect((await get('/ping')).headers.connection).not.toBe('close')
    t.app.draining = true
    try {
      const r = await get('/readyz')
      expect(r.statusCode).toBe(503)
      expect(r.headers.connection).toBe('close')
      expect((await get('/ping')).headers.connection).toBe('close')
      expectProblem(await get('/nowhere'), 404, 'NOT_FOUND')
      expect((await get('/nowhere')).headers.connection).toBe('close')
    } finally {
      t.app.draining = false
    }
  })
})

describe('an app with the default options, then drained', () => {
  it('the server the document is read from, the package version, the default timeouts; drainAndClose when not listening', async () => {
    const t = await testApp(await sampleData())
    made.push(t)
    const doc = (await t.app.inject({ url: '/openapi.json' })).json() as Obj
    expect(doc.servers).toEqual([{ url: '/', description: 'The server this document is served from' }])
    expect((await t.app.inject({ url: '/livez' })).json()).toEqual({ status: 'ok', service: 'hardware-facts', version: PACKAGE.version })
    // Defaults: the whole request within 10 s (headers within 5 s), kept alive 10 s, idle 30 s (app.ts: behind a load balancer).
    expect([t.app.server.requestTimeout, t.app.server.headersTimeout, t.app.server.keepAliveTimeout, t.app.server.timeout]).toEqual([10_000, 5_000, 10_000, 30_000])
    expect((await t.app.inject({ url: '/readyz' })).json().checks).toEqual({})
    const t0 = performance.now()
    await drainAndClose(t.app as FastifyInstance, 30)
    expect(performance.now() - t0).toBeGreaterThanOrEqual(29)
    // Not listening: closed at once after the drain, without waiting for clients to stop connecting or lingering.
    expect(performance.now() - t0).toBeLessThan(LINGER_MS)
    expect(t.app.draining).toBe(true)
    await expect(t.app.inject({ url: '/ping' })).rejects.toThrow()
  }, 120_000)
})
