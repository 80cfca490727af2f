import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { Agent, get as httpGet } from 'node:http'
import { join } from 'node:path'
import { Validator } from '@seriousme/openapi-schema-validator'
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ERROR_CODES } from '../../src/service/errors.js'
import { DataDir } from '../../src/store/layout.js'
import { testApp, type TestApp } from '../helpers/app.js'
import { corpusDataDir } from '../helpers/corpus-release.js'
import { ContractChecker } from '../helpers/openapi.js'
import { ReleaseFiles, storedBodies } from '../store/model.js'

const PROBLEM_MEMBERS = ['code', 'detail', 'docUrl', 'error', 'instance', 'message', 'param', 'request_id', 'requestId', 'status', 'title', 'type'].sort()

let t: TestApp
let contract: ContractChecker
let dataDir: string
let releaseId: string
const get = (url: string, headers: Record<string, string> = {}) => contract.call(t.app, { method: 'GET', url, headers: { ...t.auth, ...headers } })
const anon = (url: string, headers: Record<string, string> = {}) => contract.call(t.app, { method: 'GET', url, headers })

function expectProblem(res: { statusCode: number; headers: Record<string, unknown>; json: () => Record<string, unknown> }, status: number, code: string, param: string | null) {
  expect(res.statusCode).toBe(status)
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
  const p = res.json()
  expect(Object.keys(p).sort()).toEqual(PROBLEM_MEMBERS)
  expect(p.code).toBe(code)
  expect(p.error).toBe(code)
  expect(p.param).toBe(param)
  expect(p.status).toBe(status)
  expect(p.message).toBe(p.detail)
  expect(p.request_id).toBe(p.requestId)
  expect(p.docUrl).toMatch(new RegExp(`^https?://[^/]+/v1/error-codes/${code}$`))
  return p
}

beforeAll(async () => {
  dataDir = await corpusDataDir()
  releaseId = new DataDir(dataDir).promotedId()!
  t = await testApp(dataDir, { rateLimit: { max: 100_000, timeWindowMs: 60_000 } }, [{ scopes: [] }, { releases: ['0000000000000000'] }])
  contract = new ContractChecker(JSON.parse((await t.app.inject({ url: '/openapi.json' })).body))
})
afterAll(async () => {
  await t.close()
  // Every response above went through the contract checker.
  expect(contract.checked).toBeGreaterThan(50)
})

describe('unauthenticated endpoints', () => {
  it('/ping answers exactly ok/pong', async () => {
    const res = await anon('/ping')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ status: 'ok', message: 'pong' })
  })

  it('/openapi.json is a valid OpenAPI 3.1.1 document whose digest readiness publishes', async () => {
    const res = await anon('/openapi.json')
    const doc = res.json()
    expect(doc.openapi).toBe('3.1.1')
    expect(doc.info.license.identifier).toBe('MIT')
    const v = await new Validator().validate(doc)
    expect(v.errors ?? []).toEqual([])
    expect(v.valid).toBe(true)
    const digest = 'sha256:' + createHash('sha256').update(res.body).digest('hex')
    for (const path of ['/readyz', '/health', '/healthz']) {
      const r = await anon(path)
      expect(r.statusCode).toBe(200)
      expect(r.json().api).toEqual({ version: '2026-08-26', openapi_sha256: digest })
      expect(r.json().release.id).toBe(releaseId)
    }
    expect((await get('/v1/release')).json().api.openapi_sha256).toBe(digest)
  })

  it('/openapi.json lists every path of the spec, with its security alternatives', async () => {
    const doc = (await anon('/openapi.json')).json()
    for (const p of ['/ping', '/openapi.json', '/livez', '/readyz', '/health', '/healthz', '/v1/error-codes/{code}', '/v1/parts/resolve', '/v1/catalog/search', '/v1/catalog/part', '/v1/context', '/v1/release', '/v1/coverage', '/v1/sources'])
      expect(doc.paths[p]?.get, p).toBeDefined()
    for (const p of ['/v1/release', '/v1/catalog/part', '/v1/coverage', '/v1/sources', '/v1/context'])
      expect(doc.paths[p].get.security).toEqual([{}, { bearerAuth: [] }])
    expect(doc.paths['/ping'].get.security).toEqual([])
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
    const ctx = doc.paths['/v1/context'].get
    const limit = ctx.parameters.find((x: { name: string }) => x.name === 'limit')
    expect(limit.schema).toMatchObject({ minimum: 1, maximum: 50, default: 20 })
    for (const s of ['400', '401', '403', '429', '500']) expect(ctx.responses[s].content['application/problem+json']).toBeDefined()
  })

  it('/openapi.json is byte-stable across app instances', async () => {
    const other = await testApp(dataDir)
    const a = (await t.app.inject({ url: '/openapi.json' })).body
    const b = (await other.app.inject({ url: '/openapi.json' })).body
    await other.close()
    expect(b).toBe(a)
  })

  it('/livez answers without a release; /readyz answers 503 with a Health body when none is promoted', async () => {
    const empty = await testApp(join(dataDir, 'no-such-dir'))
    const live = await empty.app.inject({ url: '/livez' })
    expect(live.statusCode).toBe(200)
    expect(live.json().status).toBe('ok')
    const ready = await empty.app.inject({ url: '/readyz' })
    contract.check('GET', '/readyz', ready)
    expect(ready.statusCode).toBe(503)
    expect(ready.json().status).toBe('not_ready')
    const fact = await empty.app.inject({ url: '/v1/release', headers: empty.auth })
    expectProblem(fact, 503, 'NOT_READY', null)
    await empty.close()
  })

  it('/v1/error-codes/{code} serves every code of the table without a credential', async () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      const res = await anon(`/v1/error-codes/${code}`)
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({ code, status: info.status, title: info.title, retryable: info.retryable, guidance: info.guidance })
    }
    expectProblem(await anon('/v1/error-codes/NO_SUCH_CODE'), 404, 'NOT_FOUND', 'code')
  })
})

