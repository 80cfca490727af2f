import { openSync, closeSync, writeSync } from 'node:fs'
import type { Socket } from 'node:net'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import problems, { clientErrorHandler, frameworkErrors, publicBase, refuseConnect, toServiceError } from '../../src/http/problem.js'
import { ERROR_CODES, ServiceError, fromStoreError, isErrorCode } from '../../src/service/errors.js'
import { StoreError } from '../../src/store/errors.js'
import { parseRaw, raw } from '../helpers/raw-http.js'
import { scratchDirs } from '../helpers/scratch.js'

/**
 * The Problem layer (src/http/problem.ts) on a minimal Fastify app of its own: no release, no other
 * plugin, so it is fast enough to run for every mutant of the `http-errors` mutation module. Expected
 * values come from the spec (§7 and the Problem shape: members, aliases, `param`), the status of each
 * code in the error table, and the documented rules (HTTP's statuses for the parser's errors, 503 for
 * a damaged release file, issue 30).
 */

type Obj = Record<string, any>
const tmp = scratchDirs()
const MEMBERS = ['type', 'title', 'status', 'detail', 'code', 'param', 'requestId', 'docUrl', 'error', 'message', 'request_id']

/** A Problem of `status`/`code`/`param` with every member the spec requires, its aliases equal, its links under `base`. */
function problem(res: { statusCode: number; headers: Obj; body: string }, status: number, code: string, param: string | null = null, base = 'http://localhost'): Obj {
  expect(res.statusCode, res.body).toBe(status)
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
  const p = JSON.parse(res.body) as Obj
  expect(Object.keys(p).filter((k) => k !== 'instance').sort()).toEqual([...MEMBERS].sort())
  expect(p).toMatchObject({ status, code, param, error: code, title: ERROR_CODES[code as keyof typeof ERROR_CODES].title })
  expect(p.message).toBe(p.detail)
  expect(typeof p.detail).toBe('string')
  expect(p.detail.length).toBeGreaterThan(0)
  expect(p.requestId).toBe(p.request_id)
  expect(p.requestId.length).toBeGreaterThan(0)
  expect(p.docUrl).toBe(`${base}/v1/error-codes/${code}`)
  expect(p.type).toBe(p.docUrl)
  return p
}

interface App {
  app: FastifyInstance
  port: number
  logs: Obj[]
  /** What the /boom route throws next. */
  throwNext: (make: () => unknown) => void
}

async function minimalApp(publicUrl?: string): Promise<App> {
  const logs: Obj[] = []
  let next: () => unknown = () => new Error('unset')
  const app = Fastify({
    logger: { level: 'info', stream: { write: (line: string) => void logs.push(JSON.parse(line)) } },
    clientErrorHandler: clientErrorHandler(publicUrl),
    frameworkErrors: frameworkErrors(publicUrl),
    requestTimeout: 600,
    http: { headersTimeout: 600, connectionsCheckingInterval: 100 },
    bodyLimit: 1024,
    routerOptions: { maxParamLength: 100 },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: true, allErrors: false } }
  })
  refuseConnect(app, publicUrl)
  await app.register(problems, publicUrl ? { publicUrl } : {})
  app.get('/boom', async () => {
    throw next()
  })
  app.get('/p/:id', async (req) => req.params)
  app.get(
    '/q',
    {
      schema: {
        querystring: {
          type: 'object',
          additionalProperties: false,
          required: ['part'],
          properties: { part: { type: 'string', minLength: 2 }, limit: { type: 'integer', maximum: 5 } }
        }
      }
    },
    async () => ({ ok: true })
  )
  app.post('/b', { schema: { body: { type: 'object', properties: { ids: { type: 'array', items: { type: 'integer' } } } } } }, async () => ({ ok: true }))
  const port = Number(new URL(await app.listen({ port: 0, host: '127.0.0.1' })).port)
  return { app, port, logs, throwNext: (make) => (next = make) }
}

