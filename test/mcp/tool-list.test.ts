import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ContextResponse } from '../../src/schemas/responses.js'
import { startMcpServer, type McpTestServer } from '../helpers/mcp-server.js'
import { TOOLS } from '../../src/mcp/tools.js'

type Obj = Record<string, any>
let srv: McpTestServer

beforeAll(async () => {
  srv = await startMcpServer()
})
afterAll(async () => srv?.close())

/** What every agent session pays before its first question: the bytes of the tools/list response. */
async function toolsList(): Promise<{ bytes: number; tools: Obj[] }> {
  const res = await fetch(srv.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...srv.auth },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
  })
  expect(res.status).toBe(200)
  const body = Buffer.from(await res.arrayBuffer())
  return { bytes: body.length, tools: (JSON.parse(body.toString('utf8')) as Obj).result.tools }
}

describe('tools/list', () => {
  it('is at most 25,000 bytes, every tool still with a typed outputSchema', async () => {
    const { bytes, tools } = await toolsList()
    expect(bytes).toBeLessThanOrEqual(25_000)
    expect(tools).toHaveLength(TOOLS.length)
    for (const t of tools) {
      expect(t.outputSchema, t.name).toMatchObject({ type: 'object', required: expect.any(Array), properties: expect.any(Object) })
      // Every member of the body is there with its JSON type.
      for (const [name, member] of Object.entries(t.outputSchema.properties as Obj)) expect(member.type ?? member.anyOf, `${t.name}.${name}`).toBeDefined()
    }
  })

  it('types get_context down to each fact\'s members and the page', async () => {
    const { tools } = await toolsList()
    const out = tools.find((t) => t.name === 'get_context')!.outputSchema
    expect(out.required).toEqual(ContextResponse.required)
    expect(out.properties.facts.items).toMatchObject({ type: 'object', required: ['id', 'topic', 'name', 'value', 'scope', 'evidence'], properties: { evidence: { type: 'array' }, value: { type: 'object' } } })
    expect(out.properties.page.properties).toMatchObject({ nextCursor: { type: ['string', 'null'] }, budgetTooSmall: { type: 'boolean' }, neededMaxTokens: { type: ['integer', 'null'] } })
    expect(out.properties.status.enum).toEqual(['ok', 'ambiguous', 'not_covered', 'source_failed', 'not_found'])
  })
})
