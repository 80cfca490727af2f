import type { EngineFlavor } from '../../src/store/search-engine/transport.js'

export interface TestEngine {
  url: string
  flavor: EngineFlavor
}

/**
 * Every search engine the tests may use: the engine suites run once per engine, so with both
 * ELASTICSEARCH_URL and OPENSEARCH_URL set (as in CI) each suite proves itself on both. One
 * `undefined` entry when neither is set, for a suite that skips with the reason.
 */
export function enginesFromEnv(): Array<TestEngine | undefined> {
  const engines: TestEngine[] = []
  if (process.env.ELASTICSEARCH_URL) engines.push({ url: process.env.ELASTICSEARCH_URL, flavor: 'elasticsearch' })
  if (process.env.OPENSEARCH_URL) engines.push({ url: process.env.OPENSEARCH_URL, flavor: 'opensearch' })
  return engines.length > 0 ? engines : [undefined]
}

export const NO_ENGINE = 'neither OPENSEARCH_URL nor ELASTICSEARCH_URL is set (start one with `.ci/services.sh start-all` and `eval "$(.ci/services.sh env)"`)'
export const NO_REDIS = 'REDIS_URL is not set and redis-server is not installed (apt-get install redis-server, and the test setup starts one; or set REDIS_URL)'

/** Prints why a suite is skipped, once, where the test output shows it. */
export function skipReason(suite: string, reason: string | undefined): string | undefined {
  if (reason) console.log(`[${suite}] skipped: ${reason}`)
  return reason
}
