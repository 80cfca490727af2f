/**
 * The TypeBox schemas (src/schemas) as the contract fixes them: parameters and limits read from the
 * spec's own tables (service-spec.md parts 2, 4 and 8), the bodies the spec defines field by field,
 * and the rules the schema files state (which objects stay open, ids, patterns, enums), checked on
 * the schemas and with TypeBox's Value on hand-made right and wrong bodies. The `schemas` mutation
 * module; no release, no app.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Value from 'typebox/value'
import { describe, expect, it } from 'vitest'
import * as catalog from '../../src/schemas/catalog.js'
import * as check from '../../src/schemas/check.js'
import * as compare from '../../src/schemas/compare.js'
import * as components from '../../src/schemas/components.js'
import * as discrepancies from '../../src/schemas/discrepancies.js'
import * as facts from '../../src/schemas/facts.js'
import * as params from '../../src/schemas/params.js'
import * as responses from '../../src/schemas/responses.js'
import { forVersion } from '../../src/schemas/versions.js'

type Node = Record<string, any>
const SEED = '2026-08-26' as const
const LATER = '2026-12-01' as const
const MODULES = { catalog, check, compare, discrepancies, facts, params, responses }
const SPEC = readFileSync(join(process.cwd(), '..', 'shared', 'spec', 'service-spec.md'), 'utf8')

let exported: Array<[string, Node]> | undefined
let nodes: Map<string, Node> | undefined

/** Every exported schema of the schema files, by export name (worked out once, by the first test that asks). */
function exportedSchemas(): Array<[string, Node]> {
  if (exported) return exported
  const out: Array<[string, Node]> = (exported = [])
  for (const mod of Object.values(MODULES))
    for (const [name, v] of Object.entries(mod)) if (v !== null && typeof v === 'object' && !Array.isArray(v) && ('type' in v || 'anyOf' in v || 'enum' in v)) out.push([name, v as Node])
  return out
}

/** Visits every schema node under `n`, each with a path that starts at its nearest `$id` (members as `.name`, union alternatives as `|i`). */
function visit(n: Node, path: string, f: (node: Node, path: string) => void): void {
  const p = typeof n.$id === 'string' ? n.$id : path
  f(n, p)
  if (n.properties) for (const [k, v] of Object.entries(n.properties as Node)) visit(v, `${p}.${k}`, f)
  if (n.items) visit(n.items, `${p}[]`, f)
  if (Array.isArray(n.anyOf)) n.anyOf.forEach((a: Node, i: number) => visit(a, `${p}|${i}`, f))
  if (n.patternProperties) for (const v of Object.values(n.patternProperties as Node)) visit(v, `${p}{}`, f)
  if (n.additionalProperties && typeof n.additionalProperties === 'object') visit(n.additionalProperties, `${p}{}`, f)
}

/** Each node reached from the exported schemas, once per path. */
function allNodes(): Map<string, Node> {
  if (nodes) return nodes
  const out = (nodes = new Map<string, Node>())
  for (const [name, s] of exportedSchemas()) visit(components.plain(s) as Node, name, (n, p) => out.set(p, n))
  return out
}

/** The rows of the markdown table that follows `heading` in the spec. */
function specTable(heading: string): string[][] {
  const start = SPEC.indexOf(heading)
  expect(start, heading).toBeGreaterThanOrEqual(0)
  const rows: string[][] = []
  let seen = false
  for (const line of SPEC.slice(start).split('\n').slice(1)) {
    if (!line.startsWith('|')) {
      if (seen) break
      continue
    }
    seen = true
    const cells = line.split('|').slice(1, -1).map((c) => c.trim())
    if (cells.every((c) => /^-+$/.test(c)) || cells[0] === 'Field' || cells[0] === 'Parameter') continue
    rows.push(cells)
  }
  return rows
}

