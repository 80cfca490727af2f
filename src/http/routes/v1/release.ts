import type { FastifyInstance } from 'fastify'
import { VERSION_TOPICS } from '../../../model/versions.js'
import { NoParams } from '../../../schemas/params.js'
import { ref } from '../../../schemas/components.js'
import { ReleaseResponse } from '../../../schemas/responses.js'
import type { HardwareFacts } from '../../../service/facts.js'
import type { Contract } from '../../contract.js'
import { BEARER_ALTERNATIVES, V1_GET_ERRORS, SERVICE_VERSION_HEADER, errorResponses } from '../../fact-route.js'

export default async function releaseRoute(app: FastifyInstance, { facts, contract }: { facts: HardwareFacts; contract: Contract }) {
  app.get(
    '/v1/release',
    {
      schema: {
        operationId: 'getRelease',
        summary: 'The promoted immutable corpus release and the API identity',
        querystring: NoParams,
        headers: SERVICE_VERSION_HEADER,
        security: BEARER_ALTERNATIVES,
        response: { 200: ref(ReleaseResponse), ...errorResponses(V1_GET_ERRORS) }
      },
      config: { scope: 'facts:read' }
    },
    async (req) => ({ release: await facts.release(VERSION_TOPICS[req.contractVersion]), api: contract.identity(req.contractVersion) })
  )
}
