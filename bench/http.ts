import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { generateKey } from '../src/auth/keys.js'
import { load, startServer, type LoadStats } from './lib.js'

export interface HttpBenchResult {
  connections: number
  durationS: number
  bare: LoadStats
  context: LoadStats
  contextQuery: LoadStats
  resolve: LoadStats
  /** Throughput of /v1/context over the bare route's (goal ≥ 0.4). */
  contextOverBare: number
  serverRssMb: { afterLoad: number; peak: number }
}

/**
 * The service and a bare Fastify route, each in its own process, loaded in turn by autocannon
 * from this process at the same concurrency.
 */
export async function benchHttp(dataDir: string, connections = 32, duration = 10): Promise<HttpBenchResult> {
  const { secret, record } = generateKey('bench')
  const keysFile = join(dataDir, 'bench-keys.json')
  writeFileSync(keysFile, JSON.stringify({ keys: [{ ...record, rateLimit: { max: 1e9, timeWindowMs: 60_000 } }] }))
  const root = join(import.meta.dirname, '..')
  const bareSrv = await startServer(join(root, 'bench', 'bare-server.ts'), {})
  const bare = await load({ url: `${bareSrv.url}/bare`, connections, duration })
  bareSrv.proc.kill()
  const srv = await startServer(join(root, 'src', 'server.ts'), { HWFACTS_DATA_DIR: dataDir, HWFACTS_API_KEYS_FILE: keysFile, PORT: '0', LOG_LEVEL: 'warn' })
  try {
    const headers = { authorization: `Bearer ${secret}` }
    const context = await load({ url: `${srv.url}/v1/context?part=STM32F407VGT6&topic=registers&fact_name_prefixes=RCC.AHB1ENR&limit=20`, headers, connections, duration })
    const contextQuery = await load({ url: `${srv.url}/v1/context?part=STM32F407VGT6&topic=registers&query=usart%20baud%20rate&limit=10`, headers, connections, duration })
    const resolve = await load({ url: `${srv.url}/v1/parts/resolve?q=STM32F407VGT6`, headers, connections, duration })
    const rss = srv.rssMb()
    return { connections, durationS: duration, bare, context, contextQuery, resolve, contextOverBare: +(context.rps / bare.rps).toFixed(2), serverRssMb: { afterLoad: rss.rss, peak: rss.peak } }
  } finally {
    srv.proc.kill()
  }
}
