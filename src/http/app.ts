import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import swagger from '@fastify/swagger'
import rateLimit from '@fastify/rate-limit'
import type { Redis } from 'ioredis'
import type { ApiKeyStore } from '../auth/keys.js'
import { CONTRACT_VERSION } from '../schemas/params.js'
import { ERROR_CODES, ServiceError } from '../service/errors.js'
import type { HardwareFacts } from '../service/facts.js'
import auth from './auth.js'
import { Contract } from './contract.js'
import problems from './problem.js'
import healthRoutes, { type ReadinessCheck } from './routes/health.js'
import openapiRoute from './routes/openapi.js'
import pingRoute from './routes/ping.js'
import catalogPartRoute from './routes/v1/catalog/part.js'
import catalogSearchRoute from './routes/v1/catalog/search.js'
import contextRoute from './routes/v1/context.js'
import coverageRoute from './routes/v1/coverage.js'
import errorCodesRoute from './routes/v1/error-codes.js'
import resolveRoute from './routes/v1/parts/resolve.js'
import releaseRoute from './routes/v1/release.js'
import sourcesRoute from './routes/v1/sources.js'
import { PACKAGE_VERSION } from '../version.js'

export interface AppOptions {
  facts: HardwareFacts
  keys: ApiKeyStore
  logger?: FastifyServerOptions['logger']
  /** Absolute base for Problem `docUrl`/`type`; the request's origin when absent. */
  publicUrl?: string
  /** Default budget per API key (per client IP for unauthenticated calls). */
  rateLimit?: { max: number; timeWindowMs: number }
  /** Shared rate-limit store for several instances; in-process when absent. */
  redis?: Redis
  readinessChecks?: ReadinessCheck[]
  version?: string
  /** Extra route plugins (the MCP endpoint), registered after the REST routes. */
  plugins?: Array<(app: FastifyInstance, ctx: { facts: HardwareFacts; keys: ApiKeyStore; contract: Contract }) => Promise<void>>
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? false,
    // A client's X-Request-Id is kept when well-formed, so its logs and ours share one id.
    genReqId: (req) => {
      const h = req.headers['x-request-id']
      return typeof h === 'string' && REQUEST_ID.test(h) ? h : randomUUID()
    },
    requestIdHeader: false,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: true, useDefaults: true, allErrors: false } },
    routerOptions: { ignoreTrailingSlash: false },
    bodyLimit: 1024 * 1024
  })
  const contract = new Contract()
  const ctx = { facts: opts.facts, keys: opts.keys, contract }

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.1',
      info: {
        title: 'Hardware Facts',
        version: CONTRACT_VERSION,
        description:
          'Deterministic, source-backed microcontroller facts (registers, pins, electrical limits, errata) with the provenance of every fact and the immutable corpus release it came from. Every /v1 route but /v1/error-codes/{code} requires `Authorization: Bearer <API_KEY>`, and so does POST /mcp. Error codes: ' +
          Object.keys(ERROR_CODES).join(', ') +
          '.',
        license: { name: 'MIT', identifier: 'MIT' }
      },
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API credential issued by the operator.' } } }
    }
  })

  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id)
    const v = req.headers['service-version']
    if (v !== undefined && v !== CONTRACT_VERSION)
      return done(new ServiceError('UNSUPPORTED_SERVICE_VERSION', `Service-Version ${String(v)} is not served; the only supported value is ${CONTRACT_VERSION}.`, 'Service-Version'))
    reply.header('service-version', CONTRACT_VERSION)
    done()
  })
  await app.register(problems, opts.publicUrl ? { publicUrl: opts.publicUrl } : {})
  await app.register(auth, { keys: opts.keys })

  const limit = opts.rateLimit ?? { max: 600, timeWindowMs: 60_000 }
  await app.register(rateLimit, {
    global: true,
    hook: 'preHandler',
    max: (req) => req.apiKey?.rateLimit?.max ?? limit.max,
    timeWindow: (req) => req.apiKey?.rateLimit?.timeWindowMs ?? limit.timeWindowMs,
    keyGenerator: (req) => (req.apiKey ? `key:${req.apiKey.id}` : `ip:${req.ip}`),
    ...(opts.redis ? { redis: opts.redis, nameSpace: 'hwfacts-rl:', skipOnError: true } : {}),
    errorResponseBuilder: (_req, c) => ({
      statusCode: 429,
      code: 'RATE_LIMITED',
      message: `Rate limit of ${c.max} requests per ${c.after} exceeded; retry in ${Math.ceil(c.ttl / 1000)} s.`
    })
  })

  await app.register(pingRoute)
  await app.register(openapiRoute, ctx)
  await app.register(healthRoutes, { ...ctx, checks: opts.readinessChecks ?? [], version: opts.version ?? PACKAGE_VERSION })
  await app.register(errorCodesRoute)
  await app.register(resolveRoute, ctx)
  await app.register(catalogSearchRoute, ctx)
  await app.register(catalogPartRoute, ctx)
  await app.register(contextRoute, ctx)
  await app.register(releaseRoute, ctx)
  await app.register(coverageRoute, ctx)
  await app.register(sourcesRoute, ctx)
  for (const p of opts.plugins ?? []) await app.register(async (scope) => p(scope, ctx))

  app.addHook('onReady', async () => contract.freeze(app))
  return app
}
