import { resolve } from 'node:path'

/** Everything the service reads from its environment, in one place (README, "Configuration"). */
export interface Config {
  host: string
  port: number
  dataDir: string
  /** True when HWFACTS_DATA_DIR was not given: a development data dir, into which `npm start` has `hwfacts sample` build the sample release. */
  sampleData: boolean
  apiKeysFile: string
  /** HWFACTS_CURSOR_SECRET; when absent, one generated per data directory (src/auth/cursor-secret.ts). */
  cursorSecret?: string
  /** Base of Problem `docUrl`s: HWFACTS_PUBLIC_URL, else the listen address (never a request's Host). */
  publicUrl?: string
  timeouts: { requestMs: number; headersMs: number; keepAliveMs: number; idleMs: number }
  /** Missing or wrong credentials per credential, and per client address, in a window before 429. */
  authFailures: { max: number; perAddressMax: number; timeWindowMs: number }
  /** On SIGTERM: how long /readyz says 503 while requests are still served, before the listener closes. */
  drainMs: number
  rateLimit: { max: number; timeWindowMs: number }
  redisUrl?: string
  searchEngineUrl?: string
  searchEngineFlavor?: 'elasticsearch' | 'opensearch'
  indexPrefix: string
  mcpMaxBytes: number
  /** Bytes of answers (context, resolve, coverage, catalog search) kept for repeated requests (0: off). */
  contextCacheBytes: number
  /**
   * How far V8 lets the old generation grow past what survived its last full collection, in percent
   * (0: V8's own policy, which lets it grow up to 4× under load: see src/memory.ts).
   */
  heapGrowthPercent: number
  logLevel: string
}

function int(name: string, fallback: number, env: NodeJS.ProcessEnv, min = 1): number {
  const v = env[name]
  if (v === undefined || v === '') return fallback
  const n = Number(v)
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer ≥ ${min}, not ${JSON.stringify(v)}`)
  return n
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = resolve(env.HWFACTS_DATA_DIR ?? 'data')
  const host = env.HOST ?? '127.0.0.1'
  // 0 asks the OS for a free port (benchmarks, tests).
  const port = int('PORT', 3000, env, 0)
  const es = env.ELASTICSEARCH_URL || undefined
  const os = env.OPENSEARCH_URL || undefined
  return {
    host,
    port,
    dataDir,
    sampleData: env.HWFACTS_DATA_DIR === undefined,
    apiKeysFile: resolve(env.HWFACTS_API_KEYS_FILE ?? `${dataDir}/api-keys.json`),
    ...(env.HWFACTS_CURSOR_SECRET ? { cursorSecret: env.HWFACTS_CURSOR_SECRET } : {}),
    // Port 0 (tests, benchmarks) has no address to link to before listening: the app's fixed default then.
    ...(env.HWFACTS_PUBLIC_URL || port !== 0 ? { publicUrl: env.HWFACTS_PUBLIC_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}` } : {}),
    timeouts: {
      requestMs: int('HWFACTS_REQUEST_TIMEOUT_MS', 10_000, env),
      headersMs: int('HWFACTS_HEADERS_TIMEOUT_MS', 5_000, env),
      keepAliveMs: int('HWFACTS_KEEP_ALIVE_TIMEOUT_MS', 10_000, env),
      idleMs: int('HWFACTS_IDLE_TIMEOUT_MS', 30_000, env)
    },
    authFailures: {
      max: int('HWFACTS_AUTH_FAILURES_MAX', 30, env),
      perAddressMax: int('HWFACTS_AUTH_FAILURES_PER_ADDRESS_MAX', 300, env),
      timeWindowMs: int('HWFACTS_AUTH_FAILURES_WINDOW_MS', 60_000, env)
    },
    drainMs: int('HWFACTS_DRAIN_MS', 5_000, env, 0),
    rateLimit: { max: int('HWFACTS_RATE_LIMIT_MAX', 600, env), timeWindowMs: int('HWFACTS_RATE_LIMIT_WINDOW_MS', 60_000, env) },
    ...(env.REDIS_URL ? { redisUrl: env.REDIS_URL } : {}),
    ...(es ? { searchEngineUrl: es, searchEngineFlavor: 'elasticsearch' as const } : os ? { searchEngineUrl: os, searchEngineFlavor: 'opensearch' as const } : {}),
    indexPrefix: env.HWFACTS_INDEX_PREFIX ?? 'hwfacts',
    mcpMaxBytes: int('HWFACTS_MCP_MAX_BYTES', 64 * 1024, env),
    contextCacheBytes: int('HWFACTS_CONTEXT_CACHE_MB', 16, env, 0) * 2 ** 20,
    heapGrowthPercent: int('HWFACTS_HEAP_GROWTH_PERCENT', 30, env, 0),
    logLevel: env.LOG_LEVEL ?? 'info'
  }
}
