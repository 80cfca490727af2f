import type { FastifyInstance } from 'fastify'
import { NoParams } from '../../schemas/params.js'
import { ref } from '../../schemas/components.js'
import { Ping, problemResponses } from '../../schemas/responses.js'
import { GET_ERRORS, SERVICE_VERSION_HEADER } from '../fact-route.js'

export default async function pingRoute(app: FastifyInstance) {
  app.get(
    '/ping',
    { schema: { operationId: 'ping', summary: 'Connectivity check', querystring: NoParams, headers: SERVICE_VERSION_HEADER, security: [], response: { 200: ref(Ping), ...problemResponses(GET_ERRORS) } }, config: { rateLimit: false } },
    async () => ({ status: 'ok', message: 'pong' }) as const
  )
}
