import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ApiKeyStore, generateKey } from '../src/auth/keys.js'
import { buildApp } from '../src/http/app.js'
import { mcpRoute } from '../src/mcp/route.js'
import { HardwareFacts } from '../src/service/facts.js'
import { SqliteRepository } from '../src/store/sqlite/store.js'
import { autocannon, type AutocannonOptions, type AutocannonResult } from './lib.js'


export interface McpBenchOptions {
  /** Data directory with a promoted release (default HWFACTS_DATA_DIR, else ./data). */
  dataDir?: string
  /** The context query both sides answer. */
  query?: Record<string, string | number>
  connections?: number
  /** Seconds per measured side. */
  duration?: number
  /** Seconds of untimed warm-up per side (JIT, SQLite page cache). */
  warmup?: number
}

export interface SideStats {
  medianMs: number
  p99Ms: number
  meanMs: number
  rps: number
  requests: number
  errors: number
  non2xx: number
}

export interface McpBenchResult {
  query: Record<string, string | number>
  connections: number
  durationS: number
  rest: SideStats
  /** tools/call get_context, answered as application/json (what SDK clients get). */
  mcp: SideStats
  /** The same call, answered as a text/event-stream. */
  mcpSse: SideStats
  /**
   * MCP (JSON) over REST; > 1 means MCP is slower. autocannon reports whole milliseconds, so the
   * median ratio is null when REST's median rounds to 0 ms; the mean ratio is always given.
   */
  ratio: { median: number | null; mean: number; p99: number; rps: number }
}

const stats = (r: AutocannonResult): SideStats => ({
  medianMs: r.latency.p50,
  p99Ms: r.latency.p99,
  meanMs: Math.round(r.latency.average * 100) / 100,
  rps: Math.round(r.requests.average),
  requests: r.requests.total,
  errors: r.errors + r.timeouts,
  non2xx: r.non2xx
})

const round = (x: number) => Math.round(x * 100) / 100

/**
 * `tools/call get_context` on POST /mcp against `GET /v1/context` for the same query, on one
 * in-process server over the same release: what the MCP layer (JSON-RPC, a fresh SDK server and
 * transport per request, text rendering) costs on top of the REST route.
 */
export async function benchMcp(opts: McpBenchOptions = {}): Promise<McpBenchResult> {
  const dataDir = resolve(opts.dataDir ?? process.env.HWFACTS_DATA_DIR ?? 'data')
  const query = opts.query ?? { part: 'STM32F407VG', topic: 'registers', fact_name_prefixes: 'RCC.AHB1ENR', limit: 20 }
  const connections = opts.connections ?? 10
  const duration = opts.duration ?? 10
  const warmup = opts.warmup ?? 2

  const repo = new SqliteRepository(dataDir)
  const { secret, record } = generateKey('bench')
  const app = await buildApp({
    facts: new HardwareFacts(repo, 'bench-cursor-secret'),
    keys: new ApiKeyStore([record]),
    // The limiter stays on (it is part of every request's cost) but never trips.
    rateLimit: { max: 1e9, timeWindowMs: 60_000 },
    plugins: [mcpRoute()]
  })
  try {
    const base = await app.listen({ port: 0, host: '127.0.0.1' })
    const auth = `Bearer ${secret}`
    const restUrl = `${base}/v1/context?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_context', arguments: query } })
    const mcpHeaders = (accept: string) => ({ authorization: auth, 'content-type': 'application/json', accept, 'mcp-protocol-version': '2025-06-18' })

    // Both sides must answer the same facts, or the comparison means nothing.
    const restBody = (await (await fetch(restUrl, { headers: { authorization: auth } })).json()) as { facts: Array<{ name: string }> }
    const mcpRes = (await (await fetch(`${base}/mcp`, { method: 'POST', headers: mcpHeaders('application/json'), body })).json()) as {
      result?: { isError?: boolean; structuredContent?: { facts: Array<{ name: string }> } }
    }
    if (mcpRes.result?.isError || JSON.stringify(mcpRes.result?.structuredContent?.facts) !== JSON.stringify(restBody.facts))
      throw new Error(`MCP and REST disagree for ${JSON.stringify(query)}`)
    if (restBody.facts.length === 0) throw new Error(`No facts for ${JSON.stringify(query)}: pick a query with facts`)

    const run = async (o: AutocannonOptions) => {
      if (warmup > 0) await autocannon({ ...o, connections, duration: warmup })
      return stats(await autocannon({ ...o, connections, duration }))
    }
    const rest = await run({ url: restUrl, headers: { authorization: auth } })
    const mcp = await run({ url: `${base}/mcp`, method: 'POST', headers: mcpHeaders('application/json, text/event-stream'), body })
    const mcpSse = await run({ url: `${base}/mcp`, method: 'POST', headers: mcpHeaders('text/event-stream'), body })
    return {
      query,
      connections,
      durationS: duration,
      rest,
      mcp,
      mcpSse,
      ratio: {
        median: rest.medianMs > 0 ? round(mcp.medianMs / rest.medianMs) : null,
        mean: round(mcp.meanMs / Math.max(rest.meanMs, 0.01)),
        p99: round(mcp.p99Ms / Math.max(rest.p99Ms, 1)),
        rps: round(mcp.rps / Math.max(rest.rps, 1))
      }
    }
  } finally {
    await app.close()
    await repo.close()
  }
}

// `npx tsx bench/mcp.ts [dataDir]` runs it alone.
if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  benchMcp({ ...(process.argv[2] ? { dataDir: process.argv[2] } : {}) }).then(
    (r) => process.stdout.write(JSON.stringify(r, null, 2) + '\n'),
    (err: Error) => {
      process.stderr.write(`bench/mcp: ${err.stack ?? err.message}\n`)
      process.exit(1)
    }
  )
}
