import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiKeyStore, generateKey, type ApiKey } from '../../src/auth/keys.js'
import { baseApp, type AppOptions, type RouteContext } from '../../src/http/app.js'
import docsRoute from '../../src/http/routes/docs.js'
import healthRoutes from '../../src/http/routes/health.js'
import openapiRoute from '../../src/http/routes/openapi.js'
import pingRoute from '../../src/http/routes/ping.js'
import catalogPartRoute from '../../src/http/routes/v1/catalog/part.js'
import catalogSearchRoute from '../../src/http/routes/v1/catalog/search.js'
import checkRoute from '../../src/http/routes/v1/check.js'
import comparePartsRoute from '../../src/http/routes/v1/compare/parts.js'
import compareReleasesRoute from '../../src/http/routes/v1/compare/releases.js'
import contextRoute from '../../src/http/routes/v1/context.js'
import coverageRoute from '../../src/http/routes/v1/coverage.js'
import discrepanciesRoute from '../../src/http/routes/v1/discrepancies.js'
import errorCodesRoute from '../../src/http/routes/v1/error-codes.js'
import resolveRoute from '../../src/http/routes/v1/parts/resolve.js'
import releaseRoute from '../../src/http/routes/v1/release.js'
import sourcesRoute from '../../src/http/routes/v1/sources.js'
import { VERSION_TOPICS, type ContractVersion } from '../../src/model/versions.js'
import { CheckResponse } from '../../src/schemas/check.js'
import { ComparePartsResponse, CompareReleasesResponse } from '../../src/schemas/compare.js'
import { DiscrepanciesResponse } from '../../src/schemas/discrepancies.js'
import { CatalogPartResponse, CatalogSearchResponse, ContextResponse, CoverageResponse, ReleaseResponse, ResolveResponse, SourcesResponse } from '../../src/schemas/responses.js'
import { checkOf } from '../../src/service/check.js'
import { compareOf } from '../../src/service/compare.js'
import { HardwareFacts } from '../../src/service/facts.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'
import { expectProblem } from '../helpers/problem.js'
import { promoteSampleRelease, SAMPLE_CORPUS } from '../helpers/sample-corpus.js'
import { scratchDirs } from '../helpers/scratch.js'

/**
 * Each route plugin of src/http/routes alone on the app without its routes (baseApp: Fastify's
 * options, the contract's schemas, the request checks, auth, rate limits), over the sample corpus'
 * release: a second or less an app, so a mutant of a route's declaration pays for its own route
 * only. Each route is checked for its declaration in the contract's document (operationId, summary,
 * description, the spec's security, the response component, the version that adds it) and for its
 * answer: the service's own call with the same parameters, key and contract version. The apps are
 * built inside the tests: a mutant of a route's set-up fails its test, not the file.
 * (test/http/app-units.test.ts checks the app buildApp assembles from them.)
 */
type Obj = Record<string, any>
const SEED = '2026-08-26' as const
const DEPTH = '2026-12-01' as const
const SPEC = readFileSync(new URL('../../../shared/spec/service-spec.md', import.meta.url), 'utf8')
/** §4's unauthenticated GET table: path → response schema name. */
const SPEC_OPEN = new Map([...SPEC.matchAll(/^\| GET \| (\S+) \| (\w+(?: \w+)?) \|/gm)].map((m) => [m[1]!, m[2]!]))
const BEARER = [{}, { bearerAuth: [] }]

const tmp = scratchDirs()
let repo: SqliteRepository
let facts: HardwareFacts
let reader: ApiKey
let bearer: { authorization: string }
let keys: ApiKeyStore
beforeAll(async () => {
  const dir = tmp('hwfacts-routes-')
  await promoteSampleRelease(dir)
  repo = new SqliteRepository(dir)
  facts = new HardwareFacts(repo, 'test-secret', { contextCacheBytes: 8 << 20, archiveRoot: dir })
  const k = generateKey('routes')
  reader = k.record
  bearer = { authorization: `Bearer ${k.secret}` }
  keys = new ApiKeyStore([k.record])
}, 120_000)
const apps: FastifyInstance[] = []
afterAll(async () => {
  for (const a of apps) await a.close()
  await repo?.close()
})

