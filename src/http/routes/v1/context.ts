import type { FastifyInstance } from 'fastify'
import { SEED_VERSION } from '../../../model/versions.js'
import { ContextParams } from '../../../schemas/params.js'
import { ContextResponse } from '../../../schemas/responses.js'
import type { HardwareFacts } from '../../../service/facts.js'
import { factRoute, JSON_TYPE } from '../../fact-route.js'

/** RFC 9745: `@` and the Unix time of the deprecation, the date of the contract (2026-08-26) that marks `revision` deprecated. */
const REVISION_DEPRECATED = `@${Date.parse(SEED_VERSION) / 1000}`

export default async function contextRoute(app: FastifyInstance, { facts }: { facts: HardwareFacts }) {
  factRoute(app, {
    url: '/v1/context',
    operationId: 'getContext',
    summary: 'A bounded, evidence-backed page of facts for one part and topic',
    description:
      'Facts in a deterministic order (best text match first when `query` is given), within `limit` and `max_tokens`. `page.nextCursor` continues the result set. An ambiguous or unknown part returns no facts, with candidates. The deprecated `revision` adds a `Deprecation` header.',
    querystring: ContextParams,
    response: ContextResponse,
    scope: 'facts:read',
    handler: async (p, req, reply) => {
      const r = await facts.context(p, req.apiKey, req.contractVersion)
      if (r.deprecatedRevision) reply.header('Deprecation', REVISION_DEPRECATED).header('Link', '</openapi.json>; rel="deprecation"')
      return reply.type(JSON_TYPE).send(r.body)
    }
  })
}