describe('contract rules', () => {
  it('Service-Version: absent or 2026-08-26 accepted, anything else 400 without fallback', async () => {
    expect((await get('/v1/release')).statusCode).toBe(200)
    const pinned = await get('/v1/release', { 'service-version': '2026-08-26' })
    expect(pinned.statusCode).toBe(200)
    expect(pinned.headers['service-version']).toBe('2026-08-26')
    expectProblem(await get('/v1/release', { 'service-version': '2025-01-01' }), 400, 'UNSUPPORTED_SERVICE_VERSION', 'Service-Version')
    expectProblem(await anon('/ping', { 'service-version': 'latest' }), 400, 'UNSUPPORTED_SERVICE_VERSION', 'Service-Version')
  })

  it('any non-GET method on a /v1 route is 405 with Allow', async () => {
    for (const [method, url] of [['POST', '/v1/context'], ['DELETE', '/v1/release'], ['PUT', '/v1/error-codes/NOT_FOUND'], ['PATCH', '/v1/parts/resolve']] as const) {
      const res = await t.app.inject({ method, url, headers: t.auth })
      expectProblem(res, 405, 'METHOD_NOT_ALLOWED', null)
      expect(res.headers.allow).toBe('GET')
    }
  })

  it('unknown routes are 404 Problems', async () => {
    expectProblem(await t.app.inject({ url: '/v1/nope', headers: t.auth }), 404, 'NOT_FOUND', null)
    expectProblem(await t.app.inject({ url: '/v2/context' }), 404, 'NOT_FOUND', null)
  })

  it('X-Request-Id is kept when a UUID, replaced otherwise, and is the Problem requestId', async () => {
    const id = '0f8fad5b-d9cb-469f-a165-70867728950e'
    const ok = await get('/v1/parts/resolve?q=x', { 'x-request-id': id })
    expect(ok.headers['x-request-id']).toBe(id)
    expect(ok.json().requestId).toBe(id)
    for (const other of ['has spaces and ✓', 'client-req.42']) {
      const bad = await get('/v1/release', { 'x-request-id': other })
      expect(bad.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    }
  })

  it('parameters are validated with the right code and param', async () => {
    expectProblem(await get('/v1/parts/resolve'), 400, 'MISSING_PARAMETER', 'q')
    expectProblem(await get('/v1/parts/resolve?q=x'), 400, 'INVALID_PARAMETER', 'q')
    expectProblem(await get(`/v1/parts/resolve?q=${'a'.repeat(129)}`), 400, 'INVALID_PARAMETER', 'q')
    expectProblem(await get('/v1/parts/resolve?q=STM32&query=ab'), 400, 'INVALID_PARAMETER', 'query')
    expectProblem(await get('/v1/parts/resolve?q=STM32&candidate_limit=21'), 400, 'INVALID_PARAMETER', 'candidate_limit')
    expectProblem(await get('/v1/parts/resolve?q=STM32&candidate_limit=two'), 400, 'INVALID_PARAMETER', 'candidate_limit')
    expectProblem(await get('/v1/parts/resolve?q=STM32&corpus_release=ABC'), 400, 'INVALID_PARAMETER', 'corpus_release')
    expectProblem(await get('/v1/catalog/part?part=STM'), 400, 'INVALID_PARAMETER', 'part')
    expectProblem(await get('/v1/context?part=STM32F407&topic=clocks'), 400, 'INVALID_PARAMETER', 'topic')
    expectProblem(await get('/v1/context?part=STM32F407&topic=registers&limit=51'), 400, 'INVALID_PARAMETER', 'limit')
    expectProblem(await get('/v1/context?part=STM32F407&topic=registers&max_tokens=255'), 400, 'INVALID_PARAMETER', 'max_tokens')
    expectProblem(await get(`/v1/context?part=STM32F407&topic=registers&cursor=${'a'.repeat(513)}`), 400, 'INVALID_PARAMETER', 'cursor')
    expectProblem(await get(`/v1/context?part=STM32F407&topic=registers&peripheral=${'P'.repeat(65)}`), 400, 'INVALID_PARAMETER', 'peripheral')
    expectProblem(await get('/v1/context?part=STM32F407&topic=registers&q=STM32F407&q=x'), 400, 'UNKNOWN_PARAMETER', 'q')
  })

  it('an unknown query parameter is rejected, never ignored', async () => {
    expectProblem(await get('/v1/context?part=STM32F407VGT6&topic=registers&fact_name=RCC.AHB1ENR'), 400, 'UNKNOWN_PARAMETER', 'fact_name')
    expectProblem(await get('/v1/release?verbose=1'), 400, 'UNKNOWN_PARAMETER', 'verbose')
    expectProblem(await anon('/ping?x=1'), 400, 'UNKNOWN_PARAMETER', 'x')
  })

  it('an unknown corpus_release has its own code', async () => {
    expectProblem(await get('/v1/coverage?part=STM32F407&corpus_release=0123456789abcdef'), 400, 'UNKNOWN_CORPUS_RELEASE', 'corpus_release')
    expect((await get(`/v1/coverage?part=STM32F407&corpus_release=${releaseId}`)).statusCode).toBe(200)
  })
})

describe('authentication', () => {
  it('missing or invalid credentials are 401 with WWW-Authenticate on every /v1 fact route', async () => {
    for (const url of ['/v1/release', '/v1/parts/resolve?q=STM32', '/v1/catalog/search?q=STM32', '/v1/catalog/part?part=STM32F407', '/v1/context?part=STM32F407&topic=registers', '/v1/coverage?part=STM32', '/v1/sources?part=STM32']) {
      const none = await anon(url)
      expectProblem(none, 401, 'UNAUTHENTICATED', null)
      expect(none.headers['www-authenticate']).toMatch(/^Bearer realm=/)
      const wrong = await anon(url, { authorization: 'Bearer hwf_not-a-key' })
      expectProblem(wrong, 401, 'UNAUTHENTICATED', null)
      expect(wrong.headers['www-authenticate']).toMatch(/error="invalid_token"/)
    }
    expectProblem(await anon('/v1/release', { authorization: 'Basic dXNlcjpwYXNz' }), 401, 'UNAUTHENTICATED', null)
  })

  it('a valid key without the scope, or reading a release it may not, is 403', async () => {
    expectProblem(await anon('/v1/release', t.keyFor({ scopes: [] })), 403, 'FORBIDDEN', null)
    const restricted = t.keyFor({ releases: ['0000000000000000'] })
    expect((await anon('/v1/coverage?part=STM32F407', restricted)).statusCode).toBe(200)
    // The promoted release is readable by any key, also named by its id; another one only if listed.
    expect((await anon(`/v1/coverage?part=STM32F407&corpus_release=${releaseId}`, restricted)).statusCode).toBe(200)
    expectProblem(await anon('/v1/coverage?part=STM32F407&corpus_release=ffffffffffffffff', restricted), 403, 'FORBIDDEN', 'corpus_release')
  })
})

describe('resolve', () => {
  it('resolves an ordering code to one selector part, case- and punctuation-insensitively', async () => {
    for (const q of ['STM32F407VGT6', 'stm32f407vgt6tr', 'STM32-F407VG T6', 'STM32F407VGTx']) {
      const r = (await get(`/v1/parts/resolve?q=${encodeURIComponent(q)}`)).json()
      expect(r.status, q).toBe('resolved')
      expect(r.part.name).toBe('STM32F407VGTx')
      expect(r.part.package).toBe('LQFP100')
      expect(r.topics.registers.target.key).toBe('svd:STMicro/STM32F407')
      expect(r.topics.pins.target.key).toBe('stm32:STM32F407V(E-G)Tx')
      expect(r.topics.errata.status).toBe('not_covered')
      expect(r.topics.errata.reason).toMatch(/No STM32 errata source/)
    }
  })

  it('a family name has one register map but several packages: ambiguous for pins, never picked', async () => {
    const r = (await get('/v1/parts/resolve?q=STM32F407')).json()
    expect(r.status).toBe('ambiguous')
    expect(r.topics.registers.status).toBe('resolved')
    expect(r.topics.pins.status).toBe('ambiguous')
    const pkgs = r.topics.pins.candidates.map((c: { package: string }) => c.package)
    expect(pkgs).toEqual(expect.arrayContaining(['LQFP100', 'LQFP144']))
    expect(r.topics.pins.hint).toMatch(/package=/)
    expect(r.candidates.length).toBeGreaterThan(0)
    for (const c of r.candidates) expect(c.why).toBeTypeOf('string')
  })

  it('resolves RefNames and device names; reports unknown parts with suggestions', async () => {
    expect((await get(`/v1/parts/resolve?q=${encodeURIComponent('STM32F407V(E-G)Tx')}`)).json()).toMatchObject({ status: 'resolved', part: { name: 'STM32F407V(E-G)Tx', kind: 'refname' } })
    const nrf = (await get('/v1/parts/resolve?q=nRF52840')).json()
    expect(nrf.status).toBe('resolved')
    expect(nrf.topics.registers.target.key).toBe('svd:Nordic/nrf52840')
    expect(nrf.topics.errata.target.key).toBe('nordic-errata:NRF52840')
    expect(nrf.topics.pins).toMatchObject({ status: 'not_covered' })
    expect((await get('/v1/parts/resolve?q=NRF52832_XXAA')).json().part.name).toBe('nRF52832')
    const family = (await get('/v1/parts/resolve?q=nrf52')).json()
    expect(family.status).toBe('ambiguous')
    const nf = (await get('/v1/parts/resolve?q=STM32F408VG')).json()
    expect(nf.status).toBe('not_found')
    expect(nf.candidates).toEqual([])
    expect(nf.suggestions.length).toBeGreaterThan(0)
  })

  it('query ranks candidates without choosing one', async () => {
    const r = (await get('/v1/parts/resolve?q=STM32F407&query=LQFP144 package')).json()
    expect(r.status).toBe('ambiguous')
    expect(r.candidates[0].package).toBe('LQFP144')
  })
})

describe('context', () => {
  const base = '/v1/context?part=STM32F407VGT6&topic=registers'

  it('returns exact facts with evidence; fact_names and fact_name_prefixes are ORed', async () => {
    const r = (await get(`${base}&fact_names=rcc.ahb1enr&fact_name_prefixes=GPIOA.MODER.`)).json()
    expect(r.status).toBe('ok')
    const names = r.facts.map((f: { name: string }) => f.name)
    expect(names).toContain('RCC.AHB1ENR')
    expect(names.filter((n: string) => n.startsWith('GPIOA.MODER.')).length).toBe(16)
    const ahb = r.facts.find((f: { name: string }) => f.name === 'RCC.AHB1ENR')
    expect(ahb.value.address).toBe('0x40023830')
    expect(ahb.evidence[0].sourceSha256).toMatch(/^[a-f0-9]{64}$/)
    expect(ahb.evidence[0].locator).toMatch(/^line \d+: \/device\/peripherals\/peripheral\[name=RCC\]/)
  })

  it('the same request gives the same bytes', async () => {
    const a = await get(`${base}&fact_name_prefixes=USART1.`)
    const b = await get(`${base}&fact_name_prefixes=USART1.`)
    expect(b.body).toBe(a.body)
  })

  it('pages through a result set with an opaque cursor, without gaps or repeats', async () => {
    const all: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const r: { facts: Array<{ id: string }>; page: { nextCursor: string | null; returned: number } } = (
        await get(`${base}&peripheral=usart1&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      ).json()
      all.push(...r.facts.map((f) => f.id))
      cursor = r.page.nextCursor
      if (cursor) expect(cursor.length).toBeLessThanOrEqual(512)
      pages++
    } while (cursor && pages < 100)
    const whole = (await get(`${base}&peripheral=USART1&limit=50`)).json()
    expect(new Set(all).size).toBe(all.length)
    expect(all.length).toBeGreaterThan(7)
    expect(all.slice(0, whole.facts.length)).toEqual(whole.facts.map((f: { id: string }) => f.id))
    expect(pages).toBeGreaterThan(1)
  })

  it('a tampered, foreign or malformed cursor is 400 INVALID_CURSOR', async () => {
    const r = (await get(`${base}&peripheral=USART1&limit=2`)).json()
    const cursor: string = r.page.nextCursor
    const [payload, mac] = cursor.split('.')
    const flipped = payload!.slice(0, -2) + (payload!.endsWith('A') ? 'B' : 'A') + payload!.slice(-1)
    expectProblem(await get(`${base}&peripheral=USART1&cursor=${encodeURIComponent(`${flipped}.${mac}`)}`), 400, 'INVALID_CURSOR', 'cursor')
    expectProblem(await get(`${base}&peripheral=USART2&cursor=${encodeURIComponent(cursor)}`), 400, 'INVALID_CURSOR', 'cursor')
    expectProblem(await get(`${base}&cursor=garbage`), 400, 'INVALID_CURSOR', 'cursor')
  })

  it('max_tokens bounds the whole response, counted by a real tokenizer, whatever the answer carries', async () => {
    const names = ['USART1.CR1', 'USART1.BRR', ...Array.from({ length: 98 }, (_, i) => `USART1.CR1.BIT${i}`)].join(',')
    const queries = [
      `${base}&fact_name_prefixes=RCC.&limit=50`,
      `${base}&fact_names=${names}`,
      `${base}&query=${encodeURIComponent('usart baud rate clock enable register')}&limit=50`,
      '/v1/context?part=STM32F4&topic=pins',
      '/v1/context?part=STM32F407&topic=pins&package=LQFP100',
      '/v1/context?part=STM32F999XX&topic=registers',
      '/v1/context?part=nRF52840&topic=errata&limit=50',
      '/v1/context?part=STM32F407VG&topic=errata'
    ]
    for (const q of queries)
      for (const max of [256, 300, 450, 600, 1000, 2000, 8000]) {
        const res = await get(`${q}&max_tokens=${max}`)
        expect(res.statusCode, `${q} max_tokens=${max}`).toBe(200)
        const r = res.json()
        const tokens = countTokens(res.body)
        expect(tokens, `${q} max_tokens=${max}`).toBeLessThanOrEqual(max)
        // page.tokens is the count the service made: an upper bound of the real one, within the budget.
        expect(r.page.tokens).toBeGreaterThanOrEqual(tokens)
        expect(r.page.tokens).toBeLessThanOrEqual(max)
        expect(r.page.maxTokens).toBe(max)
        if (max >= 1000 && r.status === 'ok') expect(r.facts.length, `${q} max_tokens=${max}`).toBeGreaterThan(0)
      }
    // The case the issue measured: 100 echoed fact_names at the smallest budget.
    const tight = (await get(`${base}&fact_names=${names}&max_tokens=256`)).json()
    expect(tight.filters.elided).toBe(true)
    expect(tight.filters.factNames).toBeUndefined()
    const roomy = (await get(`${base}&fact_names=${names}&max_tokens=4000`)).json()
    expect(roomy.filters.factNames).toHaveLength(100)
    expect(roomy.filters.elided).toBeUndefined()
  })

  it('says so in page.budgetTooSmall when max_tokens cannot fit one fact, and how much would', async () => {
    // RCC.CFGR's fields carry long enumerated values; the register alone fits in a few hundred tokens.
    const q = `${base}&fact_name_prefixes=RCC.CFGR.`
    const full = (await get(`${q}&limit=50&max_tokens=16000`)).json()
    expect(full.facts.length).toBeGreaterThan(1)
    const small = (await get(`${q}&max_tokens=256`)).json()
    expect(small.status).toBe('ok')
    expect(small.facts).toEqual([])
    expect(small.page).toMatchObject({ returned: 0, truncatedBy: 'max_tokens', nextCursor: null, budgetTooSmall: true })
    expect(small.page.neededMaxTokens).toBeGreaterThan(256)
    const enough = (await get(`${q}&max_tokens=${small.page.neededMaxTokens}`)).json()
    expect(enough.page.budgetTooSmall).toBe(false)
    expect(enough.page.neededMaxTokens).toBeNull()
    expect(enough.facts[0]).toEqual(full.facts[0])
    // A set with no facts is not a budget problem.
    const none = (await get(`${base}&fact_names=NO.SUCH.REGISTER&max_tokens=256`)).json()
    expect(none.facts).toEqual([])
    expect(none.page).toMatchObject({ budgetTooSmall: false, neededMaxTokens: null, truncatedBy: null, nextCursor: null })
  })

  it('stays within max_tokens, counted by a real tokenizer over the whole response, and stops only when the next fact does not fit', async () => {
    const whole = (await get(`${base}&fact_name_prefixes=RCC.&limit=50&max_tokens=16000`)).json()
    expect(whole.page.truncatedBy).toBe('limit')
    for (const max of [256, 600, 2000, 8000]) {
      const res = await get(`${base}&fact_name_prefixes=RCC.&limit=50&max_tokens=${max}`)
      const r = res.json()
      const used = countTokens(res.body)
      expect(used, `max_tokens=${max}`).toBeLessThanOrEqual(max)
      if (max >= 600) expect(r.facts.length).toBeGreaterThan(0)
      // RCC has more than 50 facts and none is near 2000 tokens: every budget here truncates.
      expect(r.page.truncatedBy, `max_tokens=${max}`).toBe(r.facts.length === 50 ? 'limit' : 'max_tokens')
      // The page is a prefix of the unbudgeted answer, and the next fact would have broken the budget
      // (within the few tokens the envelope reserves for its cursor and counters).
      expect(r.facts.map((f: { id: string }) => f.id)).toEqual(whole.facts.slice(0, r.facts.length).map((f: { id: string }) => f.id))
      if (r.page.truncatedBy === 'max_tokens') {
        const next = JSON.stringify(whole.facts[r.facts.length])
        expect(used + countTokens(next) + 1, `max_tokens=${max}`).toBeGreaterThan(max - 32)
        if (r.facts.length > 0) expect(r.page.nextCursor).toEqual(expect.any(String))
        // Not one fact fits: the page says so in a member, not only in a note.
        else expect(r.page).toMatchObject({ budgetTooSmall: true, neededMaxTokens: expect.any(Number) })
      }
    }
  })

  it('query ranks text matches first and excludes facts that match no term', async () => {
    // Expected answer derived from the stored fact bodies alone: a fact matches a query word when one of
    // the words of its name or value strings starts with it; more matched words rank first, then document order.
    const files = new ReleaseFiles(new DataDir(dataDir).releaseDb(releaseId))
    const bodies = [...storedBodies(files, 'svd:STMicro/STM32F407', 'registers').values()]
    files.close()
    const query = ['usart', 'baud', 'rate']
    const strings = (v: unknown): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.flatMap(strings) : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : [])
    const scored = bodies.map((b, ord) => {
      const f = JSON.parse(b) as { id: string; name: string; value: unknown }
      const words = [f.name, ...strings(f.value)].join(' ').toLowerCase().split(/[^a-z0-9]+/)
      return { id: f.id, ord, score: query.filter((q) => words.some((w) => w.startsWith(q))).length }
    })
    const expected = scored.filter((x) => x.score > 0).sort((a, b) => b.score - a.score || a.ord - b.ord)
    expect(expected.length).toBeGreaterThan(60)
    expect(scored.length - expected.length).toBeGreaterThan(1000)
    const got: string[] = []
    let cursor: string | null = null
    for (let page = 0; page < 3; page++) {
      const r: { facts: Array<{ id: string }>; page: { nextCursor: string | null } } = (
        await get(`${base}&query=${encodeURIComponent('USART, baud rate!')}&limit=25&max_tokens=16000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)
      ).json()
      got.push(...r.facts.map((f) => f.id))
      cursor = r.page.nextCursor
    }
    expect(got).toEqual(expected.slice(0, got.length).map((x) => x.id))
    expect(got.length).toBe(75)
    // The best-ranked facts match all three words; the BRR register's fields are among them.
    expect(expected[0]!.score).toBe(3)
  })

  it('package narrows an ambiguous family for pins; without it no facts are returned, with candidates', async () => {
    const amb = (await get('/v1/context?part=STM32F407&topic=pins')).json()
    expect(amb.status).toBe('ambiguous')
    expect(amb.facts).toEqual([])
    expect(amb.candidates.length).toBeGreaterThan(1)
    const r = (await get('/v1/context?part=STM32F407&topic=pins&package=LQFP100&fact_names=PA9')).json()
    expect(r.status).toBe('ok')
    expect(r.facts).toHaveLength(1)
    expect(r.facts[0].value.position).toBe('68')
    expect(r.facts[0].value.alternateFunctions).toContainEqual({ af: 7, signal: 'USART1_TX' })
    const unknown = (await get('/v1/context?part=STM32F999XX&topic=pins')).json()
    expect(unknown.status).toBe('not_found')
    expect(unknown.facts).toEqual([])
  })

  it('errata: silicon_revision filters, deprecated revision still works with a Deprecation header', async () => {
    const raw = readFileSync(join(process.cwd(), '..', 'shared', 'corpus', 'errata', 'nordic', 'nrf52_erratas.h'), 'utf8')
    expect(raw).toMatch(/nrf52_errata_109\(void\)/)
    const url = '/v1/context?part=nRF52832&topic=errata&fact_names=errata.109'
    expect((await get(`${url}&silicon_revision=0x05`)).json().facts).toHaveLength(1)
    expect((await get(`${url}&silicon_revision=0x03`)).json().facts).toHaveLength(0)
    expect((await get(`${url}&silicon_revision=5`)).json().facts).toHaveLength(1)
    const dep = await get(`${url}&revision=0x04`)
    // RFC 9745: a structured-field date, @ and the Unix time of 2026-08-26T00:00:00Z (20,691 days × 86,400 s).
    expect(dep.headers.deprecation).toBe('@1787702400')
    expect(dep.json().facts).toHaveLength(0)
    expect(dep.json().notes.join(' ')).toMatch(/deprecated/)
    expectProblem(await get(`${url}&revision=0x04&silicon_revision=0x05`), 400, 'INVALID_PARAMETER', 'revision')
  })

  it('a topic without a source says so instead of inventing', async () => {
    const r = (await get('/v1/context?part=STM32F407VGT6&topic=errata')).json()
    expect(r.status).toBe('not_covered')
    expect(r.facts).toEqual([])
    expect(r.reason).toMatch(/No STM32 errata/)
  })
})

