import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { Validator } from '@seriousme/openapi-schema-validator'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { factRoute } from '../../src/http/fact-route.js'
import { NoParams } from '../../src/schemas/params.js'
import { Ping } from '../../src/schemas/responses.js'
import { testApp, type TestApp } from '../helpers/app.js'
import { corpusDataDir } from '../helpers/corpus-release.js'
import { ContractChecker } from '../helpers/openapi.js'
import { expectProblem } from '../helpers/problem.js'

type Obj = Record<string, any>

const SEED = '2026-08-26'
const DEPTH = '2026-12-01'
/** The seed contract's topics, as the spec writes them for /v1/context's `topic`. */
const SEED_TOPICS = [.../one of ((?:`\w+`(?:, )?)+)/.exec(readFileSync(new URL('../../../shared/spec/service-spec.md', import.meta.url), 'utf8').split('| topic |')[1]!)![1]!.matchAll(/`(\w+)`/g)].map((m) => m[1]!)
/** The topics issue "Depth" adds in contract 2026-12-01. */
const DEPTH_TOPICS = ['memory', 'interrupts', 'dma', 'clocks']
const ALL = [...SEED_TOPICS, ...DEPTH_TOPICS]

/** A route of the test's own, added by 2026-12-01: the one-liner routes use (`since`). */
async function laterRoute(app: FastifyInstance) {
  factRoute(app, {
    url: '/v1/later',
    operationId: 'getLater',
    summary: 'An operation contract 2026-12-01 adds',
    description: 'Registered by the test.',
    querystring: NoParams,
    response: Ping,
    scope: 'facts:read',
    since: DEPTH,
    handler: async () => ({ status: 'ok', message: 'pong' })
  })
}

let t: TestApp
let releaseId: string
const docs: Record<string, { body: string; doc: Obj; checker: ContractChecker }> = {}

/** A request in a contract version (none: no header), its answer checked against that version's document. */
async function call(version: string | undefined, url: string, opts: Omit<InjectOptions, 'url'> = {}) {
  const headers = { ...t.auth, ...(opts.headers as Obj), ...(version ? { 'service-version': version } : {}) }
  const res = await docs[version ?? SEED]!.checker.call(t.app, { ...opts, url, headers })
  if (res.statusCode < 400) expect(res.headers['service-version']).toBe(version ?? SEED)
  return res
}
const ok = async (version: string | undefined, url: string): Promise<Obj> => {
  const res = await call(version, url)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}
/** Every enum of a document, and the members of every object that has one per seed topic. */
function topicLists(v: unknown, out: unknown[][] = []): unknown[][] {
  if (Array.isArray(v)) v.forEach((x) => topicLists(x, out))
  else if (v !== null && typeof v === 'object') {
    const o = v as Obj
    if (Array.isArray(o.enum)) out.push(o.enum)
    if (o.properties && SEED_TOPICS.every((t) => t in o.properties)) out.push(Object.keys(o.properties))
    Object.values(o).forEach((x) => topicLists(x, out))
  }
  return out
}
const sha = (bytes: string) => 'sha256:' + createHash('sha256').update(bytes).digest('hex')

beforeAll(async () => {
  t = await testApp(await corpusDataDir(), { plugins: [laterRoute] })
  for (const v of [SEED, DEPTH]) {
    const res = await t.app.inject({ url: '/openapi.json', headers: { 'service-version': v } })
    docs[v] = { body: res.body, doc: res.json(), checker: new ContractChecker(res.json()) }
  }
  releaseId = (await ok(undefined, '/v1/release')).release.id
})
afterAll(async () => t?.close())

