import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { countTokens } from '../../src/model/tokens.js'
import { startMcpServer, type McpTestServer } from '../helpers/mcp-server.js'

type Obj = Record<string, any>
let srv: McpTestServer
let releaseId: string

beforeAll(async () => {
  srv = await startMcpServer()
  releaseId = (await call('get_release')).result.structuredContent.release.id
})
afterAll(async () => srv?.close())

/** One tools/call over a JSON-RPC POST: the result exactly as the agent receives it. */
async function call(name: string, args: Obj = {}): Promise<{ result: Obj; tokens: number }> {
  const res = await fetch(srv.mcpUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...srv.auth },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } })
  })
  expect(res.status).toBe(200)
  const { result } = (await res.json()) as Obj
  // The text rendering and structuredContent together, as the JSON they are sent as.
  return { result, tokens: countTokens(JSON.stringify(result)) }
}

const rest = (path: string, query: Obj = {}): Promise<Obj> => srv.rest(path, query)

const BUDGETS = [256, 1000, 4000, 16000]

describe('max_tokens bounds the whole MCP tool result (text rendering and structuredContent)', () => {
  const cases: Array<[string, () => Obj]> = [
    ['get_context', () => ({ part: 'STM32F407VG', topic: 'registers', limit: 50 })],
    ['get_context', () => ({ part: 'STM32F407VGT6', topic: 'pins', limit: 50 })],
    ['get_context', () => ({ part: 'nRF52840', topic: 'errata', limit: 50 })],
    ['get_context', () => ({ part: 'STM32F407', topic: 'pins' })],
    ['compare_parts', () => ({ part: 'STM32F407VG', other: 'STM32G474RE', topic: 'registers', limit: 50 })],
    ['compare_parts', () => ({ part: 'STM32F407VGT6', other: 'STM32F429ZIT6', topic: 'pins', include_same: true, limit: 50 })],
    ['compare_releases', () => ({ part: 'STM32F407VG', topic: 'registers', from_release: releaseId, limit: 50 })],
    ['check_configuration', () => ({ part: 'STM32F407VGT6', assign: 'USART1_TX:PA0,USART1_RX:PA10,SPI1_SCK:PA5,SPI1_MISO:PA6,SPI1_MOSI:PA7,I2C1_SCL:PB6,I2C1_SDA:PB7', vdd: 4 })],
    ['check_configuration', () => ({ part: 'nRF52840', silicon_revision: '0x03' })],
    ['check_configuration', () => ({ part: 'STM32F407', assign: 'USART1_TX:PA9' })]
  ]
  for (const [name, args] of cases)
    it(`${name} ${JSON.stringify(args()).slice(0, 80)}`, async () => {
      for (const max_tokens of BUDGETS) {
        const { result, tokens } = await call(name, { ...args(), max_tokens })
        expect(result.isError, `${max_tokens}: ${JSON.stringify(result.content)}`).toBeFalsy()
        expect(tokens, `max_tokens=${max_tokens}`).toBeLessThanOrEqual(max_tokens)
        const page = result.structuredContent.page
        // The page speaks the caller's terms: their budget, and the whole result's tokens (at least the real count).
        expect(page.maxTokens).toBe(max_tokens)
        expect(page.tokens).toBeGreaterThanOrEqual(tokens)
        expect(page.tokens).toBeLessThanOrEqual(max_tokens)
        // The text, when the budget has room for one, says the same.
        if (result.content[0].text && result.structuredContent.status === 'ok') expect(result.content[0].text).toContain(`${page.tokens}/${max_tokens} tokens`)
      }
    })

  it('trims the page to make room for the text: fewer facts than REST gives within the same max_tokens', async () => {
    const args = { part: 'STM32F407VG', topic: 'registers', limit: 50, max_tokens: 4000 }
    const body = await rest('/v1/context', args)
    // REST fills its 4,000 tokens with facts alone; the text rendering would come on top.
    expect(body.page.truncatedBy).toBe('max_tokens')
    const { result } = await call('get_context', args)
    const facts = result.structuredContent.facts as Obj[]
    expect(facts.length).toBeGreaterThan(0)
    expect(facts.length).toBeLessThan(body.facts.length)
    // The same facts from the start, and the cursor continues after the last one.
    expect(facts.map((f) => f.name)).toEqual(body.facts.slice(0, facts.length).map((f: Obj) => f.name))
    const next = await call('get_context', { ...args, cursor: result.structuredContent.page.nextCursor })
    expect(next.result.structuredContent.facts[0].name).toBe(body.facts[facts.length].name)
  })

  it('says what max_tokens the whole result needs when the next fact does not fit, and that budget gives it', async () => {
    const args = { part: 'STM32F407VGT6', topic: 'pins', fact_names: 'PA9' }
    const small = (await call('get_context', { ...args, max_tokens: 256 })).result.structuredContent
    expect(small.facts).toEqual([])
    expect(small.page.budgetTooSmall).toBe(true)
    const needed = small.page.neededMaxTokens as number
    const { result, tokens } = await call('get_context', { ...args, max_tokens: needed })
    expect(result.structuredContent.facts.map((f: Obj) => f.name)).toEqual(['PA9'])
    expect(tokens).toBeLessThanOrEqual(needed)
  })
})
