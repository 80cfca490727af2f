import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Static, TObject, TSchema } from 'typebox'
import type { Scope } from '../auth/keys.js'
import type { HardwareFacts } from '../service/facts.js'
import type { ReleaseStore } from '../store/types.js'
import { CONTRACT_VERSIONS, SEED_VERSION, type ContractVersion } from '../model/versions.js'
import { SINCE, VERSIONS_SINCE } from '../schemas/versions.js'
import { ref } from '../schemas/components.js'
import { problemResponses } from '../schemas/responses.js'

/**
 * Statuses every GET operation declares: spec §7.2's, and those any request can meet before its
 * route runs (408 slow request, 414 long target, 431 long head).
 */
export const GET_ERRORS = [400, 401, 403, 408, 414, 429, 431, 500] as const
/** A /v1 operation adds 405 (any other method on its path) and 503 (its release unavailable). */
export const V1_GET_ERRORS = [...GET_ERRORS, 405, 503] as const

const PROBLEM_WHEN: Record<number, string> = {
  400: 'A parameter is invalid, missing, unknown or given twice (`param` names it), the request is malformed (a bad percent-escape, a NUL byte, no Host), or Service-Version is not served.',
  401: 'The bearer credential is missing or not a valid API key.',
  403: 'The API key lacks the scope, or may not read the release asked for.',
  404: 'No such resource.',
  408: 'The request (headers and body) did not arrive within the request timeout.',
  413: 'The request body is larger than this endpoint accepts.',
  414: 'The request target is longer than 8,192 bytes; `param` names the parameter taking the most of it.',
  429: 'The request budget is spent, or too many wrong credentials came from this client; see Retry-After.',
  431: 'The request line and headers together exceed 16 KiB.',
  500: 'The service failed unexpectedly; the error was logged with the requestId.',
  503: 'The release asked for is unavailable (a file failed its check) or none is loaded yet.'
}

/** Problem responses, each described by when it is returned; 405's names the one method `allow`ed. */
export function errorResponses(statuses: readonly number[], allow = 'GET'): Record<number, unknown> {
  const out = problemResponses(statuses) as Record<number, { description: string }>
  for (const s of statuses) {
    const when = s === 405 ? `Any method other than ${allow} on this path (\`Allow: ${allow}\`); listed here as OpenAPI has no operation for the other methods.` : PROBLEM_WHEN[s]
    if (when) out[s] = { ...out[s]!, description: `Problem (RFC 9457): ${when}` }
  }
  return out
}

export const SERVICE_VERSION_HEADER = {
  type: 'object',
  properties: {
    'service-version': { type: 'string', enum: CONTRACT_VERSIONS, [SINCE]: VERSIONS_SINCE, description: `Pins the dated contract version. Optional: without it, ${SEED_VERSION} applies.` }
  }
} as const

/** §5.3: the contract lists "no credential" and "bearer" as alternatives; §5.2 makes bearer required. */
export const BEARER_ALTERNATIVES: Array<Record<string, string[]>> = [{}, { bearerAuth: [] }]

export interface FactRouteDef<P extends TObject> {
  url: string
  operationId: string
  summary: string
  description: string
  querystring: P
  /** The named schema of the 200 body: documented by reference, and what Fastify serializes with. */
  response: TSchema
  scope?: Scope
  /** The contract version the operation first appears in (src/http/versions.ts). */
  since?: ContractVersion
  handler: (params: Static<P>, req: FastifyRequest, reply: FastifyReply) => Promise<unknown>
}

/** A read-only /v1 operation: query schema, Problem responses, bearer scope (other methods: src/http/methods.ts). */
export function factRoute<P extends TObject>(app: FastifyInstance, def: FactRouteDef<P>): void {
  app.route({
    method: 'GET',
    url: def.url,
    schema: {
      operationId: def.operationId,
      summary: def.summary,
      description: def.description,
      querystring: def.querystring,
      headers: SERVICE_VERSION_HEADER,
      ...(def.scope ? { security: BEARER_ALTERNATIVES } : { security: [] }),
      response: { 200: ref(def.response), ...errorResponses(V1_GET_ERRORS) }
    },
    config: { ...(def.scope ? { scope: def.scope } : {}), ...(def.since ? { since: def.since } : {}) },
    handler: (req, reply) => def.handler(req.query as Static<P>, req, reply)
  })
}

/** The content type Fastify gives a serialized body: answers sent as JSON text carry the same. */
export const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * A handler whose answer goes through the service's answer cache (HardwareFacts.answer), keyed by
 * the route, the contract version (which sets the topics listed) and the whole parameter set, and
 * serialized with the route's response schema.
 */
export function cachedAnswer<P extends TObject>(
  facts: HardwareFacts,
  route: string,
  querystring: P,
  make: (store: ReleaseStore, p: Static<P>, version: ContractVersion) => unknown
): FactRouteDef<P>['handler'] {
  const keys = Object.keys(querystring.properties)
  return async (p, req, reply) => {
    const v = req.contractVersion
    return reply
      .type(JSON_TYPE)
      .send(await facts.answer(`${route}@${v}`, keys, p as Static<P> & { corpus_release?: string }, req.apiKey, (store) => make(store, p, v), (x) => reply.serialize(x) as string))
  }
}
