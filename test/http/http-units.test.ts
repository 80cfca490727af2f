import { createHash } from 'node:crypto'
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { afterEach, describe, expect, it } from 'vitest'
import { Contract } from '../../src/http/contract.js'
import { BEARER_ALTERNATIVES, cachedAnswer, errorResponses, factRoute, GET_ERRORS, JSON_TYPE, V1_GET_ERRORS } from '../../src/http/fact-route.js'
import { PINNED_CACHE_CONTROL } from '../../src/http/headers.js'
import { pathSegments } from '../../src/http/methods.js'
import { parseQuery } from '../../src/http/querystring.js'
import { routeServed } from '../../src/http/versions.js'
import { registerContract } from '../../src/http/routes/openapi.js'
import type { HardwareFacts } from '../../src/service/facts.js'
import { FactTopic, NoParams } from '../../src/schemas/params.js'
import { Ping } from '../../src/schemas/responses.js'
import { AJV_OPTIONS, registerRequestChecks } from '../../src/http/app.js'
import { expectProblem } from '../helpers/problem.js'
import { parseRaw, raw } from '../helpers/raw-http.js'

/**
 * The request helpers of the HTTP layer (contract, headers, integers, methods, querystring,
 * request-target, versions, fact-route) on a bare Fastify app with only them, the contract's
 * schemas and the Problem layer: no release, no credential, milliseconds a request. Statuses,
 * headers and codes are the contract's (spec §4, §7) and the helpers' own documented rules. The app
 * is built inside each test: a mutant of a plugin's set-up then fails the test, not the file.
 */
type Obj = Record<string, any>
const SEED = '2026-08-26'
const DEPTH = '2026-12-01'
const ok = async () => ({ status: 'ok', message: 'pong' }) as const

/** Routes of the test's own, each showing one helper's rule (inline schemas: no contract needed). */
async function routes(app: FastifyInstance) {
  const Numbers = Type.Object({ n: Type.Optional(Type.Integer()), x: Type.Optional(Type.Number()), s: Type.Optional(Type.String()), corpus_release: Type.Optional(Type.String()), cursor: Type.Optional(Type.String()) }, { additionalProperties: false })
  const Texts = Type.Object({ s: Type.Optional(Type.String()) }, { additionalProperties: false })
  const Topics = Type.Object({ topic: FactTopic }, { additionalProperties: false })
  app.get('/v1/plain', ok)
  app.get('/v1/later', { config: { since: DEPTH } }, ok)
  app.get('/v1/numbers', { schema: { querystring: Numbers } }, ok)
  app.get('/v1/texts', { schema: { querystring: Texts } }, ok)
  app.get('/v1/topics', { schema: { querystring: Topics } }, ok)
  // A route's own preValidation hook (one function, and a list) is kept beside the version check.
  const mark = (_req: FastifyRequest, reply: FastifyReply, done: () => void) => (reply.header('x-own', 'ran'), done())
  app.get('/v1/topics-own', { schema: { querystring: Topics }, preValidation: mark }, ok)
  app.get('/v1/topics-own-list', { schema: { querystring: Topics }, preValidation: [mark] }, ok)
  app.get('/v1/codes/:code', async (req) => ({ code: (req.params as Obj).code }))
  app.get('/v1/hijacked', async (_req, reply) => ({ cache: reply.getHeader('cache-control') }))
  app.get('/v1/query-echo', { schema: { querystring: Texts } }, async (req) => ({ query: req.query }))
  app.get('/status/:n', async (req, reply) => reply.code(Number((req.params as Obj).n)).send({ n: 1 }))
  app.get('/open', ok)
  app.get('/open/*', ok)
  app.post('/v1/only-post', async () => ({ ok: true }))
  app.route({ method: ['GET', 'POST'], url: '/post-only', config: { onlyMethod: 'POST' }, handler: async () => ({ ok: true }) })
  app.route({ method: ['GET', 'POST'], url: '/v1/multi', handler: ok })
  app.route({ method: 'POST', url: '/post-later', config: { onlyMethod: 'POST', since: DEPTH }, handler: async () => ({ ok: true }) })
}

