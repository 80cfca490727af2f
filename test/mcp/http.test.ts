import { request } from 'node:http'
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { acceptWeight, wantsSse } from '../../src/mcp/route.js'
import { startMcpServer, type McpTestServer } from '../helpers/mcp-server.js'
import { ContractChecker } from '../helpers/openapi.js'

type Obj = Record<string, any>
const MAX = 8 * 1024
let srv: McpTestServer

beforeAll(async () => {
  // A small bound keeps the oversized bodies small; the default (64 KiB) is checked against the contract below.
  srv = await startMcpServer({ mcp: { maxBytes: MAX }, extraKeys: [{ scopes: [] }] })
})
afterAll(async () => srv?.close())

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'raw', version: '1' } }
}
const CALL = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'get_error_code', arguments: { code: 'INVALID_CURSOR' } } }

function post(body: unknown, headers: Record<string, string> = {}) {
  return fetch(srv.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...srv.auth, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body)
  })
}

/** A JsonRpcError: status, exactly jsonrpc/error/id, and the JSON-RPC error code. */
async function expectRpcError(res: Response, status: number, code: number, id: unknown = null): Promise<Obj> {
  expect(res.status).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  const body = (await res.json()) as Obj
  expect(Object.keys(body).sort()).toEqual(['error', 'id', 'jsonrpc'])
  expect(body).toMatchObject({ jsonrpc: '2.0', id, error: { code } })
  expect(typeof body.error.message).toBe('string')
  return body
}

async function expectProblem(res: Response, status: number, code: string): Promise<Obj> {
  expect(res.status).toBe(status)
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  const body = (await res.json()) as Obj
  expect(body).toMatchObject({ status, code, error: code })
  return body
}

/** Raw HTTP, to send what fetch will not: a chunked body with no Content-Length, or a Content-Length that lies. */
function rawPost(headers: Record<string, string | number>, write: (req: ReturnType<typeof request>) => void): Promise<{ status: number; headers: Obj; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(srv.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...srv.auth, ...headers } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
    })
    // The server may answer and close while the body is still being sent.
    req.on('error', (err: NodeJS.ErrnoException) => (['EPIPE', 'ECONNRESET'].includes(err.code ?? '') ? undefined : reject(err)))
    write(req)
  })
}

describe('POST /mcp over raw HTTP', () => {
  it('answers initialize with application/json when the client accepts both (the SDK client default)', async () => {
    const res = await post(INIT)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^application\/json/)
    expect(res.headers.get('mcp-session-id')).toBeNull()
    // Headers of the app's hooks survive the hijacked reply.
    expect(res.headers.get('x-request-id')).toBeTruthy()
    expect(res.headers.get('service-version')).toBe('2026-08-26')
    const body = (await res.json()) as Obj
    expect(body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'hardware-facts' }, capabilities: { tools: {} } } })
  })

  it('answers JSON for Accept: application/json alone, and for no Accept at all', async () => {
    for (const accept of ['application/json', '']) {
      const res = await post(CALL, { accept })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      const body = (await res.json()) as Obj
      expect(body.result.structuredContent).toMatchObject({ code: 'INVALID_CURSOR', retryable: false })
    }
  })

  it('answers an SSE stream when the client prefers text/event-stream', async () => {
    for (const accept of ['text/event-stream', 'text/event-stream, application/json;q=0.5']) {
      const res = await post(CALL, { accept })
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
      const raw = await res.text()
      const data = raw
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => JSON.parse(l.slice(6)) as Obj)
      expect(raw).toContain('event: message')
      expect(data).toHaveLength(1)
      expect(data[0]).toMatchObject({ jsonrpc: '2.0', id: 7, result: { structuredContent: { code: 'INVALID_CURSOR' } } })
    }
  })

  it('accepts a notification with 202 and no body', async () => {
    const res = await post({ jsonrpc: '2.0', method: 'notifications/initialized' })
    expect(res.status).toBe(202)
    expect(await res.text()).toBe('')
  })

  it('allows additional members on the request object (JsonRpcRequest is open)', async () => {
    const res = await post({ ...CALL, trace: 'abc' })
    expect(res.status).toBe(200)
    expect(((await res.json()) as Obj).id).toBe(7)
  })
})