type Injected = { statusCode: number; headers: Obj; body: string; json: () => any }
/** A document of the contract, as JSON. */
const docOf = (t: RouteApp, v: ContractVersion) => t.ctx.contract.document(v) as Obj
/** The component name of a response schema. */
const component = (schema: unknown) => (schema as { $id: string }).$id

interface RouteApp {
  app: FastifyInstance
  ctx: RouteContext
  get: (url: string, headers?: Obj) => Promise<Injected>
  /** With the key's credential, in a contract version (none: the seed one). */
  authed: (url: string, version?: string) => Promise<Injected>
}
/** One route plugin on baseApp, given the route context and `extra`. */
async function routeApp<O extends object>(plugin: (app: FastifyInstance, o: RouteContext & O) => Promise<void>, extra = {} as O, opts: Partial<AppOptions> = {}): Promise<RouteApp> {
  const { app, ctx } = await baseApp({ facts, keys, ...opts })
  await app.register(plugin, { ...ctx, ...extra })
  await app.ready()
  apps.push(app)
  return {
    app,
    ctx,
    get: (url, headers = {}) => app.inject({ url, headers }),
    authed: (url, version) => app.inject({ url, headers: { ...bearer, ...(version ? { 'service-version': version } : {}) } })
  }
}

/** The route's GET operation in a version's document, as §4 and §5 declare it. */
function declared(t: RouteApp, path: string, want: { response: string; open?: boolean; since?: string; fact?: boolean }) {
  for (const v of [SEED, DEPTH]) {
    const op = docOf(t, v).paths[path]?.get as Obj | undefined
    if (want.since && v < want.since) {
      expect(op, `${path} in ${v}`).toBeUndefined()
      continue
    }
    expect(op, `${path} in ${v}`).toBeDefined()
    expect(op!.operationId, path).toMatch(/^[a-z]\w{3,}$/i)
    expect(op!.summary, path).toMatch(/\w{3}.{10}/)
    if (want.fact) expect(op!.description, path).toMatch(/\w{3}.{20}/)
    expect(op!.security, path).toEqual(want.open ? [] : BEARER)
    expect(op!.responses['200'].content['application/json'].schema.$ref, path).toBe(`#/components/schemas/${want.response}`)
    expect(op!.parameters.find((p: Obj) => p.in === 'header' && p.name === 'service-version'), path).toBeDefined()
  }
}

/** A fact route's answer: 200 JSON, the service's own body; 401 without the credential. */
async function answers(t: RouteApp, url: string, version: string, direct: unknown) {
  const r = await t.authed(url, version)
  expect(r.statusCode, `${url}: ${r.body}`).toBe(200)
  expect(r.headers['content-type']).toBe('application/json; charset=utf-8')
  expect(r.json(), url).toEqual(JSON.parse(typeof direct === 'string' ? direct : JSON.stringify(direct)))
  expectProblem(await t.get(url, { 'service-version': version }), 401, 'UNAUTHENTICATED')
  return r.json() as Obj
}