/** Operations declared with factRoute: they need the contract's named schemas (registerContract). */
async function factRoutes(app: FastifyInstance) {
  factRoute(app, { url: '/v1/plain', operationId: 'getPlain', summary: 'S plain', description: 'D plain', querystring: NoParams, response: Ping, handler: ok })
  factRoute(app, { url: '/v1/scoped', operationId: 'getScoped', summary: 'S scoped', description: 'D scoped', querystring: NoParams, response: Ping, scope: 'facts:read', handler: ok })
  factRoute(app, { url: '/v1/later', operationId: 'getLater', summary: 'S later', description: 'D later', querystring: NoParams, response: Ping, since: DEPTH, handler: ok })
}

let app: FastifyInstance | undefined
afterEach(async () => {
  await app?.close()
  app = undefined
})

/**
 * The request checks app.ts registers (registerRequestChecks), with the router's query parser and Ajv options the
 * app uses; one app a test, made at its first request. With `contract`, the contract's schemas and
 * document generator, and `routes` declared with factRoute (slow to build: only where needed).
 */
async function bare(opts: { contract?: boolean; routes?: (a: FastifyInstance) => Promise<void> } = {}): Promise<FastifyInstance> {
  await app?.close()
  const a = Fastify({
    http: { requireHostHeader: false },
    routerOptions: { querystringParser: parseQuery },
    ajv: AJV_OPTIONS
  })
  app = a
  if (opts.contract) await registerContract(a, {})
  await registerRequestChecks(a)
  await a.register(opts.routes ?? routes)
  await a.ready()
  return a
}
const get = async (url: string, headers: Obj = {}, method = 'GET') => (app ?? (await bare())).inject({ method: method as 'GET', url, headers })

describe('querystring: parseQuery and the strict-query hook', () => {
  const flaw = (o: object) => Reflect.get(o, Object.getOwnPropertySymbols(o)[0]!) as Obj

  it('decodes names and values, + as a space, a name alone as empty, = inside a value kept; empty parts skipped', () => {
    const q = parseQuery('a=1&&b=x%20y+z&c&d=e=f&%62b=2&')
    expect({ ...q }).toEqual({ a: '1', b: 'x y z', c: '', d: 'e=f', bb: '2' })
    expect(Object.getOwnPropertySymbols(q)).toEqual([])
    expect(parseQuery('')).toEqual({})
    // No prototype: a parameter named like an Object member is an ordinary parameter, given once.
    expect(Object.getPrototypeOf(parseQuery('toString=1'))).toBeNull()
    expect(parseQuery('constructor=1&hasOwnProperty=2')).toEqual(Object.assign(Object.create(null), { constructor: '1', hasOwnProperty: '2' }))
  })

  it('notes the first flaw: a malformed escape (name or value), a NUL byte (name or value), a name given twice', () => {
    expect(flaw(parseQuery('q=%ZZ'))).toEqual({ code: 'MALFORMED_REQUEST', detail: 'Parameter "q" has a malformed percent-escape.', param: 'q' })
    expect(flaw(parseQuery('%ZZ=1'))).toEqual({ code: 'MALFORMED_REQUEST', detail: 'Parameter "%ZZ" has a malformed percent-escape.', param: '%ZZ' })
    expect(flaw(parseQuery('q=a%00b'))).toEqual({ code: 'MALFORMED_REQUEST', detail: 'Parameter "q" contains a NUL byte.', param: 'q' })
    expect(flaw(parseQuery('a%00b=1'))).toEqual({ code: 'MALFORMED_REQUEST', detail: 'Parameter "a\0b" contains a NUL byte.', param: 'a\0b' })
    expect(flaw(parseQuery('q=1&%71=2'))).toEqual({ code: 'INVALID_PARAMETER', detail: 'Parameter "q" is given twice; give it once.', param: 'q' })
    // The first flaw is the one answered; the first value of a repeated name is kept.
    const q = parseQuery('a=1&b=%ZZ&a=2&c=%00')
    expect(flaw(q).param).toBe('b')
    expect(q.a).toBe('1')
    expect(Object.hasOwn(q, 'b')).toBe(false)
  })

  it('a flawed query is a Problem naming the parameter; a repeated parameter the route lacks is left to validation', async () => {
    expectProblem(await get('/v1/texts?s=%ZZ'), 400, 'MALFORMED_REQUEST', 's')
    expectProblem(await get('/v1/texts?s=a%00'), 400, 'MALFORMED_REQUEST', 's')
    const twice = expectProblem(await get('/v1/texts?s=a&s=b'), 400, 'INVALID_PARAMETER', 's')
    expect(twice.detail).toBe('Parameter "s" is given twice; give it once.')
    // Even on a route without a query schema, a malformed escape is refused.
    expectProblem(await get('/open?z=%ZZ'), 400, 'MALFORMED_REQUEST', 'z')
    expectProblem(await get('/v1/texts?u=1&u=2'), 400, 'UNKNOWN_PARAMETER', 'u')
    // A route without a query schema: a repeated name is no flaw it answers.
    expect((await get('/open?u=1&u=2')).statusCode).toBe(200)
    const r = await get('/v1/query-echo?s=a+b')
    expect(r.json()).toEqual({ query: { s: 'a b' } })
  })
})

