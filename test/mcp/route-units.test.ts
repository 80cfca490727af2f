import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Contract } from '../../src/http/contract.js'
import { registerContract } from '../../src/http/routes/openapi.js'
import { acceptWeight, invalidParams, jsonDepth, MAX_JSON_DEPTH, mcpRoute, wantsSse } from '../../src/mcp/route.js'
import { TOOLS } from '../../src/mcp/tools.js'
import { ServiceError } from '../../src/service/errors.js'

/**
 * POST /mcp through app.inject (no listening server): each answer the route itself decides, as the
 * spec (§4, JsonRpcRequest/JsonRpcError) and the route's documented description name it. Most on
 * the route alone in a bare Fastify app (the contract's schemas, no release: cheap to build); what
 * the app's hooks add (credential, rate limit, Service-Version) on the app over the corpus release.
 * Raw-socket behaviour (chunked bodies, closing connections) is in http.test.ts.
 */
type Obj = Record<string, any>
const MAX = 2048
let bare: FastifyInstance

/**
 * A fresh app for each test: built once in a beforeAll, the route's set-up would be attributed to
 * the first test alone, and a mutation run would try a mutant of it against that test only.
 */
beforeEach(async () => {
  bare = Fastify()
  await registerContract(bare, {})
  // A header set before the handler, as the app's hooks set theirs; a limit as the rate limiter sets it (counted: 4 of 5 left).
  bare.addHook('onRequest', async (req, reply) => {
    reply.header('x-hook', 'set')
    reply.header('x-ratelimit-limit', 5)
    reply.header('x-ratelimit-remaining', req.headers['x-uncounted'] ? 5 : 4)
  })
  // Failures of the hooks before the handler, as the app's (Service-Version, auth, the rate limiter's plain object).
  let thrown: unknown
  bare.addHook('onRequest', async (req) => {
    const kind = req.headers['x-fail']
    if (kind === 'version') thrown = new ServiceError('UNSUPPORTED_SERVICE_VERSION', 'Service-Version 2020-01-01 is not offered.')
    else if (kind === 'auth') thrown = new ServiceError('UNAUTHENTICATED', 'no key')
    else if (kind === 'plain') thrown = { statusCode: 429, code: 'RATE_LIMITED', message: 'slow down' }
    else if (kind === 'plain-silent') thrown = { statusCode: 429, code: 'RATE_LIMITED' }
    else return
    throw thrown
  })
  // The app's handler: says what reached it.
  bare.setErrorHandler((err: Obj, _req, reply) => {
    void reply.code(599).send({ isError: err instanceof Error, code: err.code, message: err.message, statusCode: err.statusCode ?? null, same: err === thrown })
  })
  // The tools that a test calls need no release (get_error_code).
  const ctx = { facts: {} as never, keys: {} as never, contract: new Contract() }
  await bare.register(async (scope) => mcpRoute({ maxBytes: MAX, publicUrl: 'https://facts.example' })(scope, ctx))
  await bare.ready()
})
afterEach(async () => bare?.close())

const PING = { jsonrpc: '2.0', id: 1, method: 'ping' }

function post(body: unknown, headers: Record<string, string> = {}, app: FastifyInstance = bare, auth: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...auth, ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body)
  })
}

