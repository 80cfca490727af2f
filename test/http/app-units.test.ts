import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { afterAll, describe, expect, it } from 'vitest'
import type { AppOptions } from '../../src/http/app.js'
import type { ApiKeyStore } from '../../src/auth/keys.js'
import type { Contract } from '../../src/http/contract.js'
import type { HardwareFacts } from '../../src/service/facts.js'
import { drainAndClose } from '../../src/http/drain.js'
import { testApp, type TestApp } from '../helpers/app.js'
import { buildRelease } from '../../indexer/build.js'
import { DataDir } from '../../src/store/layout.js'
import { SAMPLE_CORPUS } from '../helpers/sample-corpus.js'
import { scratchDirs } from '../helpers/scratch.js'
import { expectProblem } from '../helpers/problem.js'
import { parseRaw, raw } from '../helpers/raw-http.js'

/**
 * The app as buildApp assembles it (src/http/app.ts), its routes (src/http/routes/**) and the drain
 * flag, over the sample corpus' release (built once for the file, in the first test that needs it:
 * a few small files, a small release that opens at once). Expected values: the spec's endpoint table (§4), statuses and codes (§5, §7), the
 * package's version, and each route's own service call. The app is made inside the first test that
 * needs it (not in a hook): a mutant of its set-up then fails that test instead of the file.
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
  new DataDir(d).promote((await buildRelease({ inventory: SAMPLE_CORPUS, dataDir: d })).id)
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
  plugins: [async (app, ctx) => void ((seen = ctx), app.get('/plugged', async () => ({ plugged: true })))]
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
      const ids = ops.map((o) => o.op.operationId)
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

  it('2026-12-01 adds /v1/check and /v1/discrepancies: marked in the generated document, absent from the seed one', async () => {
    const t = await app()
    const seed = (await t.app.inject({ url: '/openapi.json' })).json() as Obj
    const depth = (await t.app.inject({ url: '/openapi.json', headers: { 'service-version': DEPTH } })).json() as Obj
    for (const p of ['/v1/check', '/v1/discrepancies']) {
      expect(seed.paths[p], p).toBeUndefined()
      expect(depth.paths[p].get.security, p).toEqual([{}, { bearerAuth: [] }])
      expectProblem(await authed(p), 404, 'NOT_FOUND')
      // Without a credential, the depth version's route is there and wants one.
      expectProblem(await get(p, { 'service-version': DEPTH }), 401, 'UNAUTHENTICATED')
    }
    // Components are named by their $id, titled with it.
    expect(depth.components.schemas.Fact.title).toBe('Fact')
    expect(depth.paths['/v1/context'].get.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/ContextResponse')
  })

  it('info: the title, the version, the MIT licence, every error code listed; the configured public URL as the server', async () => {
    const doc = (await get('/openapi.json')).json() as Obj
    expect(doc.openapi).toBe('3.1.1')
    expect(doc.info).toMatchObject({ title: 'Hardware Facts', version: SEED, license: { name: 'MIT', identifier: 'MIT' } })
    for (const code of ['NOT_FOUND', 'METHOD_NOT_ALLOWED', 'UNSUPPORTED_SERVICE_VERSION', 'URI_TOO_LONG']) expect(doc.info.description).toContain(code)
    expect(doc.info.description).toMatch(/Error codes: [A-Z_]+(, [A-Z_]+)+\.$/)
    expect(doc.servers).toEqual([{ url: 'https://facts.example', description: 'This deployment' }])
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(doc.components.securitySchemes.bearerAuth.description).toMatch(/\w{5}/)
  })
})

describe('/openapi.json', () => {
  it('serves the version asked for by `version` or Service-Version, echoed; both must agree', async () => {
    const t = await app()
    for (const [headers, url, v] of [[{}, '/openapi.json', SEED], [{ 'service-version': DEPTH }, '/openapi.json', DEPTH], [{}, `/openapi.json?version=${DEPTH}`, DEPTH], [{ 'service-version': DEPTH }, `/openapi.json?version=${DEPTH}`, DEPTH]] as const) {
      const r = await get(url, headers)
      expect(r.statusCode, url).toBe(200)
      expect(r.headers['service-version']).toBe(v)
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8')
      expect(r.body).toBe(seen!.contract.json(v))
      expect(JSON.parse(r.body).info.version).toBe(v)
    }
    const p = expectProblem(await get(`/openapi.json?version=${DEPTH}`, { 'service-version': SEED }), 400, 'INVALID_PARAMETER', 'version')
    expect(p.detail).toBe(`version ${DEPTH} and Service-Version ${SEED} disagree: give one of them, or the same version in both.`)
    expect(t.app.hasRoute({ method: 'GET', url: '/openapi.json' })).toBe(true)
  })

})

describe('/docs', () => {
  it('the reference page and the document of the request version, local assets under a CSP', async () => {
    expect((await get('/docs/static/index.html')).headers.location).toBe('/docs/')
    const html = await get('/docs/')
    expect(html.statusCode).toBe(200)
    expect(html.body).toContain('Hardware Facts — API reference')
    const csp = html.headers['content-security-policy'] as string
    expect(csp).toContain("default-src 'self'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("object-src 'none'")
    for (const v of [SEED, DEPTH]) {
      const doc = await get('/docs/json', { 'service-version': v })
      expect(doc.statusCode).toBe(200)
      expect(doc.json()).toEqual(seen!.contract.document(v))
    }
    const init = await get('/docs/static/swagger-initializer.js')
    expect(init.body).toContain('"docExpansion":"list"')
    expect(init.body).toContain('"tryItOutEnabled":false')
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

describe('health routes', () => {
  it('/livez: ok, the service and the configured version; /ping: pong', async () => {
    expect((await get('/livez')).json()).toEqual({ status: 'ok', service: 'hardware-facts', version: '9.8.7-test' })
    const ping = await get('/ping')
    expect(ping.statusCode).toBe(200)
    expect(ping.json()).toEqual({ status: 'ok', message: 'pong' })
  })

  it('/readyz and its aliases: the release, the API identity of the request version, the checks', async () => {
    const t = await app()
    const release = await t.facts.release()
    for (const path of ['/readyz', '/health', '/healthz'])
      for (const v of [SEED, DEPTH]) {
        const r = await get(path, { 'service-version': v })
        expect(r.statusCode, path).toBe(200)
        expect(r.json(), path).toEqual({
          status: 'ok',
          service: 'hardware-facts',
          version: '9.8.7-test',
          release: { id: release.id, complete: release.complete, facts: release.counts.facts },
          api: { version: v, openapi_sha256: seen!.contract.digest(v) },
          checks: {}
        })
      }
  })

  it('a failing critical check makes it 503 not_ready; a failing optional one does not; a check that throws fails', async () => {
    const t = await app()
    checks.push({ name: 'opt', critical: false, check: async () => ({ ok: false, detail: 'redis down' }) }, { name: 'boom', critical: false, check: async () => Promise.reject(new Error('exploded')) })
    try {
      const r = await t.app.inject({ url: '/readyz' })
      expect(r.statusCode).toBe(200)
      expect(r.json().status).toBe('ok')
      expect(r.json().checks).toEqual({ opt: { ok: false, detail: 'redis down', critical: false }, boom: { ok: false, detail: 'exploded', critical: false } })
      checks.push({ name: 'crit', critical: true, check: async () => ({ ok: false, detail: 'files damaged' }) })
      const bad = await t.app.inject({ url: '/healthz' })
      expect(bad.statusCode).toBe(503)
      expect(bad.json()).toMatchObject({ status: 'not_ready', checks: { crit: { ok: false, detail: 'files damaged', critical: true } } })
      checks.pop()
      checks.push({ name: 'boom2', critical: true, check: async () => Promise.reject(new Error('gone')) })
      const gone = await t.app.inject({ url: '/health' })
      expect(gone.statusCode).toBe(503)
      expect(gone.json().checks.boom2).toEqual({ ok: false, detail: 'gone', critical: true })
      checks.pop()
      checks.push({ name: 'fine', critical: true, check: async () => ({ ok: true }) })
      expect((await t.app.inject({ url: '/readyz' })).statusCode).toBe(200)
    } finally {
      checks.length = 0
    }
  })

  it('draining: /readyz 503 saying so, and every answer closes its connection', async () => {
    const t = await app()
    expect((await get('/ping')).headers.connection).not.toBe('close')
    t.app.draining = true
    try {
      const r = await get('/readyz')
      expect(r.statusCode).toBe(503)
      expect(r.json()).toMatchObject({ status: 'not_ready', checks: { shutdown: { ok: false, detail: 'shutting down: finishing requests in flight' } } })
      expect(r.headers.connection).toBe('close')
      expect((await get('/ping')).headers.connection).toBe('close')
      expectProblem(await get('/nowhere'), 404, 'NOT_FOUND')
      expect((await get('/nowhere')).headers.connection).toBe('close')
    } finally {
      t.app.draining = false
    }
  })
})

describe('the /v1 routes: each answers its service call, in the request version', () => {
  it('/v1/release: the promoted release with the version topics, and the API identity', async () => {
    const t = await app()
    for (const v of [SEED, DEPTH]) {
      const body = await json('/v1/release', v)
      expect(body.api).toEqual({ version: v, openapi_sha256: seen!.contract.digest(v) })
      expect(body.release.id).toBe((await t.facts.release()).id)
    }
    expect((await json('/v1/release', SEED)).release).not.toEqual((await json('/v1/release', DEPTH)).release)
  })

  it('/v1/error-codes/{code}: guidance from the error table, no credential; an unknown code is 404 naming code', async () => {
    const r = await get('/v1/error-codes/NOT_FOUND')
    expect(r.statusCode).toBe(200)
    expect(r.json()).toMatchObject({ code: 'NOT_FOUND', status: 404, retryable: false })
    expect(Object.keys(r.json()).sort()).toEqual(['code', 'guidance', 'retryable', 'status', 'title'])
    const p = expectProblem(await get('/v1/error-codes/NO_SUCH_CODE'), 404, 'NOT_FOUND', 'code')
    expect(p.detail).toBe('No error code NO_SUCH_CODE; see /openapi.json for the codes in use.')
    expect((await get('/v1/error-codes/RATE_LIMITED')).json()).toMatchObject({ status: 429, retryable: true })
  })

  it('resolve, catalog search and part, coverage, sources: the service answers, the topics of the version', async () => {
    const t = await app()
    const resolve = await json('/v1/parts/resolve?q=STM32F407VG', SEED)
    expect(resolve.status).toBe('resolved')
    expect(Object.keys(resolve.topics).sort()).toEqual(['electrical', 'errata', 'pins', 'registers'])
    expect(Object.keys((await json('/v1/parts/resolve?q=STM32F407VG', DEPTH)).topics).length).toBeGreaterThan(4)
    const search = await json('/v1/catalog/search?q=STM32F407', DEPTH)
    expect(search.total).toBeGreaterThan(0)
    expect(JSON.stringify(search)).not.toBe(JSON.stringify(await json('/v1/catalog/search?q=STM32F407', SEED)))
    // The service's answer, whole: every member the service gives is one the response schema declares.
    const part = await json('/v1/catalog/part?part=STM32F407VG', DEPTH)
    const direct = (await t.facts.catalogPart({ part: 'STM32F407VG' }, DEPTH)) as Obj
    expect(Object.keys(part).sort()).toEqual(Object.keys(direct).sort())
    expect(part.release).toBe(direct.release)
    const coverage = await json('/v1/coverage?part=STM32F407VG', SEED)
    expect(Object.keys(coverage.topics ?? coverage.coverage ?? coverage).length).toBeGreaterThan(0)
    expect(JSON.stringify(coverage)).not.toBe(JSON.stringify(await json('/v1/coverage?part=STM32F407VG', DEPTH)))
    const sources = await json('/v1/sources?part=STM32F407VG', DEPTH)
    const viaService = (await t.facts.sources({ part: 'STM32F407VG' }, null, DEPTH)) as Obj
    expect(sources.sources.map((x: Obj) => x.sha256)).toEqual(viaService.sources.map((x: Obj) => x.sha256))
    // The provenance as the inventory gives it, nothing dropped (the sample's sources name the upstream file each was cut from).
    const inventory = JSON.parse(readFileSync(`${SAMPLE_CORPUS}/sources.json`, 'utf8')) as { sources: Obj[] }
    for (const s of sources.sources as Obj[]) expect(s.upstream, s.path).toEqual(inventory.sources.find((r) => r.path === s.path)!.upstream)
    expect(JSON.parse(JSON.stringify(part))).toEqual(JSON.parse(JSON.stringify(direct)))
    // Each needs a credential with facts:read.
    for (const p of ['/v1/parts/resolve?q=STM32F407VG', '/v1/catalog/search?q=STM32', '/v1/catalog/part?part=STM32F407VG', '/v1/coverage?part=STM32F407VG', '/v1/sources?part=STM32F407VG', '/v1/release'])
      expectProblem(await get(p), 401, 'UNAUTHENTICATED')
  })

  it('context: the page, the Deprecation header (RFC 9745: @ and the Unix time of the seed contract) for `revision`', async () => {
    const page = await json('/v1/context?part=STM32F407VG&topic=registers&limit=1')
    expect(page.facts.length).toBe(1)
    const plain = await authed('/v1/context?part=STM32F407VG&topic=errata&limit=1')
    expect(plain.headers.deprecation).toBeUndefined()
    const dep = await authed('/v1/context?part=STM32F407VG&topic=errata&limit=1&revision=A')
    expect(dep.statusCode, dep.body).toBe(200)
    expect(dep.headers.deprecation).toBe(`@${Date.UTC(2026, 7, 26) / 1000}`)
    expect(dep.headers.link).toBe('</openapi.json>; rel="deprecation"')
    expect(dep.headers['content-type']).toBe('application/json; charset=utf-8')
    expectProblem(await get('/v1/context?part=STM32F407VG&topic=registers'), 401, 'UNAUTHENTICATED')
  })

  it('compare parts and releases, check and discrepancies (2026-12-01): the service answers', async () => {
    const t = await app()
    const id = (await t.facts.release()).id
    // Each answer is the service's own (the same release, part and topic as asked).
    const parts = await json('/v1/compare/parts?part=STM32F407VG&other=STM32F407VE&topic=registers&limit=1')
    expect(parts).toMatchObject({ release: id, topic: 'registers' })
    expect(parts.part.part ?? parts.part).toBeTruthy()
    const releases = await json(`/v1/compare/releases?part=STM32F407VG&topic=registers&from_release=${id}&limit=1`)
    // A release compared with itself: nothing changed.
    expect(releases).toMatchObject({ topic: 'registers', changes: [] })
    const check = await json('/v1/check?part=STM32F407VG&vdd=3.3', DEPTH)
    expect(check).toMatchObject({ release: id, part: 'STM32F407VG' })
    expect(['checked', 'ambiguous', 'not_found']).toContain(check.status)
    const disc = await json('/v1/discrepancies?part=STM32F407VG', DEPTH)
    expect(disc).toMatchObject({ release: id, part: 'STM32F407VG' })
    for (const p of ['/v1/compare/parts?part=STM32F407VG&other=STM32F407VE&topic=registers', `/v1/compare/releases?part=STM32F407VG&topic=registers&from_release=${id}`])
      expectProblem(await get(p), 401, 'UNAUTHENTICATED')
    for (const p of ['/v1/check?part=STM32F407VG&vdd=3.3', '/v1/discrepancies?part=STM32F407VG']) expectProblem(await get(p, { 'service-version': DEPTH }), 401, 'UNAUTHENTICATED')
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
    expect(t.app.draining).toBe(true)
    await expect(t.app.inject({ url: '/ping' })).rejects.toThrow()
  }, 120_000)
})