describe('methods: pathSegments and the 405 of a route that answers one method', () => {
  it('pathSegments cuts at ? or # and decodes each segment; undefined for a malformed escape', () => {
    expect(pathSegments('/v1/%63ontext?x=/y#z')).toEqual(['', 'v1', 'context'])
    expect(pathSegments('/a/b#frag/c')).toEqual(['', 'a', 'b'])
    expect(pathSegments('/a%2Fb/c')).toEqual(['', 'a/b', 'c'])
    expect(pathSegments('/plain')).toEqual(['', 'plain'])
    expect(pathSegments('/a/%E0%A4')).toBeUndefined()
  })

  it('any method but GET on a /v1 GET route is 405 with Allow: GET and the read-only reason', async () => {
    for (const method of ['POST', 'DELETE', 'PUT', 'PATCH']) {
      const r = await get('/v1/plain', {}, method)
      const p = expectProblem(r, 405, 'METHOD_NOT_ALLOWED')
      expect(r.headers.allow).toBe('GET')
      expect(p.detail).toBe(`${method} is not allowed on /v1/plain; this interface is read-only: use GET.`)
    }
    const head = await get('/v1/plain', {}, 'HEAD')
    expect(head.statusCode).toBe(405)
    expect(head.headers.allow).toBe('GET')
    expect((await get('/v1/plain')).statusCode).toBe(200)
  })

  it('the path is matched as the router decodes it, parameters included, whole segments only', async () => {
    const r = await get('/v1/%70lain?x=1', {}, 'POST')
    expect(expectProblem(r, 405, 'METHOD_NOT_ALLOWED').detail).toBe('POST is not allowed on /v1/plain; this interface is read-only: use GET.')
    expectProblem(await get('/v1/codes/ABC', {}, 'POST'), 405, 'METHOD_NOT_ALLOWED')
    expectProblem(await get('/v1/codes/A%42C', {}, 'DELETE'), 405, 'METHOD_NOT_ALLOWED')
    // One segment more or fewer is another path: no route, 404.
    expectProblem(await get('/v1/codes/ABC/more', {}, 'POST'), 404, 'NOT_FOUND')
    expectProblem(await get('/v1/codes', {}, 'POST'), 404, 'NOT_FOUND')
    expectProblem(await get('/v1/plainer', {}, 'POST'), 404, 'NOT_FOUND')
    // A malformed escape is the router's 400, not a 405.
    expect((await get('/v1/pl%E0ain', {}, 'POST')).statusCode).toBe(400)
    // Outside /v1 a GET route takes other methods as Fastify does (no route: 404); a /v1 route without GET is not read-only.
    expectProblem(await get('/open', {}, 'POST'), 404, 'NOT_FOUND')
    expect((await get('/v1/only-post', {}, 'POST')).statusCode).toBe(200)
  })

  it('a POST-only route (onlyMethod) answers any other method, GET included, with 405 and Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const r = await get('/post-only', {}, method)
      expect(expectProblem(r, 405, 'METHOD_NOT_ALLOWED').detail).toBe(`${method} is not allowed on /post-only; use POST.`)
      expect(r.headers.allow).toBe('POST')
    }
    expect((await get('/post-only?x=1', {}, 'GET')).statusCode).toBe(405)
    expect((await get('/post-only', {}, 'POST')).statusCode).toBe(200)
  })

  it('a route the request contract version lacks is an unknown path: 404, not 405', async () => {
    expectProblem(await get('/v1/later', {}, 'POST'), 404, 'NOT_FOUND')
    expectProblem(await get('/v1/later', { 'service-version': DEPTH }, 'POST'), 405, 'METHOD_NOT_ALLOWED')
    expectProblem(await get('/post-later', {}, 'GET'), 404, 'NOT_FOUND')
    const r = await get('/post-later', { 'service-version': DEPTH }, 'GET')
    expectProblem(r, 405, 'METHOD_NOT_ALLOWED')
    expect(r.headers.allow).toBe('POST')
  })
})

