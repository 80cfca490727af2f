import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { ERROR_CODES, isErrorCode, ServiceError, type ErrorCode } from '../service/errors.js'

export const PROBLEM_TYPE = 'application/problem+json'

/** The absolute base the Problem `docUrl` and `type` point into: configured, else the request's own origin. */
export function publicBase(req: FastifyRequest, configured?: string): string {
  if (configured) return configured.replace(/\/$/, '')
  return `${req.protocol}://${req.host}`
}

export function problemBody(code: ErrorCode, detail: string, param: string | null, req: FastifyRequest, base: string) {
  const info = ERROR_CODES[code]
  const docUrl = `${base}/v1/error-codes/${code}`
  return {
    type: docUrl,
    title: info.title,
    status: info.status,
    detail,
    instance: req.url.split('?')[0]!,
    code,
    param,
    requestId: req.id,
    docUrl,
    error: code,
    message: detail,
    request_id: req.id
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
  const e = err as FastifyError & { validation?: AjvError[] }
  if (e.validation) return fromValidation(e as FastifyError & { validation: AjvError[] })
  if (typeof e.code === 'string' && isErrorCode(e.code) && typeof e.message === 'string') return new ServiceError(e.code, e.message)
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
    app.setErrorHandler((err, req, reply) => sendProblem(reply, toServiceError(err, req), publicBase(req, opts.publicUrl)))
    app.setNotFoundHandler((req, reply) =>
      sendProblem(reply, new ServiceError('NOT_FOUND', `No route ${req.method} ${req.url.split('?')[0]}.`), publicBase(req, opts.publicUrl))
    )
  },
  { name: 'problems' }
)
