import type { FastifyRequest } from 'fastify'
import { beforeAll, describe, expect, it } from 'vitest'
import type { ToolContext, ToolDef } from '../../src/mcp/tools.js'
import { LATEST_VERSION, VERSION_TOPICS } from '../../src/model/versions.js'
import { outline } from '../../src/schemas/components.js'
import { forVersion } from '../../src/schemas/versions.js'
import { CatalogPartParams, CatalogSearchParams, ContextParams, ErrorCodeParams, NoParams, PartParams, ResolveParams } from '../../src/schemas/params.js'
import {
  CatalogPartResponse,
  CatalogSearchResponse,
  ContextResponse,
  CoverageResponse,
  ErrorCodeGuidance,
  ReleaseResponse,
  ResolveResponse,
  SourcesResponse
} from '../../src/schemas/responses.js'
import { ComparePartsParams, ComparePartsResponse, CompareReleasesParams, CompareReleasesResponse } from '../../src/schemas/compare.js'
import { DiscrepanciesParams, DiscrepanciesResponse } from '../../src/schemas/discrepancies.js'
import { CheckParams, CheckResponse } from '../../src/schemas/check.js'
import { ERROR_CODES, ServiceError, type ErrorCode } from '../../src/service/errors.js'

/**
 * The tool layer on a stub service (no release): argument checking as REST does it, tool errors,
 * the budgeted call, and which service operation each tool runs. Expected texts follow the error
 * table (src/service/errors.ts, data) and the schemas, the single source of truth.
 */
type Obj = Record<string, any>

/**
 * Loaded in a hook, not imported, and its failure kept for the first test: the tool list is built when
 * the module loads. A broken declaration would otherwise fail the file's collection, or (thrown from a
 * file-level hook) leave every test skipped; a mutation run counts neither as a failed test.
 */
let TOOLS: typeof import('../../src/mcp/tools.js')['TOOLS']
let TOOLS_BY_NAME: typeof import('../../src/mcp/tools.js')['TOOLS_BY_NAME']
let callTool: typeof import('../../src/mcp/tools.js')['callTool']
let toolError: typeof import('../../src/mcp/tools.js')['toolError']
let validateArgs: typeof import('../../src/mcp/tools.js')['validateArgs']
let loadError: unknown
beforeAll(async () => {
  try {
    ;({ TOOLS, TOOLS_BY_NAME, callTool, toolError, validateArgs } = await import('../../src/mcp/tools.js'))
  } catch (err) {
    loadError = err
  }
})

it('the tool list loads', () => {
  expect(loadError).toBeUndefined()
  expect(TOOLS.length).toBe(TOOLS_BY_NAME.size)
})

const logged: Array<[string, unknown]> = []
const req = {
  id: 'req-7',
  log: { error: (o: unknown) => logged.push(['error', o]), warn: (o: unknown) => logged.push(['warn', o]), info: () => undefined, debug: () => undefined }
} as unknown as FastifyRequest

/** A service that records each call (method and arguments) and answers `{ from: method }`. */
function stubFacts() {
  const calls: Array<[string, unknown[]]> = []
  const facts = new Proxy(
    {},
    {
      get: (_t, method: string) =>
        async (...args: unknown[]) => {
          calls.push([method, args])
          return method === 'context' ? { body: JSON.stringify({ from: method }) } : { from: method }
        }
    }
  )
  return { calls, facts }
}

const API_KEY = { id: 'k1' } as unknown as ToolContext['apiKey']
const contract = { identity: (v: string) => ({ version: v, openapi_sha256: 'abc' }) } as unknown as ToolContext['contract']
const ctxOf = (facts: object): ToolContext => ({ facts: facts as ToolContext['facts'], contract, apiKey: API_KEY, req, base: 'https://facts.example' })
const tool = (name: string) => TOOLS_BY_NAME.get(name)!

function thrown(f: () => unknown): ServiceError {
  try {
    f()
  } catch (err) {
    return err as ServiceError
  }
  throw new Error('did not throw')
}