let a: App
beforeAll(async () => {
  // Caught: a build that throws must fail the tests (a failing hook only skips them, which a mutation run counts as passing).
  a = await minimalApp().catch(() => undefined as unknown as App)
})
afterAll(async () => a?.app.close())

const boom = async (make: () => unknown) => {
  a.throwNext(make)
  return a.app.inject({ method: 'GET', url: '/boom?x=1' })
}
const withCode = (message: string, props: Obj) => Object.assign(new Error(message), props)
/** The error `f` throws (an error it does not throw fails the test). */
function catchOf(f: () => unknown): unknown {
  try {
    f()
  } catch (e) {
    return e
  }
  throw new Error('expected a throw')
}

describe('a thrown error leaves as the Problem of its code', () => {
  it('a ServiceError keeps its code, detail, param and headers; instance is the path without the query', async () => {
    const res = await boom(() => new ServiceError('NOT_READY', 'Nothing loaded yet.', 'part', { 'retry-after': '7' }))
    const p = problem(res, 503, 'NOT_READY', 'part')
    expect(p.detail).toBe('Nothing loaded yet.')
    expect(p.instance).toBe('/boom')
    expect(res.headers['retry-after']).toBe('7')
  })

  it('a StoreError of a damaged release is 503 RELEASE_UNAVAILABLE with its message', async () => {
    const p = problem(await boom(() => new StoreError('release-unavailable', 'shard 3 failed its digest')), 503, 'RELEASE_UNAVAILABLE')
    expect(p.detail).toBe('shard 3 failed its digest')
    const e = fromStoreError(new StoreError('release-unavailable', 'm'))
    expect([e.code, e.status, e.detail, e.param, e.headers]).toEqual(['RELEASE_UNAVAILABLE', 503, 'm', null, {}])
  })

  it('an error carrying one of our codes (thrown by a plugin) keeps it and its message', async () => {
    const p = problem(await boom(() => withCode('Come back later.', { code: 'NOT_READY' })), 503, 'NOT_READY')
    expect(p.detail).toBe('Come back later.')
    // A code that is not ours falls through to the status rules (here none: INTERNAL).
    problem(await boom(() => withCode('x', { code: 'FST_SOMETHING' })), 500, 'INTERNAL')
    // A thrown non-Error with our code but no message is not trusted as that Problem.
    problem(await boom(() => ({ code: 'NOT_READY' })), 500, 'INTERNAL')
    // Inherited names are not codes.
    expect(isErrorCode('toString')).toBe(false)
    expect(isErrorCode('NOT_READY')).toBe(true)
  })

  it('SQLite corruption after the release was opened is 503 RELEASE_UNAVAILABLE, logged, not 500', async () => {
    // A real file opened, then damaged under the open connection (issue 30: this became 500).
    const file = join(tmp(), 'r.sqlite')
    const w = new Database(file)
    w.exec('CREATE TABLE t(x TEXT)')
    const ins = w.prepare('INSERT INTO t VALUES (?)')
    w.transaction(() => {
      for (let i = 0; i < 2000; i++) ins.run(`row ${i} ${'x'.repeat(100)}`)
    })()
    w.close()
    const db = new Database(file, { readonly: true })
    const count = db.prepare('SELECT count(*), max(x) FROM t')
    const scribble = (at: number, bytes: number) => {
      const fd = openSync(file, 'r+')
      writeSync(fd, Buffer.alloc(bytes, 0xa5), 0, bytes, at)
      closeSync(fd)
    }
    scribble(4096, 20 * 4096)
    a.logs.length = 0
    const corrupt = problem(await boom(() => catchOf(() => count.get())), 503, 'RELEASE_UNAVAILABLE')
    expect(corrupt.detail).toMatch(/damaged/)
    expect(a.logs.find((l) => l.msg === 'release file damaged')).toMatchObject({ level: 50, err: { code: 'SQLITE_CORRUPT' } })
    // The header overwritten: SQLITE_NOTADB.
    scribble(0, 100)
    problem(await boom(() => catchOf(() => count.get())), 503, 'RELEASE_UNAVAILABLE')
    db.close()
    // An extended corruption code is corruption too; another SQLite failure is not the release's fault.
    problem(await boom(() => withCode('index corrupt', { code: 'SQLITE_CORRUPT_INDEX' })), 503, 'RELEASE_UNAVAILABLE')
    problem(await boom(() => withCode('database is locked', { code: 'SQLITE_BUSY' })), 500, 'INTERNAL')
  })

  it('errors with an HTTP status become the code for that status', async () => {
    const cases: Array<[number, string, string, string]> = [
      [413, 'too big', 'PAYLOAD_TOO_LARGE', ''],
      [415, 'bad type', 'UNSUPPORTED_MEDIA_TYPE', ''],
      [400, 'Bad thing here', 'INVALID_PARAMETER', 'Bad thing here'],
      [404, 'gone', 'NOT_FOUND', 'No such resource.'],
      [429, 'Slow down', 'RATE_LIMITED', 'Slow down']
    ]
    for (const [statusCode, message, code, detail] of cases) {
      const p = problem(await boom(() => withCode(message, { statusCode })), ERROR_CODES[code as keyof typeof ERROR_CODES].status, code)
      if (detail) expect(p.detail).toBe(detail)
    }
    // Without a message, a fixed one.
    expect(problem(await boom(() => withCode('', { statusCode: 400 })), 400, 'INVALID_PARAMETER').detail).toBe('The request is malformed.')
    expect(problem(await boom(() => withCode('', { statusCode: 429 })), 429, 'RATE_LIMITED').detail).toBe('Rate limit exceeded.')
  })

  it('anything else is 500 INTERNAL without its message, logged as unexpected', async () => {
    a.logs.length = 0
    const p = problem(await boom(() => new TypeError('secret internals')), 500, 'INTERNAL')
    expect(p.detail).not.toMatch(/secret/)
    expect(p.detail).toMatch(/requestId/)
    expect(a.logs.find((l) => l.msg === 'unexpected error')).toMatchObject({ level: 50, err: { message: 'secret internals' } })
    problem(await boom(() => withCode('teapot', { statusCode: 418 })), 500, 'INTERNAL')
  })

  it('an unknown route is 404 NOT_FOUND naming method and path, not the query', async () => {
    const p = problem(await a.app.inject({ method: 'GET', url: '/nope?secret=1' }), 404, 'NOT_FOUND')
    expect(p.detail).toBe('No route GET /nope.')
    expect(p.instance).toBe('/nope')
  })

  it('docUrl and type point into the configured public URL, without a doubled slash', async () => {
    expect(publicBase()).toBe('http://localhost')
    expect(publicBase('https://hw.example/')).toBe('https://hw.example')
    expect(publicBase('https://hw.example//')).toBe('https://hw.example')
    expect(publicBase('https://hw.example/api/')).toBe('https://hw.example/api')
    const b = await minimalApp('https://hw.example/')
    try {
      const res = await b.app.inject({ method: 'GET', url: '/nope' })
      problem(res, 404, 'NOT_FOUND', null, 'https://hw.example')
      problem(parseRaw((await raw(b.port, ['BREW / HTTP/1.1\r\nHost: x\r\n\r\n'])).text), 400, 'MALFORMED_REQUEST', null, 'https://hw.example')
    } finally {
      await b.app.close()
    }
  })
})

