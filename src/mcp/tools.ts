import { Ajv, type ValidateFunction } from 'ajv'
import type { FastifyRequest } from 'fastify'
import { Type, type Static, type TObject, type TSchema } from 'typebox'
import { LATEST_VERSION, VERSION_TOPICS } from '../model/versions.js'
import { outline } from '../schemas/components.js'
import { forVersion } from '../schemas/versions.js'
import type { ApiKey } from '../auth/keys.js'
import type { Contract } from '../http/contract.js'
import { toServiceError } from '../http/problem.js'
import { errorCodeGuidance } from '../http/routes/v1/error-codes.js'
import { CatalogPartParams, CatalogSearchParams, ContextParams, ErrorCodeParams, NoParams, PartParams, ResolveParams } from '../schemas/params.js'
import {
  CatalogPartResponse,
  CatalogSearchResponse,
  ContextResponse,
  CoverageResponse,
  ErrorCodeGuidance,
  ReleaseResponse,
  ResolveResponse,
  SourcesResponse
} from '../schemas/responses.js'
import { ComparePartsParams, ComparePartsResponse, CompareReleasesParams, CompareReleasesResponse } from '../schemas/compare.js'
import { DiscrepanciesParams, DiscrepanciesResponse } from '../schemas/discrepancies.js'
import { CheckParams, CheckResponse } from '../schemas/check.js'
import { checkOf } from '../service/check.js'
import { compareOf } from '../service/compare.js'
import { ERROR_CODES, ServiceError } from '../service/errors.js'
import type { HardwareFacts } from '../service/facts.js'
import { toolResult, withinBudget, type ToolResult } from './budget.js'
import { renderCatalogPart, renderCheck, renderCompareParts, renderCompareReleases, renderContext, renderCoverage, renderDiscrepancies, renderErrorCode, renderRelease, renderResolve, renderSearch, renderSources } from './text.js'

type Obj = Record<string, unknown>

/** What a tool call runs against: the same service as REST, and the caller's key and request. */
export interface ToolContext {
  facts: HardwareFacts
  contract: Contract
  apiKey: ApiKey | null
  req: FastifyRequest
  /** Absolute base for `docUrl` of error results. */
  base: string
}

export interface ToolDef {
  name: string
  title: string
  description: string
  /** The very TypeBox object REST validates with (src/schemas/params.ts). */
  input: TObject
  /** The outline of the REST body's schema (src/schemas/components.ts), which structuredContent, the REST body, validates against. */
  output: Record<string, unknown>
  run: (args: Obj, ctx: ToolContext) => Promise<Obj>
  render: (result: Obj) => string
}

/** A tool as declared: its arguments' schema and its body's, from which the outline and the rendering's type come. */
interface ToolSpec<P extends TObject, B extends TSchema> extends Pick<ToolDef, 'name' | 'title' | 'description'> {
  input: P
  /** The REST body's schema (src/schemas/responses.ts and beside it). */
  body: B
  /** How deep the outputSchema types the body's lists (1: each fact, finding or candidate too). */
  outlineDepth?: number
  /** The REST body, as the service builds it for the route that serves it under `body`. */
  run: (args: Static<P>, ctx: ToolContext) => Promise<object>
  render: (result: Static<B>) => string
}

/** get_context's arguments: REST's, without the deprecated `revision` (silicon_revision replaces it). */
const ContextArgs = Type.Omit(ContextParams, ['revision'], { additionalProperties: false })

/**
 * The spec leaves MCP's tools to the service: they speak the latest contract version whatever the
 * request's `Service-Version` (every topic offered and listed), from the same schemas as REST.
 */
const TOOL_VERSION = LATEST_VERSION
const TOPICS = VERSION_TOPICS[TOOL_VERSION]
/**
 * A tool of the latest contract version. Its `run` returns the body the REST route serves under
 * `body` (every answer is checked against that schema by the contract suites), so the rendering
 * reads it as the schema's Static type: a member renamed in the schema fails to compile there.
 * Every agent session pays tools/list before its first question (test/mcp/tool-list.test.ts), so
 * the outputSchema is the body's outline, typed one level deeper only where `outlineDepth` says.
 */
