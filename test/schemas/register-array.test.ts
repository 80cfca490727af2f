import { createHash } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildRelease } from '../../indexer/build.js'
import { mcpRoute } from '../../src/mcp/route.js'
import { inline } from '../../src/schemas/components.js'
import { ComparePartsResponse } from '../../src/schemas/compare.js'
import { ContextResponse } from '../../src/schemas/responses.js'
import { DataDir } from '../../src/store/layout.js'
import { testApp, type TestApp } from '../helpers/app.js'
import { scratchDirs } from '../helpers/scratch.js'

const FIXTURE = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'svd', 'acme', 'QZ7002.svd')
const tmp = scratchDirs()

/**
 * A register array too long to list (the wide corpus's nrf9220 SVDs declare 16 Mi-entry trace
 * buffers) is one fact with `value.array`. Served facts are the indexer's stored JSON, so only the
 * schemas say what a client may expect: the served body must match them with the member kept.
 */
describe('a register array too long to list', () => {
  let t: TestApp
  let client: Client
  // From the fixture: TRACE at <baseAddress>0xA0000000, DATA[%s] at <addressOffset>0x10,
  // <dim>0x1000000</dim> one-byte elements <dimIncrement>0x1</dimIncrement> apart.
  const expected = {
    address: '0xA0000010',
    offset: '0x10',
    size: 8,
    resetValue: '0x00',
    resetMask: '0xFF',
    access: 'write-only',
    description: 'Trace stimulus byte n',
    array: { count: 0x1000000, increment: '0x1' }
  }
  const args = { part: 'QZ7002', topic: 'registers', fact_names: 'TRACE.DATA[%s]' }

  beforeAll(async () => {
    const corpus = tmp('hwfacts-array-corpus-')
    const text = readFileSync(FIXTURE, 'utf8')
    // A second part, its array twice as long: compare_parts must tell them apart.
    const files = { 'svd/Quazar/QZ7002.svd': text, 'svd/Quazar/QZ7003.svd': text.replace('<name>QZ7002</name>', '<name>QZ7003</name>').replace('<dim>0x1000000</dim>', '<dim>0x2000000</dim>') }
    const sources = Object.entries(files).map(([path, content]) => {
      mkdirSync(dirname(join(corpus, path)), { recursive: true })
      writeFileSync(join(corpus, path), content)
      const bytes = Buffer.from(content)
      return { path, sha256: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length, kind: 'cmsis-svd', publisher: 'Quazar Microdevices', license: 'CC0-1.0', mediaType: 'application/xml' }
    })
    writeFileSync(join(corpus, 'sources.json'), JSON.stringify({ sources }))
    const data = tmp('hwfacts-array-data-')
    const built = await buildRelease({ inventory: corpus, dataDir: data })
    expect(built.problems).toEqual([])
    new DataDir(data).promote(built.id)
    t = await testApp(data, { plugins: [mcpRoute()] })
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' })
    client = new Client({ name: 'hwfacts-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers: { Authorization: t.auth.authorization } } }))
  }, 120_000)
  afterAll(async () => {
    await client?.close()
    await t?.close()
  })

  it('/v1/context serves it with its count and increment, and the body matches the ContextResponse schema', async () => {
    const res = await t.app.inject({ url: `/v1/context?${new URLSearchParams(args)}`, headers: t.auth })
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body.facts.map((f: { name: string }) => f.name)).toEqual(['TRACE.DATA[%s]'])
    expect(body.facts[0].value).toEqual(expected)
    const validate = new Ajv2020({ strict: false }).compile(inline(ContextResponse))
    expect(validate(body) ? [] : validate.errors).toEqual([])
    // Not vacuous: the schema is closed, so a member it does not declare is refused.
    const odd = structuredClone(body)
    odd.facts[0].value.array.stride = 1
    expect(validate(odd)).toBe(false)
  })

  it('get_context returns it in structured content that matches the tool\'s outputSchema, and says it in the text', async () => {
    const tool = (await client.listTools()).tools.find((x) => x.name === 'get_context')!
    // The SDK client also checks structured content against the listed outputSchema.
    const r = (await client.callTool({ name: 'get_context', arguments: args })) as unknown as { isError?: boolean; structuredContent: { facts: Array<{ value: unknown }> }; content: Array<{ text: string }> }
    expect(r.isError).toBeFalsy()
    expect(r.structuredContent.facts[0]!.value).toEqual(expected)
    const validate = new Ajv2020({ strict: false }).compile(tool.outputSchema!)
    expect(validate(r.structuredContent) ? [] : validate.errors).toEqual([])
    expect(r.content[0]!.text).toContain('array of 16777216 elements 0x1 bytes apart')
  })
  it('compare_parts tells two parts apart by their arrays\' length, REST and MCP, each answer matching its schema', async () => {
    const p = { part: 'QZ7002', other: 'QZ7003', topic: 'registers', peripheral: 'TRACE' }
    const res = await t.app.inject({ url: `/v1/compare/parts?${new URLSearchParams(p)}`, headers: t.auth })
    expect(res.statusCode).toBe(200)
    const body = res.json()
    // Only DATA[%s] differs: <dim>0x1000000</dim> against 0x2000000 in QZ7003.
    expect(body.counts).toEqual({ onlyPart: 0, onlyOther: 0, differs: 1, same: 2 })
    expect(body.entries).toHaveLength(1)
    expect(body.entries[0]).toMatchObject({
      name: 'TRACE.DATA[%s]',
      kind: 'register',
      status: 'differs',
      differences: [{ member: 'array', part: { count: 0x1000000, increment: '0x1' }, other: { count: 0x2000000, increment: '0x1' } }]
    })
    const validate = new Ajv2020({ strict: false }).compile(inline(ComparePartsResponse))
    expect(validate(body) ? [] : validate.errors).toEqual([])
    await client.listTools()
    const r = (await client.callTool({ name: 'compare_parts', arguments: p })) as unknown as { isError?: boolean; structuredContent: unknown; content: Array<{ text: string }> }
    expect(r.isError).toBeFalsy()
    // REST's body, but for page.tokens: over MCP it counts the whole tool result, text included (test/mcp/budget.test.ts).
    const mcp = r.structuredContent as { page: { tokens: number } }
    expect(mcp).toEqual({ ...body, page: { ...body.page, tokens: mcp.page.tokens } })
    expect(r.content[0]!.text).toContain('array {"count":16777216,"increment":"0x1"} vs {"count":33554432,"increment":"0x1"}')
  })
})
