import { Ajv, type ValidateFunction } from 'ajv'
import type { FastifyRequest } from 'fastify'
import { Type, type Static, type TObject } from 'typebox'
import { inline } from '../schemas/components.js'
import type { ApiKey } from '../auth/keys.js'
import type { Contract } from '../http/contract.js'
import { toServiceError } from '../http/problem.js'
import { errorCodeGuidance } from '../http/routes/v1/error-codes.js'
import { CatalogPartParams, CatalogSearchParams, CONTRACT_VERSION, ContextParams, ErrorCodeParams, NoParams, PartParams, ResolveParams } from '../schemas/params.js'
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
import { compareOf } from '../service/compare.js'
import { ERROR_CODES, ServiceError } from '../service/errors.js'
import type { HardwareFacts } from '../service/facts.js'
import { renderCatalogPart, renderCompareParts, renderCompareReleases, renderContext, renderCoverage, renderErrorCode, renderRelease, renderResolve, renderSearch, renderSources } from './text.js'

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

export interface ToolDef<P extends TObject = TObject> {
  name: string
  title: string
  description: string
  /** The very TypeBox object REST validates with (src/schemas/params.ts). */
  input: P
  /** The schema of the REST body, which is also the tool's structuredContent: inlined, as clients validate it alone. */
  output: TObject
  run: (args: Static<P>, ctx: ToolContext) => Promise<Obj>
  render: (result: Obj) => string
}

/** get_context's arguments: REST's, without the deprecated `revision` (silicon_revision replaces it). */
const ContextArgs = Type.Omit(ContextParams, ['revision'], { additionalProperties: false })

const tool = <P extends TObject>(def: ToolDef<P>): ToolDef => def as unknown as ToolDef

/**
 * One tool per capability, in the order an agent uses them. Descriptions say when to call each
 * tool, because that is what an agent reads to choose one.
 */