const tool = <P extends TObject, B extends TSchema>(spec: ToolSpec<P, B>): ToolDef => ({
  name: spec.name,
  title: spec.title,
  description: spec.description,
  input: forVersion(spec.input, TOOL_VERSION),
  output: outline(forVersion(spec.body, TOOL_VERSION), spec.outlineDepth ?? 0),
  run: async (args, ctx) => (await spec.run(args as Static<P>, ctx)) as Obj,
  render: (result) => spec.render(result as Static<B>)
})

/**
 * One tool per capability, in the order an agent uses them. Descriptions say when to call each
 * tool, because that is what an agent reads to choose one.
 */
export const TOOLS: readonly ToolDef[] = [
  tool({
    name: 'resolve_part',
    title: 'Resolve a part identifier',
    description:
      'Call this FIRST for any part an answer depends on (ordering code such as STM32F407VGT6, selector part, device name such as nRF52840, or prefix). ' +
      'Status per topic: `resolved` (then call get_context with the same part), `ambiguous` (do NOT pick a candidate yourself: ask the user, or call again with a full selector part or ordering code) or `not_found` (see suggestions, or search_catalog). ' +
      'Candidates are ranked; page on with the returned cursor.',
    input: ResolveParams,
    body: ResolveResponse,
    outlineDepth: 1,
    run: async (args, ctx) => ctx.facts.resolve(args, ctx.apiKey, TOOL_VERSION),
    render: renderResolve
  }),
  tool({
    name: 'search_catalog',
    title: 'Search the selector catalog',
    description:
      'Lists selector parts and ordering codes by name or prefix (e.g. the package and memory variants of `STM32F407`), to show the user. ' +
      'It does not resolve: call resolve_part with the chosen name. More results: call again with the returned cursor.',
    input: CatalogSearchParams,
    body: CatalogSearchResponse,
    run: async (args, ctx) => ctx.facts.catalogSearch(args, ctx.apiKey, TOPICS),
    render: renderSearch
  }),
  tool({
    name: 'get_catalog_part',
    title: 'Catalog entry and document coverage of one part',
    description:
      'What ONE part is (package, core, flash/RAM, max frequency, members), its document per topic and the source artifacts behind them. For facts, use get_context.',
    input: CatalogPartParams,
    body: CatalogPartResponse,
    run: async (args, ctx) => ctx.facts.catalogPart(args, TOOL_VERSION),
    render: renderCatalogPart
  }),
  tool({
    name: 'get_context',
    title: 'Evidence-backed facts for one part and topic',
    description:
      'A bounded page of source-backed facts for one part and topic: `registers` (addresses, offsets, reset values, bit fields), `pins` (positions per package, signals, alternate functions), `electrical` (limits), `errata` (per silicon revision), `memory` (regions), `interrupts` (vector numbers), `dma` (request options) or `clocks` (enable and reset bits). ' +
      'Call resolve_part first; an ambiguous part gives candidates and no facts: do not pick one yourself. ' +
      'Register addresses, bit positions and pin numbers MUST come from this tool, never from memory or by guessing; quote the evidence locator with them. ' +
      'Narrow with fact_names, fact_name_prefixes, peripheral, package, silicon_revision or query; page on with the returned cursor.',
    input: ContextArgs,
    body: ContextResponse,
    outlineDepth: 1,
    // The service hands back the REST body pre-serialized; structured content needs the object.
    run: async (args, ctx) => JSON.parse((await ctx.facts.context(args, ctx.apiKey)).body),
    render: renderContext
  }),
  tool({
    name: 'get_coverage',
    title: 'Topic coverage of a part',
    description:
      'Which topics this release covers for a part, with fact counts, and why a topic is not: call it when unsure a topic exists, or to explain a gap instead of guessing.',
    input: PartParams,
    body: CoverageResponse,
    run: async (args, ctx) => ctx.facts.coverage(args, ctx.apiKey, TOOL_VERSION),
    render: renderCoverage
  }),
  tool({
    name: 'list_discrepancies',
    title: 'Where the sources of a part disagree',
    description:
      'Where the sources of a part disagree (interrupts, memory, pin alternate functions): each disagreement with both values and evidence.',
    input: DiscrepanciesParams,
    body: DiscrepanciesResponse,
    run: async (args, ctx) => ctx.facts.discrepancies(args, ctx.apiKey),
    render: renderDiscrepancies
  }),
  tool({
    name: 'get_sources',
    title: 'Provenance of the facts of a part',
    description:
      'Provenance of a part\'s facts per topic: source artifacts with sha256, publisher, license, upstream commit and trust metadata.',
    input: PartParams,
    body: SourcesResponse,
    run: async (args, ctx) => ctx.facts.sources(args, ctx.apiKey, TOOL_VERSION),
    render: renderSources
  }),
  tool({
    name: 'get_release',
    title: 'The promoted corpus release',
    description:
      'The promoted corpus release (id, counts, kept release ids usable as corpus_release) and the API contract: to cite which release an answer came from.',
    input: NoParams,
    body: ReleaseResponse,
    run: async (_args, ctx) => ({ release: await ctx.facts.release(TOPICS), api: ctx.contract.identity(TOOL_VERSION) }),
    render: renderRelease
  }),
  tool({
    name: 'get_error_code',
    title: 'Guidance for an error code',
    description:
      'Meaning, retryability and recovery of an error code that a result with isError names (e.g. INVALID_CURSOR).',
    input: ErrorCodeParams,
    body: ErrorCodeGuidance,
    run: async (args) => errorCodeGuidance(args.code),
    render: renderErrorCode
  }),
  tool({
    name: 'compare_releases',
    title: 'What changed for a part between two corpus releases',
    description:
      'The facts of one part and topic added, removed or changed between from_release and to_release (default: the promoted one), with both values and evidences and the source artifacts that changed; instead of two get_context calls. ' +
      'A part that does not resolve to one target gives candidates and no changes: do not pick one yourself. Narrow with fact_names, fact_name_prefixes or peripheral; page on with the returned cursor.',
    input: CompareReleasesParams,
    body: CompareReleasesResponse,
    run: async (args, ctx) => JSON.parse(await compareOf(ctx.facts).releases(args, ctx.apiKey)),
    render: renderCompareReleases
  }),
  tool({
    name: 'compare_parts',
    title: 'How two parts differ for one topic',
    description:
      'Two parts of one release compared for porting, instead of two get_context calls: `registers` (on one part only, or differing in address, reset value, bits, access), `pins` (per signal such as USART1_TX: pins and AF numbers), `electrical` or `errata`. ' +
      'Narrow with peripheral, signal, fact_names or fact_name_prefixes. Ambiguous parts give candidates and no entries: do not pick one yourself. Page on with the returned cursor.',
    input: ComparePartsParams,
    body: ComparePartsResponse,
    run: async (args, ctx) => JSON.parse(await compareOf(ctx.facts).parts(args, ctx.apiKey)),
    render: renderCompareParts
  }),
  tool({
    name: 'check_configuration',
    title: 'Check a configuration of one part',
    description:
      'Checks pin assignments, DMA channels, vdd, temperature, sysclk and silicon revision of one part before board code is written: findings, errors first, with AF numbers, limits, errata, enable bits and evidence. Ambiguous part: candidates, do not pick.',
    input: CheckParams,
    body: CheckResponse,
    outlineDepth: 1,
    run: async (args, ctx) => JSON.parse(await checkOf(ctx.facts).check(args, ctx.apiKey)),
    render: renderCheck
  })
]

