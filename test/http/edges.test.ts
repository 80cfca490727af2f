import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mcpRoute } from '../../src/mcp/route.js'
import { testApp, type TestApp } from '../helpers/app.js'
import { corpusDataDir } from '../helpers/corpus-release.js'
import { expectProblem } from '../helpers/problem.js'
import { parseRaw, raw } from '../helpers/raw-http.js'

/** Hostile-run edges of the HTTP layer (issue 29), over raw sockets where a client library would not send them. */
let t: TestApp
let port: number

beforeAll(async () => {
  t = await testApp(await corpusDataDir(), { plugins: [mcpRoute()] })
  port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port)
})
afterAll(async () => t?.close())

const send = async (text: string) => parseRaw((await raw(port, [text])).text)
const get = (target: string, headers = '') => send(`GET ${target} HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`)

describe('6: requests the router never sees, each a Problem with its documented status', () => {
  it('a request target over 8 KiB is 414 (below the 16 KiB Node allows the head); 8 KiB exactly is served', async () => {
    // "GET " + target: the target is what counts. 8,192 bytes of target are served, 8,193 are not.
    const at = (n: number) => `/v1/error-codes/NOT_FOUND?x=${'a'.repeat(n - '/v1/error-codes/NOT_FOUND?x='.length)}`
    expect(at(8192).length).toBe(8192)
    const over = await get(at(8193), `Authorization: ${t.auth.authorization}\r\n`)
    expectProblem(over, 414, 'URI_TOO_LONG', 'x')
    // 12 KiB and 15 KiB: between the promised 8 KiB and Node's 16 KiB.
    for (const n of [12 * 1024, 15 * 1024]) expectProblem(await get(`/v1/parts/resolve?q=${'b'.repeat(n)}`, `Authorization: ${t.auth.authorization}\r\n`), 414, 'URI_TOO_LONG', 'q')
    // Exactly 8 KiB passes the check and reaches the route (an unknown parameter there, not a 414).
    expectProblem(await get(at(8192), `Authorization: ${t.auth.authorization}\r\n`), 400, 'UNKNOWN_PARAMETER', 'x')
  })

  it('an HTTP/1.1 request without Host is a 400 Problem naming Host; HTTP/1.0 needs none', async () => {
    const p = expectProblem(await send('GET /ping HTTP/1.1\r\nConnection: close\r\n\r\n'), 400, 'MALFORMED_REQUEST', 'Host')
    expect(p.detail).toMatch(/Host/)
    expect((await send('GET /ping HTTP/1.0\r\n\r\n')).statusCode).toBe(200)
  })

  it('CONNECT is answered with a 400 Problem, then the connection is closed', async () => {
    const r = await raw(port, ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'])
    const p = expectProblem(parseRaw(r.text), 400, 'MALFORMED_REQUEST')
    expect(p.detail).toMatch(/CONNECT/)
    expect(parseRaw(r.text).headers.connection).toBe('close')
  })

  it('an escaped spelling of a /v1 route is that route: HEAD and POST are 405, GET is served', async () => {
    for (const method of ['HEAD', 'POST', 'DELETE']) {
      const r = await send(`${method} /v1/%63ontext?part=STM32F407VG&topic=pins HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`)
      expect(r.statusCode, method).toBe(405)
      expect(r.headers.allow).toBe('GET')
      if (method !== 'HEAD') expectProblem(r, 405, 'METHOD_NOT_ALLOWED')
    }
    // A path parameter's segment escaped too: /v1/error-codes/:code.
    expect((await send('POST /v1/error%2Dcodes/NOT_FOUND HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')).statusCode).toBe(405)
    // The router serves the escaped GET (so the 405 is about the same resource).
    expect((await get('/v1/%63ontext?part=STM32F407VG&topic=pins', `Authorization: ${t.auth.authorization}\r\n`)).statusCode).toBe(200)
    // An encoded slash stays inside its segment: no route, 404 for any method.
    expectProblem(await send('POST /v1/parts%2Fresolve HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'), 404, 'NOT_FOUND')
  })
})

describe('11: the query string is read strictly, and every limit is a Problem naming the parameter', () => {
  const auth = () => `Authorization: ${t.auth.authorization}\r\n`

  it('a malformed percent-escape or a NUL byte in a parameter is 400 MALFORMED_REQUEST naming it, not text', async () => {
    for (const q of ['%ZZ', 'STM%2', 'STM32%00F4', '%E0%A4%A']) expectProblem(await get(`/v1/parts/resolve?q=${q}`, auth()), 400, 'MALFORMED_REQUEST', 'q')
    // In the name too: a NUL or a bad escape in a parameter's name.
    expectProblem(await get('/v1/parts/resolve?q=STM32F4&candidate%00limit=3', auth()), 400, 'MALFORMED_REQUEST', 'candidate\0limit')
    // Well-formed escapes (and + for a space) are still decoded: "STM32F407VG" spelled with escapes.
    const r = await get('/v1/parts/resolve?q=%53TM32F407VG', auth())
    expect(r.statusCode, r.body).toBe(200)
  })

  it('a parameter given twice is 400 INVALID_PARAMETER saying so, not "must be string"', async () => {
    const p = expectProblem(await get('/v1/parts/resolve?q=STM32F4&q=STM32F1', auth()), 400, 'INVALID_PARAMETER', 'q')
    expect(p.detail).toBe('Parameter "q" is given twice; give it once.')
    // The same name spelled with an escape is the same parameter.
    expectProblem(await get('/v1/context?part=STM32F407VG&topic=pins&%74opic=registers', auth()), 400, 'INVALID_PARAMETER', 'topic')
  })

  it('fact_names and query over 2,000 characters are 400 naming them; 2,000 are served', async () => {
    const ctx = '/v1/context?part=STM32F407VG&topic=registers'
    expectProblem(await get(`${ctx}&fact_names=${'A'.repeat(2001)}`, auth()), 400, 'INVALID_PARAMETER', 'fact_names')
    expectProblem(await get(`${ctx}&query=${'a'.repeat(2001)}`, auth()), 400, 'INVALID_PARAMETER', 'query')
    expect((await get(`${ctx}&fact_names=${'A'.repeat(2000)}`, auth())).statusCode).toBe(200)
  })

  it('a request target over 8 KiB names the parameter that takes most of it', async () => {
    // 2,000 characters of query, each a 3-byte character escaped as 9 bytes: 18,000 bytes > 16 KiB is
    // cut by Node's parser; 950 of them (8,550 bytes, "query=" and all 8,556) fit its head but not the 8 KiB target.
    const p = expectProblem(await get(`/v1/context?part=STM32F407VG&topic=registers&query=${'%E2%82%AC'.repeat(950)}`, auth()), 414, 'URI_TOO_LONG', 'query')
    expect(p.detail).toContain('"query", takes 8556)')
  })
})

describe('8: X-Request-Id', () => {
  it('a UUID is the request id; any other value is not echoed but logged apart as clientRequestId', async () => {
    const lines: Array<Record<string, any>> = []
    const logged = await testApp(await corpusDataDir(), { logger: { level: 'info', stream: { write: (l: string) => void lines.push(JSON.parse(l)) } } })
    try {
      const uuid = '0F8FAD5B-D9CB-469F-A165-70867728950E'
      expect((await logged.app.inject({ url: '/ping', headers: { 'x-request-id': uuid } })).headers['x-request-id']).toBe(uuid.toLowerCase())
      const forged = 'admin-session-1\u2028'
      const res = await logged.app.inject({ url: '/ping', headers: { 'x-request-id': forged } })
      const ours = res.headers['x-request-id'] as string
      expect(ours).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      const mine = lines.filter((l) => l.reqId === ours)
      expect(mine.length).toBeGreaterThan(0)
      for (const l of mine) expect(l.clientRequestId).toBe(forged)
      // The UUID's own lines carry no clientRequestId (it is the request id).
      for (const l of lines.filter((l) => l.reqId === uuid.toLowerCase())) expect(l.clientRequestId).toBeUndefined()
      // A long value is logged cut to 128 characters.
      const long = await logged.app.inject({ url: '/ping', headers: { 'x-request-id': 'z'.repeat(300) } })
      expect(lines.find((l) => l.reqId === long.headers['x-request-id'])!.clientRequestId).toBe('z'.repeat(128))
    } finally {
      await logged.close()
    }
  })
})

describe('10: the contract declares the statuses the service returns', () => {
  it('every /v1 GET declares 405, 408, 414, 431 (and 503) as Problems; /mcp 405 with POST; error-codes 404', async () => {
    const doc = JSON.parse((await t.app.inject({ url: '/openapi.json' })).body)
    const problem = (op: any, s: string) => op.responses[s]?.content?.['application/problem+json']
    const v1 = Object.entries(doc.paths as Record<string, any>).filter(([p]) => p.startsWith('/v1/'))
    expect(v1.length).toBeGreaterThan(8)
    for (const [path, item] of v1) {
      for (const s of ['400', '401', '403', '405', '408', '414', '429', '431', '500']) expect(problem(item.get, s), `${path} ${s}`).toBeDefined()
      expect(item.get.responses['405'].description, path).toMatch(/other than GET.*Allow: GET/)
      expect(item.get.responses['414'].description, path).toMatch(/8,192 bytes/)
    }
    expect(problem(doc.paths['/v1/context'].get, '503')).toBeDefined()
    expect(problem(doc.paths['/v1/error-codes/{code}'].get, '404')).toBeDefined()
    const mcp = doc.paths['/mcp'].post
    for (const s of ['401', '403', '405', '408', '414', '429', '431']) expect(problem(mcp, s), `/mcp ${s}`).toBeDefined()
    expect(mcp.responses['405'].description).toMatch(/other than POST.*Allow: POST/)
    for (const p of ['/ping', '/readyz', '/openapi.json']) for (const s of ['408', '414', '431']) expect(problem(doc.paths[p].get, s), `${p} ${s}`).toBeDefined()
  })
})

describe('11: the count limits of name lists are in the contract and answered naming the parameter', () => {
  it('fact_names and fact_name_prefixes: at most 100 each, documented and a Problem past it', async () => {
    const doc = JSON.parse((await t.app.inject({ url: '/openapi.json' })).body)
    const params = doc.paths['/v1/context'].get.parameters as Array<{ name: string; description?: string; schema: { maxLength?: number } }>
    for (const name of ['fact_names', 'fact_name_prefixes']) {
      const p = params.find((x) => x.name === name)!
      expect(p.description ?? '', name).toMatch(/at most 100/)
      expect(p.schema.maxLength, name).toBe(2000)
    }
    const ctx = '/v1/context?part=STM32F407VG&topic=registers'
    // 101 distinct names of 2 to 4 characters: within 2,000 characters, past 100 names.
    const list = Array.from({ length: 101 }, (_, i) => `N${i}`).join(',')
    expectProblem(await get(`${ctx}&fact_names=${list}`, `Authorization: ${t.auth.authorization}\r\n`), 400, 'INVALID_PARAMETER', 'fact_names')
    expectProblem(await get(`${ctx}&fact_name_prefixes=${list}`, `Authorization: ${t.auth.authorization}\r\n`), 400, 'INVALID_PARAMETER', 'fact_name_prefixes')
    expect((await get(`${ctx}&fact_names=${list.slice(0, list.lastIndexOf(','))}`, `Authorization: ${t.auth.authorization}\r\n`)).statusCode).toBe(200)
  })
})
