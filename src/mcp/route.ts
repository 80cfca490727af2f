import type { IncomingMessage, ServerResponse } from 'node:http'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js'
import { ClientNotificationSchema, ClientRequestSchema, isJSONRPCNotification, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js'
import { Ajv } from 'ajv'
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ApiKeyStore } from '../auth/keys.js'
import type { Contract } from '../http/contract.js'
import { BEARER_ALTERNATIVES, errorResponses } from '../http/fact-route.js'
import { publicBase } from '../http/problem.js'
import { dropUncountedLimitHeaders } from '../http/rate-limit.js'
import { ref } from '../schemas/components.js'
import { JsonRpcError, JsonRpcRequest, JsonRpcResponse } from '../schemas/responses.js'
import { ServiceError } from '../service/errors.js'
import type { HardwareFacts } from '../service/facts.js'
import { createMcpServer } from './server.js'
import { TOOLS } from './tools.js'

export interface McpOptions {
  /** Largest accepted request body in bytes (HWFACTS_MCP_MAX_BYTES); 64 KiB by default. */
  maxBytes?: number
  /** Absolute base for `docUrl`s, as HWFACTS_PUBLIC_URL; the request's origin when absent. */
  publicUrl?: string
}

export const DEFAULT_MCP_MAX_BYTES = 64 * 1024

type RpcId = string | number | null

/** The documented JsonRpcRequest shape is the contract (additional members allowed). */
const checkShape = new Ajv({ allErrors: false }).compile(JsonRpcRequest)

/** Deeper JSON than any tool argument needs: refused before parsing, so nothing downstream recurses into it. */
export const MAX_JSON_DEPTH = 32

/** The nesting depth of a JSON text, counted without parsing (brackets outside strings). */
export function jsonDepth(text: string): number {
  let depth = 0
  let max = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++ // backslash: skip the escaped character
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x7b || c === 0x5b) max = Math.max(max, ++depth)
    else if (c === 0x7d || c === 0x5d) depth--
  }
  return max
}

type ParamsSchema = { safeParse(v: unknown): { success: true } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } } }
/** The SDK's schema of each MCP method a client may send, by method name. */
const METHOD_SCHEMAS = new Map<string, ParamsSchema>(
  [...(ClientRequestSchema as unknown as { options: Array<ParamsSchema & { shape: { method: { value: string } } }> }).options,
   ...(ClientNotificationSchema as unknown as { options: Array<ParamsSchema & { shape: { method: { value: string } } }> }).options].map((o) => [o.shape.method.value, o])
)

/**
 * Why the params of a known MCP method do not fit its schema, or undefined when they do (or the
 * method is unknown: the SDK answers -32601). The SDK would report a mismatch as an internal error.
 */
export function invalidParams(message: { method: string; params?: unknown }): string | undefined {
  const r = METHOD_SCHEMAS.get(message.method)?.safeParse(message)
  if (!r || r.success) return undefined
  const issue = r.error.issues[0]!
  return `${issue.path.map(String).join('.') || 'params'}: ${issue.message}`
}

/** A JsonRpcError body: exactly jsonrpc, error, id (spec §2). */
function rpcError(reply: FastifyReply, status: number, code: number, message: string, id: RpcId, data?: Record<string, unknown>): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({ jsonrpc: '2.0', error: { code, message, ...(data ? { data } : {}) }, id })
}

/**
 * The request's id when it is one the contract allows (a string or an integer), else null: a
 * fractional id echoed back would not fit JsonRpcError's schema, and its serializer would fail (500).
 */
const idOf = (body: unknown): RpcId => {
  const id = (body as { id?: unknown } | null)?.id
  return typeof id === 'string' || Number.isSafeInteger(id) ? (id as string | number) : null
}

/**
 * The weight the client's Accept gives a media type: the most specific matching range decides
 * (RFC 9110 §12.5.1); 0 when nothing matches.
 */
