import type { FastifyInstance } from 'fastify'
import { NoParams } from '../../schemas/params.js'
import { ref } from '../../schemas/components.js'
import { Ping } from '../../schemas/responses.js'
import { GET_ERRORS, SERVICE_VERSION_HEADER, errorResponses } from '../fact-route.js'

export default async function pingRoute(app: FastifyInstance) {
  app.get(
    '/ping',
    { schema: { operationId: 'ping', summary: 'Connectivity check', querystring: NoParams, headers: SERVICE_VERSION_HEADER, security: [], response: { 200: ref(Ping), ...errorResponses(GET_ERRORS) } }, config: { rateLimit: false } },
    async () => ({ status: 'ok', message: 'pong' }) as const
  )
}
