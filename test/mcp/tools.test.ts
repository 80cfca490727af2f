import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import { LATEST_VERSION } from '../../src/model/versions.js'
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
import { DiscrepanciesParams, DiscrepanciesResponse } from '../../src/schemas/discrepancies.js'
import { ComparePartsParams, ComparePartsResponse, CompareReleasesParams, CompareReleasesResponse } from '../../src/schemas/compare.js'
import { CheckParams, CheckResponse } from '../../src/schemas/check.js'
import { CORPUS_INVENTORY } from '../helpers/corpus-release.js'
import { startMcpServer, type McpTestServer, type ToolCallResult } from '../helpers/mcp-server.js'
import { TOOLS } from '../../src/mcp/tools.js'

type Obj = Record<string, any>
type Result = ToolCallResult

let srv: McpTestServer
let client: Client
const RESTRICTED = { scopes: ['facts:read' as const], releases: [] as string[] }

beforeAll(async () => {
  srv = await startMcpServer({ extraKeys: [RESTRICTED] })
  client = await srv.connect()
})
afterAll(async () => {
  await client?.close()
  await srv?.close()
})

const call = async (name: string, args: Obj = {}, c: Client = client) => (await c.callTool({ name, arguments: args })) as Result
const text = (r: Result) => r.content.map((c) => c.text).join('\n')

const rest = (path: string, query: Obj = {}): Promise<Obj> => srv.rest(path, query)

/** A tool error: the code and the argument in the text; no structuredContent, which the outputSchema describes for answers only. */
function expectToolError(r: Result, code: string, param: string | null) {
  expect(r.isError).toBe(true)
  expect(r.structuredContent).toBeUndefined()
  expect(text(r)).toMatch(new RegExp(`^Error ${code}${param ? ` \\(argument "${param}"\\)` : ':'}`))
  expect(text(r)).toContain(`/v1/error-codes/${code}`)
}

/** The register address as the raw SVD states it: RCC baseAddress + AHB1ENR addressOffset. */
function svdRegisterAddress(svdPath: string, peripheral: string, register: string): { address: number; registerLine: number } {
  const lines = readFileSync(join(CORPUS_INVENTORY, svdPath), 'utf8').split('\n')
  const p = lines.findIndex((l, i) => l.trim() === `<name>${peripheral}</name>` && lines[i - 1]!.trim() === '<peripheral>')
  const base = /<baseAddress>(0x[0-9a-fA-F]+)<\/baseAddress>/.exec(lines.slice(p, p + 10).join('\n'))![1]!
  const r = lines.findIndex((l, i) => i > p && l.trim() === `<name>${register}</name>` && lines[i - 1]!.trim() === '<register>')
  const off = /<addressOffset>(0x[0-9a-fA-F]+)<\/addressOffset>/.exec(lines.slice(r, r + 10).join('\n'))![1]!
  return { address: Number(base) + Number(off), registerLine: r }
}

