import { randomUUID } from 'node:crypto'
import { STATUS_CODES } from 'node:http'
import type { Socket } from 'node:net'
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ERROR_CODES, fromStoreError, isErrorCode, ServiceError, type ErrorCode } from '../service/errors.js'
import { StoreError } from '../store/errors.js'

export const PROBLEM_TYPE = 'application/problem+json'

/** Where `docUrl`s point when HWFACTS_PUBLIC_URL is not set (the server passes its listen address). */
export const DEFAULT_PUBLIC_URL = 'http://localhost'

/**
 * The absolute base the Problem `docUrl` and `type` point into: the configured public URL, never a
 * client header (a `Host` copied into every error would let anyone point our links elsewhere).
 */
export function publicBase(configured?: string): string {
  return (configured ?? DEFAULT_PUBLIC_URL).replace(/\/+$/, '')
}

export function problemBody(code: ErrorCode, detail: string, param: string | null, req: { id: string; url?: string }, base: string) {
  const info = ERROR_CODES[code]
  const docUrl = `${base}/v1/error-codes/${code}`
  return {
    type: docUrl,
    title: info.title,
    status: info.status,
    detail,
    ...(req.url !== undefined ? { instance: req.url.split('?')[0]! } : {}),
    code,
    param,
    requestId: req.id,
    docUrl,
    error: code,
    message: detail,
    request_id: req.id
  }
}

/** Longest request target served (RELIABILITY: 414 above 8 KiB), also within Node's 16 KiB for the head. */
export const MAX_URL_BYTES = 8192

type ClientError = Error & { code?: string; rawPacket?: unknown }

/** Errors Node's HTTP parser raises before a request exists (`clientError`), as the Problem they stand for. */
function clientErrorCode(err: ClientError): { code: ErrorCode; detail: string } {
  switch (err.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'REQUEST_TIMEOUT', detail: 'The request did not arrive completely in time.' }
    case 'HPE_HEADER_OVERFLOW': {
      // Node counts the request line with the headers: an overflow before the first line ends is a long URL.
      const line = Buffer.isBuffer(err.rawPacket) ? err.rawPacket.indexOf('\r\n') : -1
      return line === -1 || line > MAX_URL_BYTES
        ? { code: 'URI_TOO_LONG', detail: 'The request target is longer than the service accepts.' }
        : { code: 'HEADERS_TOO_LARGE', detail: 'The request line and headers exceed 16 KiB.' }
    }
    case 'HPE_INVALID_METHOD':
      return { code: 'MALFORMED_REQUEST', detail: 'The request method is not an HTTP method this service knows.' }
    default:
      return { code: 'MALFORMED_REQUEST', detail: 'The request could not be parsed as HTTP/1.1.' }
  }
}

/**
 * A Problem written straight to a socket that no request object stands for (the parser's errors, a
 * CONNECT), on a connection closed after it.
 */
