import { Type, type Static } from 'typebox'
import {
  ContextCrossCheck,
  Candidate,
  CatalogHit,
  MatchKind,
  Part,
  PartDetail,
  perTopic,
  Release,
  ReleaseId,
  Source,
  SourceProblem,
  SourceRef,
  suggestions,
  Target,
  TopicCoverage,
  TopicResolutions,
  TopicSource
} from './catalog.js'
import { ref, StringEnum } from './components.js'
import { Fact, Topic } from './facts.js'
import { CONTRACT_VERSIONS, DEPTH_VERSION } from '../model/versions.js'
import { CONTRACT_VERSION_KEYWORD, SINCE } from './versions.js'

/**
 * Response bodies of the contract (spec §2). Where the spec fixes the members they are exact;
 * where it leaves them to us ("additional properties allowed") every member is described and the
 * object stays open at its top level, as the spec says; their parts are closed.
 */
const closed = { additionalProperties: false } as const
const open = { additionalProperties: true } as const

export const Ping = Type.Object({ status: Type.Literal('ok'), message: Type.Literal('pong') }, { ...closed, $id: 'Ping', description: 'The service answers.' })

export const ApiIdentity = Type.Object(
  {
    // The version of the request: in each version's document, that version alone.
    version: StringEnum(CONTRACT_VERSIONS, { [CONTRACT_VERSION_KEYWORD]: true }),
    openapi_sha256: Type.String({ pattern: '^sha256:[a-f0-9]{64}$', description: 'Digest of the /openapi.json bytes this service serves.' })
  },
  { ...closed, $id: 'ApiIdentity' }
)

export const HealthCheck = Type.Object(
  { ok: Type.Boolean(), detail: Type.Optional(Type.String()), critical: Type.Optional(Type.Boolean({ description: 'Whether the service cannot answer without it.' })) },
  // Open: a readiness check may report more than ok/detail; tests check it closed.
  { ...open, $id: 'HealthCheck' }
)

export const Health = Type.Object(
  {
    status: Type.String({ description: '`ok`, or `not_ready` (503).' }),
    service: Type.Optional(Type.String()),
    version: Type.Optional(Type.String()),
    release: Type.Optional(
      Type.Union([Type.Object({ id: ReleaseId, complete: Type.Boolean(), facts: Type.Integer({ minimum: 0 }) }, closed), Type.Null()], { description: 'Readiness: the promoted release, null when none is readable.' })
    ),
    api: Type.Optional(ApiIdentity),
    checks: Type.Optional(Type.Object({}, { additionalProperties: HealthCheck, description: 'Readiness: each backend checked, by name.' }))
  },
  { ...open, $id: 'Health', description: 'Liveness or readiness; readiness adds the release, the API identity and each backend check.' }
)

export const ReleaseResponse = Type.Object({ release: Release, api: ApiIdentity }, { ...closed, $id: 'ReleaseResponse', description: 'The promoted corpus release and the API contract in use.' })

export const OpenApiDocument = Type.Object(
  { openapi: Type.String(), info: Type.Object({}, open), paths: Type.Object({}, open) },
  { ...open, $id: 'OpenApiDocument', description: 'This document (OpenAPI 3.1.1).' }
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
  { ...closed, $id: 'Problem', description: 'An error (RFC 9457). `code` is stable; /v1/error-codes/{code} explains it.' }
)

export const JsonRpcRequest = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Optional(Type.Union([Type.String(), Type.Integer()], { description: 'Absent for a notification.' })),
    method: Type.String({ description: 'An MCP method: `initialize`, `tools/list`, `tools/call`, `ping`, …' }),
    params: Type.Optional(Type.Object({}, open))
  },
  { ...open, $id: 'JsonRpcRequest', description: 'One JSON-RPC 2.0 request or notification (batches are not supported).' }
)

const RpcError = Type.Object({ code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Object({}, open)) }, open)

export const JsonRpcResponse = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: Type.Union([Type.String(), Type.Integer(), Type.Null()], { description: 'The id of the request answered; null when it could not be read (JSON-RPC 2.0 §5).' }),
    result: Type.Optional(Type.Object({}, { ...open, description: 'The MCP result, e.g. of `tools/list` or `tools/call` (with `structuredContent` matching the tool\'s outputSchema).' })),
    error: Type.Optional(RpcError)
  },
  { ...open, $id: 'JsonRpcResponse', description: 'One JSON-RPC 2.0 response: `result`, or `error` (e.g. -32602 for an unknown tool).' }
)