describe(`the seed contract (${SEED}), with no Service-Version or with it`, () => {
  it.each([undefined, SEED])('Service-Version %s: a depth topic is refused exactly as an unknown topic is, on every operation taking a topic', async (v) => {
    expect(SEED_TOPICS).toEqual(['registers', 'pins', 'electrical', 'errata'])
    for (const [path, query] of [
      ['/v1/context', 'part=STM32F407VG'],
      ['/v1/compare/parts', 'part=STM32F407VG&other=STM32G474RE'],
      ['/v1/compare/releases', `part=STM32F407VG&from_release=${releaseId}`]
    ]) {
      const unknown = expectProblem(await call(v, `${path}?${query}&topic=power`), 400, 'INVALID_PARAMETER', 'topic')
      for (const topic of DEPTH_TOPICS) {
        const p = expectProblem(await call(v, `${path}?${query}&topic=${topic}`), 400, 'INVALID_PARAMETER', 'topic')
        expect({ ...p, requestId: 0, request_id: 0 }).toEqual({ ...unknown, requestId: 0, request_id: 0 })
      }
      expect((await call(v, `${path}?${query}&topic=registers`)).statusCode).toBe(200)
    }
  })

  it.each([undefined, SEED])('Service-Version %s: resolve, coverage, catalog part, catalog search and sources list the four topics', async (v) => {
    expect(Object.keys((await ok(v, '/v1/parts/resolve?q=STM32F407VG')).topics)).toEqual(SEED_TOPICS)
    const cov = await ok(v, '/v1/coverage?part=STM32F407VG')
    expect(Object.keys(cov.topics)).toEqual(SEED_TOPICS)
    expect([...cov.covered, ...cov.notCovered, ...(cov.sourceFailed ?? [])].sort()).toEqual([...SEED_TOPICS].sort())
    expect(Object.keys((await ok(v, '/v1/catalog/part?part=STM32F407VGTx')).documents)).toEqual(SEED_TOPICS)
    expect(Object.keys((await ok(v, '/v1/sources?part=STM32F407VG')).topics)).toEqual(SEED_TOPICS)
    for (const hit of (await ok(v, '/v1/catalog/search?q=STM32F407')).results) for (const topic of hit.topics) expect(SEED_TOPICS).toContain(topic)
  })

  it('its /openapi.json names no depth topic, no later operation and no marker; the header is pinned to the seed', async () => {
    const { body, doc } = docs[SEED]!
    expect((await t.app.inject({ url: '/openapi.json' })).body).toBe(body)
    expect((await t.app.inject({ url: `/openapi.json?version=${SEED}` })).body).toBe(body)
    expect(doc.info.version).toBe(SEED)
    const lists = topicLists(doc)
    expect(lists.filter((l) => l.includes('registers')).length).toBeGreaterThan(5)
    for (const l of lists) for (const topic of DEPTH_TOPICS) expect(l).not.toContain(topic)
    expect(body).not.toContain('/v1/later')
    expect(body).not.toMatch(/"x-(since|contract-version)"/)
    // What 2026-12-01 adds: the cross-check members, the depth facts' schemas, /v1/discrepancies and /v1/check.
    expect(body).not.toMatch(/crossCheck|"aliases"|Discrepanc|MemoryFact|InterruptLineValue|\/v1\/check/)
    expect(doc.components.schemas.Topic.enum).toEqual(SEED_TOPICS)
    expect(doc.components.schemas.ApiIdentity.properties.version.enum).toEqual([SEED])
    const header = doc.paths['/v1/context'].get.parameters.find((p: Obj) => p.name === 'service-version')
    expect(header.schema.enum).toEqual([SEED])
  })

  it('/v1/release and readiness give the seed identity: its version and the digest of its document', async () => {
    const api = { version: SEED, openapi_sha256: sha(docs[SEED]!.body) }
    const release = await ok(undefined, '/v1/release')
    expect(release.api).toEqual(api)
    for (const topic of Object.keys(release.release.counts.byTopic)) expect(SEED_TOPICS).toContain(topic)
    expect((await ok(SEED, '/v1/release')).api).toEqual(api)
    for (const path of ['/readyz', '/health', '/healthz']) expect((await ok(undefined, path)).api).toEqual(api)
  })

  it('an operation a later version adds is an unknown path: the same 404, with or without credentials, whatever the method', async () => {
    for (const method of ['GET', 'POST'] as const)
      for (const headers of [{}, t.auth]) {
        const unknown = expectProblem(await t.app.inject({ method, url: '/v1/nowhere', headers }), 404, 'NOT_FOUND')
        const later = expectProblem(await t.app.inject({ method, url: '/v1/later', headers }), 404, 'NOT_FOUND')
        expect(later.detail).toBe(unknown.detail.replace('/v1/nowhere', '/v1/later'))
        expect(later.title).toBe(unknown.title)
      }
    expectProblem(await call(SEED, '/v1/later'), 404, 'NOT_FOUND')
    expectProblem(await call(SEED, '/v1/discrepancies?part=STM32F407VG'), 404, 'NOT_FOUND')
  })
})

