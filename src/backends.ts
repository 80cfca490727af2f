import type { Config } from './config.js'
import type { ReadinessCheck } from './http/routes/health.js'
import { SqliteRepository } from './store/sqlite/store.js'
import type { ReleaseRepository } from './store/types.js'
import type { Redis } from 'ioredis'

export interface Backends {
  repo: ReleaseRepository
  redis?: Redis
  readinessChecks: ReadinessCheck[]
  close(): Promise<void>
}

/** The release store and rate-limit store the configuration asks for; embedded SQLite by default. */
export async function openBackends(cfg: Config): Promise<Backends> {
  const repo = new SqliteRepository(cfg.dataDir)
  return {
    repo,
    readinessChecks: [],
    close: () => repo.close()
  }
}