describe('integers: integer and number parameters written in decimal', () => {
  it('decimal integers and numbers pass, up to 15 digits each side', async () => {
    for (const q of ['n=10', 'n=-40', 'n=0', `n=${'9'.repeat(15)}`, 'x=3.3', 'x=-40', 'x=7', `x=${'1'.repeat(15)}.${'2'.repeat(15)}`, 's=0x10', 'corpus_release=a']) {
      const r = await get(`/v1/numbers?${q}`)
      expect(r.statusCode, q).toBe(200)
    }
  })

  it('hex, exponent, sign, space, empty, fraction (integers), too many digits: INVALID_PARAMETER naming it', async () => {
    for (const v of ['0x10', '1e1', '%2B5', '%205', '', '5.0', '5%20', `${'1'.repeat(16)}`, '1-2', 'a5']) {
      const p = expectProblem(await get(`/v1/numbers?n=${v}`), 400, 'INVALID_PARAMETER', 'n')
      expect(p.detail, v).toBe('Parameter "n" must be a decimal integer (digits only).')
    }
    for (const v of ['3.', '.5', '1e3', '%2B1.5', `1.${'2'.repeat(16)}`, '1.2.3', 'x1.5', '1.5x']) {
      const p = expectProblem(await get(`/v1/numbers?x=${v}`), 400, 'INVALID_PARAMETER', 'x')
      expect(p.detail, v).toBe('Parameter "x" must be a decimal number (digits, optionally a point and digits).')
    }
    // The first numeric parameter in the route's order that is wrong is the one named.
    expectProblem(await get('/v1/numbers?x=1e1&n=0x1'), 400, 'INVALID_PARAMETER', 'n')
    expectProblem(await get('/v1/numbers?n=1&x=1e1'), 400, 'INVALID_PARAMETER', 'x')
  })
})