export const TOOLS_BY_NAME: ReadonlyMap<string, ToolDef> = new Map(TOOLS.map((t) => [t.name, t]))

/**
 * Arguments are checked against the same schemas as REST, but as JSON: a query string carries only
 * text, so REST coerces `"5"` to 5; a tool argument has a JSON type, and the wrong one is an
 * error, never coerced. Defaults applied, unknown members rejected, first error only.
 */
const ajv = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: false, addUsedSchema: false })
const validators = new Map<string, ValidateFunction>(TOOLS.map((t) => [t.name, ajv.compile(t.input)]))

/** Allowed values of an enum argument, for a friendlier message than Ajv's "must be equal to one of the allowed values". */
function allowedValues(schema: TObject, param: string | null): string[] | undefined {
  const p = param === null ? undefined : (schema.properties as Record<string, { enum?: unknown[] }>)[param]
  return p?.enum?.every((c) => typeof c === 'string') ? (p.enum as string[]) : undefined
}

/**
 * Validated, defaulted arguments, or a ServiceError naming the argument with the code REST
 * would answer (UNKNOWN_PARAMETER, MISSING_PARAMETER, INVALID_PARAMETER). A member sent as null
 * counts as absent: agents often send null for an optional argument they do not use.
 */
export function validateArgs(t: ToolDef, raw: Obj | undefined, req: FastifyRequest): Obj {
  const args: Obj = {}
  for (const [k, v] of Object.entries(raw ?? {})) if (v !== null) args[k] = structuredClone(v)
  const validate = validators.get(t.name)!
  if (validate(args)) return args
  const err = toServiceError({ validation: validate.errors ?? [], validationContext: 'arguments' }, req)
  // Same code and param as REST; the wording says "argument", as a tool caller knows them.
  const names = Object.keys(t.input.properties)
  const detail =
    err.code === 'UNKNOWN_PARAMETER'
      ? `Unknown argument "${err.param}": ${t.name} takes ${names.length ? names.join(', ') : 'no arguments'}.`
      : err.code === 'INVALID_PARAMETER' && allowedValues(t.input, err.param)
        ? `Argument "${err.param}" must be one of ${allowedValues(t.input, err.param)!.join(', ')}.`
        : err.detail.replace(/^Parameter /, 'Argument ')
  throw new ServiceError(err.code, detail, err.param)
}

