import type { FastifyInstance } from 'fastify'
import { CheckParams, CheckResponse } from '../../../schemas/check.js'
import { checkOf } from '../../../service/check.js'
import type { HardwareFacts } from '../../../service/facts.js'
import { factRoute, JSON_TYPE } from '../../fact-route.js'

export default async function checkRoute(app: FastifyInstance, { facts }: { facts: HardwareFacts }) {
  factRoute(app, {
    url: '/v1/check',
    operationId: 'checkConfiguration',
    summary: 'Check a configuration of one part: pins, DMA, limits, errata, clocks',
    description:
      'Pin assignments (`assign`), DMA channels (`dma`), supply, temperature and clock (`vdd`, `temperature`, `sysclk`) and `silicon_revision` of one part, checked against its facts. Findings, errors first, each with a stable `code`, the inputs it concerns and the evidence of every fact it rests on, within `max_tokens`. An ambiguous part gives candidates and no findings; a malformed, unknown or repeated entry is a Problem naming the parameter and quoting the entry.',
    querystring: CheckParams,
    response: CheckResponse,
    scope: 'facts:read',
    since: '2026-12-01',
    handler: async (p, req, reply) => reply.type(JSON_TYPE).send(await checkOf(facts).check(p, req.apiKey))
  })
}
