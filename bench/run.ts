import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { DataDir } from '../src/store/layout.js'
import { benchCompare } from './compare.js'
import { benchHttp } from './http.js'
import { benchIndexing } from './indexing.js'
import { machine } from './lib.js'
import { benchMcp } from './mcp.js'
import { benchEngine } from './engine.js'

/**
 * `npm run bench [-- --only indexing,http,mcp,engine,compare] [--data-dir D]`: every figure of one run, on
 * this machine. `--data-dir` serves the promoted release of D instead of indexing the corpus first
 * (only without `indexing`).
 */
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined)
const only = arg('--only')?.split(',') ?? ['indexing', 'http', 'mcp', 'engine', 'compare']
const corpus = resolve(import.meta.dirname, '..', '..', 'shared', 'corpus')
const given = only.includes('indexing') ? undefined : arg('--data-dir')
const dataDir = given ? resolve(given) : mkdtempSync(join(tmpdir(), 'hwfacts-bench-'))
const out: Record<string, unknown> = { machine: machine() }
const print = (name: string, v: unknown) => {
  out[name] = v
  process.stdout.write(`${name}: ${JSON.stringify(v, null, 2)}\n`)
}
try {
  process.stdout.write(`machine: ${out.machine}\n`)
  if (!given) {
    const ix = await benchIndexing(corpus, dataDir)
    if (only.includes('indexing')) print('indexing', ix)
    new DataDir(dataDir).promote(new DataDir(dataDir).releaseIds()[0]!)
  }
  if (only.includes('http')) print('http', await benchHttp(dataDir))
  if (only.includes('mcp')) print('mcp', await benchMcp({ dataDir }))
  if (only.includes('compare')) print('compare', await benchCompare(dataDir))
  if (only.includes('engine')) {
    const engines = [
      ['elasticsearch', process.env.ELASTICSEARCH_URL],
      ['opensearch', process.env.OPENSEARCH_URL]
    ] as const
    for (const [flavor, url] of engines) if (url) print(`engine (${flavor})`, await benchEngine({ dataDir, url, flavor }))
    if (!engines.some(([, url]) => url)) process.stdout.write('engine: skipped (set OPENSEARCH_URL or ELASTICSEARCH_URL, e.g. eval "$(.ci/services.sh env)")\n')
  }
} finally {
  if (!given) rmSync(dataDir, { recursive: true, force: true })
}