describe('request-target: an over-long target and a missing Host', () => {
  it('over 8,192 bytes is 414 URI_TOO_LONG naming the longest parameter (the first of equals); 8,192 is served', async () => {
    const target = (n: number, before = '') => {
      const head = `/open?${before}`
      return `${head}x=${'a'.repeat(n - head.length - 2)}`
    }
    expect((await get(target(8192))).statusCode).toBe(200)
    const over = expectProblem(await get(target(8193)), 414, 'URI_TOO_LONG', 'x')
    expect(over.detail).toBe(`The request target is 8193 bytes; at most 8192 are accepted (the longest parameter, "x", takes ${8193 - '/open?'.length}).`)
    // The longest of several parameters, its name decoded when it can be, as given when it cannot.
    const two = `/open?a=1&%62b=${'c'.repeat(5000)}&d=${'e'.repeat(4000)}`
    expect(expectProblem(await get(two), 414, 'URI_TOO_LONG', 'bb').detail).toContain(`"bb", takes ${5000 + '%62b='.length})`)
    const bad = `/open?%ZZ=${'c'.repeat(5000)}&d=${'e'.repeat(4000)}`
    expectProblem(await get(bad), 414, 'URI_TOO_LONG', '%ZZ')
    const tie = `/open?p=${'c'.repeat(4500)}&q=${'e'.repeat(4500)}&r=1`
    expectProblem(await get(tie), 414, 'URI_TOO_LONG', 'p')
    const later = `/open?p=${'c'.repeat(4000)}&q=${'e'.repeat(4500)}`
    expectProblem(await get(later), 414, 'URI_TOO_LONG', 'q')
    // No query string: no parameter to name.
    const path = expectProblem(await get(`/open/${'p'.repeat(8200)}`), 414, 'URI_TOO_LONG', null)
    expect(path.detail).toBe('The request target is 8206 bytes; at most 8192 are accepted.')
  })

  it('an HTTP/1.1 request without Host is 400 MALFORMED_REQUEST naming Host; HTTP/1.0 needs none', async () => {
    const a = await bare()
    const port = Number(new URL(await a.listen({ port: 0, host: '127.0.0.1' })).port)
    const p = expectProblem(parseRaw((await raw(port, ['GET /open HTTP/1.1\r\nConnection: close\r\n\r\n'])).text), 400, 'MALFORMED_REQUEST', 'Host')
    expect(p.detail).toBe('An HTTP/1.1 request must have a Host header.')
    expect(parseRaw((await raw(port, ['GET /open HTTP/1.0\r\n\r\n'])).text).statusCode).toBe(200)
    expect(parseRaw((await raw(port, ['GET /open HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n'])).text).statusCode).toBe(200)
  })
})

describe('headers: nosniff and the cache rule', () => {
  it('nosniff always; no-cache for an answer about the promoted release, immutable when pinned; no-store on errors', async () => {
    const plain = await get('/v1/numbers')
    expect(plain.headers['x-content-type-options']).toBe('nosniff')
    expect(plain.headers['cache-control']).toBe('no-cache')
    expect(PINNED_CACHE_CONTROL).toBe('private, max-age=31536000, immutable')
    expect((await get('/v1/numbers?corpus_release=0123456789abcdef')).headers['cache-control']).toBe('private, max-age=31536000, immutable')
    expect((await get('/v1/numbers?cursor=abc')).headers['cache-control']).toBe('private, max-age=31536000, immutable')
    expect((await get('/v1/numbers?s=abc')).headers['cache-control']).toBe('no-cache')
    for (const [n, cache] of [[200, 'no-cache'], [399, 'no-cache'], [400, 'no-store'], [404, 'no-store'], [503, 'no-store']] as const) {
      const r = await get(`/status/${n}`)
      expect(r.statusCode).toBe(n)
      expect(r.headers['cache-control'], String(n)).toBe(cache)
      expect(r.headers['x-content-type-options']).toBe('nosniff')
    }
    expectProblem(await get('/v1/numbers?n=x&corpus_release=0123456789abcdef'), 400, 'INVALID_PARAMETER', 'n')
  })

  it('no-store is set before the handler runs (a hijacked reply copies the headers set so far)', async () => {
    expect((await get('/v1/hijacked')).json()).toEqual({ cache: 'no-store' })
  })
})