describe('POST /mcp errors', () => {
  it('400 -32700 for a body that is not JSON', async () => {
    await expectRpcError(await post('{"jsonrpc": "2.0", "method": '), 400, -32700)
    await expectRpcError(await post(''), 400, -32700)
  })

  it('400 -32600 for a body that is not one JSON-RPC 2.0 request', async () => {
    await expectRpcError(await post({ jsonrpc: '2.0', id: 3 }), 400, -32600, 3)
    await expectRpcError(await post({ jsonrpc: '1.0', id: 4, method: 'tools/list' }), 400, -32600, 4)
    await expectRpcError(await post({ jsonrpc: '2.0', id: { x: 1 }, method: 'tools/list' }), 400, -32600)
    await expectRpcError(await post({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: 'all' }), 400, -32600, 5)
    await expectRpcError(await post('"tools/list"'), 400, -32600)
    await expectRpcError(await post('null'), 400, -32600)
    // Batches are not supported (MCP 2025-06-18 dropped them).
    const batch = await expectRpcError(await post([CALL, { ...CALL, id: 8 }]), 400, -32600)
    expect(batch.error.message).toMatch(/batch/i)
  })

  it('400 -32600 for a content type other than application/json', async () => {
    await expectRpcError(await post(JSON.stringify(CALL), { 'content-type': 'text/plain' }), 400, -32600)
    await expectRpcError(await post(JSON.stringify(CALL), { 'content-type': 'application/x-www-form-urlencoded' }), 400, -32600)
    const res = await rawPost({ 'content-length': 2 }, (req) => {
      req.removeHeader('content-type')
      req.end('{}')
    })
    expect(res.status).toBe(400)
    expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 }, id: null })
    // Parameters of application/json are fine.
    expect((await post(CALL, { 'content-type': 'application/json; charset=utf-8' })).status).toBe(200)
  })

  it('400 JsonRpcError, not a Problem, for an unsupported Service-Version', async () => {
    const body = await expectRpcError(await post(CALL, { 'service-version': '2020-01-01' }), 400, -32600)
    expect(body.error.data).toMatchObject({ code: 'UNSUPPORTED_SERVICE_VERSION' })
  })

  it('413 JsonRpcError when Content-Length exceeds the bound, before the body is read', async () => {
    const big = JSON.stringify({ ...CALL, pad: 'x'.repeat(MAX) })
    const body = await expectRpcError(await post(big), 413, -32000)
    expect(body.error.data).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', maxBytes: MAX })
    // A declared length over the bound is refused on the header alone: the body never arrives.
    const early = await rawPost({ 'content-length': 50 * MAX }, (req) => req.write('{"jsonrpc":"2.0",'))
    expect(early.status).toBe(413)
    expect(JSON.parse(early.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null })
  })

  it('413 JsonRpcError for a chunked body without Content-Length that streams past the bound', async () => {
    const res = await rawPost({ 'transfer-encoding': 'chunked' }, (req) => {
      req.write('{"jsonrpc":"2.0","id":1,"method":"tools/list","pad":"')
      let sent = 0
      // Keep streaming until the server answers; it must stop reading at the bound.
      const more = () => {
        if (req.destroyed || sent > 20 * MAX) return req.end('"}')
        sent += 1024
        req.write('x'.repeat(1024), () => setImmediate(more))
      }
      more()
    })
    expect(res.status).toBe(413)
    expect(res.headers.connection).toBe('close')
    expect(JSON.parse(res.body)).toEqual({ jsonrpc: '2.0', error: expect.objectContaining({ code: -32000 }), id: null })
  })

  it('accepts a body just under the bound; a Content-Length below the real size cannot smuggle more in', async () => {
    expect((await post({ ...CALL, pad: 'x'.repeat(MAX - 200) })).status).toBe(200)
    // Only the declared 10 bytes are the body; the rest is not body but a malformed next request, refused
    // by the HTTP parser (whichever 400 reaches the client first), never read into a JSON-RPC message.
    const lying = await rawPost({ 'content-length': 10 }, (req) => req.end(JSON.stringify({ ...CALL, pad: 'x'.repeat(4 * MAX) })))
    expect(lying.status).toBe(400)
  })

  it('401 Problem without a credential or with a wrong one; 403 Problem for a key without the scope', async () => {
    const none = await fetch(srv.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(CALL) })
    await expectProblem(none, 401, 'UNAUTHENTICATED')
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/)
    await expectProblem(await post(CALL, { authorization: 'Bearer hwf_wrong' }), 401, 'UNAUTHENTICATED')
    await expectProblem(await post(CALL, srv.keyFor({ scopes: [] })), 403, 'FORBIDDEN')
    // Authentication comes first: an unauthenticated oversized body is a 401, not read at all.
    const big = await fetch(srv.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(4 * MAX) })
    await expectProblem(big, 401, 'UNAUTHENTICATED')
  })

  it('405 Problem with Allow: POST for GET and DELETE (no SSE streams, no sessions)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(srv.mcpUrl, { method, headers: { ...srv.auth, accept: 'text/event-stream' } })
      await expectProblem(res, 405, 'METHOD_NOT_ALLOWED')
      expect(res.headers.get('allow')).toBe('POST')
    }
  })
})

describe('POST /mcp rate limit', () => {
  it('429 Problem once the key has spent its budget', async () => {
    const limited = await startMcpServer({ app: { rateLimit: { max: 2, timeWindowMs: 60_000 } } })
    try {
      const send = () =>
        fetch(limited.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...limited.auth }, body: JSON.stringify(CALL) })
      expect((await send()).status).toBe(200)
      expect((await send()).status).toBe(200)
      const res = await send()
      await expectProblem(res, 429, 'RATE_LIMITED')
      expect(res.headers.get('retry-after')).toBeTruthy()
    } finally {
      await limited.close()
    }
  })
})