describe('the tools', () => {
  const declared: Array<[string, object, object, number]> = [
    ['resolve_part', ResolveParams, ResolveResponse, 1],
    ['search_catalog', CatalogSearchParams, CatalogSearchResponse, 0],
    ['get_catalog_part', CatalogPartParams, CatalogPartResponse, 0],
    ['get_context', ContextParams, ContextResponse, 1],
    ['get_coverage', PartParams, CoverageResponse, 0],
    ['list_discrepancies', DiscrepanciesParams, DiscrepanciesResponse, 0],
    ['get_sources', PartParams, SourcesResponse, 0],
    ['get_release', NoParams, ReleaseResponse, 0],
    ['get_error_code', ErrorCodeParams, ErrorCodeGuidance, 0],
    ['compare_releases', CompareReleasesParams, CompareReleasesResponse, 0],
    ['compare_parts', ComparePartsParams, ComparePartsResponse, 0],
    ['check_configuration', CheckParams, CheckResponse, 1]
  ]

  it('one per capability, in the order an agent uses them, each the REST schemas of the latest version', () => {
    expect(TOOLS.map((t) => t.name)).toEqual(declared.map((d) => d[0]))
    expect([...TOOLS_BY_NAME.keys()]).toEqual(declared.map((d) => d[0]))
    for (const [name, params, body, depth] of declared) {
      const t = tool(name)
      expect(t.output, name).toEqual(outline(forVersion(body as never, LATEST_VERSION), depth))
      if (name !== 'get_context') expect(t.input, name).toEqual(forVersion(params as never, LATEST_VERSION))
      expect(t.title.length, name).toBeGreaterThan(10)
      expect(t.description.length, name).toBeGreaterThan(60)
    }
    // get_context: REST's parameters without the deprecated revision, and nothing else.
    const ctx = tool('get_context').input
    const rest = forVersion(ContextParams as never, LATEST_VERSION) as Obj
    expect(Object.keys(ctx.properties).sort()).toEqual(Object.keys(rest.properties).filter((k) => k !== 'revision').sort())
    expect((ctx as Obj).additionalProperties).toBe(false)
    // Every topic of the latest version is offered, the depth topics included.
    expect((ctx.properties as Obj).topic.enum).toEqual([...VERSION_TOPICS[LATEST_VERSION]])
  })

  it('descriptions tell the agent when to call each tool and what not to do', () => {
    const d = (n: string) => tool(n).description
    expect(d('resolve_part')).toMatch(/^Call this FIRST.*`resolved` \(then call get_context.*`ambiguous` \(do NOT pick.*`not_found`.*search_catalog.*Candidates are ranked; page on with the returned cursor\.$/)
    expect(d('search_catalog')).toMatch(/^Lists selector parts.*It does not resolve: call resolve_part.*cursor\.$/)
    expect(d('get_catalog_part')).toMatch(/^What ONE part is.*use get_context\.$/)
    for (const topic of VERSION_TOPICS[LATEST_VERSION]) expect(d('get_context')).toContain(`\`${topic}\``)
    expect(d('get_context')).toMatch(/^A bounded page.*Call resolve_part first.*do not pick one yourself\. Register addresses.*MUST come from this tool.*Narrow with fact_names.*page on with the returned cursor\.$/)
    expect(d('get_coverage')).toMatch(/^Which topics.*instead of guessing\.$/)
    expect(d('list_discrepancies')).toMatch(/^Where the sources of a part disagree.*evidence\.$/)
    expect(d('get_sources')).toMatch(/^Provenance.*sha256.*trust metadata\.$/)
    expect(d('get_release')).toMatch(/^The promoted corpus release.*corpus_release.*API contract/)
    expect(d('get_error_code')).toMatch(/^Meaning, retryability and recovery.*isError/)
    expect(d('compare_releases')).toMatch(/^The facts of one part and topic added, removed or changed.*instead of two get_context calls\. A part that does not resolve.*do not pick one yourself\. Narrow with.*cursor\.$/)
    expect(d('compare_parts')).toMatch(/^Two parts of one release compared.*`registers`.*`pins`.*`electrical` or `errata`\. Narrow with.*do not pick one yourself\. Page on with the returned cursor\.$/)
    expect(d('check_configuration')).toMatch(/^Checks pin assignments.*Ambiguous part: candidates, do not pick\.$/)
  })

  it('run the service operation of their REST route, with the caller\'s key and the latest version', async () => {
    const { calls, facts } = stubFacts()
    const ctx = ctxOf(facts)
    const args = { part: 'STM32F407VG' }
    expect(await tool('resolve_part').run({ q: 'STM32' }, ctx)).toEqual({ from: 'resolve' })
    expect(await tool('search_catalog').run({ q: 'STM32' }, ctx)).toEqual({ from: 'catalogSearch' })
    expect(await tool('get_catalog_part').run(args, ctx)).toEqual({ from: 'catalogPart' })
    expect(await tool('get_context').run(args, ctx)).toEqual({ from: 'context' })
    expect(await tool('get_coverage').run(args, ctx)).toEqual({ from: 'coverage' })
    expect(await tool('list_discrepancies').run(args, ctx)).toEqual({ from: 'discrepancies' })
    expect(await tool('get_sources').run(args, ctx)).toEqual({ from: 'sources' })
    expect(await tool('get_release').run({}, ctx)).toEqual({ release: { from: 'release' }, api: { version: LATEST_VERSION, openapi_sha256: 'abc' } })
    const topics = VERSION_TOPICS[LATEST_VERSION]
    expect(calls).toEqual([
      ['resolve', [{ q: 'STM32' }, API_KEY, LATEST_VERSION]],
      ['catalogSearch', [{ q: 'STM32' }, API_KEY, topics]],
      ['catalogPart', [args, LATEST_VERSION]],
      ['context', [args, API_KEY]],
      ['coverage', [args, API_KEY, LATEST_VERSION]],
      ['discrepancies', [args, API_KEY]],
      ['sources', [args, API_KEY, LATEST_VERSION]],
      ['release', [topics]]
    ])
    const info = ERROR_CODES.INVALID_CURSOR
    expect(await tool('get_error_code').run({ code: 'INVALID_CURSOR' }, ctx)).toEqual({ code: 'INVALID_CURSOR', status: info.status, title: info.title, retryable: info.retryable, guidance: info.guidance })
  })
})

describe('validateArgs', () => {
  it('applies the defaults; a member sent as null counts as absent; the caller\'s object is not changed', () => {
    const raw = { part: 'STM32F407VG', topic: 'pins', limit: null, package: null }
    const args = validateArgs(tool('get_context'), raw, req)
    const props = tool('get_context').input.properties as Obj
    expect(args).toEqual({ part: 'STM32F407VG', topic: 'pins', limit: props.limit.default, max_tokens: props.max_tokens.default })
    expect(raw).toEqual({ part: 'STM32F407VG', topic: 'pins', limit: null, package: null })
    expect(validateArgs(tool('get_release'), undefined, req)).toEqual({})
    expect(validateArgs(tool('get_release'), {}, req)).toEqual({})
  })

  it('copies the values it keeps: defaults applied inside them never reach the caller\'s arguments', () => {
    const raw = { code: 'INVALID_CURSOR' }
    const args = validateArgs(tool('get_error_code'), raw, req)
    expect(args).toEqual(raw)
    expect(args).not.toBe(raw)
  })

  it('an unknown argument: UNKNOWN_PARAMETER naming it and the tool\'s arguments', () => {
    const none = thrown(() => validateArgs(tool('get_release'), { x: 1 }, req))
    expect(none).toBeInstanceOf(ServiceError)
    expect([none.code, none.param, none.detail]).toEqual(['UNKNOWN_PARAMETER', 'x', 'Unknown argument "x": get_release takes no arguments.'])
    const one = thrown(() => validateArgs(tool('get_error_code'), { code: 'INVALID_CURSOR', y: 2 }, req))
    expect([one.code, one.param, one.detail]).toEqual(['UNKNOWN_PARAMETER', 'y', 'Unknown argument "y": get_error_code takes code.'])
    const many = thrown(() => validateArgs(tool('get_coverage'), { part: 'STM32F407VG', revision: 'A' }, req))
    expect(many.detail).toBe(`Unknown argument "revision": get_coverage takes ${Object.keys(tool('get_coverage').input.properties).join(', ')}.`)
  })

  it('a value outside an enum: INVALID_PARAMETER listing the allowed values from the schema', () => {
    const e = thrown(() => validateArgs(tool('get_context'), { part: 'STM32F407VG', topic: 'nope' }, req))
    expect([e.code, e.param]).toEqual(['INVALID_PARAMETER', 'topic'])
    expect(e.detail).toBe(`Argument "topic" must be one of ${VERSION_TOPICS[LATEST_VERSION].join(', ')}.`)
  })

  it('a wrong JSON type is an error, never coerced; the wording says argument', () => {
    const e = thrown(() => validateArgs(tool('get_context'), { part: 'STM32F407VG', topic: 'pins', limit: '5' }, req))
    expect([e.code, e.param]).toEqual(['INVALID_PARAMETER', 'limit'])
    expect(e.detail).toMatch(/^Argument /)
    expect(e.detail).not.toMatch(/Parameter/)
    const range = thrown(() => validateArgs(tool('get_context'), { part: 'STM32F407VG', topic: 'pins', max_tokens: 5 }, req))
    expect([range.code, range.param]).toEqual(['INVALID_PARAMETER', 'max_tokens'])
    expect(range.detail).toMatch(/^Argument "?max_tokens/)
  })

  it('a missing argument: MISSING_PARAMETER naming it', () => {
    const e = thrown(() => validateArgs(tool('get_context'), { topic: 'pins' }, req))
    expect([e.code, e.param]).toEqual(['MISSING_PARAMETER', 'part'])
    // A missing enum argument is missing: its allowed values are not the point.
    const topic = thrown(() => validateArgs(tool('get_context'), { part: 'STM32F407VG' }, req))
    expect([topic.code, topic.param]).toEqual(['MISSING_PARAMETER', 'topic'])
    expect(topic.detail).toBe('Argument "topic" is required.')
  })
})

describe('toolError', () => {
  const pick = (retryable: boolean) => (Object.keys(ERROR_CODES) as ErrorCode[]).find((c) => ERROR_CODES[c].retryable === retryable)!

  it('names the code, the argument, the guidance, whether to retry, the documentation and the request', () => {
    const code = pick(false)
    const r = toolError(new ServiceError(code, 'what went wrong', 'cursor'), { base: 'https://facts.example', req })
    expect(r).toEqual({
      content: [{ type: 'text', text: `Error ${code} (argument "cursor"): what went wrong\n${ERROR_CODES[code].guidance}\nSee https://facts.example/v1/error-codes/${code} (get_error_code) · request req-7` }],
      isError: true
    })
    const retry = pick(true)
    const r2 = toolError(new ServiceError(retry, 'later'), { base: 'https://b', req })
    expect(r2.content[0]!.text).toBe(`Error ${retry}: later\n${ERROR_CODES[retry].guidance} Retryable.\nSee https://b/v1/error-codes/${retry} (get_error_code) · request req-7`)
  })
})

describe('callTool', () => {
  /** get_context with its run and rendering replaced: what the tool layer does around them. */
  function fakeContext(run: (args: Obj) => Promise<Obj>): ToolDef {
    return { ...tool('get_context'), run: async (args) => run(args), render: (r) => `facts: ${(r.facts as string[]).join(' ')}` }
  }

  it('a budgeted tool asks the service within the budget the whole result allows, with the other arguments unchanged', async () => {
    const seen: Obj[] = []
    const t = fakeContext(async (args) => {
      seen.push(args)
      return { status: 'ok', facts: ['PA9'], page: { maxTokens: args.max_tokens, tokens: 10, budgetTooSmall: false, neededMaxTokens: null } }
    })
    const r = await callTool(t, { part: 'STM32F407VG', topic: 'pins', max_tokens: 1000 }, ctxOf({}))
    expect(seen).toEqual([{ part: 'STM32F407VG', topic: 'pins', limit: 20, max_tokens: 750 }])
    expect(r.isError).toBeUndefined()
    expect((r.structuredContent as Obj).page.maxTokens).toBe(1000)
    expect(r.content[0]!.text).toBe('facts: PA9')
  })

  it('a tool without a budget is run once with its arguments, its result rendered', async () => {
    const r = await callTool(tool('get_error_code'), { code: 'INVALID_CURSOR' }, ctxOf({}))
    const info = ERROR_CODES.INVALID_CURSOR
    expect(r.structuredContent).toEqual({ code: 'INVALID_CURSOR', status: info.status, title: info.title, retryable: info.retryable, guidance: info.guidance })
    expect(r.content).toEqual([{ type: 'text', text: `INVALID_CURSOR (HTTP ${info.status} ${info.title}; ${info.retryable ? 'retryable' : 'not retryable'}): ${info.guidance}` }])
    expect(r.isError).toBeUndefined()
  })

  it('every failure is a tool error result: bad arguments, the service\'s errors, and unexpected ones as INTERNAL, logged', async () => {
    const bad = await callTool(tool('get_error_code'), { code: 'INVALID_CURSOR', x: 1 }, ctxOf({}))
    expect(bad.isError).toBe(true)
    expect(bad.content[0]!.text).toMatch(/^Error UNKNOWN_PARAMETER \(argument "x"\): Unknown argument "x"/)
    const unknown = await callTool(tool('get_error_code'), { code: 'NO_SUCH_CODE' }, ctxOf({}))
    expect(unknown.content[0]!.text).toMatch(/^Error NOT_FOUND \(argument "code"\): /)
    logged.length = 0
    const boom = await callTool(fakeContext(async () => Promise.reject(new Error('boom'))), { part: 'STM32F407VG', topic: 'pins' }, ctxOf({}))
    expect(boom.isError).toBe(true)
    expect(boom.structuredContent).toBeUndefined()
    expect(boom.content[0]!.text).toMatch(/^Error INTERNAL: /)
    expect(boom.content[0]!.text).not.toContain('boom')
    expect(logged.map((l) => l[0])).toEqual(['error'])
  })
})
