import type { FastifyInstance } from 'fastify'
import { NoParams } from '../../schemas/params.js'
import { OpenApiDocument, problemResponses } from '../../schemas/responses.js'
import { GET_ERRORS, SERVICE_VERSION_HEADER } from '../fact-route.js'
import type { Contract } from '../contract.js'

export default async function openapiRoute(app: FastifyInstance, { contract }: { contract: Contract }) {
  app.get(
    '/openapi.json',
    {
      schema: { operationId: 'getOpenApi', summary: 'The contract (OpenAPI 3.1.1), MIT licensed', querystring: NoParams, headers: SERVICE_VERSION_HEADER, security: [], response: { 200: OpenApiDocument, ...problemResponses(GET_ERRORS) } },
      config: { rateLimit: false }
    },
    // Pre-serialized once: byte-stable, and the digest the service publishes is of these bytes.
    async (_req, reply) => reply.type('application/json; charset=utf-8').send(contract.json())
  )
}