describe('versions: Service-Version on every request', () => {
  it('is echoed (the seed when absent), and a version not served is 400 naming Service-Version', async () => {
    const none = await get('/v1/plain')
    expect(none.headers['service-version']).toBe(SEED)
    expect((await get('/v1/plain', { 'service-version': DEPTH })).headers['service-version']).toBe(DEPTH)
    expect((await get('/open', { 'service-version': SEED })).headers['service-version']).toBe(SEED)
    const p = expectProblem(await get('/v1/plain', { 'service-version': '2020-01-01' }), 400, 'UNSUPPORTED_SERVICE_VERSION', 'Service-Version')
    expect(p.detail).toBe(`Service-Version 2020-01-01 is not served; the supported values are ${SEED} and ${DEPTH}.`)
    expectProblem(await get('/open', { 'service-version': '' }), 400, 'UNSUPPORTED_SERVICE_VERSION', 'Service-Version')
  })

  it('a route a later version adds is an unknown path (404) in an earlier one', async () => {
    expectProblem(await get('/v1/later'), 404, 'NOT_FOUND')
    expectProblem(await get('/v1/later', { 'service-version': SEED }), 404, 'NOT_FOUND')
    const later = await get('/v1/later', { 'service-version': DEPTH })
    expect(later.statusCode).toBe(200)
    expect(later.json()).toEqual({ status: 'ok', message: 'pong' })
    const fake = { contractVersion: SEED } as FastifyRequest
    expect(routeServed(fake, undefined)).toBe(true)
    expect(routeServed(fake, SEED)).toBe(true)
    expect(routeServed(fake, DEPTH)).toBe(false)
    expect(routeServed({ contractVersion: DEPTH } as FastifyRequest, SEED)).toBe(true)
  })

  it("a query value a later version adds is refused in an earlier one as any invalid value; the route's own hooks still run", async () => {
    for (const url of ['/v1/topics', '/v1/topics-own', '/v1/topics-own-list']) {
      expect((await get(`${url}?topic=memory`, { 'service-version': DEPTH })).statusCode, url).toBe(200)
      expect((await get(`${url}?topic=pins`)).statusCode, url).toBe(200)
      const p = expectProblem(await get(`${url}?topic=memory`), 400, 'INVALID_PARAMETER', 'topic')
      expect(p.detail, url).toMatch(/^Parameter "topic" must be equal to one of the allowed values/)
      expectProblem(await get(`${url}?topic=memory`, { 'service-version': SEED }), 400, 'INVALID_PARAMETER', 'topic')
    }
    expect((await get('/v1/topics-own?topic=pins')).headers['x-own']).toBe('ran')
    expect((await get('/v1/topics-own-list?topic=memory', { 'service-version': DEPTH })).headers['x-own']).toBe('ran')
  })
})

