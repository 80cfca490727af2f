import type { FastifyInstance } from 'fastify'
import { CompareReleasesParams, CompareReleasesResponse } from '../../../../schemas/compare.js'
import { compareOf } from '../../../../service/compare.js'
import type { HardwareFacts } from '../../../../service/facts.js'
import { factRoute } from '../../../fact-route.js'

export default async function compareReleasesRoute(app: FastifyInstance, { facts }: { facts: HardwareFacts }) {
  factRoute(app, {
    url: '/v1/compare/releases',
    operationId: 'compareReleases',
    summary: 'What changed for one part and topic between two corpus releases',
    description:
      'Facts added, removed and changed between `from_release` and `to_release` (default: the promoted release), matched by name and package, each with both values and both evidences; the source artifacts that changed. Ordered by name, within `limit` and `max_tokens`; `page.nextCursor` continues. The part must resolve to one target in both releases, else candidates and no changes. The API key must be allowed to read both releases.',
    querystring: CompareReleasesParams,
    response: CompareReleasesResponse,
    scope: 'facts:read',
    handler: async (p, req, reply) => reply.type('application/json; charset=utf-8').send(await compareOf(facts).releases(p, req.apiKey))
  })
}