/** A JsonRpcError (spec: exactly jsonrpc, error, id), with its status, code, id and data. */
function expectRpcError(res: LightMyRequestResponse, status: number, code: number, id: unknown, data: Obj, message: RegExp): Obj {
  expect(res.statusCode).toBe(status)
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8')
  const body = res.json() as Obj
  expect(body).toEqual({ jsonrpc: '2.0', error: { code, message: expect.stringMatching(message), data }, id })
  return body
}

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`

describe('jsonDepth', () => {
  it('counts brackets and braces outside strings', () => {
    expect(jsonDepth('')).toBe(0)
    expect(jsonDepth('1')).toBe(0)
    expect(jsonDepth('{}')).toBe(1)
    expect(jsonDepth('[[1],[2]]')).toBe(2)
    expect(jsonDepth('{"a":[{"b":[]}]}')).toBe(4)
    // The deepest point counts, not the last.
    expect(jsonDepth('[[[]]],[]')).toBe(3)
    expect(jsonDepth(nested(40))).toBe(40)
    // Closing braces and brackets both step back out: siblings are not deeper.
    expect(jsonDepth('[{},{},{}]')).toBe(2)
    expect(jsonDepth('{"a":{},"b":{},"c":[]}')).toBe(2)
  })

  it('skips brackets inside strings, escaped quotes included', () => {
    expect(jsonDepth('{"a":"[[[{{{"}')).toBe(1)
    expect(jsonDepth('["\\"[[[", 1]')).toBe(1)
    expect(jsonDepth('["\\\\", [[]]]')).toBe(3)
    expect(jsonDepth('"]]]]" [[]]')).toBe(2)
  })
})

describe('acceptWeight and wantsSse', () => {
  it('the most specific matching range decides (RFC 9110 §12.5.1)', () => {
    expect(acceptWeight('text/event-stream', 'text/event-stream')).toBe(1)
    expect(acceptWeight('text/event-stream;q=0.5', 'text/event-stream')).toBe(0.5)
    expect(acceptWeight('*/*;q=0.2', 'text/event-stream')).toBe(0.2)
    expect(acceptWeight('text/*;q=0.3', 'text/event-stream')).toBe(0.3)
    // Specific over a type range over any, whatever the order.
    expect(acceptWeight('text/event-stream;q=0.7, text/*;q=0.3, */*;q=0.1', 'text/event-stream')).toBe(0.7)
    expect(acceptWeight('*/*;q=0.1, text/*;q=0.3', 'text/event-stream')).toBe(0.3)
    expect(acceptWeight('text/*;q=0.3, */*;q=0.1', 'text/event-stream')).toBe(0.3)
    expect(acceptWeight('*/*;q=0.1, text/event-stream;q=0', 'text/event-stream')).toBe(0)
    // Nothing matches: 0.
    expect(acceptWeight('application/json', 'text/event-stream')).toBe(0)
    expect(acceptWeight('application/*', 'text/event-stream')).toBe(0)
    expect(acceptWeight('', 'text/event-stream')).toBe(0)
  })

  it('reads case-insensitively, with spaces around parameters, and an unreadable q as 0', () => {
    expect(acceptWeight('Text/Event-Stream ; Q=0.4', 'text/event-stream')).toBe(0.4)
    expect(acceptWeight('text/event-stream; charset=utf-8; q=0.6', 'text/event-stream')).toBe(0.6)
    expect(acceptWeight('text/event-stream;q=high', 'text/event-stream')).toBe(0)
    expect(acceptWeight('text/event-stream;level=1', 'text/event-stream')).toBe(1)
  })

  it('SSE only when text/event-stream outweighs application/json', () => {
    expect(wantsSse(undefined)).toBe(false)
    expect(wantsSse('')).toBe(false)
    expect(wantsSse('text/event-stream')).toBe(true)
    expect(wantsSse('text/event-stream, application/json')).toBe(false)
    expect(wantsSse('text/event-stream, application/json;q=0.9')).toBe(true)
    expect(wantsSse('application/json;q=0.9, text/event-stream;q=0.9')).toBe(false)
  })
})

describe('invalidParams', () => {
  it('names the first member of params that does not fit a known method', () => {
    expect(invalidParams({ method: 'ping' })).toBeUndefined()
    expect(invalidParams({ method: 'tools/list', params: {} })).toBeUndefined()
    expect(invalidParams({ method: 'tools/call', params: { name: 'get_release' } })).toBeUndefined()
    // An unknown method: the SDK answers -32601.
    expect(invalidParams({ method: 'no/such/method', params: { name: 5 } })).toBeUndefined()
    expect(invalidParams({ method: 'tools/call', params: { name: 5 } })).toMatch(/^params\.name: \S/)
    expect(invalidParams({ method: 'tools/call', params: { name: 'x', arguments: 'y' } })).toMatch(/^params\.arguments: \S/)
    expect(invalidParams({ method: 'tools/call' })).toMatch(/^params: \S/)
    expect(invalidParams({ method: 'notifications/cancelled', params: { requestId: {} } })).toMatch(/^params\.requestId: \S/)
  })
})

describe('POST /mcp', () => {
  it('answers a request with its JSON-RPC response, as application/json, with the hooks\' headers', async () => {
    const res = await post(PING)
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} })
    // Set by hooks before the reply was hijacked: still there.
    expect(res.headers['x-hook']).toBe('set')
    expect([res.headers['x-ratelimit-limit'], res.headers['x-ratelimit-remaining']]).toEqual(['5', '4'])
    expect(res.headers.connection).not.toBe('close')
    // A limit that was not counted (remaining = limit: the shared store failed) is not promised.
    const uncounted = await post(PING, { 'x-uncounted': '1' })
    expect(uncounted.statusCode).toBe(200)
    expect(uncounted.headers['x-ratelimit-limit']).toBeUndefined()
    expect(uncounted.headers['x-hook']).toBe('set')
  })

  it('answers JSON when the client sends no Accept, or accepts only one of the two types', async () => {
    for (const accept of [undefined, 'application/json', '*/*']) {
      const res = await bare.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', ...(accept ? { accept } : {}) }, payload: JSON.stringify(PING) })
      expect(res.statusCode, String(accept)).toBe(200)
      expect(res.json(), String(accept)).toEqual({ jsonrpc: '2.0', id: 1, result: {} })
    }
  })

  it('answers an SSE stream of the one response when the client prefers text/event-stream', async () => {
    const res = await post({ ...PING, id: 'sse' }, { accept: 'text/event-stream' })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/)
    const data = res.body.split('\n').find((l) => l.startsWith('data: '))!
    expect(JSON.parse(data.slice(6))).toEqual({ jsonrpc: '2.0', id: 'sse', result: {} })
  })

  it('says Connection: close when the client asks to close, in either form of the answer', async () => {
    for (const accept of ['application/json', 'text/event-stream'])
      for (const connection of ['close', 'Close', 'keep-alive, close', 'close ,x']) {
        const res = await post(PING, { accept, connection })
        expect(res.statusCode).toBe(200)
        expect(res.headers.connection, `${accept} ${connection}`).toBe('close')
      }
    for (const connection of ['keep-alive', 'closed', 'unclose']) expect((await post(PING, { accept: 'text/event-stream', connection })).headers.connection, connection).not.toBe('close')
  })

  it('a tool call runs the tool', async () => {
    const res = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_error_code', arguments: { code: 'INVALID_CURSOR' } } })
    expect(res.statusCode).toBe(200)
    expect(res.json().result.structuredContent.code).toBe('INVALID_CURSOR')
  })

  it('202 without a body for a notification; also when its params do not fit', async () => {
    for (const n of [{ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: {} } }]) {
      const res = await post(n)
      expect(res.statusCode).toBe(202)
      expect(res.body).toBe('')
    }
  })

  it('members beyond the JSON-RPC ones are allowed', async () => {
    const res = await post({ ...PING, extra: { x: 1 } })
    expect(res.json()).toEqual({ jsonrpc: '2.0', id: 1, result: {} })
  })

  it('echoes a string or integer id, 0 and negative ones included; any other id is null', async () => {
    for (const id of ['a', 0, -3, 2 ** 40]) expectRpcError(await post({ jsonrpc: '2.0', id, method: 'tools/list', params: 'all' }), 400, -32600, id, { code: 'INVALID_JSON_RPC' }, /^Invalid Request: the body must be a JSON-RPC 2\.0 request object/)
    for (const id of [1.5, true, null, 2 ** 60]) expectRpcError(await post({ jsonrpc: '2.0', id, method: 'tools/list', params: 'all' }), 400, -32600, null, { code: 'INVALID_JSON_RPC' }, /^Invalid Request: /)
  })

  it('400 -32700 for a body that is not JSON', async () => {
    expectRpcError(await post('{"jsonrpc": "2.0", '), 400, -32700, null, { code: 'INVALID_JSON_RPC' }, /^Parse error: \S/)
    expectRpcError(await post(''), 400, -32700, null, { code: 'INVALID_JSON_RPC' }, /^Parse error: \S/)
  })

  it('400 -32600 for a batch, or a body that is not a JSON-RPC 2.0 request object', async () => {
    expectRpcError(await post([PING, { ...PING, id: 2 }]), 400, -32600, null, { code: 'INVALID_JSON_RPC' }, /^Invalid Request: JSON-RPC batches are not supported/)
    expectRpcError(await post({ jsonrpc: '2.0', id: 3 }), 400, -32600, 3, { code: 'INVALID_JSON_RPC' }, /^Invalid Request: the body must be a JSON-RPC 2\.0 request object/)
    expectRpcError(await post({ jsonrpc: '1.0', id: 'v', method: 'ping' }), 400, -32600, 'v', { code: 'INVALID_JSON_RPC' }, /"jsonrpc": "2\.0"/)
    expectRpcError(await post('null'), 400, -32600, null, { code: 'INVALID_JSON_RPC' }, /^Invalid Request: /)
    expectRpcError(await post('"ping"'), 400, -32600, null, { code: 'INVALID_JSON_RPC' }, /^Invalid Request: /)
  })

  it('400 -32600 for a Content-Type other than application/json, however the body looks', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonp'])
      expectRpcError(await post(PING, { 'content-type': type }), 400, -32600, null, { code: 'INVALID_JSON_RPC' }, /^Invalid Request: Content-Type must be application\/json\.$/)
    const none = await bare.inject({ method: 'POST', url: '/mcp', payload: JSON.stringify(PING) })
    expect(none.statusCode).toBe(400)
    expect(none.json()).toMatchObject({ error: { code: -32600 }, id: null })
    expect((await post(PING, { 'content-type': 'application/json; charset=utf-8' })).statusCode).toBe(200)
  })

  it('-32602 for JSON nested deeper than MAX_JSON_DEPTH, answered without its id; that depth itself is read', async () => {
    const body = (depth: number) => `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_error_code","arguments":{"code":"INVALID_CURSOR","x":${nested(depth - 3)}}}}`
    expect(jsonDepth(body(MAX_JSON_DEPTH))).toBe(MAX_JSON_DEPTH)
    expect(MAX_JSON_DEPTH).toBe(32)
    const deep = expectRpcError(await post(body(MAX_JSON_DEPTH + 1)), 200, -32602, null, { code: 'INVALID_PARAMETER' }, /^Invalid params: JSON nested deeper than 32 levels/)
    expect(deep.error.message).toMatch(/tool arguments are flat\.$/)
    // At the bound the request is read: the tool refuses the unknown argument as a tool error.
    const res = await post(body(MAX_JSON_DEPTH))
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ id: 5, result: { isError: true } })
  })

  it('-32602 with the request\'s id for params that do not fit the method', async () => {
    const body = expectRpcError(await post({ jsonrpc: '2.0', id: 11, method: 'tools/call', params: { name: 5 } }), 200, -32602, 11, { code: 'INVALID_PARAMETER' }, /^Invalid params: params\.name: \S/)
    expect(body.error.message).not.toMatch(/\n/)
  })

  it('413 -32000 for a body over the bound, closing the connection; a body at the bound is read', async () => {
    const pad = (n: number) => ({ ...PING, pad: 'x'.repeat(n - JSON.stringify({ ...PING, pad: '' }).length) })
    expect(JSON.stringify(pad(MAX)).length).toBe(MAX)
    expect((await post(pad(MAX))).statusCode).toBe(200)
    const res = await post(pad(MAX + 1))
    expectRpcError(res, 413, -32000, null, { code: 'PAYLOAD_TOO_LARGE', maxBytes: MAX }, new RegExp(`^Request body too large: at most ${MAX} bytes\\.$`))
    expect(res.headers.connection).toBe('close')
  })

  it('400 -32600 for a Content-Length that does not match the body', async () => {
    const res = await post(PING, { 'content-length': '5' })
    expectRpcError(res, 400, -32600, null, { code: 'INVALID_JSON_RPC' }, /^Invalid Request: the body length does not match Content-Length\.$/)
  })
})

