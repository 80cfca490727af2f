import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import type { ApiKeyStore } from '../auth/keys.js'
import type { HardwareFacts } from '../service/facts.js'
import auth, { DEFAULT_AUTH_FAILURES, type AuthFailureLimits } from './auth.js'
import { Contract } from './contract.js'
import drain from './drain.js'
import securityHeaders from './headers.js'
import contractVersions from './versions.js'
import { VERSION_KEYWORDS } from '../schemas/versions.js'
import strictIntegers from './integers.js'
import onlyMethods from './methods.js'
import problems, { clientErrorHandler, frameworkErrors, refuseConnect } from './problem.js'
import { rateLimits, type RateLimitOptions } from './rate-limit.js'
import requestTarget from './request-target.js'
import strictQuery, { parseQuery } from './querystring.js'
import healthRoutes, { type ReadinessCheck } from './routes/health.js'
import docsRoute from './routes/docs.js'
import openapiRoute, { registerContract } from './routes/openapi.js'
import pingRoute from './routes/ping.js'
import catalogPartRoute from './routes/v1/catalog/part.js'
import catalogSearchRoute from './routes/v1/catalog/search.js'
import checkRoute from './routes/v1/check.js'
import compareReleasesRoute from './routes/v1/compare/releases.js'
import comparePartsRoute from './routes/v1/compare/parts.js'
import discrepanciesRoute from './routes/v1/discrepancies.js'
import contextRoute from './routes/v1/context.js'
import coverageRoute from './routes/v1/coverage.js'
import errorCodesRoute from './routes/v1/error-codes.js'
import resolveRoute from './routes/v1/parts/resolve.js'
import releaseRoute from './routes/v1/release.js'
import sourcesRoute from './routes/v1/sources.js'
import { PACKAGE_VERSION } from '../version.js'

export interface AppOptions extends RateLimitOptions {
  facts: HardwareFacts
  keys: ApiKeyStore
  logger?: FastifyServerOptions['logger']
  /** Absolute base for Problem `docUrl`/`type` (never taken from a request header). */
  publicUrl?: string
  /** Connection timeouts; the defaults below suit a service behind a load balancer. */
  timeouts?: Partial<Timeouts>
  /** Failed credentials accepted per credential and per client address in a window before 429 (src/http/auth.ts). */
  authFailures?: AuthFailureLimits
  readinessChecks?: ReadinessCheck[]
  version?: string
  /** Extra route plugins (the MCP endpoint), registered after the REST routes. */
  plugins?: Array<(app: FastifyInstance, ctx: RouteContext) => Promise<void>>
}

/** A well-formed request id: a UUID, the form this service makes. */
const REQUEST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
/** A client's other X-Request-Id is logged apart, cut to this many characters. */
const MAX_CLIENT_ID_LOGGED = 128

export interface Timeouts {
  /** Whole request (headers and body) received within this, else 408 (slow bodies). */
  requestMs: number
  /** Request line and headers received within this. */
  headersMs: number
  /** An idle kept-alive connection is closed after this. */
  keepAliveMs: number
  /** A connection with no traffic at all for this long is closed. */
  idleMs: number
}

/** How requests are validated: as the schemas say, numbers from query strings coerced, defaults filled, the first error reported. */
export const AJV_OPTIONS = { customOptions: { removeAdditional: false, coerceTypes: true, useDefaults: true, allErrors: false, keywords: VERSION_KEYWORDS } }

export const DEFAULT_TIMEOUTS: Timeouts = { requestMs: 10_000, headersMs: 5_000, keepAliveMs: 10_000, idleMs: 30_000 }

/**
 * The plugins every request passes before auth and the routes, in their order: problem answers,
 * security headers, the contract version, the request target, the query string, the drain flag,
 * methods, integers. One list, so a test app built from them checks what the service runs.
 */
export async function registerRequestChecks(app: FastifyInstance, publicUrl?: string): Promise<void> {
  await app.register(problems, publicUrl ? { publicUrl } : {})
  await app.register(securityHeaders)
  await app.register(contractVersions)
  await app.register(requestTarget)
  await app.register(strictQuery)
  await app.register(drain)
  await app.register(onlyMethods)
  await app.register(strictIntegers)
}

