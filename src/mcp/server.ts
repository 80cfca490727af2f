import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv'
import { LATEST_VERSION } from '../model/versions.js'
import { callTool, TOOLS, TOOLS_BY_NAME, type ToolContext } from './tools.js'

export const SERVER_INFO = { name: 'hardware-facts', title: 'Hardware Facts', version: LATEST_VERSION }

export const INSTRUCTIONS =
  'Hardware Facts serves deterministic, source-backed microcontroller facts (registers, pins, electrical limits, errata, memory maps, interrupts, DMA, clocks), each with the source artifact and line it came from. ' +
  'Workflow: resolve_part first; then get_context with the resolved part and a topic. If a part is ambiguous, never pick a candidate yourself: ask the user, or pass a full selector part / ordering code (or a package for pins). ' +
  'Register addresses, bit positions and pin numbers must come from get_context, never from memory; cite the evidence locator. ' +
  'A tool result with isError names the stable error code and the argument; get_error_code explains any code.'

/**
 * The tool list, built once: input schemas are the TypeBox parameter objects themselves (plain
 * JSON Schema), so tools/list and /openapi.json describe the same arguments.
 */
export const TOOL_LIST: Tool[] = TOOLS.map((t) => ({
  name: t.name,
  title: t.title,
  description: t.description,
  inputSchema: t.input as unknown as Tool['inputSchema'],
  outputSchema: t.output as unknown as NonNullable<Tool['outputSchema']>,
  // destructiveHint and idempotentHint mean something only when readOnlyHint is false (MCP spec); the title is the tool's.
  annotations: { readOnlyHint: true, openWorldHint: false }
}))

/**
 * Shared by every per-request server: left to itself, each `Server` builds its own Ajv instance
 * (for elicitation, never used here), which took a fifth of the time of a tools/call.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator()

/**
 * A fresh low-level MCP server for one HTTP request (the stateless pattern of the SDK examples):
 * it holds nothing between requests, and its tools call the shared HardwareFacts service.
 */
export function createMcpServer(ctx: ToolContext): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS, jsonSchemaValidator })
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOL_LIST }))
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const t = TOOLS_BY_NAME.get(request.params.name)
    // Unknown tool: a protocol error (-32602), as the MCP spec lists it; argument errors are tool results.
    // Not an McpError, whose message already starts "MCP error -32602:", which SDK clients prefix again.
    if (!t) throw Object.assign(new Error(`Tool ${request.params.name} not found; tools/list names the ${TOOLS.length} tools.`), { code: ErrorCode.InvalidParams })
    return callTool(t, request.params.arguments, ctx)
  })
  return server
}
