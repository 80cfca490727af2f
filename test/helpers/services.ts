import type { EngineFlavor } from '../../src/store/search-engine/transport.js'

/** The search engine the tests may use: ELASTICSEARCH_URL wins over OPENSEARCH_URL, as in src/config.ts. */
export function engineFromEnv(): { url: string; flavor: EngineFlavor } | undefined {
  if (process.env.ELASTICSEARCH_URL) return { url: process.env.ELASTICSEARCH_URL, flavor: 'elasticsearch' }
  if (process.env.OPENSEARCH_URL) return { url: process.env.OPENSEARCH_URL, flavor: 'opensearch' }
  return undefined
}

export const NO_ENGINE = 'neither OPENSEARCH_URL nor ELASTICSEARCH_URL is set (start one with `.ci/services.sh start-all` and `eval "$(.ci/services.sh env)"`)'
export const NO_REDIS = 'REDIS_URL is not set (start Redis with `.ci/services.sh redis-start` and `eval "$(.ci/services.sh env)"`)'

/** Prints why a suite is skipped, once, where the test output shows it. */
export function skipReason(suite: string, reason: string | undefined): string | undefined {
  if (reason) console.log(`[${suite}] skipped: ${reason}`)
  return reason
}