describe('named schemas', () => {
  it('each exported named schema is published under its own name, and the document names each once', () => {
    const named = exportedSchemas().filter(([, s]) => typeof s.$id === 'string')
    expect(named.length).toBeGreaterThan(60)
    for (const [name, s] of named) expect(s.$id, name).toBe(name)
    const roots = [...responses.RESPONSE_ROOTS, ...compare.COMPARE_ROOTS, ...discrepancies.DISCREPANCIES_ROOTS, check.CheckResponse]
    const ids = components.namedSchemas(roots).map((s) => (s as Node).$id as string)
    expect(new Set(ids).size).toBe(ids.length)
    // The bodies of every operation, and the per-topic objects they hold, are components.
    // Unions are components too: a topic's resolution, coverage and source, the match kind, an erratum's value.
    for (const [name, s] of exportedSchemas()) if (['TopicResolution', 'TopicCoverage', 'TopicSource', 'MatchKind', 'ErratumValue', 'Fact'].includes(name)) expect(s.$id, name).toBe(name)
    for (const id of ['Ping', 'Health', 'ReleaseResponse', 'OpenApiDocument', 'Problem', 'JsonRpcRequest', 'JsonRpcResponse', 'JsonRpcError', 'ErrorCodeGuidance', 'ResolveResponse', 'CatalogSearchResponse', 'CatalogPartResponse', 'CoverageResponse', 'SourcesResponse', 'ContextResponse', 'CompareReleasesResponse', 'ComparePartsResponse', 'DiscrepanciesResponse', 'CheckResponse', 'TopicResolutions', 'TopicCoverages', 'TopicSources', 'TopicCovered', 'TopicSourceResolved', 'Fact', 'Topic'])
      expect(ids, id).toContain(id)
    expect(responses.RESPONSE_ROOTS.map((s) => (s as Node).$id)).toEqual(['Ping', 'Health', 'ReleaseResponse', 'OpenApiDocument', 'Problem', 'JsonRpcRequest', 'JsonRpcResponse', 'JsonRpcError', 'ErrorCodeGuidance', 'ResolveResponse', 'CatalogSearchResponse', 'CatalogPartResponse', 'CoverageResponse', 'SourcesResponse', 'ContextResponse'])
    expect(compare.COMPARE_ROOTS.map((s) => (s as Node).$id)).toEqual(['CompareReleasesResponse', 'ComparePartsResponse'])
    expect(discrepancies.DISCREPANCIES_ROOTS.map((s) => (s as Node).$id)).toEqual(['DiscrepanciesResponse'])
  })

  it('only the objects the spec or the schema files leave open accept members they do not declare', () => {
    const open: string[] = []
    for (const [p, n] of allNodes()) if (n.type === 'object' && !n.patternProperties && n.additionalProperties !== false) open.push(p)
    expect(open.sort()).toEqual(
      [
        // Spec part 2: "Other bodies … additional properties allowed"; the later operations' bodies alike.
        'ResolveResponse', 'CatalogSearchResponse', 'CatalogPartResponse', 'ContextResponse', 'CoverageResponse', 'SourcesResponse', 'ErrorCodeGuidance',
        'CompareReleasesResponse', 'ComparePartsResponse', 'CheckResponse',
        // Spec part 2: Health, OpenApiDocument, JsonRpcRequest (and its params), JsonRpcError's error, the free-form release.
        'Health', 'HealthCheck', 'Health.checks', 'OpenApiDocument', 'OpenApiDocument.info', 'OpenApiDocument.paths', 'JsonRpcRequest', 'JsonRpcRequest.params',
        'JsonRpcError.error', 'JsonRpcError.error.data', 'JsonRpcResponse', 'JsonRpcResponse.result', 'JsonRpcResponse.error', 'JsonRpcResponse.error.data', 'Release',
        // catalog.ts: resolution and coverage answers that grow with the curation.
        'Target', 'TopicResolved', 'TopicAmbiguous', 'TopicNotCovered', 'TopicSourceFailed', 'TopicCovered', 'TopicSourceResolved'
      ].sort()
    )
    // And say so: fast-json-stringify, which serializes these bodies, drops the members an object without
    // `additionalProperties: true` does not declare.
    for (const p of open) expect(allNodes().get(p)!.additionalProperties, p).toBeDefined()
    // Every parameter object is closed: an unknown parameter is refused.
    for (const [name, s] of exportedSchemas()) if (name.endsWith('Params')) expect(s.additionalProperties, name).toBe(false)
  })

  it('every count, size and index is at least 0; the integers that may be negative or are not counts are these', () => {
    const unbounded: string[] = []
    for (const [p, n] of allNodes()) if (n.type === 'integer' && n.minimum === undefined && !p.endsWith('Params') && !/Params\./.test(p)) unbounded.push(p)
    expect(unbounded.sort()).toEqual(
      [
        // JSON-RPC ids and error codes (negative: -32602), SVD IRQ numbers and sizes, enumerated values, an erratum's number,
        // a remap field's value, the needed budget, the release format, per-topic counts and group sizes.
        'JsonRpcRequest.id|1', 'JsonRpcResponse.id|1', 'JsonRpcError.id|1', 'JsonRpcResponse.error.code', 'JsonRpcError.error.code',
        'Interrupt.value|0', 'RegisterValue.size|0', 'EnumeratedValue.value|0', 'NordicErratumValue.number', 'DmaOption.remap[].value',
        'Page.neededMaxTokens|0', 'CheckPage.neededMaxTokens|0', 'Release.indexerFormat',
        ...['registers', 'pins', 'electrical', 'errata', 'memory', 'interrupts', 'dma', 'clocks'].map((t) => `Release.counts.byTopic.${t}`),
        'Part.memberCount', 'PartDetail.memberCount', 'Candidate.memberCount', 'CatalogHit.memberCount'
      ].sort()
    )
  })
})

