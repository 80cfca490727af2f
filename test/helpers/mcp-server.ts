import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { expect } from 'vitest'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { ApiKey } from '../../src/auth/keys.js'
import type { AppOptions } from '../../src/http/app.js'
import { mcpRoute, type McpOptions } from '../../src/mcp/route.js'
import { LATEST_VERSION } from '../../src/model/versions.js'
import { testApp, type TestApp } from './app.js'
import { corpusDataDir } from './corpus-release.js'

export interface McpTestServer extends TestApp {
  /** `http://127.0.0.1:<port>` of the listening server. */
  base: string
  mcpUrl: URL
  /** An SDK client connected over Streamable HTTP with these headers (the main key when absent). */
  connect: (headers?: Record<string, string>) => Promise<Client>
  /** The same operation over REST with the main key in the latest contract version (a 200 expected), to show MCP answers from the same service. */
  rest: (path: string, query?: Record<string, unknown>) => Promise<Record<string, any>>
}

/** The app with the MCP plugin over the corpus release, listening on a free local port. */
export async function startMcpServer(opts: { mcp?: McpOptions; app?: Partial<AppOptions>; extraKeys?: Array<Partial<ApiKey>> } = {}): Promise<McpTestServer> {
  const t = await testApp(await corpusDataDir(), { ...opts.app, plugins: [mcpRoute(opts.mcp)] }, opts.extraKeys ?? [])
  const base = await t.app.listen({ port: 0, host: '127.0.0.1' })
  const mcpUrl = new URL('/mcp', base)
  return {
    ...t,
    base,
    mcpUrl,
    connect: async (headers = { Authorization: t.auth.authorization }) => {
      const client = new Client({ name: 'hwfacts-test', version: '1.0.0' })
      await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers } }))
      return client
    },
    rest: async (path, query = {}) => {
      const url = new URL(path, base)
      for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v))
      // The MCP tools speak the latest contract version (src/mcp/tools.ts): compared with REST in it.
      const res = await fetch(url, { headers: { ...t.auth, 'service-version': LATEST_VERSION } })
      expect(res.status).toBe(200)
      return (await res.json()) as Record<string, any>
    }
  }
}

/** What a tools/call answers, as the tests read it. */
export interface ToolCallResult {
  content: Array<{ type: string; text: string }>
  structuredContent?: Record<string, any>
  isError?: boolean
}