describe('validation failures name the parameter', () => {
  const q = (url: string) => a.app.inject({ method: 'GET', url })
  it('an unknown parameter is UNKNOWN_PARAMETER with its name', async () => {
    const p = problem(await q('/q?part=ab&bogus=1'), 400, 'UNKNOWN_PARAMETER', 'bogus')
    expect(p.detail).toMatch(/"bogus"/)
  })
  it('a missing one is MISSING_PARAMETER with its name', async () => {
    const p = problem(await q('/q?limit=3'), 400, 'MISSING_PARAMETER', 'part')
    expect(p.detail).toMatch(/"part"/)
  })
  it('an invalid one is INVALID_PARAMETER naming the top-level member, with the validator message', async () => {
    const p = problem(await q('/q?part=ab&limit=9'), 400, 'INVALID_PARAMETER', 'limit')
    expect(p.detail).toMatch(/^Parameter "limit" must be <= 5\.$/)
    const item = problem(await a.app.inject({ method: 'POST', url: '/b', payload: { ids: [1, 'x'] } }), 400, 'INVALID_PARAMETER', 'ids')
    expect(item.detail).toMatch(/^Parameter "ids" /)
  })
  it('a whole body of the wrong type names the part of the request instead, param null', async () => {
    const p = problem(await a.app.inject({ method: 'POST', url: '/b', payload: [1] }), 400, 'INVALID_PARAMETER', null)
    expect(p.detail).toMatch(/^Parameter "body" must be object\.$/)
  })
  it('without a context or a message, "request" and "is invalid"', () => {
    const req = { log: { error: () => {} } } as unknown as FastifyRequest
    const err = Object.assign(new Error('x'), { validation: [{ keyword: 'type', instancePath: '', params: {} }] })
    const e = toServiceError(err, req)
    expect([e.code, e.param, e.detail]).toEqual(['INVALID_PARAMETER', null, 'Parameter "request" is invalid.'])
  })
  it('a body too large is 413, one of another type 415, bad JSON 400', async () => {
    problem(await a.app.inject({ method: 'POST', url: '/b', payload: { ids: Array(600).fill(1) } }), 413, 'PAYLOAD_TOO_LARGE')
    problem(await a.app.inject({ method: 'POST', url: '/b', payload: '<ids/>', headers: { 'content-type': 'application/xml' } }), 415, 'UNSUPPORTED_MEDIA_TYPE')
    problem(await a.app.inject({ method: 'POST', url: '/b', payload: '{', headers: { 'content-type': 'application/json' } }), 400, 'INVALID_PARAMETER')
  })
})