describe('values the schemas constrain', () => {
  const at = (p: string) => {
    const n = allNodes().get(p)
    expect(n, p).toBeDefined()
    return n!
  }

  it('release ids are 16 lowercase hex (spec part 9), sha256 digests 64, addresses and masks 0x-hex', () => {
    const RELEASE = '^[a-f0-9]{16}$'
    for (const p of ['ReleaseId', 'Release.id', 'Release.kept[]', 'Health.release|0.id', 'ResolveResponse.release', 'CatalogSearchResponse.release', 'CatalogPartResponse.release', 'CoverageResponse.release', 'SourcesResponse.release', 'ContextResponse.release', 'CompareSide.release', 'ComparePartsResponse.release', 'DiscrepanciesResponse.release', 'CheckResponse.release'])
      expect(at(p).pattern, p).toBe(RELEASE)
    for (const p of ['Evidence.sourceSha256', 'SourceRef.sha256', 'Source.sha256']) expect(at(p).pattern, p).toBe('^[a-f0-9]{64}$')
    for (const p of ['PeripheralValue.baseAddress', 'RegisterValue.address', 'RegisterValue.offset', 'RegisterValue.resetValue|0', 'RegisterValue.resetMask|0', 'RegisterArray.increment', 'MemoryValue.start'])
      expect(at(p).pattern, p).toBe('^0x[0-9A-Fa-f]+$')
    expect(at('Release.createdAt').format).toBe('date-time')
    // Right and wrong values, through TypeBox's own checker.
    expect(Value.Check(catalog.ReleaseId, '0123456789abcdef')).toBe(true)
    for (const bad of ['0123456789ABCDEF', '0123456789abcde', '0123456789abcdef0', 'g123456789abcdef']) expect(Value.Check(catalog.ReleaseId, bad), bad).toBe(false)
    expect(Value.Check(facts.Evidence, { sourceSha256: 'a'.repeat(64), sourcePath: 'p', locator: 'line 1', excerpt: '' })).toBe(true)
    expect(Value.Check(facts.Evidence, { sourceSha256: 'a'.repeat(63), sourcePath: 'p', locator: 'line 1', excerpt: '' })).toBe(false)
  })

  it('enums and constants: statuses, kinds and topics as the service answers them', () => {
    const TOPICS = ['registers', 'pins', 'electrical', 'errata', 'memory', 'interrupts', 'dma', 'clocks']
    const KINDS = ['selector-part', 'refname', 'device']
    const RESOLVE = ['resolved', 'ambiguous', 'not_found']
    const PAGE = ['ok', 'ambiguous', 'not_covered', 'source_failed', 'not_found']
    const expected: Record<string, unknown[]> = {
      Topic: TOPICS, 'CheckedTopic.topic': TOPICS, 'Discrepancy.topic': TOPICS,
      'Part.kind': KINDS, 'PartDetail.kind': KINDS, 'Candidate.kind': KINDS, 'CatalogHit.kind': KINDS, 'ContextResponse.resolvedPart.kind': KINDS, 'CheckResponse.resolvedPart.kind': KINDS, 'DiscrepanciesResponse.resolvedPart.kind': KINDS,
      'MatchKind|0': ['exact', 'ordering-code', 'prefix'],
      'ResolveResponse.status': RESOLVE, 'CoverageResponse.status': RESOLVE, 'SourcesResponse.status': RESOLVE, 'DiscrepanciesResponse.status': RESOLVE,
      'CatalogSearchResponse.status': ['found', 'not_found'], 'CatalogPartResponse.status': ['found', 'ambiguous', 'not_found'],
      'ContextResponse.status': PAGE, 'CompareReleasesResponse.status': PAGE, 'ComparePartsResponse.status': PAGE,
      'CompareSide.status': ['resolved', 'ambiguous', 'not_covered', 'source_failed', 'not_found'],
      'CheckResponse.status': ['checked', 'ambiguous', 'not_found'],
      'Page.truncatedBy|0': ['limit', 'max_tokens'],
      'ArtifactChange.status': ['changed', 'added', 'removed', 'unchanged'], 'ReleaseChange.change': ['added', 'removed', 'changed'],
      'PartDiff.kind': ['peripheral', 'register', 'field'], 'PartDiff.status': ['only_part', 'only_other', 'differs', 'same'],
      Severity: ['error', 'warning', 'info'],
      'Finding.code': ['PIN_NOT_IN_PACKAGE', 'SIGNAL_NOT_ON_PIN', 'PIN_CONFLICT', 'DMA_NOT_AVAILABLE', 'DMA_CONFLICT', 'OUT_OF_LIMITS', 'ERRATUM_APPLIES', 'NOT_COVERED', 'CLOCK_ENABLE', 'SIGNAL_PINS', 'PIN_OK', 'DMA_OK', 'WITHIN_LIMITS'],
      'Finding.topic': ['pins', 'electrical', 'errata', 'dma', 'clocks'],
      'LimitCheck.parameter': ['vdd', 'temperature', 'sysclk'], 'LimitCheck.bound': ['min', 'max'],
      'MemoryValue.kind': ['ram', 'flash', 'rom', 'other'], 'NordicErratumValue.kind': ['erratum', 'configuration'],
      'Release.store': ['sqlite', 'search-engine'],
      'ApiIdentity.version': [SEED, LATER]
    }
    for (const [p, values] of Object.entries(expected)) {
      expect(at(p).enum, p).toEqual(values)
      expect(at(p).type, p).toBe('string')
    }
    for (const f of ['RegisterFact', 'PinFact', 'ElectricalFact', 'ErratumFact', 'MemoryFact', 'InterruptFact', 'DmaFact', 'ClockFact']) expect(at(`${f}.agreement`).enum, f).toEqual(['agree', 'disagree'])
    const consts: Record<string, unknown> = {
      'RegisterFact.topic': 'registers', 'PinFact.topic': 'pins', 'ElectricalFact.topic': 'electrical', 'ErratumFact.topic': 'errata', 'MemoryFact.topic': 'memory', 'InterruptFact.topic': 'interrupts', 'DmaFact.topic': 'dma', 'ClockFact.topic': 'clocks',
      'TopicResolved.status': 'resolved', 'TopicAmbiguous.status': 'ambiguous', 'TopicNotCovered.status': 'not_covered', 'TopicSourceFailed.status': 'source_failed', 'TopicCovered.status': 'covered', 'TopicSourceResolved.status': 'resolved',
      'CheckPage.truncatedBy|0': 'max_tokens', 'ContextFilters.elided': true, 'CompareReleasesResponse.elided': true, 'ComparePartsResponse.elided': true, 'EnumeratedValue.isDefault': true, 'MemoryValue.alias': true,
      'Ping.status': 'ok', 'Ping.message': 'pong', 'JsonRpcRequest.jsonrpc': '2.0', 'JsonRpcResponse.jsonrpc': '2.0', 'JsonRpcError.jsonrpc': '2.0'
    }
    for (const [p, c] of Object.entries(consts)) expect(at(p).const, p).toBe(c)
    expect(check.FINDING_CODES).toEqual(expected['Finding.code'])
  })

  it('bounds of numbers and lists: pages, budgets, bits, evidence, the two facts of a discrepancy', () => {
    const bounds: Record<string, Node> = {
      'Page.limit': { minimum: 1 }, 'ListPage.limit': { minimum: 1 }, 'Page.maxTokens': { minimum: 256 }, 'CheckPage.maxTokens': { minimum: 256 },
      'FieldValue.bitWidth': { minimum: 1 }, 'RegisterArray.count': { minimum: 2 }, 'SourceProblem.line': { minimum: 1 }, 'InterruptLineValue.number': { minimum: -16 },
      'Problem.status': { minimum: 400, maximum: 599 }, 'ErrorCodeGuidance.status': { minimum: 400, maximum: 599 },
      'Discrepancy.facts': { minItems: 2, maxItems: 2 }, 'PinAssignment.evidence': { minItems: 1 }
    }
    for (const [p, b] of Object.entries(bounds)) expect(at(p), p).toMatchObject(b)
    for (const f of ['RegisterFact', 'PinFact', 'ElectricalFact', 'ErratumFact', 'MemoryFact', 'InterruptFact', 'DmaFact', 'ClockFact']) expect(at(`${f}.evidence`).minItems, f).toBe(1)
  })
})