export const TOOLS: readonly ToolDef[] = [
  tool({
    name: 'resolve_part',
    title: 'Resolve a part identifier',
    description:
      'Call this FIRST for any part an answer depends on (ordering code such as STM32F407VGT6, selector part, device name like nRF52840, or family prefix). ' +
      'Returns status `resolved`, `ambiguous` or `not_found`, judged per topic (registers, pins, electrical, errata), with candidates and why each matched. ' +
      'On `resolved`, call get_context with the same part and a topic whose status is resolved. ' +
      'On `ambiguous`, do NOT pick a candidate yourself: ask the user which one is meant, or call again with a full selector part or ordering code (for pins, a package). ' +
      'On `not_found`, check the suggestions or use search_catalog.',
    input: ResolveParams,
    output: inline(ResolveResponse),
    run: async (args, ctx) => ctx.facts.resolve(args, ctx.apiKey),
    render: renderResolve
  }),
  tool({
    name: 'search_catalog',
    title: 'Search the selector catalog',
    description:
      'Search the publisher selector catalog (selector parts and ordering codes) by name or name prefix, e.g. to list the package and memory variants of a line (`STM32F407`). ' +
      'Use it to find candidate names to show the user; it does not resolve a part: call resolve_part with the chosen name before get_context.',
    input: CatalogSearchParams,
    output: inline(CatalogSearchResponse),
    run: async (args, ctx) => ctx.facts.catalogSearch(args),
    render: renderSearch
  }),
  tool({
    name: 'get_catalog_part',
    title: 'Catalog entry and document coverage of one part',
    description:
      'Catalog data (package, core, flash/RAM, max frequency, members) of ONE selector part, ordering code, RefName or device name, with the document target per topic and the source artifacts behind them. ' +
      'Call it when the user asks what a part is or which documents back it; for facts, use get_context.',
    input: CatalogPartParams,
    output: inline(CatalogPartResponse),
    run: async (args, ctx) => ctx.facts.catalogPart(args),
    render: renderCatalogPart
  }),
  tool({
    name: 'get_context',
    title: 'Evidence-backed facts for one part and topic',
    description:
      'Returns a bounded page of source-backed facts for one part and one topic: `registers` (peripheral base addresses, register addresses/offsets/reset values, bit fields), `pins` (pin positions per package, signals, alternate functions), `electrical` (supply voltage, temperature, clock limits) or `errata` (silicon errata per revision). ' +
      'Call resolve_part first and pass the part it resolved; if the topic is ambiguous, you get candidates and no facts: do not pick one yourself. ' +
      'Register addresses, bit positions and pin numbers MUST come from this tool, never from memory or by guessing; quote the evidence locator with them. ' +
      'Narrow with fact_names (e.g. `RCC.AHB1ENR`), fact_name_prefixes (e.g. `USART1.`), peripheral, package, silicon_revision or query; page on with the returned cursor.',
    input: ContextArgs,
    output: inline(ContextResponse),
    // The service hands back the REST body pre-serialized; structured content needs the object.
    run: async (args, ctx) => JSON.parse((await ctx.facts.context(args, ctx.apiKey)).body) as Obj,
    render: renderContext
  }),
  tool({
    name: 'get_coverage',
    title: 'Topic coverage of a part',
    description:
      'Which topics (registers, pins, electrical, errata) this release covers for a part, with fact counts, and why a topic is not covered. ' +
      'Call it before get_context when unsure whether a topic exists for the part, or to explain a gap to the user instead of guessing.',
    input: PartParams,
    output: inline(CoverageResponse),
    run: async (args, ctx) => ctx.facts.coverage(args, ctx.apiKey),
    render: renderCoverage
  }),
  tool({
    name: 'get_sources',
    title: 'Provenance of the facts of a part',
    description:
      'Publisher provenance of the facts for a part: source artifacts (path, sha256, publisher, distributor, license, upstream repository and commit) per topic, with trust metadata. ' +
      'Call it when the user asks where a fact comes from or how trustworthy it is.',
    input: PartParams,
    output: inline(SourcesResponse),
    run: async (args, ctx) => ctx.facts.sources(args, ctx.apiKey),
    render: renderSources
  }),
  tool({
    name: 'get_release',
    title: 'The promoted corpus release',
    description:
      'Identity of the promoted immutable corpus release (id, creation time, counts, kept release ids) and of the API contract. ' +
      'Call it to cite which release an answer came from, or to find ids usable as corpus_release.',
    input: NoParams,
    output: inline(ReleaseResponse),
    run: async (_args, ctx) => ({ release: await ctx.facts.release(), api: { version: CONTRACT_VERSION, openapi_sha256: ctx.contract.digest() } }),
    render: renderRelease
  }),
  tool({
    name: 'get_error_code',
    title: 'Guidance for an error code',
    description:
      'Stable meaning, HTTP status, retryability and guidance for an error code this service returns (e.g. INVALID_CURSOR, UNKNOWN_CORPUS_RELEASE). ' +
      'Call it when a tool result has isError and you are unsure how to recover.',
    input: ErrorCodeParams,
    output: inline(ErrorCodeGuidance),
    run: async (args) => errorCodeGuidance(args.code),
    render: renderErrorCode
  }),
  tool({
    name: 'compare_releases',
    title: 'What changed for a part between two corpus releases',
    description:
      'The facts of one part and topic added, removed and changed between from_release and to_release (default: the promoted release), each change with both values and both evidences, and the source artifacts that changed. ' +
      'Call it when a user asks what changed in a new release (e.g. a register address corrected), instead of calling get_context twice. ' +
      'The part must resolve to one target in both releases; if not, you get candidates and no changes: do not pick one yourself. Narrow with fact_names, fact_name_prefixes or peripheral; page on with the returned cursor.',
    input: CompareReleasesParams,
    output: inline(CompareReleasesResponse),
    run: async (args, ctx) => JSON.parse(await compareOf(ctx.facts).releases(args, ctx.apiKey)) as Obj,
    render: renderCompareReleases
  }),
  tool({
    name: 'compare_parts',
    title: 'How two parts differ for one topic',
    description:
      'Compares two parts of one release for porting: `registers` (peripherals/registers/fields on one part only; differing address, reset value, bit position/width, access), `pins` (per signal such as USART1_TX, the pins and AF numbers on each part), `electrical` (limits side by side) or `errata` (errata listed for one part and not the other). ' +
      'Call it instead of two get_context calls when porting firmware between parts. Narrow with peripheral (registers), signal (pins), fact_names or fact_name_prefixes; include_same lists identical entries too. ' +
      'Ambiguous parts give candidates and no entries: do not pick one yourself. Page on with the returned cursor.',
    input: ComparePartsParams,
    output: inline(ComparePartsResponse),
    run: async (args, ctx) => JSON.parse(await compareOf(ctx.facts).parts(args, ctx.apiKey)) as Obj,
    render: renderCompareParts
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

export interface ToolResult {
  [k: string]: unknown
  content: Array<{ type: 'text'; text: string }>
  structuredContent?: Obj
  isError?: boolean
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

/** Runs one tool; every failure, expected or not, comes back as a tool error result, never a throw. */
export async function callTool(t: ToolDef, raw: Obj | undefined, ctx: ToolContext): Promise<ToolResult> {
  try {
    const args = validateArgs(t, raw, ctx.req)
    const result = await t.run(args as never, ctx)
    return { content: [{ type: 'text', text: t.render(result) }], structuredContent: result }
  } catch (err) {
    // toServiceError logs unexpected errors and answers INTERNAL without detail, as REST does.
    return toolError(toServiceError(err, ctx.req), ctx)
  }
}
