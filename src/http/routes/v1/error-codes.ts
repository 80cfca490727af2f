import type { FastifyInstance } from 'fastify'
import { ErrorCodeParams, NoParams } from '../../../schemas/params.js'
import { ref } from '../../../schemas/components.js'
import { ErrorCodeGuidance } from '../../../schemas/responses.js'
import { ERROR_CODES, isErrorCode, ServiceError } from '../../../service/errors.js'
import { V1_GET_ERRORS, SERVICE_VERSION_HEADER, errorResponses } from '../../fact-route.js'

/** Stable guidance for one error code, read from the one error table. Needs no credential (spec §5.4). */
export function errorCodeGuidance(code: string) {
  if (!isErrorCode(code)) throw new ServiceError('NOT_FOUND', `No error code ${code}; see /openapi.json for the codes in use.`, 'code')
  const info = ERROR_CODES[code]
  return { code, status: info.status, title: info.title, retryable: info.retryable, guidance: info.guidance }
}

export default async function errorCodesRoute(app: FastifyInstance) {
  app.get(
    '/v1/error-codes/:code',
    {
      schema: {
        operationId: 'getErrorCode',
        summary: 'Stable guidance and retryability for one error code',
        params: ErrorCodeParams,
        querystring: NoParams,
        headers: SERVICE_VERSION_HEADER,
        security: [],
        response: { 200: ref(ErrorCodeGuidance), ...errorResponses([...V1_GET_ERRORS.filter((s) => s !== 503), 404]) }
      }
    },
    async (req) => errorCodeGuidance((req.params as { code: string }).code)
  )
}