export const JsonRpcError = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    error: RpcError,
    id: Type.Union([Type.String(), Type.Integer(), Type.Null()])
  },
  { ...closed, $id: 'JsonRpcError' }
)

export const ErrorCodeGuidance = Type.Object(
  {
    code: Type.String({ pattern: '^[A-Z0-9_]+$' }),
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    title: Type.String(),
    retryable: Type.Boolean({ description: 'Whether the same request may succeed later.' }),
    guidance: Type.String({ description: 'How to recover.' })
  },
  { ...open, $id: 'ErrorCodeGuidance', description: 'What an error code means and how to recover.' }
)

const release = ReleaseId

export const ListPage = Type.Object(
  {
    returned: Type.Integer({ minimum: 0 }),
    limit: Type.Integer({ minimum: 1, description: 'candidate_limit: the page size.' }),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` (with the same query) for the next page; null on the last one.' })
  },
  { ...closed, $id: 'ListPage', description: 'Where a page of a ranked list is: the same cursor as every other page of this service.' }
)
const status = <T extends string[]>(values: [...T], description?: string) => StringEnum(values, description ? { description } : {})
const candidates = Type.Array(Candidate, { description: 'Ranked; at most `candidate_limit` (10 by default). Never chosen for you.' })
const candidateCount = Type.Integer({ minimum: 0, description: 'All candidates, of which `candidates` lists the first.' })
const pagedCandidates = Type.Array(Candidate, { description: 'Ranked, one page of `candidate_limit` (10 by default); `page.nextCursor` gives the next. Never chosen for you.' })

export const ResolveResponse = Type.Object(
  {
    release,
    q: Type.String(),
    normalized: Type.String({ description: 'The lookup key the query was normalized to.' }),
    status: status(['resolved', 'ambiguous', 'not_found'], '`ambiguous` when any topic is: never resolved by picking.'),
    match: MatchKind,
    part: Type.Union([Part, Type.Null()], { description: 'The one entity matched, null when none or several.' }),
    topics: TopicResolutions,
    candidates: pagedCandidates,
    candidateCount,
    page: ListPage,
    suggestions,
    next: Type.String({ description: 'What to do next.' })
  },
  { ...open, $id: 'ResolveResponse', description: 'The part resolved per topic, or the candidates to choose from: never picked silently.' }
)

export const CatalogSearchResponse = Type.Object(
  {
    release,
    q: Type.String(),
    normalized: Type.String(),
    status: status(['found', 'not_found']),
    match: MatchKind,
    results: Type.Array(CatalogHit, { description: 'One page of `candidate_limit` matches; `page.nextCursor` gives the next.' }),
    total: Type.Integer({ minimum: 0, description: 'All matches, of which `results` is one page.' }),
    page: ListPage,
    suggestions
  },
  { ...open, $id: 'CatalogSearchResponse', description: 'Selector parts and RefNames matching the query.' }
)

export const CatalogPartResponse = Type.Object(
  {
    release,
    part: Type.Union([PartDetail, Type.Null()]),
    status: status(['found', 'ambiguous', 'not_found']),
    match: MatchKind,
    documents: TopicResolutions,
    sources: Type.Array(Source),
    candidates: Type.Optional(candidates),
    candidateCount: Type.Optional(candidateCount),
    suggestions
  },
  { ...open, $id: 'CatalogPartResponse', description: 'One catalog entry, its document target per topic and the sources behind them.' }
)

const partStatus = status(['resolved', 'ambiguous', 'not_found'])

export const CoverageResponse = Type.Object(
  {
    release,
    part: Type.String({ description: 'The part as asked.' }),
    status: partStatus,
    topics: perTopic('TopicCoverages', TopicCoverage, 'Per topic: covered (with its fact count), ambiguous, or not covered and why.'),
    covered: Type.Array(Topic),
    notCovered: Type.Array(Topic),
    sourceFailed: Type.Optional(Type.Array(Topic, { description: 'Topics whose source is in the release but could not be read.' })),
    candidates: Type.Optional(candidates),
    candidateCount: Type.Optional(candidateCount),
    suggestions
  },
  { ...open, $id: 'CoverageResponse', description: 'Which topics this release covers for the part, and why not the others.' }
)

export const SourcesResponse = Type.Object(
  {
    release,
    part: Type.String({ description: 'The part as asked.' }),
    status: partStatus,
    topics: perTopic('TopicSources', TopicSource, 'Per topic: the document target and its source, or why there is none.'),
    sources: Type.Array(Source),
    suggestions
  },
  { ...open, $id: 'SourcesResponse', description: 'The source artifacts behind the part, with publisher provenance and trust metadata.' }
)

export const ContextTarget = Type.Object(
  { key: Type.String(), device: Type.String(), package: Type.Optional(Type.String()), source: SourceRef },
  { ...closed, $id: 'ContextTarget', description: 'The document target the facts are read from.' }
)

export const ContextFilters = Type.Object(
  {
    factNames: Type.Optional(Type.Array(Type.String())),
    factNamePrefixes: Type.Optional(Type.Array(Type.String())),
    peripheral: Type.Optional(Type.String({ description: 'Upper-cased.' })),
    package: Type.Optional(Type.String()),
    siliconRevision: Type.Optional(Type.String({ description: 'Canonical code, e.g. `0x05`.' })),
    queryTerms: Type.Optional(Type.Array(Type.String(), { description: 'The searchable terms of `query`.' })),
    elided: Type.Optional(Type.Literal(true, { description: 'The lists above were left out of this echo to stay within max_tokens; they were applied in full.' }))
  },
  { ...closed, $id: 'ContextFilters', description: 'The filters applied, normalized.' }
)

export const Page = Type.Object(
  {
    returned: Type.Integer({ minimum: 0 }),
    limit: Type.Integer({ minimum: 1 }),
    maxTokens: Type.Integer({ minimum: 256 }),
    tokens: Type.Integer({ minimum: 0, description: 'Tokens of the whole response (cl100k_base), at most maxTokens.' }),
    truncatedBy: Type.Union([StringEnum(['limit', 'max_tokens']), Type.Null()], { description: 'Why the page ended before the result set (or an ambiguous answer\'s candidates) did; null when it did not.' }),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` to continue; null when there is nothing more to page to.' }),
    budgetTooSmall: Type.Boolean({
      description: 'True when max_tokens could not fit even the next fact: `facts` is empty although facts remain. Repeat with max_tokens of at least `neededMaxTokens` (and the same cursor).'
    }),
    neededMaxTokens: Type.Union([Type.Integer(), Type.Null()], {
      description: 'When budgetTooSmall, the max_tokens the next fact needs; when max_tokens cut the candidates of an ambiguous answer (truncatedBy `max_tokens`), the max_tokens that lists them; else null.'
    })
  },
  { ...closed, $id: 'Page' }
)

