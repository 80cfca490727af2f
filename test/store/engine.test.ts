import { loadRelease, promoteRelease, retireRelease } from '../../indexer/engine.js'
import { DataDir } from '../../src/store/layout.js'
import { EngineRepository } from '../../src/store/search-engine/repository.js'
import { enginesFromEnv, NO_ENGINE } from '../helpers/services.js'
import { releaseRepositoryConformance } from './conformance.js'

/** Its own prefix, so tests never touch a deployment's indices; the loaded corpus is reused across runs. */
const PREFIX = 'hwfacts-test-conformance'

for (const engine of enginesFromEnv())
  releaseRepositoryConformance(
    `search-engine (${engine?.flavor ?? 'none'})`,
    async (dataDir) => {
      const repo = await EngineRepository.connect(engine!.url, engine!.flavor, PREFIX)
      const data = new DataDir(dataDir)
      const id = data.promotedId()!
      const r = await loadRelease(repo, data, id)
      console.log(`[conformance] loaded ${r.facts} facts into ${r.index}: ${r.reused ? 'already loaded, reused' : JSON.stringify(r.timingsMs) + ` ms, ${r.retries} bulk retries`}`)
      await promoteRelease(repo, id, { allowPartial: true })
      // Releases of earlier corpus builds under this test prefix are retired, so they do not pile up.
      for (const other of await repo.readKept()) if (other !== id) await retireRelease(repo, other)
      return { repo }
    },
    engine ? {} : { skip: NO_ENGINE }
  )
