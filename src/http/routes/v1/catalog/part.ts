import type { FastifyInstance } from 'fastify'
import { CatalogPartParams } from '../../../../schemas/params.js'
import { CatalogPartResponse } from '../../../../schemas/responses.js'
import type { HardwareFacts } from '../../../../service/facts.js'
import { factRoute } from '../../../fact-route.js'

export default async function catalogPartRoute(app: FastifyInstance, { facts }: { facts: HardwareFacts }) {
  factRoute(app, {
    url: '/v1/catalog/part',
    operationId: 'getCatalogPart',
    summary: 'Catalog entry and document coverage of one part',
    description: 'The selector part (or device) with its attributes, the document target per topic, and the sources behind them.',
    querystring: CatalogPartParams,
    response: CatalogPartResponse,
    scope: 'facts:read',
    handler: (p, req) => facts.catalogPart(p, req.contractVersion)
  })
}