describe('MCP initialize and tools/list', () => {
  it('initializes a stateless server with the tools capability and agent instructions', () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'hardware-facts' })
    expect(client.getServerCapabilities()?.tools).toBeDefined()
    expect(client.getInstructions()).toMatch(/resolve_part first/)
  })

  it('lists every tool: the TypeBox parameter schema as inputSchema, the outline of the REST body schema as outputSchema, both in the latest contract version', async () => {
    const { tools } = await client.listTools()
    const { revision: _deprecated, ...contextArgs } = ContextParams.properties
    const expected: Record<string, [object, object]> = {
      resolve_part: [ResolveParams, ResolveResponse],
      search_catalog: [CatalogSearchParams, CatalogSearchResponse],
      get_catalog_part: [CatalogPartParams, CatalogPartResponse],
      get_context: [{ ...ContextParams, properties: contextArgs }, ContextResponse],
      get_coverage: [PartParams, CoverageResponse],
      get_sources: [PartParams, SourcesResponse],
      get_release: [NoParams, ReleaseResponse],
      get_error_code: [ErrorCodeParams, ErrorCodeGuidance],
      compare_releases: [CompareReleasesParams, CompareReleasesResponse],
      compare_parts: [ComparePartsParams, ComparePartsResponse],
      list_discrepancies: [DiscrepanciesParams, DiscrepanciesResponse],
      check_configuration: [CheckParams, CheckResponse]
    }
    expect(tools.map((t) => t.name).sort()).toEqual(Object.keys(expected).sort())
    for (const t of tools) {
      const [input, output] = expected[t.name]!
      // What goes over the wire is the very schema REST validates with, as the latest version has it.
      expect(t.inputSchema).toEqual(forVersion(input, LATEST_VERSION))
      // ... and the outline of the schema REST serializes with, self-contained: one level deeper for the tools whose lists are read entry by entry.
      const depth = ['get_context', 'resolve_part', 'check_configuration'].includes(t.name) ? 1 : 0
      expect(t.outputSchema).toEqual(outline(forVersion(output, LATEST_VERSION) as never, depth))
      expect(JSON.stringify([t.inputSchema, t.outputSchema])).not.toMatch(/"x-/)
      expect(JSON.stringify(t.outputSchema)).not.toMatch(/"\$(ref|id)"/)
      expect(t.outputSchema).toMatchObject({ type: 'object', required: expect.any(Array) })
      expect(t.annotations).toMatchObject({ readOnlyHint: true })
      expect(t.description!.length).toBeGreaterThan(80)
      // Tools speak MCP: other tools by name, never REST paths.
      expect(JSON.stringify([t.description, t.inputSchema]), t.name).not.toMatch(/\/v1\//)
    }
    const ctx = tools.find((t) => t.name === 'get_context')!
    expect(ctx.inputSchema.properties!.topic).toMatchObject({ enum: ['registers', 'pins', 'electrical', 'errata', 'memory', 'interrupts', 'dma', 'clocks'] })
    expect(ctx.inputSchema.properties!.revision).toBeUndefined()
    expect(ctx.description).toMatch(/resolve_part first/)
    expect(ctx.description).toMatch(/never from memory or by guessing/)
    expect(tools.find((t) => t.name === 'resolve_part')!.description).toMatch(/do NOT pick a candidate yourself/)
  })

  it('gives structuredContent that validates against the outputSchema, which rejects a renamed member', async () => {
    const { tools } = await client.listTools()
    const ajv = new Ajv({ strict: false, allErrors: true })
    ;(addFormats as unknown as (a: Ajv) => void)(ajv)
    const calls: Array<[string, Obj]> = [
      ['resolve_part', { q: 'STM32F407VG' }],
      ['resolve_part', { q: 'STM32F4' }],
      ['resolve_part', { q: 'STM32F999XX' }],
      ['search_catalog', { q: 'STM32F407' }],
      ['get_catalog_part', { part: 'STM32F407VGT6' }],
      ['get_catalog_part', { part: 'STM32F4' }],
      ['get_context', { part: 'STM32F407VG', topic: 'registers', fact_name_prefixes: 'RCC.CR' }],
      ['get_context', { part: 'STM32F407VGT6', topic: 'pins' }],
      ['get_context', { part: 'STM32F407VG', topic: 'electrical' }],
      ['get_context', { part: 'nRF52840', topic: 'errata' }],
      ['get_context', { part: 'STM32F407', topic: 'pins' }],
      ['get_coverage', { part: 'nRF52840' }],
      ['get_sources', { part: 'STM32F407VG' }],
      ['get_release', {}],
      ['get_error_code', { code: 'INVALID_CURSOR' }]
    ]
    for (const [name, args] of calls) {
      const validate = ajv.compile(tools.find((t) => t.name === name)!.outputSchema!)
      const r = await call(name, args)
      expect(r.isError, name).toBeFalsy()
      expect(validate(r.structuredContent), `${name} ${JSON.stringify(validate.errors)}`).toBe(true)
      // Not vacuous: renaming a required member fails.
      for (const member of (validate.schema as { required: string[] }).required) {
        const { [member]: v, ...rest } = r.structuredContent!
        expect(validate({ ...rest, [`${member}_`]: v }), `${name} without ${member}`).toBe(false)
      }
    }
    const ctx = ajv.compile(tools.find((t) => t.name === 'get_context')!.outputSchema!)
    const r = (await call('get_context', { part: 'STM32F407VG', topic: 'registers', fact_names: 'RCC.AHB1ENR' })).structuredContent!
    // One level down too: a fact without its evidence, a page whose cursor is renamed.
    const { evidence, ...noEvidence } = r.facts[0]
    expect(ctx({ ...r, facts: [{ ...noEvidence, sources: evidence }] })).toBe(false)
    const { nextCursor, ...page } = r.page
    expect(ctx({ ...r, page: { ...page, cursor: nextCursor } })).toBe(false)
  })

  it('answers an unknown tool with a JSON-RPC invalid-params error', async () => {
    const err = await client.callTool({ name: 'get_everything', arguments: {} }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(McpError)
    expect((err as McpError).code).toBe(ErrorCode.InvalidParams)
    expect((err as McpError).message).toContain('get_everything')
    // The SDK client prefixes the code once; the server's message does not carry it already.
    expect((err as McpError).message).toBe(`MCP error -32602: Tool get_everything not found; tools/list names the ${TOOLS.length} tools.`)
  })
})

describe('resolve_part', () => {
  it('resolves an ordering-code prefix like REST, with a readable summary', async () => {
    const r = await call('resolve_part', { q: 'STM32F407VG' })
    expect(r.isError).toBeFalsy()
    expect(r.structuredContent).toEqual(await rest('/v1/parts/resolve', { q: 'STM32F407VG' }))
    expect(r.structuredContent!.status).toBe('resolved')
    expect(text(r)).toContain('STM32F407VG → resolved')
    expect(text(r)).toMatch(/registers: resolved → svd:STMicro\/STM32F407/)
    expect(text(r)).toContain('Next: call get_context')
  })

  it('lists candidates and tells the agent not to pick when ambiguous', async () => {
    const r = await call('resolve_part', { q: 'STM32F4', candidate_limit: 3 })
    expect(r.structuredContent!.status).toBe('ambiguous')
    expect(r.structuredContent!.candidates).toHaveLength(3)
    expect(text(r)).toMatch(/Candidates \(3 of \d+\)/)
    expect(text(r)).toContain('Do not pick a candidate yourself')
  })

  it('takes arguments of their JSON type, never coerced; applies the defaults; null counts as absent', async () => {
    const r = await call('resolve_part', { q: 'STM32F4', candidate_limit: 2, query: null })
    expect(r.isError).toBeFalsy()
    expect(r.structuredContent!.candidates).toHaveLength(2)
    const d = await call('resolve_part', { q: 'STM32F4' })
    expect(d.structuredContent!.candidates).toHaveLength(10)
    // REST coerces because a query string has only text; a JSON argument of the wrong type is an error.
    expectToolError(await call('resolve_part', { q: 'STM32F4', candidate_limit: '5' }), 'INVALID_PARAMETER', 'candidate_limit')
    expectToolError(await call('resolve_part', { q: 5 }), 'INVALID_PARAMETER', 'q')
    expectToolError(await call('get_context', { part: 'STM32F407VG', topic: 'registers', limit: '5' }), 'INVALID_PARAMETER', 'limit')
    expectToolError(await call('get_context', { part: 'STM32F407VG', topic: 'registers', limit: 2.5 }), 'INVALID_PARAMETER', 'limit')
    expectToolError(await call('get_context', { part: 'STM32F407VG', topic: ['registers'] }), 'INVALID_PARAMETER', 'topic')
  })

  it('rejects bad arguments with a tool error naming the argument', async () => {
    expectToolError(await call('resolve_part', { q: 'STM32F4', candidate_limit: 50 }), 'INVALID_PARAMETER', 'candidate_limit')
    expectToolError(await call('resolve_part', { q: 'S' }), 'INVALID_PARAMETER', 'q')
    expectToolError(await call('resolve_part', {}), 'MISSING_PARAMETER', 'q')
    expectToolError(await call('resolve_part', { q: 'STM32F4', limit: 3 }), 'UNKNOWN_PARAMETER', 'limit')
    expectToolError(await call('resolve_part', { q: 'STM32F4', corpus_release: 'latest' }), 'INVALID_PARAMETER', 'corpus_release')
    expectToolError(await call('resolve_part', { q: 'STM32F4', corpus_release: 'ffffffffffffffff' }), 'UNKNOWN_CORPUS_RELEASE', 'corpus_release')
  })

  it('applies the key release restriction to corpus_release, as REST does', async () => {
    const restricted = await srv.connect({ Authorization: srv.keyFor(RESTRICTED).authorization })
    try {
      const id = (await call('get_release')).structuredContent!.release.id as string
      // Another release is refused; the promoted one is readable, also by its id.
      expectToolError(await call('resolve_part', { q: 'STM32F407VG', corpus_release: '0000000000000000' }, restricted), 'FORBIDDEN', 'corpus_release')
      expect((await call('resolve_part', { q: 'STM32F407VG', corpus_release: id }, restricted)).isError).toBeFalsy()
      expect((await call('resolve_part', { q: 'STM32F407VG' }, restricted)).isError).toBeFalsy()
    } finally {
      await restricted.close()
    }
  })
})

describe('search_catalog and get_catalog_part', () => {
  it('searches the selector catalog like REST', async () => {
    const r = await call('search_catalog', { q: 'STM32F407', candidate_limit: 3 })
    expect(r.structuredContent).toEqual(await rest('/v1/catalog/search', { q: 'STM32F407', candidate_limit: 3 }))
    expect(r.structuredContent!.results).toHaveLength(3)
    expect(text(r)).toMatch(/^Catalog search "STM32F407": found/)
    expect(text(r)).toContain('STM32F407IEHx (selector-part, UFBGA176')
    // The rest of the matches: the text says how, and the cursor gives the next page, as REST's does.
    const cursor = r.structuredContent!.page.nextCursor as string
    expect(text(r)).toContain(`More results: call search_catalog again with the same arguments and cursor="${cursor}"`)
    const next = await call('search_catalog', { q: 'STM32F407', candidate_limit: 3, cursor })
    expect(next.structuredContent).toEqual(await rest('/v1/catalog/search', { q: 'STM32F407', candidate_limit: 3, cursor }))
    expect(next.structuredContent!.results[0].name).not.toBe(r.structuredContent!.results[0].name)
  })

  it('rejects a bad search argument', async () => {
    expectToolError(await call('search_catalog', { q: 'STM32F407', candidate_limit: 0 }), 'INVALID_PARAMETER', 'candidate_limit')
    expectToolError(await call('search_catalog', { q: 'STM32F407', corpus_release: 'ffffffffffffffff' }), 'UNKNOWN_PARAMETER', 'corpus_release')
  })

  it('describes one catalog part with its documents and sources like REST', async () => {
    const r = await call('get_catalog_part', { part: 'STM32F407VGT6' })
    expect(r.structuredContent).toEqual(await rest('/v1/catalog/part', { part: 'STM32F407VGT6' }))
    expect(r.structuredContent!.status).toBe('found')
    expect(text(r)).toContain('STM32F407VGTx (selector-part, LQFP100')
    expect(text(r)).toContain('svd/STMicro/STM32F407.svd')
  })

  it('rejects a too-short or missing part', async () => {
    expectToolError(await call('get_catalog_part', { part: 'STM' }), 'INVALID_PARAMETER', 'part')
    expectToolError(await call('get_catalog_part', {}), 'MISSING_PARAMETER', 'part')
  })
})

describe('get_context', () => {
  it('returns RCC.AHB1ENR of the STM32F407 at the address the raw SVD gives, with its evidence line', async () => {
    const svd = svdRegisterAddress('svd/STMicro/STM32F407.svd', 'RCC', 'AHB1ENR')
    // 0x40023800 + 0x30: the well-known address (RM0090), and what the raw SVD says.
    expect(svd.address).toBe(0x40023830)
    const args = { part: 'STM32F407VG', topic: 'registers', fact_names: 'RCC.AHB1ENR' }
    const r = await call('get_context', args)
    expect(r.isError).toBeFalsy()
    // REST's body, but for page.tokens: over MCP it counts the whole tool result, text included (test/mcp/budget.test.ts).
    const body = await rest('/v1/context', args)
    expect(r.structuredContent).toEqual({ ...body, page: { ...body.page, tokens: r.structuredContent!.page.tokens } })
    expect(r.structuredContent!.page.tokens).toBeGreaterThan(body.page.tokens)
    const fact = r.structuredContent!.facts[0]
    expect(fact.name).toBe('RCC.AHB1ENR')
    expect(Number(fact.value.address)).toBe(svd.address)
    expect(fact.evidence[0].locator).toMatch(new RegExp(`^line ${svd.registerLine}: `))
    // One line per fact: NAME = address … [evidence locator].
    expect(text(r)).toMatch(/^RCC\.AHB1ENR = address 0x40023830, offset 0x30, 32 bits, .* \[svd\/STMicro\/STM32F407\.svd line \d+: .*register\[name=AHB1ENR\] \+1 more\]$/m)
    // The address is RCC's <baseAddress> + the offset: the evidence names both elements.
    expect(fact.evidence[1].locator).toMatch(/^line \d+: \/device\/peripherals\/peripheral\[name=RCC\]\/baseAddress$/)
  })

  it('applies the REST defaults and pages with the cursor it returns', async () => {
    const first = await call('get_context', { part: 'STM32F407VGT6', topic: 'pins', limit: 2 })
    const page = first.structuredContent!.page
    expect(page).toMatchObject({ returned: 2, limit: 2, maxTokens: 4000, truncatedBy: 'limit' })
    expect(text(first)).toContain(`cursor="${page.nextCursor}"`)
    expect(text(first)).toMatch(/^PE2 = pin 1 \(LQFP100\); I\/O; signals .*\[pins\/stm32\/mcu\/STM32F407V\(E-G\)Tx\.xml line \d+: \/Mcu\/Pin\[Name=PE2\]/m)
    const next = await call('get_context', { part: 'STM32F407VGT6', topic: 'pins', limit: 2, cursor: page.nextCursor })
    expect(next.structuredContent!.facts[0].name).not.toBe(first.structuredContent!.facts[0].name)
    const dflt = await call('get_context', { part: 'STM32F407VG', topic: 'electrical' })
    expect(dflt.structuredContent!.page).toMatchObject({ limit: 20, maxTokens: 4000 })
    expect(text(dflt)).toMatch(/^supply\.vdd\.min = [\d.]+ V \[/m)
  })

  it('renders errata facts per silicon revision', async () => {
    const r = await call('get_context', { part: 'nRF52840', topic: 'errata', limit: 1 })
    expect(text(r)).toMatch(/^errata\.\d+ = erratum \d+; nrf52_errata_\d+; applies to revisions /m)
  })

  it('returns no facts and candidates for an ambiguous part', async () => {
    const r = await call('get_context', { part: 'STM32F407', topic: 'pins' })
    expect(r.isError).toBeFalsy()
    expect(r.structuredContent).toMatchObject({ status: 'ambiguous', facts: [] })
    expect(text(r)).toContain('Do not pick a candidate yourself')
  })

  it('rejects bad arguments and service failures with a tool error naming the argument', async () => {
    expectToolError(await call('get_context', { part: 'STM32F407VG', topic: 'registers', fact_name: 'RCC.CR' }), 'UNKNOWN_PARAMETER', 'fact_name')
    // The tools offer every topic, whatever the request's Service-Version.
    const topic = await call('get_context', { part: 'STM32F407VG', topic: 'power' })
    expectToolError(topic, 'INVALID_PARAMETER', 'topic')
    expect(text(topic)).toContain('registers, pins, electrical, errata, memory, interrupts, dma, clocks')
    expectToolError(await call('get_context', { part: 'STM32F407VG' }), 'MISSING_PARAMETER', 'topic')
    expectToolError(await call('get_context', { part: 'STM32F407VG', topic: 'registers', max_tokens: 100 }), 'INVALID_PARAMETER', 'max_tokens')
    expectToolError(await call('get_context', { part: 'STM32F407VG', topic: 'registers', cursor: 'not-a-cursor' }), 'INVALID_CURSOR', 'cursor')
    expectToolError(await call('get_context', { part: 'STM32F407VG', topic: 'registers', corpus_release: '0123456789abcdef' }), 'UNKNOWN_CORPUS_RELEASE', 'corpus_release')
    expectToolError(await call('get_context', { part: 'STM32F407VG', topic: 'registers', fact_names: ' , ' }), 'INVALID_PARAMETER', 'fact_names')
    // The deprecated REST parameter is not offered to agents: silicon_revision replaces it.
    expectToolError(await call('get_context', { part: 'nRF52840', topic: 'errata', revision: '0x05' }), 'UNKNOWN_PARAMETER', 'revision')
  })
})

describe('get_coverage, get_sources, get_release, get_error_code', () => {
  it('reports coverage like REST', async () => {
    const r = await call('get_coverage', { part: 'nRF52840' })
    expect(r.structuredContent).toEqual(await rest('/v1/coverage', { part: 'nRF52840' }))
    expect(text(r)).toMatch(/covered: registers, errata, interrupts; not covered: pins, electrical, memory, dma, clocks/)
    expectToolError(await call('get_coverage', { part: 'nRF52840', topic: 'errata' }), 'UNKNOWN_PARAMETER', 'topic')
  })

  it('offers the depth topics whatever the Service-Version of the request: resolve and coverage list eight, get_context takes them', async () => {
    const eight = ['registers', 'pins', 'electrical', 'errata', 'memory', 'interrupts', 'dma', 'clocks']
    const seed = await srv.connect({ Authorization: srv.auth.authorization, 'Service-Version': '2026-08-26' })
    try {
      for (const c of [client, seed]) {
        expect(Object.keys((await call('resolve_part', { q: 'STM32F407VG' }, c)).structuredContent!.topics)).toEqual(eight)
        expect(Object.keys((await call('get_coverage', { part: 'STM32F407VG' }, c)).structuredContent!.topics)).toEqual(eight)
        const memory = await call('get_context', { part: 'STM32F407VG', topic: 'memory' }, c)
        expect(memory.isError, text(memory)).toBeFalsy()
        expect(memory.structuredContent).toMatchObject({ topic: 'memory' })
      }
    } finally {
      await seed.close()
    }
  })

  it('reports sources like REST', async () => {
    const r = await call('get_sources', { part: 'nRF52840' })
    expect(r.structuredContent).toEqual(await rest('/v1/sources', { part: 'nRF52840' }))
    expect(text(r)).toContain('errata/nordic/nrf52_erratas.h — publisher Nordic Semiconductor')
    expectToolError(await call('get_sources', { part: 'x' }), 'INVALID_PARAMETER', 'part')
  })

  it('reports the release and API identity like REST', async () => {
    const r = await call('get_release')
    expect(r.structuredContent).toEqual(await rest('/v1/release'))
    expect(text(r)).toMatch(/^Promoted corpus release [a-f0-9]{16} /)
    // The contract the tools speak: the latest version's.
    expect(text(r)).toMatch(/API contract 2026-12-01, sha256:[a-f0-9]{64}/)
    expectToolError(await call('get_release', { corpus_release: 'ffffffffffffffff' }), 'UNKNOWN_PARAMETER', 'corpus_release')
  })

  it('explains an error code like REST, and a NOT_FOUND tool error for an unknown one', async () => {
    const r = await call('get_error_code', { code: 'INVALID_CURSOR' })
    expect(r.structuredContent).toEqual(await rest('/v1/error-codes/INVALID_CURSOR'))
    expect(text(r)).toMatch(/^INVALID_CURSOR \(HTTP 400 Invalid cursor; not retryable\): /)
    expectToolError(await call('get_error_code', { code: 'NO_SUCH_CODE' }), 'NOT_FOUND', 'code')
    expectToolError(await call('get_error_code', {}), 'MISSING_PARAMETER', 'code')
  })
})

describe('authentication through the SDK client', () => {
  it('cannot connect without a key, nor with a wrong one', async () => {
    await expect(srv.connect({})).rejects.toThrow(/401/)
    await expect(srv.connect({ Authorization: 'Bearer hwf_not-a-key' })).rejects.toThrow(/401/)
  })
})
