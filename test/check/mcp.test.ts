import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { Ajv } from 'ajv'
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMcpServer, type McpTestServer, type ToolCallResult } from '../helpers/mcp-server.js'

type Obj = Record<string, any>
type Result = ToolCallResult

let srv: McpTestServer
let client: Client
beforeAll(async () => {
  srv = await startMcpServer()
  client = await srv.connect()
})
afterAll(async () => {
  await client?.close()
  await srv?.close()
})
const call = async (args: Obj) => (await client.callTool({ name: 'check_configuration', arguments: args })) as Result

describe('MCP tool check_configuration', () => {
  it('answers the REST body over the same service, valid against its output schema, within max_tokens as sent', async () => {
    const { tools } = await client.listTools()
    const tool = tools.find((t) => t.name === 'check_configuration')!
    expect(tool.inputSchema.required).toEqual(['part'])
    const args = { part: 'STM32F407VGT6', assign: 'USART1_TX:PA0,USART1_RX:PA10', vdd: 4 }
    const r = await call(args)
    expect(r.isError).toBeFalsy()
    const validate = new Ajv({ strict: false }).compile(tool.outputSchema!)
    expect(validate(r.structuredContent), JSON.stringify(validate.errors)).toBe(true)
    const body = await srv.rest('/v1/check', args)
    // page.tokens counts the whole tool result over MCP (test/mcp/budget.test.ts).
    expect(r.structuredContent).toEqual({ ...body, page: { ...body.page, tokens: r.structuredContent!.page.tokens } })
    expect(r.content[0]!.text).toMatch(/^error SIGNAL_NOT_ON_PIN \[USART1_TX:PA0\]: PA0 does not carry USART1_TX/m)
    expect(r.content[0]!.text).toMatch(/^error OUT_OF_LIMITS \[vdd=4\]/m)
    const small = await call({ ...args, max_tokens: 1500 })
    expect(countTokens(JSON.stringify(small))).toBeLessThanOrEqual(1500)
  })

  it('a bad entry is an error result naming the argument', async () => {
    const r = await call({ part: 'STM32F407VGT6', assign: 'USART1_TX' })
    expect(r.isError).toBe(true)
    expect(r.content[0]!.text).toMatch(/^Error INVALID_ENTRY \(argument "assign"\)/)
    expect((await call({ part: 'STM32F407VGT6', vdd: '3.3' })).content[0]!.text).toMatch(/^Error INVALID_PARAMETER \(argument "vdd"\)/)
  })
})
