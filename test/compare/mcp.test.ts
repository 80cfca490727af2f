import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMcpServer, type McpTestServer, type ToolCallResult } from '../helpers/mcp-server.js'

type Obj = Record<string, any>
type Result = ToolCallResult

let srv: McpTestServer
let client: Client
beforeAll(async () => {
  srv = await startMcpServer({ extraKeys: [{ releases: [] }] })
  client = await srv.connect()
})
afterAll(async () => {
  await client?.close()
  await srv?.close()
})

const call = async (name: string, args: Obj, c: Client = client) => (await c.callTool({ name, arguments: args })) as Result
const text = (r: Result) => r.content.map((c) => c.text).join('\n')

const rest = (path: string, query: Obj = {}): Promise<Obj> => srv.rest(path, query)

describe('MCP tools compare_parts and compare_releases', () => {
  it('are listed with input and output schemas, and their results validate against the output schema', async () => {
    const { tools } = await client.listTools()
    const byName = new Map(tools.map((t) => [t.name, t]))
    const ajv = new Ajv({ strict: false, allErrors: true })
    addFormats.default(ajv)
    for (const name of ['compare_parts', 'compare_releases']) {
      const t = byName.get(name)!
      expect(t, name).toBeDefined()
      expect(t.inputSchema.required).toEqual(expect.arrayContaining(name === 'compare_parts' ? ['part', 'other', 'topic'] : ['part', 'topic', 'from_release']))
    }
    const args = { part: 'STM32F407VG', other: 'STM32G474RE', topic: 'pins', signal: 'USART1_TX' }
    const r = await call('compare_parts', args)
    expect(r.isError).toBeFalsy()
    const validate = ajv.compile(byName.get('compare_parts')!.outputSchema!)
    expect(validate(r.structuredContent), JSON.stringify(validate.errors)).toBe(true)
    // The same service answers REST: the same body.
    // REST's body, but for page.tokens: over MCP it counts the whole tool result, text included (test/mcp/budget.test.ts).
    const body = await rest('/v1/compare/parts', args)
    expect(r.structuredContent).toEqual({ ...body, page: { ...body.page, tokens: r.structuredContent!.page.tokens } })
    expect(r.structuredContent!.page.tokens).toBeGreaterThan(body.page.tokens)
    expect(text(r)).toMatch(/^differs USART1_TX: pins PA9\/AF7, PB6\/AF7 vs PA9\/AF7, PB6\/AF7, PC4\/AF7 \[pins\/stm32\/mcu\//m)
  })

  it('compare_parts on registers renders addresses side by side; an ambiguous part gives candidates and no entries', async () => {
    const r = await call('compare_parts', { part: 'STM32F407VG', other: 'STM32G474RE', topic: 'registers', fact_names: 'USART1' })
    expect(text(r)).toMatch(/^differs USART1 \(peripheral\): baseAddress 0x40011000 vs 0x40013800 \[svd\/STMicro\/STM32F407\.svd line \d+/m)
    const amb = await call('compare_parts', { part: 'STM32F407', other: 'STM32G474RE', topic: 'pins' })
    expect(amb.structuredContent!.status).toBe('ambiguous')
    expect(amb.structuredContent!.entries).toEqual([])
    expect(text(amb)).toContain('Do not pick a candidate yourself')
  })

  it('errors name the argument; the key release limits apply to both releases', async () => {
    const bad = await call('compare_parts', { part: 'STM32F407VG', other: 'STM32G474RE', topic: 'pins', limit: '5' })
    expect(bad.isError).toBe(true)
    expect(text(bad)).toMatch(/^Error INVALID_PARAMETER \(argument "limit"\)/)
    const restricted = await srv.connect({ Authorization: srv.keyFor({ releases: [] }).authorization })
    try {
      const r = await call('compare_releases', { part: 'STM32F407', topic: 'registers', from_release: '0123456789abcdef' }, restricted)
      expect(text(r)).toMatch(/^Error FORBIDDEN \(argument "from_release"\)/)
    } finally {
      await restricted.close()
    }
  })

  it('compare_releases of the promoted release against itself: nothing changed, every fact counted unchanged', async () => {
    const release = (await rest('/v1/release', {})).release.id as string
    const r = await call('compare_releases', { part: 'STM32F407', topic: 'registers', from_release: release, peripheral: 'USART1' })
    const s = r.structuredContent!
    expect(s.status).toBe('ok')
    expect(s.changes).toEqual([])
    const ctx = await rest('/v1/context', { part: 'STM32F407', topic: 'registers', peripheral: 'USART1', limit: 1 })
    expect(ctx.status).toBe('ok')
    expect(s.counts).toMatchObject({ added: 0, removed: 0, changed: 0 })
    expect(s.counts.unchanged).toBeGreaterThan(10)
    expect(s.artifacts.every((a: Obj) => a.status === 'unchanged')).toBe(true)
    expect(text(r)).toContain('0 added, 0 removed, 0 changed')
  })
})
