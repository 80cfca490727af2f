import type { FastifyInstance } from 'fastify'
import { PartParams } from '../../../schemas/params.js'
import { CoverageResponse } from '../../../schemas/responses.js'
import type { HardwareFacts } from '../../../service/facts.js'
import { cachedAnswer, factRoute } from '../../fact-route.js'

export default async function coverageRoute(app: FastifyInstance, { facts }: { facts: HardwareFacts }) {
  factRoute(app, {
    url: '/v1/coverage',
    operationId: 'getCoverage',
    summary: 'Verified topic coverage of a part',
    description: 'Per topic: covered (with fact count and target), ambiguous (with candidates) or not covered (with the reason).',
    querystring: PartParams,
    response: CoverageResponse,
    scope: 'facts:read',
    handler: cachedAnswer(facts, 'coverage', PartParams, (store, p, v) => facts.coverageOn(store, p, v))
  })
}
