import swagger from '@fastify/swagger'
import type { FastifyInstance } from 'fastify'
import { namedSchemas, ref, shared } from '../../schemas/components.js'
import { SEED_VERSION } from '../../model/versions.js'
import { SINCE } from '../../schemas/versions.js'
import { OpenApiParams } from '../../schemas/params.js'
import { CheckResponse } from '../../schemas/check.js'
import { COMPARE_ROOTS } from '../../schemas/compare.js'
import { DISCREPANCIES_ROOTS } from '../../schemas/discrepancies.js'
import { OpenApiDocument, RESPONSE_ROOTS } from '../../schemas/responses.js'
import { ERROR_CODES, ServiceError } from '../../service/errors.js'
import { GET_ERRORS, JSON_TYPE, SERVICE_VERSION_HEADER, errorResponses } from '../fact-route.js'
import { publicBase } from '../problem.js'

import type { Contract } from '../contract.js'

/**
 * The contract's schemas and document generator. Every named schema of src/schemas is added once
 * to the app (so validation and fast-json-stringify resolve the routes' `$ref`s) and becomes a
 * `components/schemas` entry under its own name. The generated document has every version's
 * operations and members, marked; src/http/contract.ts derives each version's document from it.
 * Must be registered before the routes.
 */
export async function registerContract(app: FastifyInstance, opts: { publicUrl?: string | undefined }): Promise<void> {
  for (const s of namedSchemas([...RESPONSE_ROOTS, ...COMPARE_ROOTS, ...DISCREPANCIES_ROOTS, CheckResponse])) app.addSchema(shared(s))
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.1',
      info: {
        title: 'Hardware Facts',
        version: SEED_VERSION,
        description:
          'Deterministic, source-backed microcontroller facts (registers, pins, electrical limits, errata) with the provenance of every fact and the immutable corpus release it came from. `Service-Version` pins the dated contract version; /openapi.json serves the document of the version asked for. Every /v1 route but /v1/error-codes/{code} requires `Authorization: Bearer <API_KEY>`, and so does POST /mcp. Error codes: ' +
          Object.keys(ERROR_CODES).join(', ') +
          '.',
        license: { name: 'MIT', identifier: 'MIT' }
      },
      // The configured public URL; else the server the document is read from (a relative URL).
      servers: [opts.publicUrl ? { url: publicBase(opts.publicUrl), description: 'This deployment' } : { url: '/', description: 'The server this document is served from' }],
      components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API credential issued by the operator.' } } }
    },
    // An operation a later version adds (route `config.since`) is marked for src/http/contract.ts.
    transform: ({ schema, url, route }) => ({ schema: route.config?.since ? { ...schema, [SINCE]: route.config.since } : schema, url }),
    // Components are named by their `$id` (`#/components/schemas/Fact`), not `def-N`; the title shows it in /docs.
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) => {
        if (typeof json.$id !== 'string') return `def-${i}`
        json.title ??= json.$id
        return json.$id
      }
    }
  })
}

export default async function openapiRoute(app: FastifyInstance, { contract }: { contract: Contract }) {
  app.get(
    '/openapi.json',
    {
      schema: {
        operationId: 'getOpenApi',
        summary: 'The contract (OpenAPI 3.1.1) of a contract version, MIT licensed',
        querystring: OpenApiParams,
        headers: SERVICE_VERSION_HEADER,
        security: [],
        response: { 200: ref(OpenApiDocument), ...errorResponses(GET_ERRORS) }
      },
      config: { rateLimit: false }
    },
    // Pre-serialized once: byte-stable, and the digest the service publishes is of these bytes.
    async (req, reply) => {
      const asked = (req.query as OpenApiParams).version
      if (asked !== undefined && req.headers['service-version'] !== undefined && asked !== req.contractVersion)
        throw new ServiceError('INVALID_PARAMETER', `version ${asked} and Service-Version ${req.contractVersion} disagree: give one of them, or the same version in both.`, 'version')
      const v = asked ?? req.contractVersion
      return reply.header('service-version', v).type(JSON_TYPE).send(contract.json(v))
    }
  )
}
