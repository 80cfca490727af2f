import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { DataDir } from '../src/store/layout.js'
import { benchHttp } from './http.js'
import { benchIndexing } from './indexing.js'
import { machine } from './lib.js'
import { benchMcp } from './mcp.js'
import { benchEngine } from './engine.js'

/** `npm run bench [-- --only indexing,http,mcp,engine]`: every figure of one run, on this machine. */
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1]!.split(',') : ['indexing', 'http', 'mcp', 'engine']
const corpus = resolve(import.meta.dirname, '..', '..', 'shared', 'corpus')
const dataDir = mkdtempSync(join(tmpdir(), 'hwfacts-bench-'))
const out: Record<string, unknown> = { machine: machine() }
const print = (name: string, v: unknown) => {
  out[name] = v
  process.stdout.write(`${name}: ${JSON.stringify(v, null, 2)}\n`)
}
try {
  process.stdout.write(`machine: ${out.machine}\n`)
  const ix = await benchIndexing(corpus, dataDir)
  if (only.includes('indexing')) print('indexing', ix)
  new DataDir(dataDir).promote(new DataDir(dataDir).releaseIds()[0]!)
  if (only.includes('http')) print('http', await benchHttp(dataDir))
  if (only.includes('mcp')) print('mcp', await benchMcp({ dataDir }))
  if (only.includes('engine')) {
    if (process.env.ELASTICSEARCH_URL || process.env.OPENSEARCH_URL) print('engine', await benchEngine({ dataDir }))
    else process.stdout.write('engine: skipped (set OPENSEARCH_URL or ELASTICSEARCH_URL, e.g. eval "$(.ci/services.sh env)")\n')
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true })
}
