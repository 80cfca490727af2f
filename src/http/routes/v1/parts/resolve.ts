import type { FastifyInstance } from 'fastify'
import { ResolveParams } from '../../../../schemas/params.js'
import { ResolveResponse } from '../../../../schemas/responses.js'
import type { HardwareFacts } from '../../../../service/facts.js'
import { cachedAnswer, factRoute } from '../../../fact-route.js'

export default async function resolveRoute(app: FastifyInstance, { facts }: { facts: HardwareFacts }) {
  factRoute(app, {
    url: '/v1/parts/resolve',
    operationId: 'resolvePart',
    summary: 'Resolve a part identifier to verified-fact targets',
    description:
      'Resolves an ordering code, selector part, RefName, device name or family prefix. Never picks silently: `status` is `resolved`, `ambiguous` (with candidates and why each matched) or `not_found` (with suggestions); ambiguity is judged per topic in `topics`. `candidateCount` counts every candidate, `candidates` is one page of `candidate_limit`; pass `page.nextCursor` as `cursor` for the next.',
    querystring: ResolveParams,
    response: ResolveResponse,
    scope: 'facts:read',
    handler: cachedAnswer(facts, 'resolve', ResolveParams, (store, p, v) => facts.resolveOn(store, p, v))
  })
}
