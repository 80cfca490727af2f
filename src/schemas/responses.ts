import { Type } from 'typebox'
import { CONTRACT_VERSION } from './params.js'

/** Response bodies of the contract (spec §2). Members the spec fixes are exact; the rest are open objects. */
export const Ping = Type.Object({ status: Type.Literal('ok'), message: Type.Literal('pong') }, { additionalProperties: false })

export const Health = Type.Object(
  { status: Type.String(), service: Type.Optional(Type.String()), version: Type.Optional(Type.String()) },
  { additionalProperties: true }
)

export const ApiIdentity = Type.Object(
  { version: Type.Literal(CONTRACT_VERSION), openapi_sha256: Type.String({ pattern: '^sha256:[a-f0-9]{64}$' }) },
  { additionalProperties: false }
)

export const ReleaseResponse = Type.Object(
  { release: Type.Object({}, { additionalProperties: true, description: 'The promoted immutable corpus release.' }), api: ApiIdentity },
  { additionalProperties: false }
)

export const OpenApiDocument = Type.Object(
  { openapi: Type.String(), info: Type.Object({}, { additionalProperties: true }), paths: Type.Object({}, { additionalProperties: true }) },
  { additionalProperties: true }
)

export const Problem = Type.Object(
  {
    type: Type.String({ format: 'uri' }),
    title: Type.String(),
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    detail: Type.String(),
    instance: Type.Optional(Type.String()),
    code: Type.String({ pattern: '^[A-Z0-9_]+$' }),
    param: Type.Union([Type.String(), Type.Null()]),
    requestId: Type.String(),
    docUrl: Type.String({ format: 'uri' }),
    error: Type.String({ description: 'Backward-compatible alias of code.' }),
    message: Type.String({ description: 'Backward-compatible alias of detail.' }),
    request_id: Type.String({ description: 'Backward-compatible alias of requestId.' })
  },
  { additionalProperties: false }
)

export const JsonObject = Type.Object({}, { additionalProperties: true })

export const JsonRpcRequest = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(Type.Unknown()),
    method: Type.String(),
    params: Type.Optional(Type.Unknown())
  },
  { additionalProperties: true }
)

export const JsonRpcError = Type.Object(
  { jsonrpc: Type.Literal('2.0'), error: Type.Object({}, { additionalProperties: true }), id: Type.Unknown() },
  { additionalProperties: false }
)

/** The Problem response, declared for each error status an operation documents. */
export function problemResponses(statuses: readonly number[]): Record<number, unknown> {
  const out: Record<number, unknown> = {}
  for (const s of statuses) out[s] = { description: 'Problem (RFC 9457)', content: { 'application/problem+json': { schema: Problem } } }
  return out
}