describe('typed contract', () => {
  it('every 200 body is a named component, referenced with $ref, and Problem is defined once', async () => {
    const res = await anon('/openapi.json')
    const doc = res.json()
    const bodies: Record<string, string> = {
      '/ping': 'Ping',
      '/livez': 'Health',
      '/v1/error-codes/{code}': 'ErrorCodeGuidance',
      '/v1/parts/resolve': 'ResolveResponse',
      '/v1/catalog/search': 'CatalogSearchResponse',
      '/v1/catalog/part': 'CatalogPartResponse',
      '/v1/context': 'ContextResponse',
      '/v1/release': 'ReleaseResponse',
      '/v1/coverage': 'CoverageResponse',
      '/v1/sources': 'SourcesResponse'
    }
    for (const [path, name] of Object.entries(bodies)) {
      expect(doc.paths[path].get.responses['200'].content['application/json'].schema, path).toEqual({ $ref: `#/components/schemas/${name}` })
      expect(doc.components.schemas[name], name).toBeDefined()
    }
    for (const name of ['Fact', 'RegisterFact', 'Evidence', 'Page', 'Candidate', 'Target', 'Source', 'Release', 'Problem', 'TopicResolution']) expect(doc.components.schemas[name], name).toBeDefined()
    // The Problem schema is written once; every error response points to it.
    expect(res.body.match(/"request_id":\{/g)).toHaveLength(1)
    expect(doc.paths['/v1/context'].get.responses['429'].content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' })
    expect(doc.servers).toEqual([{ url: '/', description: 'The server this document is served from' }])
  })

  it('servers names the configured public URL', async () => {
    const other = await testApp(dataDir, { publicUrl: 'https://hwfacts.example.net/' })
    try {
      expect((await other.app.inject({ url: '/openapi.json' })).json().servers).toEqual([{ url: 'https://hwfacts.example.net', description: 'This deployment' }])
    } finally {
      await other.close()
    }
  })

  it('serializing with the schemas drops nothing the service answers', async () => {
    // fast-json-stringify writes declared members only: a member the schema missed would vanish here.
    const same = async (url: string, answer: unknown) => expect((await get(url)).json(), url).toEqual(JSON.parse(JSON.stringify(answer)))
    for (const q of ['STM32F407VGT6', 'STM32F4', 'STM32F407', 'nRF52840', 'STM32F999XX', 'STM32L4x6']) {
      await same(`/v1/parts/resolve?q=${q}`, await t.facts.resolve({ q }))
      await same(`/v1/catalog/search?q=${q}`, await t.facts.catalogSearch({ q }))
      await same(`/v1/catalog/part?part=${q}`, await t.facts.catalogPart({ part: q }))
      await same(`/v1/coverage?part=${q}`, await t.facts.coverage({ part: q }))
      await same(`/v1/sources?part=${q}`, await t.facts.sources({ part: q }))
    }
    const release = (await get('/v1/release')).json()
    expect(release.release).toEqual(JSON.parse(JSON.stringify(await t.facts.release())))
  })
})

describe('catalog, coverage, sources, release', () => {
  it('catalog search lists selector parts by prefix and ordering code', async () => {
    const r = (await get('/v1/catalog/search?q=STM32F407V&candidate_limit=20')).json()
    expect(r.results.map((x: { name: string }) => x.name)).toEqual(expect.arrayContaining(['STM32F407VETx', 'STM32F407VGTx']))
    expect((await get('/v1/catalog/search?q=STM32F407VGT7')).json().results[0].name).toBe('STM32F407VGTx')
    expect((await get('/v1/catalog/search?q=ZZZZ')).json().status).toBe('not_found')
  })

  it('catalog part gives attributes, documents and sources of one part', async () => {
    const r = (await get('/v1/catalog/part?part=STM32F407VGT6')).json()
    expect(r.status).toBe('found')
    expect(r.part).toMatchObject({ name: 'STM32F407VGTx', flashKb: 1024, package: 'LQFP100' })
    expect(r.sources.map((s: { path: string }) => s.path).sort()).toEqual(['pins/stm32/mcu/STM32F407V(E-G)Tx.xml', 'svd/STMicro/STM32F407.svd'])
  })

  it('coverage says per topic what is covered and what is not', async () => {
    const r = (await get('/v1/coverage?part=nRF52832')).json()
    expect(r.covered).toEqual(['registers', 'errata'])
    expect(r.notCovered).toEqual(['pins', 'electrical'])
    expect(r.topics.errata.factCount).toBeGreaterThan(50)
    expect(r.topics.pins.reason).toMatch(/Nordic/)
  })

  it('sources give publisher provenance and archived-artifact metadata', async () => {
    const r = (await get('/v1/sources?part=STM32F407VGT6')).json()
    const svd = r.sources.find((s: { kind: string }) => s.kind === 'cmsis-svd')
    const inv = JSON.parse(readFileSync(join(process.cwd(), '..', 'shared', 'corpus', 'sources.json'), 'utf8')).sources.find((s: { path: string }) => s.path === 'svd/STMicro/STM32F407.svd')
    expect(svd).toMatchObject({ sha256: inv.sha256, bytes: inv.bytes, license: inv.license, publisher: inv.publisher, mediaType: inv.mediaType, upstream: inv.upstream })
    expect(svd.archivePath).toBe(`archive/sha256/${inv.sha256.slice(0, 2)}/${inv.sha256}`)
    expect(svd.trust.checksumVerified).toBe(true)
  })

  it('release identifies the promoted release and the API', async () => {
    const r = (await get('/v1/release')).json()
    expect(r.release.id).toBe(releaseId)
    expect(r.release.counts.facts).toBeGreaterThan(100_000)
    expect(r.api.version).toBe('2026-08-26')
    expect(r.api.openapi_sha256).toMatch(/^sha256:[a-f0-9]{64}$/)
  })
})

describe('rate limiting (in-process)', () => {
  it('answers 429 Problems with Retry-After once a key spends its budget', async () => {
    const small = await testApp(dataDir, { rateLimit: { max: 3, timeWindowMs: 60_000 } })
    const codes: number[] = []
    let last
    for (let i = 0; i < 4; i++) {
      last = await small.app.inject({ url: '/v1/release', headers: small.auth })
      codes.push(last.statusCode)
    }
    expect(codes).toEqual([200, 200, 200, 429])
    contract.check('GET', '/v1/release', last!)
    expectProblem(last!, 429, 'RATE_LIMITED', null)
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0)
    expect(last!.headers['x-ratelimit-limit']).toBe('3')
    expect((await small.app.inject({ url: '/ping' })).statusCode).toBe(200)
    await small.close()
  })
})

describe('over a real listening server', () => {
  let address: string
  beforeAll(async () => {
    address = await t.app.listen({ port: 0, host: '127.0.0.1' })
  })

  it('serves the same bytes as inject', async () => {
    const res = await fetch(`${address}/v1/context?part=STM32F407VGT6&topic=electrical`, { headers: t.auth })
    expect(res.status).toBe(200)
    const body = await res.text()
    expect(body).toBe((await get('/v1/context?part=STM32F407VGT6&topic=electrical')).body)
    const r = JSON.parse(body)
    expect(r.facts.find((f: { name: string }) => f.name === 'clock.cpu.max').value).toEqual({ value: 168, unit: 'MHz' })
    const p = await fetch(`${address}/v1/context?part=STM32F407VGT6`, { headers: t.auth })
    expect(p.status).toBe(400)
    expect(p.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  })

  it('on one keep-alive connection, each request is judged by its own credential', async () => {
    const { port } = new URL(address)
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    let connections = 0
    const count = () => connections++
    t.app.server.on('connection', count)
    const status = (authorization: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpGet({ host: '127.0.0.1', port: Number(port), path: '/v1/release', agent, headers: { authorization } }, (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode!))
        })
        req.on('error', reject)
      })
    try {
      const valid = t.auth.authorization
      // Same length as the valid header, one character changed: a remembered credential must not let it through.
      const forged = valid.slice(0, -1) + (valid.endsWith('A') ? 'B' : 'A')
      const unscoped = t.keyFor({ scopes: [] }).authorization
      const codes = []
      for (const h of [valid, forged, valid, unscoped, valid, 'Bearer hwf_x', valid]) codes.push(await status(h))
      expect(codes).toEqual([200, 401, 200, 403, 200, 401, 200])
      expect(connections).toBe(1)
    } finally {
      t.app.server.off('connection', count)
      agent.destroy()
    }
  })
})
