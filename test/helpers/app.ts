import type { FastifyInstance } from 'fastify'
import { ApiKeyStore, generateKey, type ApiKey } from '../../src/auth/keys.js'
import { buildApp, type AppOptions } from '../../src/http/app.js'
import { HardwareFacts } from '../../src/service/facts.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'

export interface TestApp {
  app: FastifyInstance
  facts: HardwareFacts
  /** Bearer header of a key with every scope and every release. */
  auth: { authorization: string }
  /** Makes another key with this record's overrides. */
  keyFor: (over: Partial<ApiKey>) => { authorization: string }
  close: () => Promise<void>
}

/** A Fastify app over the SQLite releases of `dataDir`, with fresh API keys. */
export async function testApp(dataDir: string, opts: Partial<AppOptions> = {}, extraKeys: Array<Partial<ApiKey>> = []): Promise<TestApp> {
  const main = generateKey('test')
  const others = extraKeys.map((over, i) => {
    const k = generateKey(`test-${i}`)
    return { secret: k.secret, record: { ...k.record, ...over } }
  })
  const repo = new SqliteRepository(dataDir)
  // With the answer cache on, as the server runs: every REST test also exercises it.
  const facts = new HardwareFacts(repo, 'test-secret', { contextCacheBytes: 8 << 20, archiveRoot: dataDir })
  const app = await buildApp({ facts, keys: new ApiKeyStore([main.record, ...others.map((o) => o.record)]), ...opts })
  await app.ready()
  return {
    app,
    facts,
    auth: { authorization: `Bearer ${main.secret}` },
    keyFor: (over) => {
      const o = others.find((x) => Object.entries(over).every(([k, v]) => JSON.stringify((x.record as unknown as Record<string, unknown>)[k]) === JSON.stringify(v)))
      if (!o) throw new Error('declare the key in extraKeys')
      return { authorization: `Bearer ${o.secret}` }
    },
    close: async () => {
      await app.close()
      await repo.close()
    }
  }
}
