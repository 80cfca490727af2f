import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildRelease } from '../../indexer/build.js'
import { loadRelease, promoteRelease } from '../../indexer/engine.js'
import { ApiKeyStore, generateKey } from '../../src/auth/keys.js'
import { openBackends, type Backends } from '../../src/backends.js'
import { loadConfig } from '../../src/config.js'
import { buildApp } from '../../src/http/app.js'
import { HardwareFacts } from '../../src/service/facts.js'
import { DataDir } from '../../src/store/layout.js'
import { ENGINE_RECHECK_MS, EngineRepository } from '../../src/store/search-engine/repository.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'
import { enginesFromEnv, NO_ENGINE, skipReason } from '../helpers/services.js'
import { SAMPLE_CORPUS, sampleCorpusWithout } from '../helpers/sample-corpus.js'

const SECRET = 'alias-swap-cursors'

/** Paths answered by the load loop: facts of both a topic both releases have and one only the first has. */
const PATHS = [
  '/v1/context?part=STM32F407VG&topic=registers&limit=5',
  '/v1/context?part=STM32F407VG&topic=registers&query=mode%20output&limit=3',
  '/v1/context?part=nRF52840&topic=errata&limit=4',
  '/v1/release'
]

interface Sample {
  path: string
  status: number
  release: string | undefined
  body: string
  startedAt: number
  endedAt: number
}

for (const engine of enginesFromEnv()) {
  const skip = skipReason(`alias swap (${engine?.flavor ?? 'none'})`, engine ? undefined : NO_ENGINE)
  describe.skipIf(skip !== undefined)(`promotion under load (alias swap, ${engine?.flavor ?? 'none'})`, () => {
    const prefix = `hwfacts-test-swap-${process.pid}`
    let dataDir: string
    let corpusB: string
    let idA: string
    let idB: string
    /** The loader's connection, as `hwfacts engine` would hold it: a different client than the service's. */
    let repo: EngineRepository
    let backends: Backends
    let app: FastifyInstance
    let base: string
    const key = generateKey('swap')

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'hwfacts-swap-'))
      idA = (await buildRelease({ inventory: SAMPLE_CORPUS, dataDir })).id
      // A second, different release: the sample without its Nordic errata sources.
      corpusB = sampleCorpusWithout('errata/')
      idB = (await buildRelease({ inventory: corpusB, dataDir })).id
      expect(idB).not.toBe(idA)

      repo = await EngineRepository.connect(engine!.url, engine!.flavor, prefix)
      await loadRelease(repo, new DataDir(dataDir), idA)
      await promoteRelease(repo, idA, { allowPartial: true })
      // The service side, wired from the environment exactly as src/server.ts does.
      const env = { HWFACTS_DATA_DIR: dataDir, HWFACTS_INDEX_PREFIX: prefix, [engine!.flavor === 'elasticsearch' ? 'ELASTICSEARCH_URL' : 'OPENSEARCH_URL']: engine!.url }
      backends = await openBackends(loadConfig(env))
      expect(backends.repo.kind).toBe('search-engine')
      app = await buildApp({
        // With the context cache on, as src/server.ts runs it: cached answers must not cross a promotion.
        facts: new HardwareFacts(backends.repo, SECRET, { contextCacheBytes: 8 << 20 }),
        keys: new ApiKeyStore([key.record]),
        rateLimit: { max: 1_000_000, timeWindowMs: 60_000 },
        readinessChecks: backends.readinessChecks
      })
      base = await app.listen({ host: '127.0.0.1', port: 0 })
    })

    afterAll(async () => {
      await app?.close()
      await backends?.close()
      if (repo) {
        for (const index of [repo.names.release(idA), repo.names.release(idB), repo.names.releases]) await repo.engine.request({ method: 'DELETE', path: `/${index}`, ignore: [404] })
        await repo.close()
      }
      for (const d of [dataDir, corpusB]) if (d) rmSync(d, { recursive: true, force: true })
    })

    it('reports the engine in /readyz', async () => {
      const r = await fetch(base + '/readyz')
      const body = (await r.json()) as { status: string; release: { id: string }; checks: Record<string, { ok: boolean; critical: boolean }> }
      expect(r.status).toBe(200)
      expect(body.release.id).toBe(idA)
      expect(body.checks['search-engine']).toMatchObject({ ok: true, critical: true })
    })

    it('serves every request from one release or the other, never a mix or an error, and the new one within a second', { timeout: 120_000 }, async () => {
      const samples: Sample[] = []
      let stop = false
      const worker = async (w: number) => {
        for (let i = w; !stop; i++) {
          const path = PATHS[i % PATHS.length]!
          const startedAt = performance.now()
          const res = await fetch(base + path, { headers: { authorization: `Bearer ${key.secret}` } })
          const body = await res.text()
          const parsed = res.ok ? (JSON.parse(body) as { release: string | { id: string } }) : undefined
          const release = typeof parsed?.release === 'string' ? parsed.release : parsed?.release.id
          samples.push({ path, status: res.status, release, body, startedAt, endedAt: performance.now() })
        }
      }
      // A bounded loop: 4 concurrent clients for the whole load, promotion, and 2.5 s after it.
      const workers = [0, 1, 2, 3].map(worker)
      await new Promise((r) => setTimeout(r, 500))
      const loaded = await loadRelease(repo, new DataDir(dataDir), idB)
      expect(loaded.reused).toBe(false)
      const promoteStart = performance.now()
      await promoteRelease(repo, idB, { allowPartial: true })
      const promoteEnd = performance.now()
      await new Promise((r) => setTimeout(r, 2500))
      stop = true
      await Promise.all(workers)

      expect(samples.filter((s) => s.status !== 200).map((s) => `${s.status} ${s.path} ${s.body.slice(0, 200)}`)).toEqual([])
      expect(new Set(samples.map((s) => s.release))).toEqual(new Set([idA, idB]))
      // Finished before the swap: the old release. Started a cache period after it: the new one.
      expect(samples.filter((s) => s.endedAt < promoteStart && s.release !== idA)).toEqual([])
      const late = samples.filter((s) => s.startedAt > promoteEnd + ENGINE_RECHECK_MS + 50)
      expect(late.length).toBeGreaterThan(10)
      expect(late.filter((s) => s.release !== idB).map((s) => s.path)).toEqual([])

      // Consistent within each response: its facts are exactly what that release answers (SQLite reference).
      const reference = new HardwareFacts(new SqliteRepository(dataDir), SECRET)
      const mismatched: string[] = []
      const seen = new Set<string>()
      for (const s of samples.filter((x) => x.path.startsWith('/v1/context'))) {
        if (seen.has(s.path + s.body)) continue
        seen.add(s.path + s.body)
        const q = Object.fromEntries(new URL(s.path, base).searchParams) as Record<string, string>
        const expected = await reference.context({ ...q, ...(q.limit ? { limit: Number(q.limit) } : {}), corpus_release: s.release } as Parameters<HardwareFacts['context']>[0])
        if (expected.body !== s.body) mismatched.push(`${s.release} ${s.path}`)
      }
      await reference.repo.close()
      expect(mismatched).toEqual([])
      console.log(`[alias swap] ${samples.length} requests (${samples.filter((s) => s.release === idA).length} from ${idA}, ${samples.filter((s) => s.release === idB).length} from ${idB}), load of the second release ${JSON.stringify(loaded.timingsMs)} ms, promote ${Math.round(promoteEnd - promoteStart)} ms`)
    })
  })
}
