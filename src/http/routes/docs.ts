import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import type { Contract } from '../contract.js'

/**
 * A human-readable API reference at /docs: Swagger UI over the same documents as /openapi.json,
 * every asset served from this package (no CDN), no credential needed. The CSP keeps it that way:
 * a page that tried to load anything from elsewhere would be refused by the browser.
 */
export default async function docsRoute(app: FastifyInstance, { contract }: { contract: Contract }) {
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    // The document of the request's contract version, as /openapi.json serves it.
    transformSpecification: (_generated, req) => contract.document(req.contractVersion),
    transformSpecificationClone: false,
    uiConfig: { docExpansion: 'list', deepLinking: true, defaultModelsExpandDepth: 0, defaultModelRendering: 'model', tryItOutEnabled: false },
    validatorUrl: false,
    theme: { title: 'Hardware Facts — API reference' },
    staticCSP: "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; object-src 'none'; frame-ancestors 'self'; base-uri 'self'"
  })
}
