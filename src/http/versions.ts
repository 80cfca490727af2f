import type { FastifyInstance, FastifyRequest, preValidationHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { CONTRACT_VERSIONS, isContractVersion, LATEST_VERSION, reaches, SEED_VERSION, type ContractVersion } from '../model/versions.js'
import { forVersion } from '../schemas/versions.js'
import { ServiceError } from '../service/errors.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The contract version of the request: its `Service-Version`, else the seed's. */
    contractVersion: ContractVersion
  }
  interface FastifyContextConfig {
    /**
     * The contract version an operation first appears in, e.g. `config: { since: '2026-12-01' }`:
     * an earlier version's request gets the 404 of an unknown path, and its /openapi.json omits it.
     */
    since?: ContractVersion
  }
}

/** Whether the request's contract version has the route (`config.since`). */
export const routeServed = (req: FastifyRequest, since: ContractVersion | undefined): boolean => since === undefined || reaches(req.contractVersion, since)

/**
 * A route's query string as each earlier version has it, where that differs from the runtime
 * schema (a topic a later version adds): the request is validated against its version's form too,
 * so an earlier version refuses what it does not know exactly as it refuses any invalid value.
 */
function earlierForms(querystring: unknown): Map<ContractVersion, object> {
  const forms = new Map<ContractVersion, object>()
  if (querystring === undefined) return forms
  const latest = JSON.stringify(forVersion(querystring, LATEST_VERSION))
  for (const v of CONTRACT_VERSIONS) {
    const form = forVersion(querystring, v) as object
    if (JSON.stringify(form) !== latest) forms.set(v, form)
  }
  return forms
}

/**
 * Contract versions on every request: `Service-Version` names a served version (else 400, never a
 * fallback), is echoed, and is kept as `req.contractVersion`; routes a later version adds answer
 * an earlier one as unknown paths. Register before the method, auth and rate-limit hooks.
 */
export default fp(
  async function contractVersions(app: FastifyInstance) {
    app.decorateRequest('contractVersion', SEED_VERSION)
    app.addHook('onRequest', (req, reply, done) => {
      const v = req.headers['service-version']
      if (v !== undefined && !isContractVersion(v))
        return done(new ServiceError('UNSUPPORTED_SERVICE_VERSION', `Service-Version ${String(v)} is not served; the supported values are ${CONTRACT_VERSIONS.join(' and ')}.`, 'Service-Version'))
      req.contractVersion = v ?? SEED_VERSION
      reply.header('service-version', req.contractVersion)
      if (routeServed(req, req.routeOptions.config.since)) return done()
      // The not-found handler answers, as for any unknown path; the remaining hooks do not run.
      reply.callNotFound()
    })
    app.addHook('onRoute', (route) => {
      const forms = earlierForms(route.schema?.querystring)
      if (forms.size === 0) return
      const check: preValidationHookHandler = (req, _reply, done) => {
        const form = forms.get(req.contractVersion)
        if (!form) return done()
        const validate = req.compileValidationSchema(form, 'querystring')
        if (validate(req.query)) return done()
        // Shaped as Fastify's own validation error, so it becomes the same Problem (src/http/problem.ts).
        done(Object.assign(new Error('querystring is not valid in this contract version'), { statusCode: 400, validation: validate.errors, validationContext: 'querystring' }))
      }
      route.preValidation = [...(route.preValidation === undefined ? [] : Array.isArray(route.preValidation) ? route.preValidation : [route.preValidation]), check]
    })
  },
  { name: 'contract-versions' }
)