describe('POST /mcp: failures before the handler', () => {
  const fail = (kind: string, body: unknown = PING) => post(body, { 'x-fail': kind })

  it('an unsupported Service-Version is a 400 JsonRpcError with its own code and the detail', async () => {
    const body = expectRpcError(await fail('version'), 400, -32600, null, { code: 'UNSUPPORTED_SERVICE_VERSION' }, /^Invalid Request: Service-Version 2020-01-01 is not offered\.$/)
    expect(body.error.message).not.toContain('undefined')
  })

  it('any other failure reaches the app\'s handler unchanged (401, 403 and 429 become Problems there)', async () => {
    const auth = await fail('auth')
    expect(auth.statusCode).toBe(599)
    expect(auth.json()).toEqual({ isError: true, code: 'UNAUTHENTICATED', message: 'no key', statusCode: null, same: true })
  })

  it('the rate limiter\'s plain object reaches it as an Error with the object\'s members', async () => {
    expect((await fail('plain')).json()).toEqual({ isError: true, code: 'RATE_LIMITED', message: 'slow down', statusCode: 429, same: false })
    expect((await fail('plain-silent')).json()).toEqual({ isError: true, code: 'RATE_LIMITED', message: 'error', statusCode: 429, same: false })
  })
})

describe('the /mcp contract', () => {
  it('documents the route, its bound and its tools', async () => {
    const doc = bare.swagger() as Obj
    const op = doc.paths['/mcp'].post
    expect(op.operationId).toBe('mcp')
    expect(op.summary).toMatch(/MCP/)
    expect(op.responses['413'].description).toContain(`(${MAX} bytes)`)
    expect(op.responses['200'].description).toMatch(/JSON-RPC response/)
    expect(op.responses['202'].description).toMatch(/notification/)
    expect(op.responses['400'].description).toMatch(/-32700.*-32600/)
    expect(op.requestBody.required).toBe(true)
    for (const s of ['401', '403', '405', '408', '414', '429', '431']) expect(op.responses[s], s).toBeDefined()
    // What the description promises, piece by piece.
    const d: string = op.description
    expect(d).toMatch(/^A stateless Streamable HTTP MCP server \(no sessions; .*batches are not supported\)\. /)
    expect(d).toContain(`Tools: ${TOOLS.map((x) => x.name).join(', ')} — the /v1 operations over the same service, with the same argument schemas. `)
    expect(d).toContain('The bearer credential is required, as on /v1. ')
    expect(d).toMatch(/The response is application\/json, or a text\/event-stream .* in Accept\. /)
    expect(d).toContain('A JSON-RPC notification is answered 202 without a body. ')
    expect(d).toMatch(/Errors: 400 JsonRpcError for invalid JSON \(-32700\).*413 JsonRpcError.*GET and DELETE answer 405/)
  })
})
