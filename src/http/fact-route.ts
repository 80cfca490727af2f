import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Static, TObject, TSchema } from 'typebox'
import type { Scope } from '../auth/keys.js'
import type { HardwareFacts } from '../service/facts.js'
import type { ReleaseStore } from '../store/types.js'
import { CONTRACT_VERSION } from '../schemas/params.js'
import { ref } from '../schemas/components.js'
import { problemResponses } from '../schemas/responses.js'

/** Statuses every GET operation declares (spec §7.2). */
export const GET_ERRORS = [400, 401, 403, 429, 500] as const

export const SERVICE_VERSION_HEADER = {
  type: 'object',
  properties: { 'service-version': { type: 'string', enum: [CONTRACT_VERSION], description: 'Pins the contract; only 2026-08-26 is served. Optional.' } }
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
      response: { 200: ref(def.response), ...problemResponses(GET_ERRORS) }
    },
    config: def.scope ? { scope: def.scope } : {},
    handler: (req, reply) => def.handler(req.query as Static<P>, req, reply)
  })
}

/** The content type Fastify gives a serialized body: answers sent as JSON text carry the same. */
export const JSON_TYPE = 'application/json; charset=utf-8'

/**
 * A handler whose answer goes through the service's answer cache (HardwareFacts.answer), keyed by
 * the route and its whole parameter set, and serialized with the route's response schema.
 */
export function cachedAnswer<P extends TObject>(facts: HardwareFacts, route: string, querystring: P, make: (store: ReleaseStore, p: Static<P>) => unknown): FactRouteDef<P>['handler'] {
  const keys = Object.keys(querystring.properties)
  return async (p, req, reply) =>
    reply.type(JSON_TYPE).send(await facts.answer(route, keys, p as Static<P> & { corpus_release?: string }, req.apiKey, (store) => make(store, p), (v) => reply.serialize(v) as string))
}
