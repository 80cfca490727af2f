import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateKey } from '../src/auth/keys.js'
import { load, median, pinLoadGenerator, startServer, type LoadStats } from './lib.js'

/** One route's loads across the rounds, with the medians the report uses. */
export interface RouteStats {
  rps: number
  p99Ms: number
  serverCpuUsPerRequest: number | undefined
  rounds: LoadStats[]
}

export interface HttpBenchResult {
  connections: number
  durationS: number
  rounds: number
  cpus: string
  contextBytes: number
  bare: RouteStats
  /** The bare route answering the same bytes as the context request: the floor for that size. */
  bareSameBytes: RouteStats
  /** Repeated request, answered from the context cache (the server's default). */
  context: RouteStats
  /** A single register by exact name (the agent's usual lookup, ~1 KB), repeated, cache on. */
  contextOneFact: RouteStats
  /** The same request with the cache off: every answer read from SQLite and assembled. */
  contextUncached: RouteStats
  contextQueryUncached: RouteStats
  resolve: RouteStats
  /**
   * Throughput of /v1/context over the bare route's (goal ≥ 0.4), and over the same-bytes
   * route's: the median of the per-round ratios, each taken between loads seconds apart, with the
   * lowest and highest round.
   */
  contextOverBare: Ratio
  contextOverBareSameBytes: Ratio
  contextOneFactOverBare: Ratio
  contextUncachedOverBare: Ratio
  serverRssMb: { afterLoad: number; peak: number }
}

interface Ratio {
  median: number
  min: number
  max: number
}

const CONTEXT = '/v1/context?part=STM32F407VGT6&topic=registers&fact_name_prefixes=RCC.AHB1ENR&limit=20'
const CONTEXT_ONE = '/v1/context?part=STM32F407VGT6&topic=registers&fact_names=RCC.AHB1ENR'
const CONTEXT_QUERY = '/v1/context?part=STM32F407VGT6&topic=registers&query=usart%20baud%20rate&limit=10'
const round2 = (x: number) => +x.toFixed(2)

function routeStats(rounds: LoadStats[]): RouteStats {
  const cpu = rounds.map((r) => r.serverCpuUsPerRequest).filter((x): x is number => x !== undefined)
  return { rps: Math.round(median(rounds.map((r) => r.rps))), p99Ms: median(rounds.map((r) => r.p99Ms)), serverCpuUsPerRequest: cpu.length ? Math.round(median(cpu)) : undefined, rounds }
}

function ratio(a: LoadStats[], b: LoadStats[]): Ratio {
  const rs = a.map((x, i) => x.rps / b[i]!.rps)
  return { median: round2(median(rs)), min: round2(Math.min(...rs)), max: round2(Math.max(...rs)) }
}

/**
 * The service (context cache on, and off) and a bare Fastify server, each in its own process on
 * the same core, all started first. autocannon then loads each route in turn, round after round:
 * a shared machine drifts over minutes, so each ratio is taken between loads of the same round.
 */
export async function benchHttp(dataDir: string, connections = 32, duration = 5, rounds = 3): Promise<HttpBenchResult> {
  const { secret, record } = generateKey('bench')
  // Keys and the recorded body go to a scratch dir: the data dir may be one the tests share.
  const scratch = mkdtempSync(join(tmpdir(), 'hwfacts-bench-http-'))
  const keysFile = join(scratch, 'bench-keys.json')
  writeFileSync(keysFile, JSON.stringify({ keys: [{ ...record, rateLimit: { max: 1e9, timeWindowMs: 60_000 } }] }))
  const root = join(import.meta.dirname, '..')
  const headers = { authorization: `Bearer ${secret}` }
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
  const servers: Array<Awaited<ReturnType<typeof startServer>>> = []
  const pinning = pinLoadGenerator()
  try {
    const cached = await startServer(join(root, 'src/server.ts'), service('16'))
    servers.push(cached)
    const res = await fetch(cached.url + CONTEXT, { headers })
    const body = await res.text()
    if (!res.ok) throw new Error(`${CONTEXT} answered ${res.status}: ${body}`)
    const bodyFile = join(scratch, 'context-body.json')
    writeFileSync(bodyFile, body)
    const bare = await startServer(join(root, 'bench/bare-server.ts'), { BENCH_BODY_FILE: bodyFile })
    servers.push(bare)
    const uncached = await startServer(join(root, 'src/server.ts'), service('0'))
    servers.push(uncached)
    const routes = {
      bare: { srv: bare, path: '/bare', auth: false },
      bareSameBytes: { srv: bare, path: '/same', auth: false },
      context: { srv: cached, path: CONTEXT, auth: true },
      contextOneFact: { srv: cached, path: CONTEXT_ONE, auth: true },
      contextUncached: { srv: uncached, path: CONTEXT, auth: true },
      contextQueryUncached: { srv: uncached, path: CONTEXT_QUERY, auth: true },
      resolve: { srv: uncached, path: '/v1/parts/resolve?q=STM32F407VGT6', auth: true }
    }
    type Route = keyof typeof routes
    const loads = Object.fromEntries(Object.keys(routes).map((k) => [k, [] as LoadStats[]])) as Record<Route, LoadStats[]>
    for (let r = 0; r < rounds; r++)
      for (const [name, rt] of Object.entries(routes) as Array<[Route, (typeof routes)[Route]]>)
        loads[name].push(await load({ url: rt.srv.url + rt.path, ...(rt.auth ? { headers } : {}), connections, duration, serverPid: rt.srv.proc.pid! }, r === 0 ? 2 : 1))
    const rss = cached.rssMb()
    return {
      connections,
      durationS: duration,
      rounds,
      cpus: pinning.note,
      contextBytes: Buffer.byteLength(body),
      bare: routeStats(loads.bare),
      bareSameBytes: routeStats(loads.bareSameBytes),
      context: routeStats(loads.context),
      contextOneFact: routeStats(loads.contextOneFact),
      contextUncached: routeStats(loads.contextUncached),
      contextQueryUncached: routeStats(loads.contextQueryUncached),
      resolve: routeStats(loads.resolve),
      contextOverBare: ratio(loads.context, loads.bare),
      contextOverBareSameBytes: ratio(loads.context, loads.bareSameBytes),
      contextOneFactOverBare: ratio(loads.contextOneFact, loads.bare),
      contextUncachedOverBare: ratio(loads.contextUncached, loads.bare),
      serverRssMb: { afterLoad: rss.rss, peak: rss.peak }
    }
  } finally {
    for (const s of servers) s.proc.kill()
    pinning.unpin()
    rmSync(scratch, { recursive: true, force: true })
  }
}