describe(`contract ${DEPTH}`, () => {
  it('accepts the eight topics on /v1/context and the comparisons; a depth topic without facts is not covered, with a reason', async () => {
    for (const topic of ALL) {
      const r = await ok(DEPTH, `/v1/context?part=STM32F407VG&topic=${topic}`)
      expect(r.topic).toBe(topic)
      if (DEPTH_TOPICS.includes(topic) && r.status === 'not_covered') expect(r.reason).toMatch(new RegExp(topic))
      expect((await call(DEPTH, `/v1/compare/parts?part=STM32F407VG&other=STM32G474RE&topic=${topic}`)).statusCode).toBe(200)
    }
    expectProblem(await call(DEPTH, '/v1/context?part=STM32F407VG&topic=power'), 400, 'INVALID_PARAMETER', 'topic')
  })

  it('resolve, coverage, catalog part and sources list the eight topics; coverage states each gap', async () => {
    expect(Object.keys((await ok(DEPTH, '/v1/parts/resolve?q=STM32F407VG')).topics)).toEqual(ALL)
    const cov = await ok(DEPTH, '/v1/coverage?part=STM32F407VG')
    expect(Object.keys(cov.topics)).toEqual(ALL)
    expect([...cov.covered, ...cov.notCovered, ...(cov.sourceFailed ?? [])].sort()).toEqual([...ALL].sort())
    for (const topic of cov.notCovered) expect(cov.topics[topic].reason, topic).toMatch(/\w/)
    expect(Object.keys((await ok(DEPTH, '/v1/catalog/part?part=STM32F407VGTx')).documents)).toEqual(ALL)
    expect(Object.keys((await ok(DEPTH, '/v1/sources?part=STM32F407VG')).topics)).toEqual(ALL)
  })

  it('the answer cache keeps each version its own answer', async () => {
    for (const [v, topics] of [[undefined, SEED_TOPICS], [DEPTH, ALL], [SEED, SEED_TOPICS], [DEPTH, ALL]] as const)
      expect(Object.keys((await ok(v, '/v1/coverage?part=nRF52840')).topics), String(v)).toEqual(topics)
  })

  it('/openapi.json by header or ?version= is its own valid document: eight topics, its operations, its digest', async () => {
    const { body, doc } = docs[DEPTH]!
    expect((await t.app.inject({ url: `/openapi.json?version=${DEPTH}` })).body).toBe(body)
    const both = await t.app.inject({ url: `/openapi.json?version=${DEPTH}`, headers: { 'service-version': DEPTH } })
    expect(both.body).toBe(body)
    expect(both.headers['service-version']).toBe(DEPTH)
    expect((await t.app.inject({ url: `/openapi.json?version=${DEPTH}` })).headers['service-version']).toBe(DEPTH)
    const v = await new Validator().validate(doc)
    expect(v.errors ?? []).toEqual([])
    expect(doc.info.version).toBe(DEPTH)
    expect(body).not.toMatch(/"x-(since|contract-version)"/)
    expect(doc.components.schemas.Topic.enum).toEqual(ALL)
    expect(doc.components.schemas.TopicResolutions.required).toEqual(ALL)
    for (const l of topicLists(doc)) if (l.includes('registers') && l.includes('pins')) expect(l).toEqual(ALL)
    expect(doc.components.schemas.ApiIdentity.properties.version.enum).toEqual([DEPTH])
    expect(doc.paths['/v1/later'].get.operationId).toBe('getLater')
    const topic = doc.paths['/v1/context'].get.parameters.find((p: Obj) => p.name === 'topic')
    expect(topic.schema.enum).toEqual(ALL)
    // Everything the seed document has, this one has too.
    for (const path of Object.keys(docs[SEED]!.doc.paths)) expect(doc.paths[path], path).toBeDefined()
    expect(sha(body)).not.toBe(sha(docs[SEED]!.body))
  })

  it('/v1/release and readiness give its identity; the operation it adds answers', async () => {
    const api = { version: DEPTH, openapi_sha256: sha(docs[DEPTH]!.body) }
    expect((await ok(DEPTH, '/v1/release')).api).toEqual(api)
    for (const path of ['/readyz', '/health', '/healthz']) expect((await ok(DEPTH, path)).api).toEqual(api)
    expect(await ok(DEPTH, '/v1/later')).toEqual({ status: 'ok', message: 'pong' })
    // The core corpus gives a part's interrupts from its SVD alone: nothing to cross-check, and said so.
    const d = await ok(DEPTH, '/v1/discrepancies?part=STM32F407VG')
    expect(d).toMatchObject({ status: 'resolved', checked: [], discrepancies: [], count: 0 })
    expect(d.notes.join(' ')).toMatch(/interrupts: one source \(svd:/)
    expect(docs[DEPTH]!.body).toMatch(/"\/v1\/discrepancies"/)
    expectProblem(await t.app.inject({ method: 'POST', url: '/v1/later', headers: { ...t.auth, 'service-version': DEPTH } }), 405, 'METHOD_NOT_ALLOWED')
    expectProblem(await t.app.inject({ url: '/v1/later', headers: { 'service-version': DEPTH } }), 401, 'UNAUTHENTICATED')
  })
})

describe('choosing a version', () => {
  it('an unknown Service-Version is 400 as ever, naming the served versions; an unknown or disagreeing ?version= is 400 naming version', async () => {
    for (const url of ['/v1/release', '/openapi.json', '/ping']) {
      const p = expectProblem(await t.app.inject({ url, headers: { ...t.auth, 'service-version': '2026-09-01' } }), 400, 'UNSUPPORTED_SERVICE_VERSION', 'Service-Version')
      expect(p.detail).toContain(SEED)
      expect(p.detail).toContain(DEPTH)
    }
    expectProblem(await t.app.inject({ url: '/openapi.json?version=2027-01-01' }), 400, 'INVALID_PARAMETER', 'version')
    expectProblem(await t.app.inject({ url: `/openapi.json?version=${DEPTH}`, headers: { 'service-version': SEED } }), 400, 'INVALID_PARAMETER', 'version')
    expectProblem(await t.app.inject({ url: `/openapi.json?version=${SEED}`, headers: { 'service-version': DEPTH } }), 400, 'INVALID_PARAMETER', 'version')
  })

  it('/docs serves the document of the request\'s version', async () => {
    for (const v of [SEED, DEPTH]) expect((await t.app.inject({ url: '/docs/json', headers: { 'service-version': v } })).json()).toEqual(docs[v]!.doc)
  })

  it('each version\'s document and digest are the same whatever host or port serves them', async () => {
    const other = await testApp(await corpusDataDir(), { plugins: [laterRoute] })
    try {
      const bases = [await t.app.listen({ port: 0, host: '127.0.0.1' }), await other.app.listen({ port: 0, host: 'localhost' })]
      expect(new Set(bases).size).toBe(2)
      for (const v of [SEED, DEPTH]) {
        const seen = new Set<string>()
        for (const base of bases) {
          const doc = await (await fetch(new URL(`/openapi.json?version=${v}`, base))).text()
          const ready = (await (await fetch(new URL('/readyz', base), { headers: { 'service-version': v } })).json()) as Obj
          expect(ready.api).toEqual({ version: v, openapi_sha256: sha(doc) })
          seen.add(doc)
        }
        expect(seen, v).toEqual(new Set([docs[v]!.body]))
      }
    } finally {
      await other.close()
    }
  })
})
