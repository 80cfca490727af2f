import { CONTRACT_VERSIONS, SEED_VERSION } from '../model/versions.js'
import type { StoreError, StoreFailure } from '../store/errors.js'

/**
 * Every error code the service answers with, in one table: the Problem builder, the
 * `/v1/error-codes/{code}` route, the OpenAPI document and the README all read it.
 */
export interface ErrorCodeInfo {
  status: number
  title: string
  retryable: boolean
  guidance: string
}

export const ERROR_CODES = {
  INVALID_PARAMETER: {
    status: 400,
    title: 'Invalid parameter',
    retryable: false,
    guidance: 'A parameter is out of its documented range, pattern or enumeration. Fix the parameter named in `param` (see /openapi.json) and retry.'
  },
  MISSING_PARAMETER: {
    status: 400,
    title: 'Missing parameter',
    retryable: false,
    guidance: 'A required parameter is absent. Add the parameter named in `param` and retry.'
  },
  UNKNOWN_PARAMETER: {
    status: 400,
    title: 'Unknown parameter',
    retryable: false,
    guidance: 'The request has a parameter this endpoint does not define (often a typo, e.g. `fact_name` for `fact_names`). It is rejected rather than ignored so a query is never silently widened. Remove or correct the parameter named in `param`.'
  },
  UNSUPPORTED_SERVICE_VERSION: {
    status: 400,
    title: 'Unsupported Service-Version',
    retryable: false,
    guidance: `The Service-Version header names a contract this service does not serve. Send ${CONTRACT_VERSIONS.map((v) => `\`${v}\``).join(' or ')}, or omit the header for ${SEED_VERSION}; the service never falls back silently.`
  },
  UNKNOWN_CORPUS_RELEASE: {
    status: 400,
    title: 'Unknown corpus release',
    retryable: false,
    guidance: 'No kept release has this id. Omit corpus_release to use the promoted release, or read /v1/release for its id.'
  },
  INVALID_CURSOR: {
    status: 400,
    title: 'Invalid cursor',
    retryable: false,
    guidance: 'The cursor is malformed, altered, or belongs to another query or release. Repeat the original query without a cursor and page again with the cursor it returns.'
  },
  INVALID_ENTRY: {
    status: 400,
    title: 'Invalid entry',
    retryable: false,
    guidance: 'An entry of a list parameter (`assign`, `dma` of /v1/check) is not of its form, or is listed twice: `assign` takes `SIGNAL:PIN` (`USART1_TX:PA9`, or `USART1_TX:` to ask for its pins), `dma` takes `SIGNAL:CHANNEL` (`USART1_TX:DMA2_CH7`). The detail quotes the entry; fix it and retry.'
  },
  TOO_MANY_ENTRIES: {
    status: 400,
    title: 'Too many entries',
    retryable: false,
    guidance: 'A list parameter has more entries than it allows (`assign` and `dma` of /v1/check: 64 each). Check the configuration in parts.'
  },
  UNKNOWN_SIGNAL: {
    status: 400,
    title: 'Unknown signal',
    retryable: false,
    guidance: 'No pin of the part\'s package carries this signal (the detail quotes the entry and names signals close to it). Check the spelling against /v1/context topic=pins, or give another package.'
  },
  UNKNOWN_PIN: {
    status: 400,
    title: 'Unknown pin',
    retryable: false,
    guidance: 'The pin of the entry is neither a pin of the part\'s package nor a GPIO name (`PA9`); the detail quotes the entry. Use the pin names of /v1/context topic=pins.'
  },
  MALFORMED_REQUEST: {
    status: 400,
    title: 'Malformed request',
    retryable: false,
    guidance: 'The request could not be parsed as HTTP: a bad percent-escape or a NUL byte in the URL, an unknown method token, or a broken header. Fix the request line or headers.'
  },
  INVALID_JSON_RPC: {
    status: 400,
    title: 'Invalid JSON-RPC request',
    retryable: false,
    guidance: 'The /mcp body must be one JSON-RPC 2.0 request object sent as application/json.'
  },
  UNAUTHENTICATED: {
    status: 401,
    title: 'Unauthenticated',
    retryable: false,
    guidance: 'Send a valid API key as `Authorization: Bearer <API_KEY>`. Keys are issued by the operator (see README, "API keys").'
  },
  FORBIDDEN: {
    status: 403,
    title: 'Forbidden',
    retryable: false,
    guidance: 'The API key is valid but not permitted this operation or this corpus release. Ask the operator for a key with the needed scope.'
  },
  NOT_FOUND: {
    status: 404,
    title: 'Not found',
    retryable: false,
    guidance: 'No such route or resource. The routes are listed in /openapi.json; error codes in /v1/error-codes/{code}.'
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    title: 'Method not allowed',
    retryable: false,
    guidance: 'The /v1 interface is read-only: use GET. The Allow header lists the permitted methods.'
  },
  REQUEST_TIMEOUT: {
    status: 408,
    title: 'Request timeout',
    retryable: true,
    guidance: 'The request (headers and body) did not arrive within the time the service allows. Send the whole request promptly.'
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    title: 'Payload too large',
    retryable: false,
    guidance: 'The request body exceeds the documented bound (64 KiB for /mcp). Send a smaller request.'
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    title: 'Unsupported media type',
    retryable: false,
    guidance: 'Send the body as application/json.'
  },
  URI_TOO_LONG: {
    status: 414,
    title: 'URI too long',
    retryable: false,
    guidance: 'The request target is longer than the service accepts. Shorten the query; long lists belong in fewer, narrower requests.'
  },
  RATE_LIMITED: {
    status: 429,
    title: 'Rate limited',
    retryable: true,
    guidance: 'The API key exceeded its request budget, or this client address sent too many requests with a missing or wrong credential. Wait for the number of seconds in Retry-After, then retry.'
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    title: 'Request header fields too large',
    retryable: false,
    guidance: 'The request line and headers together exceed the size the service accepts (16 KiB). Send fewer or shorter headers.'
  },
  INTERNAL: {
    status: 500,
    title: 'Internal error',
    retryable: true,
    guidance: 'The service failed unexpectedly; nothing was changed. Retry later and quote the requestId if it persists.'
  },
  NOT_READY: {
    status: 503,
    title: 'Not ready',
    retryable: true,
    guidance: 'No corpus release is loaded yet, or a configured backend (search engine, Redis) does not answer. Retry after a short wait; /readyz says what is missing.'
  },
  RELEASE_UNAVAILABLE: {
    status: 503,
    title: 'Release unavailable',
    retryable: true,
    guidance: 'A file of the release (its top file or a shard) failed its digest check when the service opened it, so none of its facts are served, or a shard could not be opened later. The operator must rebuild or restore it (`hwfacts verify` names the damage); /readyz says which release.'
  }
} as const satisfies Record<string, ErrorCodeInfo>

export type ErrorCode = keyof typeof ERROR_CODES

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code)
}

/** An expected failure with its stable code; anything else that is thrown becomes INTERNAL. */
export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly param: string | null = null,
    /** Response headers that belong with this error (Allow, WWW-Authenticate, Retry-After). */
    readonly headers: Record<string, string> = {}
  ) {
    super(detail)
  }
  get status(): number {
    return ERROR_CODES[this.code].status
  }
}

/** The Problem code of each failure the store reports in its own terms (src/store/errors.ts). */
const STORE_FAILURE_CODES = {
  'release-unavailable': 'RELEASE_UNAVAILABLE'
} as const satisfies Record<StoreFailure, ErrorCode>

export function fromStoreError(err: StoreError): ServiceError {
  return new ServiceError(STORE_FAILURE_CODES[err.failure], err.message)
}