describe('fact-route: the operation a /v1 route declares', () => {
  it('operationId, summary, description, the Service-Version header, the security of a scoped route and of an open one', async () => {
    const doc = (await bare({ contract: true, routes: factRoutes })).swagger() as Obj
    const plain = doc.paths['/v1/plain'].get
    expect(plain).toMatchObject({ operationId: 'getPlain', summary: 'S plain', description: 'D plain', security: [] })
    expect(plain.parameters.find((p: Obj) => p.in === 'header')).toMatchObject({ name: 'service-version', required: false, schema: { type: 'string', enum: [SEED, DEPTH] } })
    expect(plain.parameters.find((p: Obj) => p.in === 'header').description).toContain(`without it, ${SEED} applies`)
    expect(doc.paths['/v1/scoped'].get.security).toEqual([{}, { bearerAuth: [] }])
    expect(BEARER_ALTERNATIVES).toEqual([{}, { bearerAuth: [] }])
    // The 200 body by reference to its named schema.
    expect(plain.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/Ping')
  })

  it('every GET declares spec §7.2 statuses and those met before any route; a /v1 route adds 405 and 503', async () => {
    // §7.2: 400, 401, 403, 429, 500; before the route: 408 (slow request), 414 (long target), 431 (long head).
    expect([...GET_ERRORS].sort()).toEqual([400, 401, 403, 408, 414, 429, 431, 500])
    expect([...V1_GET_ERRORS].sort()).toEqual([400, 401, 403, 405, 408, 414, 429, 431, 500, 503])
    const plain = ((await bare({ contract: true, routes: factRoutes })).swagger() as Obj).paths['/v1/plain'].get
    expect(Object.keys(plain.responses).sort()).toEqual(['200', '400', '401', '403', '405', '408', '414', '429', '431', '500', '503'])
    for (const s of V1_GET_ERRORS) {
      const r = plain.responses[String(s)]
      expect(r.content['application/problem+json'].schema.$ref, String(s)).toBe('#/components/schemas/Problem')
      expect(r.description, String(s)).toMatch(/^Problem \(RFC 9457\): \S/)
    }
    expect(plain.responses['405'].description).toContain('`Allow: GET`')
  })

  it('errorResponses describes each status by when it is returned; 405 names the one method allowed', () => {
    const all = [400, 401, 403, 404, 405, 408, 413, 414, 429, 431, 500, 503]
    const out = errorResponses(all, 'POST') as Record<number, { description: string; content: unknown }>
    expect(Object.keys(out).map(Number)).toEqual(all)
    const texts = all.map((s) => out[s]!.description)
    for (const [i, d] of texts.entries()) expect(d, String(all[i])).toMatch(/^Problem \(RFC 9457\): \S.{10,}/)
    expect(new Set(texts).size).toBe(all.length)
    expect(out[405]!.description).toBe('Problem (RFC 9457): Any method other than POST on this path (`Allow: POST`); listed here as OpenAPI has no operation for the other methods.')
    expect((errorResponses([405]) as Obj)[405].description).toContain('`Allow: GET`')
    expect(out[414]!.description).toContain('8,192 bytes')
    // A status without a sentence keeps the plain Problem response.
    expect((errorResponses([418]) as Obj)[418]).toBeDefined()
    expect((errorResponses([418]) as Obj)[418].description ?? '').not.toMatch(/^Problem \(RFC 9457\): /)
  })

  it('cachedAnswer: the answer cache keyed by route@version and every parameter name, serialized by the route schema', async () => {
    const calls: Obj[] = []
    const Q = Type.Object({ a: Type.String(), b: Type.Optional(Type.String()) }, { additionalProperties: false })
    const facts = {
      answer: async (key: string, keys: string[], p: Obj, apiKey: unknown, make: (s: unknown) => unknown, serialize: (x: unknown) => string) => {
        calls.push({ key, keys, p, apiKey })
        return serialize(make('the-store'))
      }
    } as unknown as HardwareFacts
    let made: unknown[] = []
    const extra = async (a: FastifyInstance) => {
      a.decorateRequest('apiKey', null)
      factRoute(a, {
        url: '/v1/cached',
        operationId: 'getCached',
        summary: 'S',
        description: 'D',
        querystring: Q,
        response: Ping,
        handler: cachedAnswer(facts, 'cached', Q, (store, p, v) => {
          made = [store, p, v]
          return { status: 'ok', message: 'pong', extra: 'dropped by the schema' }
        })
      })
    }
    const a = await bare({ contract: true, routes: extra })
    const r = await a.inject({ url: '/v1/cached?a=1', headers: { 'service-version': DEPTH } })
    expect(r.statusCode, r.body).toBe(200)
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(JSON_TYPE).toBe('application/json; charset=utf-8')
    expect(r.body).toBe('{"status":"ok","message":"pong"}')
    expect(calls).toEqual([{ key: `cached@${DEPTH}`, keys: ['a', 'b'], p: { a: '1' }, apiKey: null }])
    expect(made).toEqual(['the-store', { a: '1' }, DEPTH])
    await a.inject({ url: '/v1/cached?a=2&b=3' })
    expect(calls[1]).toMatchObject({ key: `cached@${SEED}`, p: { a: '2', b: '3' } })
  })
})

describe('contract: each version document, frozen once', () => {
  it('is read only after the app is ready', () => {
    const c = new Contract()
    expect(() => c.json(SEED)).toThrow('contract read before the app was ready')
    expect(() => c.digest(SEED)).toThrow('contract read before the app was ready')
    expect(() => c.document(SEED)).toThrow('contract read before the app was ready')
  })

  it('per version: info.version the version, operations a later version adds left out, bytes and their sha256 digest', async () => {
    const a = await bare({ contract: true, routes: factRoutes })
    const c = new Contract()
    c.freeze(a)
    for (const v of [SEED, DEPTH] as const) {
      const bytes = c.json(v)
      const doc = JSON.parse(bytes) as Obj
      expect(c.document(v)).toEqual(doc)
      expect(doc.info.version).toBe(v)
      expect(c.digest(v)).toBe('sha256:' + createHash('sha256').update(bytes).digest('hex'))
      expect(c.identity(v)).toEqual({ version: v, openapi_sha256: c.digest(v) })
      expect(doc.paths['/v1/plain'].get.operationId).toBe('getPlain')
    }
    // /v1/later is 2026-12-01's: the seed document has no such path at all (not an empty item).
    expect(Object.hasOwn(c.document(SEED).paths, '/v1/later')).toBe(false)
    expect((c.document(DEPTH).paths as Obj)['/v1/later'].get.operationId).toBe('getLater')
    expect(c.digest(SEED)).not.toBe(c.digest(DEPTH))
    // Another freeze of the same app gives the same bytes.
    const again = new Contract()
    again.freeze(a)
    expect(again.json(SEED)).toBe(c.json(SEED))
  })
})

describe('after the first mutation run: what it left', () => {
  it('an escaped spelling of a POST-only route is that route: GET is 405 there too', async () => {
    const r = await get('/post-%6Fnly', {}, 'GET')
    expect(expectProblem(r, 405, 'METHOD_NOT_ALLOWED').detail).toBe('GET is not allowed on /post-only; use POST.')
    expect(r.headers.allow).toBe('POST')
  })

  it('a /v1 route declared for several methods, GET among them, answers only GET', async () => {
    expect((await get('/v1/multi')).statusCode).toBe(200)
    const r = await get('/v1/multi', {}, 'POST')
    expectProblem(r, 405, 'METHOD_NOT_ALLOWED')
    expect(r.headers.allow).toBe('GET')
  })

  it('factRoute puts the scope (for the auth hook) and the version (for the version hook) in the route config', async () => {
    const configs: Record<string, Obj> = {}
    await bare({
      contract: true,
      routes: async (a) => {
        a.addHook('onRoute', (r) => void (configs[r.url] = r.config as Obj))
        await factRoutes(a)
      }
    })
    expect(configs['/v1/scoped']).toMatchObject({ scope: 'facts:read' })
    expect(configs['/v1/plain']).not.toHaveProperty('scope')
    expect(configs['/v1/plain']).not.toHaveProperty('since')
    expect(configs['/v1/later']).toMatchObject({ since: DEPTH })
  })

  it('a route without integer or number parameters leaves its parameters to validation, whatever their names', async () => {
    for (const name of ['S', 't', 'u']) expectProblem(await get(`/v1/texts?${name}=1`), 400, 'UNKNOWN_PARAMETER', name)
    expect((await get('/v1/texts?s=0x10')).statusCode).toBe(200)
  })
})