export function acceptWeight(accept: string, type: string): number {
  const [tt] = type.split('/')
  let best = 0
  let specificity = -1
  for (const item of accept.toLowerCase().split(',')) {
    const [range = '', ...params] = item.split(';').map((s) => s.trim())
    const s = range === type ? 2 : range === `${tt}/*` ? 1 : range === '*/*' ? 0 : -1
    if (s <= specificity) continue
    const q = params.find((p) => p.startsWith('q='))
    const w = q === undefined ? 1 : Number(q.slice(2))
    specificity = s
    best = Number.isFinite(w) ? w : 0
  }
  return best
}

/**
 * SSE only when the client weighs text/event-stream above application/json. Every response here is
 * a single JSON-RPC message (no progress or server requests), so on a tie, which is what SDK
 * clients send, the plain JSON response is the cheaper one. A client that accepts neither gets
 * JSON anyway rather than an undocumented 406.
 */
export function wantsSse(accept: string | undefined): boolean {
  return accept !== undefined && acceptWeight(accept, 'text/event-stream') > acceptWeight(accept, 'application/json')
}

/**
 * The SDK transport answers 406 unless Accept lists both types, whichever it will use; the choice
 * was made above (enableJsonResponse), so the header it reads is made to list both.
 */
function acceptBoth(raw: IncomingMessage): void {
  const both = 'application/json, text/event-stream'
  raw.headers.accept = both
  let found = false
  for (let i = 0; i < raw.rawHeaders.length; i += 2) {
    if (raw.rawHeaders[i]!.toLowerCase() === 'accept') {
      raw.rawHeaders[i + 1] = both
      found = true
    }
  }
  if (!found) raw.rawHeaders.push('Accept', both)
}

/**
 * The SDK writes its SSE response head with `Connection: keep-alive`, which would keep open a
 * connection the client asked to close (or that a draining server must close): the head it writes
 * says `close` instead, and Node then closes the connection after the response.
 */
function closeAfterResponse(raw: ServerResponse): void {
  const writeHead = raw.writeHead.bind(raw) as (status: number, ...rest: unknown[]) => ServerResponse
  raw.writeHead = ((status: number, ...rest: unknown[]) => {
    for (const h of rest)
      if (h && typeof h === 'object' && !Array.isArray(h)) for (const k of Object.keys(h)) if (k.toLowerCase() === 'connection') delete (h as Record<string, unknown>)[k]
    raw.setHeader('connection', 'close')
    return writeHead(status, ...rest)
  }) as ServerResponse['writeHead']
}

const ROUTE_DESCRIPTION =
  'A stateless Streamable HTTP MCP server (no sessions; each POST carries one JSON-RPC request or notification; batches are not supported). ' +
  `Tools: ${TOOLS.map((t) => t.name).join(', ')} — the /v1 operations over the same service, with the same argument schemas. ` +
  'The bearer credential is required, as on /v1. ' +
  'The response is application/json, or a text/event-stream carrying the one JSON-RPC response when the client prefers text/event-stream in Accept. ' +
  'A JSON-RPC notification is answered 202 without a body. ' +
  'Errors: 400 JsonRpcError for invalid JSON (-32700), a body that is not one JSON-RPC 2.0 request, a Content-Type other than application/json, or an unsupported Service-Version (-32600); 413 JsonRpcError when the body exceeds the size bound (64 KiB by default); 401/403/429 as Problem. GET and DELETE answer 405: there are no SSE streams or sessions to open or end.'

type Message = { jsonrpc: '2.0'; method: string; id?: unknown; params?: unknown }
/** Why a body is not served: the JsonRpcError to answer with. */
type Refusal = { status: number; code: number; message: string; id: RpcId; data: Record<string, unknown> }
const invalidRequest = (message: string, id: RpcId = null): Refusal => ({ status: 400, code: -32600, message: `Invalid Request: ${message}`, id, data: { code: 'INVALID_JSON_RPC' } })