describe('request parameters as the spec fixes them (part 4 and part 8)', () => {
  const OPERATIONS: Record<string, Node> = {
    '#### GET /v1/parts/resolve': params.ResolveParams,
    '#### GET /v1/catalog/search': params.CatalogSearchParams,
    '#### GET /v1/catalog/part': params.CatalogPartParams,
    '#### GET /v1/context': params.ContextParams,
    '#### GET /v1/coverage': params.PartParams,
    '#### GET /v1/sources': params.PartParams
  }

  it("each parameter's type, whether it is required, its length, range, default, pattern and values", () => {
    for (const [heading, schema] of Object.entries(OPERATIONS)) {
      const seed = forVersion(schema, SEED) as Node
      const rows = specTable(heading)
      expect(rows.length, heading).toBeGreaterThan(0)
      const required: string[] = []
      for (const [name, inn, type, req, constraints] of rows) {
        const p = seed.properties[name!] as Node
        const where = `${heading} ${name}`
        expect(p, where).toBeDefined()
        expect(inn).toBe('query')
        expect(p.type, where).toBe(type)
        if (req === 'yes') required.push(name!)
        let m: RegExpExecArray | null
        if ((m = /^length (\d+) to (\d+)/.exec(constraints!))) expect([p.minLength, p.maxLength], where).toEqual([Number(m[1]), Number(m[2])])
        if ((m = /^(\d+) to (\d+), default (\d+)$/.exec(constraints!))) expect([p.minimum, p.maximum, p.default], where).toEqual([Number(m[1]), Number(m[2]), Number(m[3])])
        if ((m = /pattern `([^`]+)`/.exec(constraints!))) expect(p.pattern, where).toBe(m[1])
        if ((m = /^max length (\d+)$/.exec(constraints!))) expect(p.maxLength, where).toBe(Number(m[1]))
        if (constraints!.startsWith('one of ')) expect(p.enum, where).toEqual([...constraints!.matchAll(/`([^`]+)`/g)].map((x) => x[1]))
        expect(p.deprecated === true, where).toBe(constraints!.includes('deprecated'))
      }
      expect(seed.required ?? [], heading).toEqual(required)
      // Members beyond the spec's: only the cursor of the paged lists.
      for (const k of Object.keys(seed.properties)) if (!rows.some((r) => r[0] === k)) expect(k, heading).toBe('cursor')
    }
  })

  it('the limits of part 8: corpus_release, cursor, and the lengths of part, peripheral, package, silicon_revision and revision', () => {
    const limits = specTable('## 8. Limits')
    const row = (limit: string) => limits.find((r) => r[0] === limit)![1]!
    expect(row('`cursor`')).toBe('at most 512 characters')
    expect(params.Cursor).toMatchObject({ type: 'string', minLength: 1, maxLength: 512 })
    expect(row('`corpus_release`')).toBe('16 lowercase hexadecimal characters')
    expect((params.CorpusRelease as Node).pattern).toBe('^[a-f0-9]{16}$')
    expect(params.CORPUS_RELEASE_PATTERN).toBe('^[a-f0-9]{16}$')
    const ctx = params.ContextParams.properties as Node
    for (const [limit, names] of [['`peripheral`, `package`', ['peripheral', 'package']], ['`silicon_revision`, `revision`', ['silicon_revision', 'revision']]] as const) {
      const m = /^(\d+) to (\d+) characters$/.exec(row(limit))!
      for (const n of names) expect([ctx[n].minLength, ctx[n].maxLength], n).toEqual([Number(m[1]), Number(m[2])])
    }
    // The spec leaves fact_names, fact_name_prefixes and the error code's length to the service: these bounds.
    expect(ctx.fact_names).toMatchObject({ minLength: 1, maxLength: 2000 })
    expect(ctx.fact_name_prefixes).toMatchObject({ minLength: 1, maxLength: 2000 })
    expect(params.ErrorCodeParams.properties.code).toMatchObject({ type: 'string', minLength: 1, maxLength: 64 })
    expect(params.ErrorCodeParams.required).toEqual(['code'])
    expect(params.NoParams).toMatchObject({ type: 'object', additionalProperties: false })
    expect(Object.keys(params.NoParams.properties)).toEqual([])
    // /openapi.json?version=: one of the contract versions.
    expect((params.OpenApiParams.properties.version as Node).enum).toEqual([SEED, LATER])
    expect(params.OpenApiParams.required ?? []).toEqual([])
  })

  it('the topic parameter offers the seed topics in the seed contract, all eight from 2026-12-01', () => {
    expect((forVersion(params.FactTopic, SEED) as Node).enum).toEqual(['registers', 'pins', 'electrical', 'errata'])
    expect((forVersion(params.FactTopic, LATER) as Node).enum).toEqual(['registers', 'pins', 'electrical', 'errata', 'memory', 'interrupts', 'dma', 'clocks'])
  })

  it('right and wrong requests, through TypeBox: the bounds are inclusive, unknown parameters refused', () => {
    const ok = { part: 'ab', topic: 'pins' }
    expect(Value.Check(params.ContextParams, ok)).toBe(true)
    for (const bad of [{ ...ok, part: 'a' }, { ...ok, part: 'a'.repeat(129) }, { ...ok, topic: 'power' }, { ...ok, extra: '1' }, { topic: 'pins' }, { ...ok, max_tokens: 255 }, { ...ok, max_tokens: 16001 }, { ...ok, limit: 0 }, { ...ok, limit: 51 }, { ...ok, limit: 1.5 }, { ...ok, cursor: '' }, { ...ok, cursor: 'c'.repeat(513) }])
      expect(Value.Check(params.ContextParams, bad), JSON.stringify(bad).slice(0, 80)).toBe(false)
    for (const good of [{ ...ok, part: 'a'.repeat(128) }, { ...ok, max_tokens: 256 }, { ...ok, max_tokens: 16000 }, { ...ok, limit: 1 }, { ...ok, limit: 50 }, { ...ok, cursor: 'c'.repeat(512) }, { ...ok, corpus_release: '0123456789abcdef' }])
      expect(Value.Check(params.ContextParams, good), JSON.stringify(good).slice(0, 80)).toBe(true)
    expect(Value.Check(params.ResolveParams, { q: 'ab', candidate_limit: 20 })).toBe(true)
    expect(Value.Check(params.ResolveParams, { q: 'ab', candidate_limit: 21 })).toBe(false)
    expect(Value.Check(params.ResolveParams, { q: 'ab', candidate_limit: 0 })).toBe(false)
    expect(Value.Check(params.CatalogSearchParams, { q: 'ab', candidate_limit: 1 })).toBe(true)
    expect(Value.Check(params.CatalogPartParams, { part: 'abc' })).toBe(false)
    expect(Value.Check(params.CatalogPartParams, { part: 'abcd' })).toBe(true)
  })

  it('the later operations take the limits of /v1/context for the members they share', () => {
    const ctx = params.ContextParams.properties as Node
    const same = (schema: Node, names: string[], where: string) => {
      for (const n of names) {
        const { description: _a, ...mine } = components.plain(schema.properties[n]) as Node
        const { description: _b, ...theirs } = components.plain(ctx[n]) as Node
        expect(mine, `${where}.${n}`).toEqual(theirs)
      }
    }
    same(compare.CompareReleasesParams, ['part', 'topic', 'fact_names', 'fact_name_prefixes', 'peripheral', 'max_tokens', 'limit', 'cursor'], 'CompareReleasesParams')
    same(compare.ComparePartsParams, ['part', 'topic', 'fact_names', 'fact_name_prefixes', 'peripheral', 'max_tokens', 'limit', 'cursor', 'corpus_release'], 'ComparePartsParams')
    expect(compare.ComparePartsParams.properties.other).toMatchObject({ minLength: 2, maxLength: 128 })
    expect(compare.ComparePartsParams.properties.signal).toMatchObject({ minLength: 1, maxLength: 64 })
    expect(compare.ComparePartsParams.properties.include_same).toMatchObject({ type: 'boolean', default: false })
    expect((compare.CompareReleasesParams.properties.from_release as Node).pattern).toBe('^[a-f0-9]{16}$')
    expect((compare.CompareReleasesParams.properties.to_release as Node).pattern).toBe('^[a-f0-9]{16}$')
    expect(compare.CompareReleasesParams.required).toEqual(['part', 'topic', 'from_release'])
    expect(compare.ComparePartsParams.required).toEqual(['part', 'other', 'topic'])
    same(discrepancies.DiscrepanciesParams, ['part', 'limit', 'cursor', 'corpus_release'], 'DiscrepanciesParams')
    expect(discrepancies.DiscrepanciesParams.properties.topic.enum).toEqual(['registers', 'pins', 'electrical', 'errata', 'memory', 'interrupts', 'dma', 'clocks'])
    expect(discrepancies.DiscrepanciesParams.required).toEqual(['part'])
    same(check.CheckParams, ['part', 'package', 'silicon_revision', 'corpus_release', 'max_tokens'], 'CheckParams')
    const c = check.CheckParams.properties as Node
    expect(c.assign).toMatchObject({ minLength: 1, maxLength: 2000 })
    expect(c.dma).toMatchObject({ minLength: 1, maxLength: 2000 })
    expect(c.vdd).toMatchObject({ type: 'number', minimum: 0, maximum: 60 })
    expect(c.temperature).toMatchObject({ type: 'number', minimum: -273, maximum: 500 })
    expect(c.sysclk).toMatchObject({ type: 'integer', minimum: 1, maximum: 100_000_000_000 })
    expect(check.CheckParams.required).toEqual(['part'])
    expect(check.MAX_ENTRIES).toBe(64)
  })
})

