import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateKey } from '../src/auth/keys.js'
import { load, startServer, type LoadStats } from './lib.js'

export interface HttpBenchResult {
  connections: number
  durationS: number
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
  const service = (cacheMb: string) =>
    startServer(join(root, 'src', 'server.ts'), { HWFACTS_DATA_DIR: dataDir, HWFACTS_API_KEYS_FILE: keysFile, HWFACTS_CONTEXT_CACHE_MB: cacheMb, PORT: '0', LOG_LEVEL: 'warn' })

  const srv = await service('16')
  let context: LoadStats, rss: { rss: number; peak: number }, body: string
  try {
    body = await (await fetch(srv.url + CONTEXT, { headers })).text()
    context = await load({ url: srv.url + CONTEXT, headers, connections, duration })
    rss = srv.rssMb()
  } finally {
    srv.proc.kill()
  }
  const bodyFile = join(scratch, 'context-body.json')
  writeFileSync(bodyFile, body)
  const bareSrv = await startServer(join(root, 'bench', 'bare-server.ts'), { BENCH_BODY_FILE: bodyFile })
  let bare: LoadStats, bareSameBytes: LoadStats
  try {
    bare = await load({ url: `${bareSrv.url}/bare`, connections, duration })
    bareSameBytes = await load({ url: `${bareSrv.url}/same`, connections, duration })
  } finally {
    bareSrv.proc.kill()
  }
  const cold = await service('0')
  try {
    const contextUncached = await load({ url: cold.url + CONTEXT, headers, connections, duration })
    const contextQueryUncached = await load({ url: cold.url + CONTEXT_QUERY, headers, connections, duration })
    const resolve = await load({ url: `${cold.url}/v1/parts/resolve?q=STM32F407VGT6`, headers, connections, duration })
    return {
      connections,
      durationS: duration,
      contextBytes: Buffer.byteLength(body),
      bare,
      bareSameBytes,
      context,
      contextUncached,
      contextQueryUncached,
      resolve,
      contextOverBare: ratio(context, bare),
      contextOverBareSameBytes: ratio(context, bareSameBytes),
      contextUncachedOverBare: ratio(contextUncached, bare),
      serverRssMb: { afterLoad: rss.rss, peak: rss.peak }
    }
  } finally {
    cold.proc.kill()
    rmSync(scratch, { recursive: true, force: true })
  }
}
