import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateKey } from '../src/auth/keys.js'
import { load, pinLoadGenerator, startServer, type LoadStats } from './lib.js'

export interface HttpBenchResult {
  connections: number
  durationS: number
  cpus: string
  contextBytes: number
  bare: LoadStats
  /** The bare route answering the same bytes as the context request: the floor for that size. */
  bareSameBytes: LoadStats
  /** Repeated request, answered from the context cache (the server's default). */
  context: LoadStats
  /** The same request with the cache off: every answer read from SQLite and assembled. */
  contextUncached: LoadStats
  contextQueryUncached: LoadStats
  resolve: LoadStats
  /** Throughput of /v1/context over the bare route's (goal ≥ 0.4), and over the same-bytes route's. */
  contextOverBare: number
  contextOverBareSameBytes: number
  contextUncachedOverBare: number
  serverRssMb: { afterLoad: number; peak: number }
}

const CONTEXT = '/v1/context?part=STM32F407VGT6&topic=registers&fact_name_prefixes=RCC.AHB1ENR&limit=20'
const CONTEXT_QUERY = '/v1/context?part=STM32F407VGT6&topic=registers&query=usart%20baud%20rate&limit=10'
const ratio = (a: LoadStats, b: LoadStats) => +(a.rps / b.rps).toFixed(2)

/**
 * The service (context cache on, then off) and a bare Fastify server, each in its own process,
 * loaded in turn by autocannon from this process at the same concurrency.
 */
export async function benchHttp(dataDir: string, connections = 32, duration = 10): Promise<HttpBenchResult> {
  const { secret, record } = generateKey('bench')
  // Keys and the recorded body go to a scratch dir: the data dir may be one the tests share.
  const scratch = mkdtempSync(join(tmpdir(), 'hwfacts-bench-http-'))
  const keysFile = join(scratch, 'bench-keys.json')
  writeFileSync(keysFile, JSON.stringify({ keys: [{ ...record, rateLimit: { max: 1e9, timeWindowMs: 60_000 } }] }))
  const root = join(import.meta.dirname, '..')
  const headers = { authorization: `Bearer ${secret}` }
  const server = async <T>(entry: string, env: Record<string, string>, run: (url: string, pid: number, rssMb: () => { rss: number; peak: number }) => Promise<T>) => {
    const srv = await startServer(join(root, entry), env)
    try {
      return await run(srv.url, srv.proc.pid!, srv.rssMb)
    } finally {
      srv.proc.kill()
    }
  }
  // The embedded default: no engine or Redis, even when this shell has their URLs for the engine bench.
  const service = (cacheMb: string) => ({
    HWFACTS_DATA_DIR: dataDir,
    HWFACTS_API_KEYS_FILE: keysFile,
    HWFACTS_CONTEXT_CACHE_MB: cacheMb,
    ELASTICSEARCH_URL: '',
    OPENSEARCH_URL: '',
    REDIS_URL: '',
    PORT: '0',
    LOG_LEVEL: 'warn'
  })
  const pinning = pinLoadGenerator()
  try {
    const { body, context, rss } = await server('src/server.ts', service('16'), async (url, serverPid, rssMb) => {
      const res = await fetch(url + CONTEXT, { headers })
      const body = await res.text()
      if (!res.ok) throw new Error(`${CONTEXT} answered ${res.status}: ${body}`)
      const context = await load({ url: url + CONTEXT, headers, connections, duration, serverPid })
      return { body, context, rss: rssMb() }
    })
    const bodyFile = join(scratch, 'context-body.json')
    writeFileSync(bodyFile, body)
    const [bare, bareSameBytes] = await server('bench/bare-server.ts', { BENCH_BODY_FILE: bodyFile }, async (url, serverPid) => [
      await load({ url: `${url}/bare`, connections, duration, serverPid }),
      await load({ url: `${url}/same`, connections, duration, serverPid })
    ])
    const [contextUncached, contextQueryUncached, resolve] = await server('src/server.ts', service('0'), async (url, serverPid) => [
      await load({ url: url + CONTEXT, headers, connections, duration, serverPid }),
      await load({ url: url + CONTEXT_QUERY, headers, connections, duration, serverPid }),
      await load({ url: `${url}/v1/parts/resolve?q=STM32F407VGT6`, headers, connections, duration, serverPid })
    ])
    return {
      connections,
      durationS: duration,
      cpus: pinning.note,
      contextBytes: Buffer.byteLength(body),
      bare: bare!,
      bareSameBytes: bareSameBytes!,
      context,
      contextUncached: contextUncached!,
      contextQueryUncached: contextQueryUncached!,
      resolve: resolve!,
      contextOverBare: ratio(context, bare!),
      contextOverBareSameBytes: ratio(context, bareSameBytes!),
      contextUncachedOverBare: ratio(contextUncached!, bare!),
      serverRssMb: { afterLoad: rss.rss, peak: rss.peak }
    }
  } finally {
    pinning.unpin()
    rmSync(scratch, { recursive: true, force: true })
  }
}