/** The route's contract: the JSON-RPC request and answers, and the Problems it shares with /v1. */
function routeSchema(maxBytes: number) {
  return {
    operationId: 'mcp',
    summary: 'Stateless Streamable HTTP MCP server for agents',
    description: ROUTE_DESCRIPTION,
    // For the contract only: the handler checks the JSON-RPC shape itself (validatorCompiler below).
    body: { content: { 'application/json': { schema: ref(JsonRpcRequest) } }, required: true },
    security: BEARER_ALTERNATIVES,
    response: {
      200: { description: 'A JSON-RPC response (or an SSE stream of it, per Accept).', content: { 'application/json': { schema: ref(JsonRpcResponse) } } },
      202: { description: 'The body was a JSON-RPC notification: accepted, no content.', type: 'null' },
      400: { description: 'JSON-RPC parse error (-32700) or invalid request (-32600).', content: { 'application/json': { schema: ref(JsonRpcError) } } },
      413: { description: `The body exceeds the size bound (${maxBytes} bytes).`, content: { 'application/json': { schema: ref(JsonRpcError) } } },
      ...errorResponses([401, 403, 405, 408, 414, 429, 431], 'POST')
    }
  }
}

/** Failures before the handler: those of the body and Service-Version as JsonRpcErrors, the others as the app's Problems. */
function errorHandler(maxBytes: number) {
  return (err: FastifyError, _req: FastifyRequest, reply: FastifyReply) => {
    switch (err.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        // The rest of an oversized body is not worth reading: close the connection after answering.
        reply.header('connection', 'close')
        return rpcError(reply, 413, -32000, `Request body too large: at most ${maxBytes} bytes.`, null, { code: 'PAYLOAD_TOO_LARGE', maxBytes })
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return rpcError(reply, 400, -32600, 'Invalid Request: the body length does not match Content-Length.', null, { code: 'INVALID_JSON_RPC' })
      case 'UNSUPPORTED_SERVICE_VERSION':
        return rpcError(reply, 400, -32600, `Invalid Request: ${(err as unknown as ServiceError).detail}`, null, { code: 'UNSUPPORTED_SERVICE_VERSION' })
    }
    // 401, 403, 429 and anything else: the app's Problem handler. A rethrown value reaches it only
    // if it is an Error (else Fastify sends it as a 200 payload), and the rate limiter throws a plain object.
    throw err instanceof Error ? err : Object.assign(new Error(String((err as { message?: unknown }).message ?? 'error')), err)
  }
}

/** The one JSON-RPC request or notification of the body, and its id as the answers echo it; or why it is refused. */
function readMessage(req: FastifyRequest): { message: Message; id: RpcId } | { refusal: Refusal } {
  if (!isJsonContentType(req.headers['content-type'])) return { refusal: invalidRequest('Content-Type must be application/json.') }
  const text = (req.body as Buffer | undefined)?.toString('utf8') ?? ''
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    req.log.info('MCP request nested too deeply')
    // A well-formed request's id is not worth a parse of the deep text: answered without one.
    return { refusal: { status: 200, code: -32602, message: `Invalid params: JSON nested deeper than ${MAX_JSON_DEPTH} levels; tool arguments are flat.`, id: null, data: { code: 'INVALID_PARAMETER' } } }
  }
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return { refusal: { status: 400, code: -32700, message: 'Parse error: the body is not valid JSON.', id: null, data: { code: 'INVALID_JSON_RPC' } } }
  }
  if (Array.isArray(body)) return { refusal: invalidRequest('JSON-RPC batches are not supported; send one request per POST.') }
  const id = idOf(body)
  if (!checkShape(body)) return { refusal: invalidRequest('the body must be a JSON-RPC 2.0 request object with "jsonrpc": "2.0" and a string "method".', id) }
  // Members beyond the JSON-RPC ones are allowed by the contract; the SDK's strict schema is not told about them.
  const b = body as Message
  const message = { jsonrpc: b.jsonrpc, method: b.method, ...('id' in b ? { id: b.id } : {}), ...('params' in b ? { params: b.params } : {}) }
  if (!isJSONRPCRequest(message) && !isJSONRPCNotification(message)) return { refusal: invalidRequest('"id" must be a string or a number, and "params", when present, an object.', id) }
  return { message, id }
}

