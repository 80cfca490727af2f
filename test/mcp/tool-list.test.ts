import { Type } from 'typebox'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { outline } from '../../src/schemas/components.js'
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

describe('outline', () => {
  it('keeps types, required members and enums to one level below the top (an optional member of the top: its type), merges object unions, drops the rest', () => {
    const schema = Type.Object(
      {
        a: Type.String({ minLength: 1, description: 'dropped' }),
        b: Type.Union([
          Type.Object({ k: Type.Literal('x'), n: Type.Integer(), deep: Type.Object({ z: Type.Object({ q: Type.String() }) }) }),
          Type.Object({ k: Type.Literal('y'), n: Type.Integer(), only: Type.String() }),
          Type.Null()
        ]),
        c: Type.Optional(Type.Array(Type.Object({ p: Type.String({ pattern: '^p' }), o: Type.Optional(Type.String()) }, { additionalProperties: false }))),
        d: Type.Array(Type.Object({ p: Type.String({ pattern: '^p' }), o: Type.Optional(Type.String()) }, { additionalProperties: false }))
      },
      { additionalProperties: true, description: 'dropped' }
    )
    // Worked out by hand: b's two objects share k and n (both required; k's constants are beyond the
    // first level, so only its type is left), `deep` and `only` are not in both; c is optional: its
    // JSON type alone; d's items keep p, the member every item has.
    expect(outline(schema)).toEqual({
      type: 'object',
      required: ['a', 'b', 'd'],
      properties: {
        a: { type: 'string' },
        b: { type: ['object', 'null'], required: ['k', 'n'], properties: { k: { type: 'string' }, n: { type: 'integer' } } },
        c: { type: 'array' },
        d: { type: 'array', items: { type: 'object', required: ['p'], properties: { p: { type: 'string' } } } }
      }
    })
  })

  it('merges the constants of a union at the top into an enum', () => {
    const schema = Type.Union([Type.Object({ kind: Type.Literal('a'), x: Type.Integer() }), Type.Object({ kind: Type.Literal('b') })])
    expect(outline(schema)).toEqual({ type: 'object', required: ['kind'], properties: { kind: { type: 'string', enum: ['a', 'b'] } } })
  })
})
