import { realpathSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { loadRelease, promoteRelease } from '../indexer/engine.js'
import type { ContextParams } from '../src/schemas/params.js'
import { HardwareFacts } from '../src/service/facts.js'
import { DataDir } from '../src/store/layout.js'
import { factSearchBody } from '../src/store/search-engine/query.js'
import { EngineRepository } from '../src/store/search-engine/repository.js'
import type { EngineFlavor } from '../src/store/search-engine/transport.js'
import type { FactQuery } from '../src/store/types.js'
import { recordingRepository } from '../test/helpers/recording-repo.js'

export interface EngineBenchOptions {
  /** A data dir whose promoted SQLite release is loaded into the engine when it is not there yet. */
  dataDir: string
  /** Default: ELASTICSEARCH_URL, else OPENSEARCH_URL. */
  url?: string
  flavor?: EngineFlavor
  /** Index prefix of the bench's own copy (default hwfacts-bench). */
  prefix?: string
  /** Timed calls per query and path (default 200), after 20 warm-up calls. */
  iterations?: number
  log?: (msg: string) => void
}

export interface EngineBenchQuery {
  name: string
  params: ContextParams
  /** HardwareFacts.context over the engine store: resolution, the search, token budgeting, the JSON. */
  serviceMedianMs: number
  serviceP95Ms: number
  /** The same search body sent with the engine's own client library, nothing else. */
  directMedianMs: number
  directP95Ms: number
  ratio: number
}

export interface EngineBenchFigures {
  engine: EngineFlavor
  release: string
  facts: number
  load: { reused: boolean; ms: number }
  iterations: number
  queries: EngineBenchQuery[]
  /** Medians over all queries' samples. */
  serviceMedianMs: number
  directMedianMs: number
  ratio: number
}

const QUERIES: Array<{ name: string; params: ContextParams }> = [
  { name: 'registers, first page', params: { part: 'STM32F407VG', topic: 'registers' } },
  { name: 'registers, name prefix', params: { part: 'STM32F407VG', topic: 'registers', fact_name_prefixes: 'GPIOA.' } },
  { name: 'registers, query terms', params: { part: 'STM32F407VG', topic: 'registers', query: 'usart baud rate', limit: 10 } },
  { name: 'registers, 33k-fact target', params: { part: 'nRF5340', topic: 'registers', query: 'interrupt enable' } },
  { name: 'pins, package', params: { part: 'STM32F407VGTx', topic: 'pins', peripheral: 'USART1' } },
  { name: 'errata, silicon revision', params: { part: 'nRF52840', topic: 'errata', silicon_revision: '0x02' } }
]

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN
}
const round = (x: number) => Math.round(x * 100) / 100

/** The engine's own client library, called the way its documentation shows. */
async function directSearch(url: string, flavor: EngineFlavor): Promise<{ search: (index: string, body: Record<string, unknown>) => Promise<unknown>; close: () => Promise<void> }> {
  if (flavor === 'elasticsearch') {
    const { Client } = await import('@elastic/elasticsearch')
    const c = new Client({ node: url })
    return { search: (index, body) => c.search({ index, ...body }), close: () => c.close() }
  }
  const { Client } = await import('@opensearch-project/opensearch')
  const c = new Client({ node: url })
  return { search: (index, body) => c.search({ index, body }), close: () => c.close() }
}

/** Context latency over the engine store beside the bare engine search: medians and their ratio, one run. */
export async function benchEngine(opts: EngineBenchOptions): Promise<EngineBenchFigures> {
  const url = opts.url ?? process.env.ELASTICSEARCH_URL ?? process.env.OPENSEARCH_URL
  const flavor = opts.flavor ?? (process.env.ELASTICSEARCH_URL ? 'elasticsearch' : 'opensearch')
  if (!url) throw new Error('benchEngine needs ELASTICSEARCH_URL or OPENSEARCH_URL')
  const log = opts.log ?? (() => {})
  const iterations = opts.iterations ?? 200
  const data = new DataDir(resolve(opts.dataDir))
  const id = data.promotedId()
  if (!id) throw new Error(`no promoted release in ${data.root}`)

  const repo = await EngineRepository.connect(url, flavor, opts.prefix ?? 'hwfacts-bench')
  const direct = await directSearch(url, flavor)
  try {
    const t = performance.now()
    const loaded = await loadRelease(repo, data, id)
    const loadMs = Math.round(performance.now() - t)
    log(loaded.reused ? `release ${id} already loaded` : `loaded ${loaded.facts} facts in ${loadMs} ms`)
    await promoteRelease(repo, id, { allowPartial: true })

    const seen: FactQuery[] = []
    const facts = new HardwareFacts(recordingRepository(repo, (q) => seen.push(q)), 'bench')
    const index = repo.names.release(id)
    const results: EngineBenchQuery[] = []
    const all = { service: [] as number[], direct: [] as number[] }
    for (const { name, params } of QUERIES) {
      seen.length = 0
      await facts.context(params)
      const q = seen[0]
      if (!q) {
        log(`skipped "${name}": ${params.part} does not resolve for ${params.topic} in this release`)
        continue
      }
      const body = factSearchBody(q)
      const service: number[] = []
      const raw: number[] = []
      // Interleaved, so drift (GC, merges, other load) hits both paths alike.
      for (let i = -20; i < iterations; i++) {
        let s = performance.now()
        await facts.context(params)
        const a = performance.now() - s
        s = performance.now()
        await direct.search(index, body)
        const b = performance.now() - s
        if (i >= 0) service.push(a), raw.push(b)
      }
      all.service.push(...service)
      all.direct.push(...raw)
      const r: EngineBenchQuery = {
        name,
        params,
        serviceMedianMs: round(quantile(service, 0.5)),
        serviceP95Ms: round(quantile(service, 0.95)),
        directMedianMs: round(quantile(raw, 0.5)),
        directP95Ms: round(quantile(raw, 0.95)),
        ratio: round(quantile(service, 0.5) / quantile(raw, 0.5))
      }
      log(`${name}: context ${r.serviceMedianMs} ms, direct ${r.directMedianMs} ms (x${r.ratio})`)
      results.push(r)
    }
    const serviceMedianMs = round(quantile(all.service, 0.5))
    const directMedianMs = round(quantile(all.direct, 0.5))
    return { engine: flavor, release: id, facts: loaded.facts, load: { reused: loaded.reused, ms: loadMs }, iterations, queries: results, serviceMedianMs, directMedianMs, ratio: round(serviceMedianMs / directMedianMs) }
  } finally {
    await direct.close()
    await repo.close()
  }
}

// `npx tsx bench/engine.ts [data-dir]` runs it alone and prints the figures as JSON.
const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href
if (isMain) {
  benchEngine({ dataDir: process.argv[2] ?? process.env.HWFACTS_DATA_DIR ?? 'data', log: (m) => process.stderr.write(`bench: ${m}\n`) }).then(
    (f) => process.stdout.write(JSON.stringify(f, null, 2) + '\n'),
    (err: Error) => {
      process.stderr.write(`bench: ${err.message}\n`)
      process.exit(1)
    }
  )
}