/** What every route plugin is given: the service, the keys and the contract. */
export interface RouteContext {
  facts: HardwareFacts
  keys: ApiKeyStore
  contract: Contract
}

/**
 * The app without its routes: Fastify's options, the contract's schemas, request ids, the request
 * checks, auth and rate limits. buildApp adds the service's routes to it; a route's own test adds
 * that route alone (test/http/routes-units.test.ts), so it checks the route in the app it runs in.
 */
export async function baseApp(opts: AppOptions): Promise<{ app: FastifyInstance; ctx: RouteContext }> {
  const t = { ...DEFAULT_TIMEOUTS, ...opts.timeouts }
  const app = Fastify({
    logger: opts.logger ?? false,
    connectionTimeout: t.idleMs,
    keepAliveTimeout: t.keepAliveMs,
    requestTimeout: t.requestMs,
    // Node checks request and header deadlines every connectionsCheckingInterval (30 s by default).
    // A missing Host is answered as a Problem (request-target.ts), not with Node's bare 400.
    http: { headersTimeout: Math.min(t.headersMs, t.requestMs), connectionsCheckingInterval: Math.min(1000, t.requestMs), requireHostHeader: false },
    // Requests on kept-alive connections while closing are answered (with Connection: close), not refused with a bare 503.
    return503OnClosing: false,
    clientErrorHandler: clientErrorHandler(opts.publicUrl),
    frameworkErrors: frameworkErrors(opts.publicUrl),
    // A client's X-Request-Id is kept when it is a UUID (what we would make), so its logs and ours
    // share one id; any other value is not echoed as ours: it is logged apart (below).
    genReqId: (req) => {
      const h = req.headers['x-request-id']
      return typeof h === 'string' && REQUEST_ID.test(h) ? h.toLowerCase() : randomUUID()
    },
    childLoggerFactory: (logger, bindings, opts, raw) => {
      // Node gives a repeated X-Request-Id joined into one value (`a, b`); only set-cookie comes as a list.
      const client = raw.headers['x-request-id'] as string | undefined
      return logger.child(client !== undefined && client.toLowerCase() !== bindings.reqId ? { ...bindings, clientRequestId: client.slice(0, MAX_CLIENT_ID_LOGGED) } : bindings, opts)
    },
    requestIdHeader: false,
    ajv: AJV_OPTIONS,
    routerOptions: { ignoreTrailingSlash: false, querystringParser: parseQuery },
    bodyLimit: 1024 * 1024
  })
  refuseConnect(app, opts.publicUrl)
  const contract = new Contract()
  const ctx: RouteContext = { facts: opts.facts, keys: opts.keys, contract }

  await registerContract(app, { publicUrl: opts.publicUrl })

  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id)
    done()
  })
  await registerRequestChecks(app, opts.publicUrl)
  await app.register(auth, { keys: opts.keys, failures: opts.authFailures ?? DEFAULT_AUTH_FAILURES })

  await rateLimits(app, opts)
  app.addHook('onReady', async () => contract.freeze(app))
  return { app, ctx }
}

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const { app, ctx } = await baseApp(opts)
  await app.register(pingRoute)
  await app.register(openapiRoute, ctx)
  await app.register(docsRoute, ctx)
  await app.register(healthRoutes, { ...ctx, checks: opts.readinessChecks ?? [], version: opts.version ?? PACKAGE_VERSION })
  await app.register(errorCodesRoute)
  await app.register(resolveRoute, ctx)
  await app.register(catalogSearchRoute, ctx)
  await app.register(catalogPartRoute, ctx)
  await app.register(contextRoute, ctx)
  await app.register(releaseRoute, ctx)
  await app.register(coverageRoute, ctx)
  await app.register(sourcesRoute, ctx)
  await app.register(compareReleasesRoute, ctx)
  await app.register(comparePartsRoute, ctx)
  await app.register(discrepanciesRoute, ctx)
  await app.register(checkRoute, ctx)
  for (const p of opts.plugins ?? []) await app.register(async (scope) => p(scope, ctx))
  return app
}