/**
 * A tool error result: the stable code and the argument, in the text. No structuredContent: clients
 * validate it against the tool's outputSchema, which describes the successful answer.
 */
export function toolError(err: ServiceError, ctx: Pick<ToolContext, 'base' | 'req'>): ToolResult {
  const info = ERROR_CODES[err.code]
  const text =
    `Error ${err.code}${err.param ? ` (argument "${err.param}")` : ''}: ${err.detail}\n${info.guidance}${info.retryable ? ' Retryable.' : ''}\n` +
    `See ${ctx.base}/v1/error-codes/${err.code} (get_error_code) · request ${ctx.req.id}`
  return { content: [{ type: 'text', text }], isError: true }
}

/**
 * Runs one tool; every failure, expected or not, comes back as a tool error result, never a throw.
 * A tool with a token budget keeps the whole result within it (budget.ts).
 */
export async function callTool(t: ToolDef, raw: Obj | undefined, ctx: ToolContext): Promise<ToolResult> {
  try {
    const args = validateArgs(t, raw, ctx.req)
    if (typeof args.max_tokens === 'number') return await withinBudget(args.max_tokens, (budget) => t.run({ ...args, max_tokens: budget }, ctx), t.render)
    return toolResult(await t.run(args, ctx), t.render)
  } catch (err) {
    // toServiceError logs unexpected errors and answers INTERNAL without detail, as REST does.
    return toolError(toServiceError(err, ctx.req), ctx)
  }
}
