import type { FastifyInstance } from 'fastify'
import { ComparePartsParams, ComparePartsResponse } from '../../../../schemas/compare.js'
import { compareOf } from '../../../../service/compare.js'
import type { HardwareFacts } from '../../../../service/facts.js'
import { factRoute } from '../../../fact-route.js'

export default async function comparePartsRoute(app: FastifyInstance, { facts }: { facts: HardwareFacts }) {
  factRoute(app, {
    url: '/v1/compare/parts',
    operationId: 'compareParts',
    summary: 'How two parts differ for one topic',
    description:
      'registers: peripherals, registers and fields on one part only, and differing addresses, reset values, bit positions/widths and access; pins: per signal, the pins and AF numbers on each part; electrical: the limits side by side; errata: which errata are listed for one part and not the other. Entries the same on both are counted, and listed with `include_same=true`. Ordered by name, within `limit` and `max_tokens`; `page.nextCursor` continues. Ambiguous parts get candidates and no entries.',
    querystring: ComparePartsParams,
    response: ComparePartsResponse,
    scope: 'facts:read',
    handler: async (p, req, reply) => reply.type('application/json; charset=utf-8').send(await compareOf(facts).parts(p, req.apiKey))
  })
}
