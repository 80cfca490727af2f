import type { FastifyInstance } from 'fastify'
import { DiscrepanciesParams, DiscrepanciesResponse } from '../../../schemas/discrepancies.js'
import type { HardwareFacts } from '../../../service/facts.js'
import { cachedAnswer, factRoute } from '../../fact-route.js'

export default async function discrepanciesRoute(app: FastifyInstance, { facts }: { facts: HardwareFacts }) {
  factRoute(app, {
    url: '/v1/discrepancies',
    operationId: 'getDiscrepancies',
    summary: 'Where the sources of a part disagree',
    description:
      'For each topic several kinds of source give for this part (interrupts: stm32-data and the SVD; memory: stm32-data, probe-rs, modm-devices; pins: ST\'s pin data and stm32-data, on the alternate functions): which source is served, which are checked against it, how many facts agree, and every disagreement with both values and evidences.',
    querystring: DiscrepanciesParams,
    response: DiscrepanciesResponse,
    scope: 'facts:read',
    since: '2026-12-01',
    handler: cachedAnswer(facts, 'discrepancies', DiscrepanciesParams, (store, p) => facts.discrepanciesOn(store, p))
  })
}
