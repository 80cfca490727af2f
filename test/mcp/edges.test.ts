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
