import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMcpServer, type McpTestServer } from '../helpers/mcp-server.js'
import { parseRaw, raw } from '../helpers/raw-http.js'

/** Hostile-run edges of POST /mcp (issue 29). */
type Obj = Record<string, any>
let srv: McpTestServer

beforeAll(async () => {
  srv = await startMcpServer()
})
afterAll(async () => srv?.close())

function post(body: unknown, headers: Record<string, string> = {}) {
  return fetch(srv.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...srv.auth, ...headers },
    body: JSON.stringify(body)
  })
}

describe('1: a JSON-RPC id that is neither a string nor an integer', () => {
  // JSON-RPC 2.0 §4: an id is a string, a number or null, and "SHOULD NOT contain fractional parts";
  // the contract's JsonRpcRequest allows a string or an integer. Anything else is an invalid request,
  // answered with id null (its id cannot be echoed as a valid one), never a 500.
  for (const [label, id] of [['1.5', 1.5], ['true', true], ['[]', []], ['{}', {}], ['-0.5', -0.5], ['1e400 (Infinity)', 1e400]] as const) {
    for (const method of ['initialize', 'tools/list', 'tools/call', 'ping', 'no/such/method']) {
      it(`id ${label} on ${method}: 400 -32600 with id null`, async () => {
        const res = await post({ jsonrpc: '2.0', id, method, params: {} })
        expect(res.status).toBe(400)
        const body = (await res.json()) as Obj
        expect(body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/), data: { code: 'INVALID_JSON_RPC' } } })
      })
    }
  }

  it('an integer id and a string id are still answered with that id', async () => {
    expect(((await (await post({ jsonrpc: '2.0', id: 12, method: 'ping' })).json()) as Obj).id).toBe(12)
    expect(((await (await post({ jsonrpc: '2.0', id: 'a', method: 'ping' })).json()) as Obj).id).toBe('a')
  })
})

describe('8: an SSE answer honours Connection: close', () => {
  it('a client preferring text/event-stream that asks to close gets Connection: close and a closed connection', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' })
    const head = (connection: string) =>
      `POST /mcp HTTP/1.1\r\nHost: x\r\nAuthorization: ${srv.auth.authorization}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n` +
      `Connection: ${connection}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    const port = Number(srv.mcpUrl.port)
    // giveUpMs: a connection left open is cut by the test after 3 s.
    const closed = await raw(port, [head('close')], 0, 3000)
    const r = parseRaw(closed.text)
    expect(r.statusCode).toBe(200)
    expect(r.headers['content-type']).toMatch(/^text\/event-stream/)
    expect(r.headers.connection).toBe('close')
    expect(closed.text).toContain('"id":9')
    expect(closed.closedAfterMs).toBeLessThan(2500)
    // Without the request to close, the stream's connection is kept alive (and the test gives up on it).
    const kept = await raw(port, [head('keep-alive')], 0, 1500)
    expect(parseRaw(kept.text).headers.connection).toBe('keep-alive')
    expect(kept.closedAfterMs).toBeGreaterThanOrEqual(1400)
  })
})

describe('9: rate-limit headers and methods on /mcp', () => {
  it('any method but POST on /mcp is 405 with Allow: POST, before the credential is checked', async () => {
    const port = Number(srv.mcpUrl.port)
    for (const method of ['GET', 'HEAD', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND']) {
      const r = parseRaw((await raw(port, [`${method} /mcp HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`])).text)
      expect(r.statusCode, method).toBe(405)
      expect(r.headers.allow, method).toBe('POST')
      if (method !== 'HEAD') expect(JSON.parse(r.body), method).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED' })
    }
    // An escaped spelling is the same path.
    expect(parseRaw((await raw(port, ['GET /%6Dcp HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'])).text).statusCode).toBe(405)
  })

  it('while the shared store fails, no X-RateLimit-* header promises a limit that is not enforced', async () => {
    // A store that always fails, as Redis down or behind an open circuit does.
    const failing = class {
      incr(_key: string, cb: (err: Error) => void) {
        cb(new Error('redis down'))
      }
      child() {
        return this
      }
    }
    const down = await startMcpServer({ app: { rateLimitStore: failing as never, rateLimit: { max: 50, timeWindowMs: 60_000 } } })
    try {
      const rest = await fetch(new URL('/v1/release', down.base), { headers: down.auth })
      expect(rest.status).toBe(200)
      for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) expect(rest.headers.get(h), h).toBeNull()
      const mcp = await fetch(down.mcpUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...down.auth },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
      })
      expect(mcp.status).toBe(200)
      expect(mcp.headers.get('x-ratelimit-remaining')).toBeNull()
    } finally {
      await down.close()
    }
    // Counted (the in-process store): the headers say what is left, 49 of 50 after the first request.
    const up = await startMcpServer({ app: { rateLimit: { max: 50, timeWindowMs: 60_000 } } })
    try {
      const res = await fetch(new URL('/v1/release', up.base), { headers: up.auth })
      expect([res.headers.get('x-ratelimit-limit'), res.headers.get('x-ratelimit-remaining')]).toEqual(['50', '49'])
    } finally {
      await up.close()
    }
  })
})