describe('the /mcp contract', () => {
  it('documents the body, the responses, the security alternatives and the credential', async () => {
    const doc = (await (await fetch(new URL('/openapi.json', srv.base))).json()) as Obj
    const op = doc.paths['/mcp'].post
    expect(Object.keys(doc.paths['/mcp'])).toEqual(['post'])
    expect(op.requestBody).toEqual({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcRequest' } } } })
    const request = doc.components.schemas.JsonRpcRequest
    expect(request).toMatchObject({ required: ['jsonrpc', 'method'], additionalProperties: true })
    // What the server accepts as an id: a string or an integer (as the SDK does), absent for a notification.
    expect(request.properties.id.anyOf).toEqual([{ type: 'string' }, { type: 'integer' }])
    expect(op.security).toEqual([{}, { bearerAuth: [] }])
    expect(op.description).toMatch(/bearer credential is required, as on \/v1/)
    // Every tool tools/list names, and no other.
    const listed = (await (await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' })).json()) as Obj
    const names: string[] = listed.result.tools.map((t: Obj) => t.name)
    expect(names).toHaveLength(11)
    expect(/Tools: ([a-z_, ]+) —/.exec(op.description)![1]!.split(', ').sort()).toEqual([...names].sort())
    expect(Object.keys(op.responses['200'].content)).toEqual(['application/json'])
    for (const s of ['400', '413']) expect(op.responses[s].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/JsonRpcError' })
    expect(doc.components.schemas.JsonRpcError).toMatchObject({ required: ['jsonrpc', 'error', 'id'], additionalProperties: false })
    for (const s of ['401', '403', '429']) expect(Object.keys(op.responses[s].content)).toEqual(['application/problem+json'])
    // The 200 body is a JSON-RPC response as documented, for a result and for a protocol error alike.
    const checker = new ContractChecker(doc as ConstructorParameters<typeof ContractChecker>[0])
    const validate = checker.compile(op.responses['200'].content['application/json'].schema)
    for (const body of [CALL, { jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } }]) {
      const res = await post(body)
      expect(res.status).toBe(200)
      const json = await res.json()
      expect(validate(json), JSON.stringify(validate.errors)).toBe(true)
    }
    expect(validate({ jsonrpc: '2.0', id: 1.5, result: {} })).toBe(false)
  })

  it('negotiates SSE only when text/event-stream outweighs application/json', () => {
    expect(wantsSse(undefined)).toBe(false)
    expect(wantsSse('application/json, text/event-stream')).toBe(false)
    expect(wantsSse('text/event-stream')).toBe(true)
    expect(wantsSse('application/json;q=0.4, text/event-stream')).toBe(true)
    expect(wantsSse('text/*, application/json;q=0.9')).toBe(true)
    expect(wantsSse('*/*')).toBe(false)
    expect(acceptWeight('text/*;q=0.3, text/event-stream;q=0.8', 'text/event-stream')).toBe(0.8)
  })
})

describe('client mistakes are -32602 Invalid params, logged at most at info', () => {
  let own: McpTestServer
  const lines: Array<{ level: number; msg?: string }> = []
  beforeAll(async () => {
    own = await startMcpServer({ app: { logger: { level: 'trace', stream: { write: (l: string) => void lines.push(JSON.parse(l)) } } } })
  })
  afterAll(async () => own?.close())
  const send = async (text: string) => {
    const res = await fetch(own.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', ...own.auth }, body: text })
    return { status: res.status, body: (await res.json()) as Obj }
  }

  it('deeply nested arguments', async () => {
    for (const open of ['{"a":', '[']) {
      const close = open === '[' ? ']' : '}'
      const r = await send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"resolve_part","arguments":{"q":${open.repeat(3000)}1${close.repeat(3000)}}}}`)
      expect(r.status).toBe(200)
      expect(r.body.error?.code).toBe(-32602)
      expect(r.body.result).toBeUndefined()
    }
  })

  it('params that do not fit the method (the SDK would answer -32603 with a validation dump)', async () => {
    for (const [method, params] of [
      ['tools/call', { name: 5 }],
      ['tools/call', { arguments: 'x' }],
      ['initialize', { protocolVersion: 5 }],
      ['tools/list', { cursor: 5 }]
    ] as const) {
      const r = await send(JSON.stringify({ jsonrpc: '2.0', id: 11, method, params }))
      expect(r.status, method).toBe(200)
      expect(r.body).toMatchObject({ jsonrpc: '2.0', id: 11, error: { code: -32602 } })
      expect(r.body.error.message).toMatch(/^Invalid params: params\./)
      expect(r.body.error.message).not.toMatch(/\n/)
    }
    // Nothing above was logged as a warning or an error (pino levels: 40 warn, 50 error).
    expect(lines.filter((l) => l.level >= 40)).toEqual([])
  })

  it('a valid call still works', async () => {
    const r = await send(JSON.stringify(CALL))
    expect(r.body.result.structuredContent.code).toBe('INVALID_CURSOR')
  })
})
