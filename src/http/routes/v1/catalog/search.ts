import type { FastifyInstance } from 'fastify'
import { VERSION_TOPICS } from '../../../../model/versions.js'
import { CatalogSearchParams } from '../../../../schemas/params.js'
import { CatalogSearchResponse } from '../../../../schemas/responses.js'
import type { HardwareFacts } from '../../../../service/facts.js'
import { cachedAnswer, factRoute } from '../../../fact-route.js'

export default async function catalogSearchRoute(app: FastifyInstance, { facts }: { facts: HardwareFacts }) {
  factRoute(app, {
    url: '/v1/catalog/search',
    operationId: 'searchCatalog',
    summary: 'Search the publisher selector catalog',
    description:
      'Selector parts and RefNames whose name is the query, whose ordering code it is, or which start with it: `total` counts them all, `results` is one page of `candidate_limit`; pass `page.nextCursor` as `cursor` for the next.',
    querystring: CatalogSearchParams,
    response: CatalogSearchResponse,
    scope: 'facts:read',
    handler: cachedAnswer(facts, 'catalog/search', CatalogSearchParams, (store, p, v) => facts.catalogSearchOn(store, p, VERSION_TOPICS[v]))
  })
}
