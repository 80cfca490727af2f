import type { FastifyInstance } from 'fastify'
import { PartParams } from '../../../schemas/params.js'
import { SourcesResponse } from '../../../schemas/responses.js'
import type { HardwareFacts } from '../../../service/facts.js'
import { factRoute } from '../../fact-route.js'

export default async function sourcesRoute(app: FastifyInstance, { facts }: { facts: HardwareFacts }) {
  factRoute(app, {
    url: '/v1/sources',
    operationId: 'getSources',
    summary: 'Publisher provenance and archived artifacts behind a part',
    description: 'For each source artifact: publisher, distributor, license, upstream repository/commit/URL, archived sha256, size and media type, and trust metadata.',
    querystring: PartParams,
    response: SourcesResponse,
    scope: 'facts:read',
    handler: (p, req) => facts.sources(p, req.apiKey, req.contractVersion)
  })
}