function writeRawProblem(socket: Socket, log: FastifyBaseLogger, code: ErrorCode, detail: string, base: string, why: string | undefined): void {
  const id = randomUUID()
  log.info({ reqId: id, code: why }, 'client error')
  if (socket.writable) {
    const body = JSON.stringify(problemBody(code, detail, null, { id }, base))
    const status = ERROR_CODES[code].status
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: ${PROBLEM_TYPE}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${id}\r\nx-content-type-options: nosniff\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${body}`
    )
  }
  socket.destroy()
}

/**
 * Fastify's `clientErrorHandler`: the parser's own errors (bad request line, header overflow,
 * timeouts) leave as Problems too, on a connection that is closed after the answer.
 */
export function clientErrorHandler(publicUrl: string | undefined) {
  const base = publicBase(publicUrl)
  // Fastify calls it bound to the instance.
  return function (this: { log: FastifyBaseLogger }, err: ClientError, socket: Socket): void {
    if (err.code === 'ECONNRESET' || socket.destroyed) return
    const { code, detail } = clientErrorCode(err)
    writeRawProblem(socket, this.log, code, detail, base, err.code)
  }
}

/**
 * Node hands a CONNECT request to the server's 'connect' listener and, without one, closes the
 * connection unanswered: it gets a Problem instead (no tunnels here).
 */
export function refuseConnect(app: FastifyInstance, publicUrl: string | undefined): void {
  const base = publicBase(publicUrl)
  app.server.on('connect', (_req: unknown, socket: Socket) =>
    writeRawProblem(socket, app.log, 'MALFORMED_REQUEST', 'CONNECT is not served: this service is not a proxy.', base, 'CONNECT')
  )
}

/** Fastify's `frameworkErrors`: a bad percent-escape in the path, a path parameter over its length. */
export function frameworkErrors(publicUrl: string | undefined) {
  const base = publicBase(publicUrl)
  return (err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void => {
    const e =
      err.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new ServiceError('URI_TOO_LONG', 'A path segment is longer than the service accepts.')
        : new ServiceError('MALFORMED_REQUEST', 'The request URL is not valid (a bad percent-escape or a NUL byte).')
    // No hooks ran for this request: the security headers are set here.
    void sendProblem(reply.header('x-content-type-options', 'nosniff').header('cache-control', 'no-store'), e, base)
  }
}

export function sendProblem(reply: FastifyReply, err: ServiceError, base: string): FastifyReply {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v)
  return reply
    .code(err.status)
    .type(PROBLEM_TYPE)
    .send(problemBody(err.code, err.detail, err.param, reply.request, base))
}

interface AjvError {
  keyword: string
  instancePath: string
  params: Record<string, unknown>
  message?: string
}

/** Maps a Fastify/Ajv validation failure to a stable code and the parameter that caused it. */
function fromValidation(err: FastifyError & { validation: AjvError[]; validationContext?: string }): ServiceError {
  const v = err.validation[0]!
  if (v.keyword === 'additionalProperties') {
    const name = String(v.params.additionalProperty)
    return new ServiceError('UNKNOWN_PARAMETER', `Unknown parameter "${name}": this endpoint does not define it.`, name)
  }
  if (v.keyword === 'required') {
    const name = String(v.params.missingProperty)
    return new ServiceError('MISSING_PARAMETER', `Parameter "${name}" is required.`, name)
  }
  const name = v.instancePath.replace(/^\//, '').split('/')[0] || null
  const what = name ?? err.validationContext ?? 'request'
  return new ServiceError('INVALID_PARAMETER', `Parameter "${what}" ${v.message ?? 'is invalid'}.`, name)
}

/** Turns anything thrown into a Problem; unexpected errors are logged and answered as INTERNAL without detail. */
export function toServiceError(err: unknown, req: FastifyRequest): ServiceError {
  if (err instanceof ServiceError) return err
  if (err instanceof StoreError) return fromStoreError(err)
  const e = err as FastifyError & { validation?: AjvError[] }
  if (e.validation) return fromValidation(e as FastifyError & { validation: AjvError[] })
  if (typeof e.code === 'string' && isErrorCode(e.code) && typeof e.message === 'string') return new ServiceError(e.code, e.message)
  // A release file damaged after it was opened: the release is unavailable, not the service broken.
  if (typeof e.code === 'string' && /^SQLITE_(CORRUPT|NOTADB)/.test(e.code)) {
    req.log.error({ err }, 'release file damaged')
    return new ServiceError('RELEASE_UNAVAILABLE', 'The release file is damaged; the operator must restore it (`hwfacts verify`).')
  }
  switch (e.statusCode) {
    case 413:
      return new ServiceError('PAYLOAD_TOO_LARGE', 'The request body is larger than this endpoint accepts.')
    case 415:
      return new ServiceError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json.')
    case 400:
      return new ServiceError('INVALID_PARAMETER', e.message || 'The request is malformed.')
    case 404:
      return new ServiceError('NOT_FOUND', 'No such resource.')
    case 429:
      return new ServiceError('RATE_LIMITED', e.message || 'Rate limit exceeded.')
  }
  req.log.error({ err }, 'unexpected error')
  return new ServiceError('INTERNAL', 'The service failed unexpectedly; the error was logged with this requestId.')
}

/** Every error, and every unknown route, leaves as a Problem (spec §2, §7). */
export default fp(
  async function problems(app: FastifyInstance, opts: { publicUrl?: string }) {
    const base = publicBase(opts.publicUrl)
    app.setErrorHandler((err, req, reply) => sendProblem(reply, toServiceError(err, req), base))
    app.setNotFoundHandler((req, reply) => sendProblem(reply, new ServiceError('NOT_FOUND', `No route ${req.method} ${req.url.split('?')[0]}.`), base))
  },
  { name: 'problems' }
)