describe('the bodies the spec defines field by field (part 2)', () => {
  /** The spec's field table of a resource: name → required. */
  const fields = (heading: string) => new Map(specTable(heading).map((r) => [r[0]!, r[2] === 'yes']))

  it('Ping, Problem, ApiIdentity, ReleaseResponse, JsonRpcRequest and JsonRpcError: their members and which are required', () => {
    const cases: Array<[string, Node]> = [
      ['### Ping', responses.Ping],
      ['### Problem', responses.Problem],
      ['### ApiIdentity', responses.ApiIdentity],
      ['### ReleaseResponse', responses.ReleaseResponse],
      ['### JsonRpcRequest', responses.JsonRpcRequest],
      ['### JsonRpcError', responses.JsonRpcError],
      ['### Health', responses.Health]
    ]
    for (const [heading, schema] of cases) {
      const f = fields(heading)
      const seed = forVersion(schema, SEED) as Node
      for (const [name, req] of f) {
        expect(seed.properties[name], `${heading} ${name}`).toBeDefined()
        expect((seed.required ?? []).includes(name), `${heading} ${name}`).toBe(req)
      }
      // Closed where the spec says "No other fields are allowed", open where it allows more; else the service's choice.
      const text = SPEC.slice(SPEC.indexOf(heading), SPEC.indexOf('\n###', SPEC.indexOf(heading) + 4))
      if (/No other (top-level )?(fields|members) (are )?allowed/.test(text)) {
        expect(Object.keys(seed.properties).sort(), heading).toEqual([...f.keys()].sort())
        expect(seed.additionalProperties, heading).toBe(false)
      }
      if (/Additional (fields|members) (are )?allowed/.test(text)) expect(seed.additionalProperties, heading).not.toBe(false)
    }
    expect(fields('### JsonRpcError').get('error')).toBe(true)
  })

  const problem = {
    type: 'https://example.com/errors/INVALID_CURSOR', title: 'Invalid cursor', status: 400, detail: 'd', code: 'INVALID_CURSOR', param: 'cursor',
    requestId: 'r1', docUrl: 'https://example.com/errors/INVALID_CURSOR', error: 'INVALID_CURSOR', message: 'd', request_id: 'r1'
  }

  it('right and wrong Problems: status 400 to 599, code of upper-case letters, digits and _, param a string or null, URIs', () => {
    expect(Value.Check(responses.Problem, problem)).toBe(true)
    expect(Value.Check(responses.Problem, { ...problem, param: null, instance: '/v1/context' })).toBe(true)
    expect(Value.Check(responses.Problem, { ...problem, status: 599 })).toBe(true)
    for (const bad of [{ ...problem, status: 399 }, { ...problem, status: 600 }, { ...problem, code: 'invalid' }, { ...problem, code: '' }, { ...problem, param: 1 }, { ...problem, type: 'not a uri' }, { ...problem, docUrl: 'x' }, { ...problem, extra: 1 }])
      expect(Value.Check(responses.Problem, bad), JSON.stringify(bad).slice(0, 120)).toBe(false)
    const { request_id: _, ...missing } = problem
    expect(Value.Check(responses.Problem, missing)).toBe(false)
  })

  it('right and wrong API identities and JSON-RPC bodies', () => {
    const id = { version: SEED, openapi_sha256: `sha256:${'0'.repeat(64)}` }
    expect(Value.Check(responses.ApiIdentity, id)).toBe(true)
    expect(Value.Check(forVersion(responses.ApiIdentity, SEED), { ...id, version: LATER })).toBe(false)
    expect(Value.Check(forVersion(responses.ApiIdentity, LATER), { ...id, version: LATER })).toBe(true)
    for (const bad of [{ ...id, openapi_sha256: '0'.repeat(64) }, { ...id, openapi_sha256: `sha256:${'A'.repeat(64)}` }, { ...id, version: '2026-01-01' }]) expect(Value.Check(responses.ApiIdentity, bad)).toBe(false)
    expect(Value.Check(responses.Ping, { status: 'ok', message: 'pong' })).toBe(true)
    expect(Value.Check(responses.Ping, { status: 'ok', message: 'ping' })).toBe(false)
    expect(Value.Check(responses.JsonRpcRequest, { jsonrpc: '2.0', method: 'tools/list', id: 1, anything: true })).toBe(true)
    expect(Value.Check(responses.JsonRpcRequest, { jsonrpc: '1.0', method: 'x' })).toBe(false)
    expect(Value.Check(responses.JsonRpcError, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error', more: 1 }, id: null })).toBe(true)
    expect(Value.Check(responses.JsonRpcError, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } })).toBe(false)
    expect(Value.Check(responses.JsonRpcError, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null, result: {} })).toBe(false)
    expect(Value.Check(responses.JsonRpcResponse, { jsonrpc: '2.0', id: 'a', result: { tools: [] } })).toBe(true)
    expect(Value.Check(responses.OpenApiDocument, { openapi: '3.1.1', info: { title: 't' }, paths: {} })).toBe(true)
    expect(Value.Check(responses.OpenApiDocument, { openapi: '3.1.1', info: {} })).toBe(false)
  })

  it('each error status an operation documents answers a Problem as application/problem+json', () => {
    const out = responses.problemResponses([400, 429]) as Node
    expect(Object.keys(out)).toEqual(['400', '429'])
    expect(out[400]).toEqual({ description: 'Problem (RFC 9457)', content: { 'application/problem+json': { schema: { $ref: 'Problem' } } } })
    expect(responses.problemResponses([])).toEqual({})
  })
})
