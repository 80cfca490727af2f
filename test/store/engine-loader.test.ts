import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildRelease } from '../../indexer/build.js'
import { EngineCommandError, listReleases, loadRelease, promoteRelease, retireRelease } from '../../indexer/engine.js'
import { DataDir } from '../../src/store/layout.js'
import { ENGINE_RECHECK_MS, EngineRepository } from '../../src/store/search-engine/repository.js'
import { EngineError, openTransport, type EngineRequest, type EngineTransport } from '../../src/store/search-engine/transport.js'
import { enginesFromEnv, NO_ENGINE, skipReason } from '../helpers/services.js'
import { SAMPLE_CORPUS, sampleCorpusWithout } from '../helpers/sample-corpus.js'


/** The real transport, with `fault` deciding per request whether to fail it or doctor its answer. */
function faulty(real: EngineTransport, fault: (r: EngineRequest, n: number) => 'fail' | 'reject-items' | 'pass'): EngineTransport {
  let bulks = 0
  return {
    flavor: real.flavor,
    close: () => real.close(),
    async request<T>(r: EngineRequest) {
      const what = r.path.endsWith('/_bulk') ? fault(r, bulks++) : 'pass'
      if (what === 'fail') throw new EngineError(400, 'injected_failure', 'injected bulk failure')
      const res = await real.request<T>(r)
      if (what !== 'reject-items') return res
      // The engine indexed them, but says every other one was rejected as overloaded: those are re-sent.
      const body = res.body as { items: Array<{ index: { status: number } }> }
      body.items.forEach((it, i) => i % 2 === 0 && (it.index = { status: 429, error: { type: 'es_rejected_execution_exception' } } as never))
      return { status: res.status, body: { ...body, errors: true } as T }
    }
  }
}

for (const engine of enginesFromEnv()) {
  const skip = skipReason(`engine loader (${engine?.flavor ?? 'none'})`, engine ? undefined : NO_ENGINE)
  describe.skipIf(skip !== undefined)(`loading, promoting and retiring releases in the engine (${engine?.flavor ?? 'none'})`, () => {
    const prefix = `hwfacts-test-loader-${process.pid}`
    let dataDir: string
    let corpusB: string
    let data: DataDir
    let idA: string
    let idB: string
    let repo: EngineRepository

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'hwfacts-loader-'))
      data = new DataDir(dataDir)
      idA = (await buildRelease({ inventory: SAMPLE_CORPUS, dataDir })).id
      corpusB = sampleCorpusWithout('pins/')
      idB = (await buildRelease({ inventory: corpusB, dataDir })).id
      repo = await EngineRepository.connect(engine!.url, engine!.flavor, prefix)
    })
    afterAll(async () => {
      if (repo) {
        for (const index of [repo.names.release(idA), repo.names.release(idB), repo.names.releases]) await repo.engine.request({ method: 'DELETE', path: `/${index}`, ignore: [404] })
        await repo.close()
      }
      for (const d of [dataDir, corpusB]) if (d) rmSync(d, { recursive: true, force: true })
    })

    it('an interrupted load changes nothing a reader sees, and the next load starts over', async () => {
      await loadRelease(repo, data, idA, { bulkDocs: 50 })
      await promoteRelease(repo, idA, { allowPartial: true })

      const broken = new EngineRepository(faulty(await openTransport(engine!.url, engine!.flavor), (_r, n) => (n === 1 ? 'fail' : 'pass')), prefix)
      await expect(loadRelease(broken, data, idB, { bulkDocs: 20, concurrency: 1 })).rejects.toThrow(/injected/)
      await broken.close()
      expect(await repo.readPromoted()).toBe(idA)
      expect(await repo.readKept()).toEqual([idA])
      expect(await repo.record(idB)).toBeUndefined()
      const listed = await listReleases(repo)
      expect(listed.find((r) => r.id === idB)).toMatchObject({ loaded: false, promoted: false })
      await expect(promoteRelease(repo, idB)).rejects.toThrow(EngineCommandError)

      const logs: string[] = []
      const again = await loadRelease(repo, data, idB, { log: (m) => logs.push(m) })
      expect(again.reused).toBe(false)
      expect(logs.join('\n')).toMatch(/discarding the unfinished index/)
      expect(await repo.readPromoted()).toBe(idA)
    })

    it('re-sends documents the engine rejects as overloaded, and verifies the count', async () => {
      await retireRelease(repo, idB)
      const flaky = new EngineRepository(faulty(await openTransport(engine!.url, engine!.flavor), (_r, n) => (n % 3 === 0 ? 'reject-items' : 'pass')), prefix)
      const r = await loadRelease(flaky, data, idB, { bulkDocs: 40, concurrency: 2 })
      await flaky.close()
      expect(r.retries).toBeGreaterThan(0)
      expect(r.facts).toBe(JSON.parse(readFileSync(data.manifestPath(idB), 'utf8')).counts.facts)
      expect((await loadRelease(repo, data, idB)).reused).toBe(true)
    })

    it('promotes with one alias move, refuses to retire the promoted release, and drops a retired one from the repository', async () => {
      const before = await repo.open(idB)
      expect(before).toBeDefined()
      expect((await promoteRelease(repo, idB, { allowPartial: true })).previous).toBe(idA)
      expect(await repo.aliasHolders()).toEqual([repo.names.release(idB)])
      await expect(retireRelease(repo, idB)).rejects.toThrow(/promoted/)
      await retireRelease(repo, idA)
      await new Promise((r) => setTimeout(r, ENGINE_RECHECK_MS + 50))
      expect(await repo.open(idA)).toBeUndefined()
      expect(await repo.list()).toEqual([idB])
      expect(await repo.promotedId()).toBe(idB)
      await expect(retireRelease(repo, idA)).rejects.toThrow(/no release/)
    })
  })
}