describe('open routes: ping, health, error codes, the contract and its reference page', () => {
  it('/ping: pong, no credential, not rate limited', async () => {
    const t = await routeApp(pingRoute, {}, { rateLimit: { max: 1, timeWindowMs: 60_000 } })
    declared(t, '/ping', { response: SPEC_OPEN.get('/ping')!, open: true })
    for (let i = 0; i < 3; i++) {
      const r = await t.get('/ping')
      expect(r.statusCode).toBe(200)
      expect(r.json()).toEqual({ status: 'ok', message: 'pong' })
      expect(r.headers['x-ratelimit-limit']).toBeUndefined()
    }
  })

  it('/livez: ok, the service and the version given; not rate limited', async () => {
    const t = await routeApp(healthRoutes, { checks: [], version: '9.8.7-test' }, { rateLimit: { max: 1, timeWindowMs: 60_000 } })
    for (const p of ['/livez', '/readyz', '/health', '/healthz']) declared(t, p, { response: SPEC_OPEN.get(p)!, open: true })
    expect(docOf(t, SEED).paths['/readyz'].get.summary).toBe('Release-aware readiness')
    expect(docOf(t, SEED).paths['/health'].get.summary).toBe('Alias of /readyz')
    expect(docOf(t, SEED).paths['/livez'].get.responses['503'].content['application/json'].schema.$ref).toBe('#/components/schemas/Health')
    for (let i = 0; i < 3; i++) {
      const r = await t.get('/livez')
      expect(r.statusCode).toBe(200)
      expect(r.json()).toEqual({ status: 'ok', service: 'hardware-facts', version: '9.8.7-test' })
      expect((await t.get('/readyz')).statusCode).toBe(200)
    }
  })

  it('/readyz and its aliases: the release, the API identity of the request version, the checks', async () => {
    const t = await routeApp(healthRoutes, { checks: [], version: '1.2.3' })
    const release = await facts.release()
    for (const path of ['/readyz', '/health', '/healthz'])
      for (const v of [SEED, DEPTH]) {
        const r = await t.get(path, { 'service-version': v })
        expect(r.statusCode, path).toBe(200)
        expect(r.json(), path).toEqual({
          status: 'ok',
          service: 'hardware-facts',
          version: '1.2.3',
          release: { id: release.id, complete: release.complete, facts: release.counts.facts },
          api: { version: v, openapi_sha256: t.ctx.contract.digest(v) },
          checks: {}
        })
      }
  })

  it('readiness: a failing critical check is 503 not_ready, an optional one is not, a check that throws fails; no release is 503', async () => {
    const checks: NonNullable<AppOptions['readinessChecks']> = []
    const t = await routeApp(healthRoutes, { checks, version: '1' })
    checks.push({ name: 'opt', critical: false, check: async () => ({ ok: false, detail: 'redis down' }) }, { name: 'boom', critical: false, check: async () => Promise.reject(new Error('exploded')) })
    const r = await t.get('/readyz')
    expect(r.statusCode).toBe(200)
    expect(r.json().status).toBe('ok')
    expect(r.json().checks).toEqual({ opt: { ok: false, detail: 'redis down', critical: false }, boom: { ok: false, detail: 'exploded', critical: false } })
    checks.push({ name: 'crit', critical: true, check: async () => ({ ok: false, detail: 'files damaged' }) })
    const bad = await t.get('/healthz')
    expect(bad.statusCode).toBe(503)
    expect(bad.json()).toMatchObject({ status: 'not_ready', checks: { crit: { ok: false, detail: 'files damaged', critical: true } } })
    checks.pop()
    checks.push({ name: 'boom2', critical: true, check: async () => Promise.reject(new Error('gone')) })
    const gone = await t.get('/health')
    expect(gone.statusCode).toBe(503)
    expect(gone.json().checks.boom2).toEqual({ ok: false, detail: 'gone', critical: true })
    checks.pop()
    checks.push({ name: 'fine', critical: true, check: async () => ({ ok: true }) })
    expect((await t.get('/readyz')).statusCode).toBe(200)
    // No release the service can read: not ready, saying why, the release null.
    const none = new HardwareFacts(new SqliteRepository(tmp('hwfacts-empty-')), 'test-secret')
    const empty = await routeApp(healthRoutes, { facts: none, checks: [], version: '1' })
    const e = await empty.get('/readyz')
    expect(e.statusCode).toBe(503)
    expect(e.json()).toMatchObject({ status: 'not_ready', release: null, checks: { release: { ok: false } } })
    expect(e.json().checks.release.detail).toMatch(/\w{3}/)
  })

  it('draining: /readyz is 503 saying so', async () => {
    const t = await routeApp(healthRoutes, { checks: [], version: '1' })
    t.app.draining = true
    const r = await t.get('/readyz')
    expect(r.statusCode).toBe(503)
    expect(r.json()).toMatchObject({ status: 'not_ready', checks: { shutdown: { ok: false, detail: 'shutting down: finishing requests in flight' } } })
    t.app.draining = false
    expect((await t.get('/readyz')).statusCode).toBe(200)
  })

  it('/v1/error-codes/{code}: guidance from the error table, no credential; an unknown code is 404 naming code', async () => {
    const t = await routeApp(errorCodesRoute)
    declared(t, '/v1/error-codes/{code}', { response: 'ErrorCodeGuidance', open: true })
    // Every /v1 GET's Problems (spec §7.2, and those before a route) and 404, not 503: it reads no release.
    const op = docOf(t, SEED).paths['/v1/error-codes/{code}'].get as Obj
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '403', '404', '405', '408', '414', '429', '431', '500'])
    const r = await t.get('/v1/error-codes/NOT_FOUND')
    expect(r.statusCode).toBe(200)
    expect(r.json()).toMatchObject({ code: 'NOT_FOUND', status: 404, retryable: false })
    expect(Object.keys(r.json()).sort()).toEqual(['code', 'guidance', 'retryable', 'status', 'title'])
    const p = expectProblem(await t.get('/v1/error-codes/NO_SUCH_CODE'), 404, 'NOT_FOUND', 'code')
    expect(p.detail).toBe('No error code NO_SUCH_CODE; see /openapi.json for the codes in use.')
    expect((await t.get('/v1/error-codes/RATE_LIMITED')).json()).toMatchObject({ status: 429, retryable: true })
  })

  it('the document: title, version, MIT licence, every error code; the configured public URL as the server, else the serving one', async () => {
    for (const [publicUrl, servers] of [
      ['https://facts.example//', [{ url: 'https://facts.example', description: 'This deployment' }]],
      [undefined, [{ url: '/', description: 'The server this document is served from' }]]
    ] as const) {
      const t = await routeApp(openapiRoute, {}, publicUrl ? { publicUrl } : {})
      const d = (await t.get('/openapi.json')).json() as Obj
      expect(d.openapi).toBe('3.1.1')
      expect(d.info).toMatchObject({ title: 'Hardware Facts', version: SEED, license: { name: 'MIT', identifier: 'MIT' } })
      for (const code of ['NOT_FOUND', 'METHOD_NOT_ALLOWED', 'UNSUPPORTED_SERVICE_VERSION', 'URI_TOO_LONG']) expect(d.info.description).toContain(code)
      expect(d.info.description).toMatch(/Error codes: [A-Z_]+(, [A-Z_]+)+\.$/)
      expect(d.servers).toEqual(servers)
      expect(d.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
      expect(d.components.securitySchemes.bearerAuth.description).toMatch(/\w{5}/)
      // Components are named by their $id, titled with it.
      expect(d.components.schemas.Health.title).toBe('Health')
      declared(t, '/openapi.json', { response: SPEC_OPEN.get('/openapi.json')!, open: true })
    }
  })

  it('/openapi.json: the version asked for by `version` or Service-Version, echoed; both must agree; not rate limited', async () => {
    const t = await routeApp(openapiRoute, {}, { rateLimit: { max: 1, timeWindowMs: 60_000 } })
    for (const [headers, url, v] of [[{}, '/openapi.json', SEED], [{ 'service-version': DEPTH }, '/openapi.json', DEPTH], [{}, `/openapi.json?version=${DEPTH}`, DEPTH], [{ 'service-version': DEPTH }, `/openapi.json?version=${DEPTH}`, DEPTH]] as const) {
      const r = await t.get(url, headers)
      expect(r.statusCode, url).toBe(200)
      expect(r.headers['service-version']).toBe(v)
      expect(r.headers['content-type']).toBe('application/json; charset=utf-8')
      expect(r.body).toBe(t.ctx.contract.json(v))
      expect(JSON.parse(r.body).info.version).toBe(v)
    }
    const p = expectProblem(await t.get(`/openapi.json?version=${DEPTH}`, { 'service-version': SEED }), 400, 'INVALID_PARAMETER', 'version')
    expect(p.detail).toBe(`version ${DEPTH} and Service-Version ${SEED} disagree: give one of them, or the same version in both.`)
  })

  it('/docs: the reference page and the document of the request version, local assets under a CSP', async () => {
    const t = await routeApp(docsRoute)
    expect((await t.get('/docs/static/index.html')).headers.location).toBe('/docs/')
    const html = await t.get('/docs/')
    expect(html.statusCode).toBe(200)
    expect(html.body).toContain('Hardware Facts — API reference')
    const csp = html.headers['content-security-policy'] as string
    for (const d of ["default-src 'self'", "script-src 'self'", "object-src 'none'", "img-src 'self' data:", "frame-ancestors 'self'"]) expect(csp).toContain(d)
    for (const v of [SEED, DEPTH]) {
      const doc = await t.get('/docs/json', { 'service-version': v })
      expect(doc.statusCode).toBe(200)
      expect(doc.json()).toEqual(t.ctx.contract.document(v))
    }
    const init = await t.get('/docs/static/swagger-initializer.js')
    for (const s of ['"docExpansion":"list"', '"tryItOutEnabled":false', '"deepLinking":true', '"defaultModelsExpandDepth":0', 'validatorUrl: null', '"defaultModelRendering":"model"']) expect(init.body).toContain(s)
  })
})