export const ContextResponse = Type.Object(
  {
    release,
    part: Type.String({ description: 'The part as asked.' }),
    topic: Topic,
    status: status(['ok', 'ambiguous', 'not_covered', 'source_failed', 'not_found'], 'Only `ok` returns facts; otherwise `facts` is empty and candidates, reason, failures or suggestions say why.'),
    resolvedPart: Type.Optional(Type.Object({ name: Type.String(), kind: StringEnum(['selector-part', 'refname', 'device']) }, closed)),
    target: Type.Union([ContextTarget, Type.Null()]),
    crossCheck: Type.Optional(ContextCrossCheck),
    filters: ContextFilters,
    facts: Type.Array(Fact),
    page: Page,
    suggestions,
    candidates: Type.Optional(Type.Array(Target, { description: 'Ambiguous: the document targets to choose from (maybe fewer than candidateCount, to fit max_tokens).' })),
    candidateCount: Type.Optional(candidateCount),
    hint: Type.Optional(Type.String()),
    reason: Type.Optional(Type.String({ description: 'Not covered, or the source failed: why.' })),
    failures: Type.Optional(Type.Array(SourceProblem)),
    availablePackages: Type.Optional(Type.Array(Type.String())),
    notes: Type.Optional(Type.Array(Type.String()))
  },
  { ...open, $id: 'ContextResponse', [SINCE]: { crossCheck: DEPTH_VERSION }, description: 'A page of evidence-backed facts for one part and topic, within limit and max_tokens.' }
)
export type ContextResponse = Static<typeof ContextResponse>

/** Every named schema the routes use: registered once, emitted as `components/schemas`. */
export const RESPONSE_ROOTS = [Ping, Health, ReleaseResponse, OpenApiDocument, Problem, JsonRpcRequest, JsonRpcResponse, JsonRpcError, ErrorCodeGuidance, ResolveResponse, CatalogSearchResponse, CatalogPartResponse, CoverageResponse, SourcesResponse, ContextResponse]

/** The Problem response, declared for each error status an operation documents. */
export function problemResponses(statuses: readonly number[]): Record<number, unknown> {
  const out: Record<number, unknown> = {}
  for (const s of statuses) out[s] = { description: 'Problem (RFC 9457)', content: { 'application/problem+json': { schema: ref(Problem) } } }
  return out
}