/**
 * Answers the message with one fresh SDK `Server` and stateless transport, handed Fastify's raw
 * request and response (the reply is hijacked, with the headers the hooks set).
 */
async function serve(app: FastifyInstance, ctx: McpContext, opts: McpOptions, req: FastifyRequest, reply: FastifyReply, message: Message, id: RpcId): Promise<void> {
  const server = createMcpServer({ facts: ctx.facts, contract: ctx.contract, apiKey: req.apiKey, req, base: publicBase(opts.publicUrl) })
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !wantsSse(req.headers.accept) })
  acceptBoth(req.raw)
  if (app.draining || /(^|,)\s*close\s*(,|$)/i.test(req.headers.connection ?? '')) closeAfterResponse(reply.raw)
  // Headers set by the hooks (request id, Service-Version, rate limit) would be lost on a hijacked reply.
  dropUncountedLimitHeaders(reply)
  for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) reply.raw.setHeader(k, v)
  reply.hijack()
  reply.raw.on('close', () => {
    void transport.close()
    void server.close()
  })
  try {
    await server.connect(transport)
    await transport.handleRequest(req.raw, reply.raw, message)
  } catch (err) {
    req.log.error({ err }, 'MCP request failed')
    if (!reply.raw.headersSent) {
      reply.raw.writeHead(500, { 'content-type': 'application/json; charset=utf-8' })
      reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id }))
    } else reply.raw.destroy()
  }
}

type McpContext = { facts: HardwareFacts; keys: ApiKeyStore; contract: Contract }

/**
 * POST /mcp, the MCP endpoint (spec §4): one fresh SDK `Server` and stateless transport per
 * request, handed Fastify's raw request/response and the body parsed and checked here.
 */
export function mcpRoute(opts: McpOptions = {}) {
  const maxBytes = opts.maxBytes ?? DEFAULT_MCP_MAX_BYTES
  return async function mcp(app: FastifyInstance, ctx: McpContext): Promise<void> {
    // This plugin's own scope: every body reaches the handler as bytes, so a bad body or content
    // type becomes a JsonRpcError here rather than a Problem from Fastify's JSON parser.
    app.removeAllContentTypeParsers()
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body))

    app.route({
      method: 'POST',
      url: '/mcp',
      // Checked on Content-Length before reading, and on the bytes streamed (chunked bodies).
      bodyLimit: maxBytes,
      // Stateless: no SSE stream to open (GET), no session to end (DELETE): any method but POST is 405 (src/http/methods.ts).
      config: { scope: 'facts:read', onlyMethod: 'POST' },
      schema: routeSchema(maxBytes),
      // Accept any body at validation: a schema failure would leave as a Problem, and /mcp's 400 is a JsonRpcError.
      validatorCompiler: () => () => true,
      errorHandler: errorHandler(maxBytes),
      handler: async (req, reply) => {
        const read = readMessage(req)
        if ('refusal' in read) {
          const r = read.refusal
          return rpcError(reply, r.status, r.code, r.message, r.id, r.data)
        }
        const bad = invalidParams(read.message)
        if (bad !== undefined) {
          req.log.info({ method: read.message.method }, 'MCP request with invalid params')
          if (!('id' in read.message)) return reply.code(202).send()
          return rpcError(reply, 200, -32602, `Invalid params: ${bad}`, read.id, { code: 'INVALID_PARAMETER' })
        }
        return serve(app, ctx, opts, req, reply, read.message, read.id)
      }
    })
  }
}