describe("the router's own refusals (frameworkErrors), with the security headers no hook set", () => {
  const send = async (text: string) => parseRaw((await raw(a.port, [text])).text)
  it('a path segment over the router limit is 414 URI_TOO_LONG', async () => {
    const res = await send(`GET /p/${'a'.repeat(101)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
    problem(res, 414, 'URI_TOO_LONG')
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(res.headers['cache-control']).toBe('no-store')
    // 100 is within it.
    expect((await send(`GET /p/${'a'.repeat(100)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)).statusCode).toBe(200)
  })
  it('a bad percent-escape is 400 MALFORMED_REQUEST', async () => {
    const res = await send('GET /p/%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    expect(problem(res, 400, 'MALFORMED_REQUEST').detail).toMatch(/percent-escape/)
    expect(res.headers['x-content-type-options']).toBe('nosniff')
    expect(res.headers['cache-control']).toBe('no-store')
  })
})

describe("the HTTP parser's errors are written to the socket as Problems, then the connection is closed", () => {
  /** A raw answer: the Problem, the status line's reason, headers exact, the log line with the same request id. */
  async function rawProblem(text: string, status: number, reason: string, code: string, why: string): Promise<Obj> {
    a.logs.length = 0
    const r = await raw(a.port, [text])
    const res = parseRaw(r.text)
    expect(r.text.startsWith(`HTTP/1.1 ${status} ${reason}\r\n`), r.text.slice(0, 80)).toBe(true)
    const p = problem(res, status, code)
    expect(p.instance).toBeUndefined()
    expect(res.headers).toEqual({
      'content-type': 'application/problem+json',
      'content-length': String(Buffer.byteLength(res.body)),
      'x-request-id': p.requestId,
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-store',
      connection: 'close'
    })
    expect(a.logs.filter((l) => l.msg === 'client error')).toEqual([expect.objectContaining({ level: 30, reqId: p.requestId, code: why })])
    return p
  }

  it('headers over 16 KiB after a short request line: 431', async () => {
    await rawProblem(`GET /p/x HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'Request Header Fields Too Large', 'HEADERS_TOO_LARGE', 'HPE_HEADER_OVERFLOW')
  })
  it('a request line over 8 KiB in an overflowing head, or one that never ends within it: 414', async () => {
    await rawProblem(`GET /p/${'a'.repeat(9000)} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(9000)}\r\n\r\n`, 414, 'URI Too Long', 'URI_TOO_LONG', 'HPE_HEADER_OVERFLOW')
    await rawProblem(`GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 414, 'URI Too Long', 'URI_TOO_LONG', 'HPE_HEADER_OVERFLOW')
    await rawProblem(`GET /${'a'.repeat(20_000)}`, 414, 'URI Too Long', 'URI_TOO_LONG', 'HPE_HEADER_OVERFLOW')
    // A request line of exactly 8 KiB (its target shorter still) is not a long URL: the headers overflowed.
    const line = `GET /p/${'a'.repeat(8192 - 'GET /p/ HTTP/1.1'.length)} HTTP/1.1`
    expect(line.length).toBe(8192)
    await rawProblem(`${line}\r\nHost: x\r\nX-Big: ${'a'.repeat(9000)}\r\n\r\n`, 431, 'Request Header Fields Too Large', 'HEADERS_TOO_LARGE', 'HPE_HEADER_OVERFLOW')
  })
  it('an unknown method: 400 saying so', async () => {
    const p = await rawProblem('BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'Bad Request', 'MALFORMED_REQUEST', 'HPE_INVALID_METHOD')
    expect(p.detail).toMatch(/method/)
  })
  it('a broken header: 400, not parsed', async () => {
    const p = await rawProblem('GET /p/x HTTP/1.1\r\nHost x\r\n\r\n', 400, 'Bad Request', 'MALFORMED_REQUEST', 'HPE_INVALID_HEADER_TOKEN')
    expect(p.detail).toMatch(/could not be parsed/)
  })
  it('a request that does not arrive in time: 408', async () => {
    a.logs.length = 0
    const r = await raw(a.port, ['GET /p/x HTTP/1.1\r\n', 'Host: x\r\n'], 50, 5000)
    const p = problem(parseRaw(r.text), 408, 'REQUEST_TIMEOUT')
    expect(p.detail).toMatch(/in time/)
    expect(parseRaw(r.text).headers.connection).toBe('close')
  })
  it('CONNECT: 400, this is not a proxy', async () => {
    const p = await rawProblem('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 400, 'Bad Request', 'MALFORMED_REQUEST', 'CONNECT')
    expect(p.detail).toMatch(/CONNECT/)
  })

  /** A stand-in socket: what was written, whether it was destroyed. */
  function fakeSocket(state: { writable: boolean; destroyed: boolean }) {
    const s = { ...state, written: [] as string[], write: (t: string) => void s.written.push(t), destroy: () => void (s.destroyed = true) }
    return s
  }
  const log = { info: () => {} }
  it('a reset connection, or one already gone, gets nothing; an unwritable one is only closed', () => {
    const handler = clientErrorHandler(undefined)
    const reset = fakeSocket({ writable: true, destroyed: false })
    handler.call({ log } as never, withCode('reset', { code: 'ECONNRESET' }), reset as unknown as Socket)
    expect([reset.written, reset.destroyed]).toEqual([[], false])
    const gone = fakeSocket({ writable: true, destroyed: true })
    handler.call({ log } as never, withCode('bad', { code: 'HPE_INVALID_METHOD' }), gone as unknown as Socket)
    expect(gone.written).toEqual([])
    const unwritable = fakeSocket({ writable: false, destroyed: false })
    handler.call({ log } as never, withCode('bad', { code: 'HPE_INVALID_METHOD' }), unwritable as unknown as Socket)
    expect([unwritable.written, unwritable.destroyed]).toEqual([[], true])
  })
})
