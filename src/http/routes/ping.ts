import type { FastifyInstance } from 'fastify'
import { NoParams } from '../../schemas/params.js'
import { Ping } from '../../schemas/responses.js'

export default async function pingRoute(app: FastifyInstance) {
  app.get(
    '/ping',
    { schema: { operationId: 'ping', summary: 'Connectivity check', querystring: NoParams, security: [], response: { 200: Ping } }, config: { rateLimit: false } },
    async () => ({ status: 'ok', message: 'pong' }) as const
  )
}