describe('the /v1 fact routes: each the service call of its parameters, key and contract version', () => {
  it('/v1/release: the promoted release with the version topics, and the API identity', async () => {
    const t = await routeApp(releaseRoute)
    declared(t, '/v1/release', { response: component(ReleaseResponse) })
    for (const v of [SEED, DEPTH]) {
      const body = await answers(t, '/v1/release', v, { release: await facts.release(VERSION_TOPICS[v]), api: t.ctx.contract.identity(v) })
      expect(body.api).toEqual({ version: v, openapi_sha256: t.ctx.contract.digest(v) })
    }
    expect((await t.authed('/v1/release', SEED)).body).not.toBe((await t.authed('/v1/release', DEPTH)).body)
  })

  it('/v1/parts/resolve: the topics of the version', async () => {
    const t = await routeApp(resolveRoute)
    declared(t, '/v1/parts/resolve', { response: component(ResolveResponse), fact: true })
    for (const v of [SEED, DEPTH]) {
      const body = await answers(t, '/v1/parts/resolve?q=STM32F407VG', v, await facts.resolve({ q: 'STM32F407VG', candidate_limit: 10 } as never, reader, v))
      expect(Object.keys(body.topics).sort()).toEqual([...VERSION_TOPICS[v]].sort())
    }
  })

  it('/v1/catalog/search: the topics of the version', async () => {
    const t = await routeApp(catalogSearchRoute)
    declared(t, '/v1/catalog/search', { response: component(CatalogSearchResponse), fact: true })
    const bodies = []
    for (const v of [SEED, DEPTH]) bodies.push(await answers(t, '/v1/catalog/search?q=STM32F407', v, await facts.catalogSearch({ q: 'STM32F407', candidate_limit: 10 } as never, reader, VERSION_TOPICS[v])))
    expect(bodies[0]!.total).toBeGreaterThan(0)
    expect(bodies[0]).not.toEqual(bodies[1])
  })

  it('/v1/catalog/part, /v1/coverage, /v1/sources: the service answers of the version', async () => {
    const part = await routeApp(catalogPartRoute)
    const coverage = await routeApp(coverageRoute)
    const sources = await routeApp(sourcesRoute)
    declared(part, '/v1/catalog/part', { response: component(CatalogPartResponse), fact: true })
    declared(coverage, '/v1/coverage', { response: component(CoverageResponse), fact: true })
    declared(sources, '/v1/sources', { response: component(SourcesResponse), fact: true })
    const p = { part: 'STM32F407VG' }
    const seen: Obj[] = []
    for (const v of [SEED, DEPTH]) {
      seen.push(await answers(part, '/v1/catalog/part?part=STM32F407VG', v, await facts.catalogPart(p, v)))
      seen.push(await answers(coverage, '/v1/coverage?part=STM32F407VG', v, await facts.coverage(p, reader, v)))
      seen.push(await answers(sources, '/v1/sources?part=STM32F407VG', v, await facts.sources(p, reader, v)))
    }
    // Each differs between the versions (their topics), so each route passes the request's version on.
    for (let i = 0; i < 3; i++) expect(seen[i], String(i)).not.toEqual(seen[i + 3])
    // The provenance as the inventory gives it, nothing dropped.
    const inventory = JSON.parse(readFileSync(`${SAMPLE_CORPUS}/sources.json`, 'utf8')) as { sources: Obj[] }
    for (const s of seen[2]!.sources as Obj[]) expect(s.upstream, s.path).toEqual(inventory.sources.find((r) => r.path === s.path)!.upstream)
  })

  it('/v1/context: the page; the Deprecation header (RFC 9745: @ and the Unix time of the seed contract) for `revision`', async () => {
    const t = await routeApp(contextRoute)
    declared(t, '/v1/context', { response: component(ContextResponse), fact: true })
    const q = { part: 'STM32F407VG', topic: 'registers', limit: 1, max_tokens: 4000 }
    for (const v of [SEED, DEPTH]) await answers(t, '/v1/context?part=STM32F407VG&topic=registers&limit=1', v, (await facts.context(q as never, reader, v)).body)
    const plain = await t.authed('/v1/context?part=STM32F407VG&topic=errata&limit=1')
    expect(plain.headers.deprecation).toBeUndefined()
    expect(plain.headers.link).toBeUndefined()
    const dep = await t.authed('/v1/context?part=STM32F407VG&topic=errata&limit=1&revision=A')
    expect(dep.statusCode, dep.body).toBe(200)
    expect(dep.headers.deprecation).toBe(`@${Date.UTC(2026, 7, 26) / 1000}`)
    expect(dep.headers.link).toBe('</openapi.json>; rel="deprecation"')
    expect(dep.headers['content-type']).toBe('application/json; charset=utf-8')
  })

  it('/v1/compare/parts and /v1/compare/releases: the comparison of the service', async () => {
    const parts = await routeApp(comparePartsRoute)
    const releases = await routeApp(compareReleasesRoute)
    declared(parts, '/v1/compare/parts', { response: component(ComparePartsResponse), fact: true })
    declared(releases, '/v1/compare/releases', { response: component(CompareReleasesResponse), fact: true })
    const id = (await facts.release()).id
    const pq = { part: 'STM32F407VG', other: 'STM32F407VE', topic: 'registers', limit: 1, max_tokens: 4000, include_same: false }
    const body = await answers(parts, '/v1/compare/parts?part=STM32F407VG&other=STM32F407VE&topic=registers&limit=1', SEED, await compareOf(facts).parts(pq as never, reader))
    expect(body).toMatchObject({ release: id, topic: 'registers' })
    const rq = { part: 'STM32F407VG', topic: 'registers', from_release: id, limit: 1, max_tokens: 4000 }
    const same = await answers(releases, `/v1/compare/releases?part=STM32F407VG&topic=registers&from_release=${id}&limit=1`, SEED, await compareOf(facts).releases(rq as never, reader))
    expect(same).toMatchObject({ topic: 'registers', changes: [] })
  })

  it('/v1/check and /v1/discrepancies: only in 2026-12-01, the service answers', async () => {
    const check = await routeApp(checkRoute)
    const disc = await routeApp(discrepanciesRoute)
    declared(check, '/v1/check', { response: component(CheckResponse), fact: true, since: DEPTH })
    declared(disc, '/v1/discrepancies', { response: component(DiscrepanciesResponse), fact: true, since: DEPTH })
    const id = (await facts.release()).id
    const c = await answers(check, '/v1/check?part=STM32F407VG&vdd=3.3', DEPTH, await checkOf(facts).check({ part: 'STM32F407VG', vdd: 3.3, max_tokens: 4000 } as never, reader))
    expect(c).toMatchObject({ release: id, part: 'STM32F407VG' })
    const d = await answers(disc, '/v1/discrepancies?part=STM32F407VG', DEPTH, await facts.discrepancies({ part: 'STM32F407VG', limit: 20 } as never, reader))
    expect(d).toMatchObject({ release: id, part: 'STM32F407VG' })
    for (const t of [check, disc]) {
      const p = t === check ? '/v1/check?part=STM32F407VG&vdd=3.3' : '/v1/discrepancies?part=STM32F407VG'
      expectProblem(await t.authed(p, SEED), 404, 'NOT_FOUND')
    }
  })
})
