import { resolve } from 'node:path'

/** Everything the service reads from its environment, in one place (README, "Configuration"). */
export interface Config {
  host: string
  port: number
  dataDir: string
  /** True when HWFACTS_DATA_DIR was not given: the sample release is built on first start. */
  sampleData: boolean
  apiKeysFile: string
  cursorSecret: string
  publicUrl?: string
  rateLimit: { max: number; timeWindowMs: number }
  redisUrl?: string
  searchEngineUrl?: string
  searchEngineFlavor?: 'elasticsearch' | 'opensearch'
  indexPrefix: string
  mcpMaxBytes: number
  /** Bytes of /v1/context answers kept for repeated requests (0: off). */
  contextCacheBytes: number
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
  const es = env.ELASTICSEARCH_URL || undefined
  const os = env.OPENSEARCH_URL || undefined
  return {
    host: env.HOST ?? '127.0.0.1',
    // 0 asks the OS for a free port (benchmarks, tests).
    port: int('PORT', 3000, env, 0),
    dataDir,
    sampleData: env.HWFACTS_DATA_DIR === undefined,
    apiKeysFile: resolve(env.HWFACTS_API_KEYS_FILE ?? `${dataDir}/api-keys.json`),
    // A fixed default keeps cursors valid across restarts and instances; set a secret in production.
    cursorSecret: env.HWFACTS_CURSOR_SECRET ?? 'hwfacts-default-cursor-secret',
    ...(env.HWFACTS_PUBLIC_URL ? { publicUrl: env.HWFACTS_PUBLIC_URL } : {}),
    rateLimit: { max: int('HWFACTS_RATE_LIMIT_MAX', 600, env), timeWindowMs: int('HWFACTS_RATE_LIMIT_WINDOW_MS', 60_000, env) },
    ...(env.REDIS_URL ? { redisUrl: env.REDIS_URL } : {}),
    ...(es ? { searchEngineUrl: es, searchEngineFlavor: 'elasticsearch' as const } : os ? { searchEngineUrl: os, searchEngineFlavor: 'opensearch' as const } : {}),
    indexPrefix: env.HWFACTS_INDEX_PREFIX ?? 'hwfacts',
    mcpMaxBytes: int('HWFACTS_MCP_MAX_BYTES', 64 * 1024, env),
    contextCacheBytes: int('HWFACTS_CONTEXT_CACHE_MB', 16, env, 0) * 2 ** 20,
    logLevel: env.LOG_LEVEL ?? 'info'
  }
}
