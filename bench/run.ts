import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { DataDir } from '../src/store/layout.js'
import { benchCheck } from './check.js'
import { benchCompare } from './compare.js'
import { benchDepth } from './depth.js'
import { benchHttp } from './http.js'
import { baseline } from './baseline.js'
import { benchIndexing, hwfacts, indexRun } from './indexing.js'
import { machine } from './lib.js'
import { benchMcp } from './mcp.js'
import { benchMix } from './mix.js'
import { benchEngine } from './engine.js'
import { benchServe } from './serve.js'

/**
 * `npm run bench [-- --only indexing,serve,http,mix,mcp,engine,compare,depth,check] [--data-dir D] [--wide-data-dir W]
 * [--baseline REV] [--rounds N] [--digests-out F] [--digests-check F]`: every figure of one run, on
 * this machine. Indexing covers `../shared/corpus` and the wide corpus (unpacked into
 * .cache/corpus-wide when missing); `serve` compares the service on both releases; `mix` loads
 * realistic traffic (bench/mix.ts), beside a build of commit REV with `--baseline`. `--data-dir`
 * serves the promoted release of D instead of indexing the corpus first (only without `indexing`);
 * `--wide-data-dir` likewise for the wide release, indexed into W first when W has none.
 */
const arg = (name: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined)
const only = arg('--only')?.split(',') ?? ['indexing', 'serve', 'http', 'mix', 'mcp', 'engine', 'compare', 'depth', 'check']
const ROOT = resolve(import.meta.dirname, '..')
const corpus = resolve(ROOT, '..', 'shared', 'corpus')
const given = only.includes('indexing') ? undefined : arg('--data-dir')
const dataDir = given ? resolve(given) : mkdtempSync(join(tmpdir(), 'hwfacts-bench-'))
const wideGiven = arg('--wide-data-dir')
const wideDir = wideGiven ? resolve(wideGiven) : mkdtempSync(join(tmpdir(), 'hwfacts-bench-wide-'))
const out: Record<string, unknown> = { machine: machine() }
const print = (name: string, v: unknown) => {
  out[name] = v
  process.stdout.write(`${name}: ${JSON.stringify(v, null, 2)}\n`)
}

/** A shared corpus (`corpus-wide`, or `corpus-world`: the depth topics' sources are only there), unpacked from ../shared once. */
function sharedCorpus(name: 'corpus-wide' | 'corpus-world'): string {
  const dir = join(ROOT, '.cache', name)
  if (!existsSync(join(dir, 'sources.json'))) {
    mkdirSync(join(ROOT, '.cache'), { recursive: true })
    execFileSync('tar', ['-xJf', resolve(ROOT, '..', 'shared', `${name}.tar.xz`), '-C', join(ROOT, '.cache')])
  }
  return dir
}

try {
  process.stdout.write(`machine: ${out.machine}\n`)
  const wantsWide = only.includes('indexing') || only.includes('serve') || only.includes('engine') || only.includes('mix')
  if (!given) {
    const core = await benchIndexing(corpus, dataDir)
    if (only.includes('indexing')) print('indexing (core)', core)
    new DataDir(dataDir).promote(core.full.id)
  }
  if (only.includes('indexing')) {
    // Into a fresh dir: a given one's parse cache would make the measurement a re-index.
    const into = wideGiven ? mkdtempSync(join(tmpdir(), 'hwfacts-bench-wide-')) : wideDir
    try {
      const wide = await benchIndexing(sharedCorpus('corpus-wide'), into)
      print('indexing (wide)', wide)
      if (into === wideDir) new DataDir(wideDir).promote(wide.full.id)
    } finally {
      if (into !== wideDir) rmSync(into, { recursive: true, force: true })
    }
  }
  if (wantsWide && new DataDir(wideDir).promotedId() === undefined) new DataDir(wideDir).promote((await indexRun(sharedCorpus('corpus-wide'), wideDir)).id)
  if (only.includes('serve')) print('serve (core vs wide)', await benchServe({ core: dataDir, wide: wideDir }))
  if (only.includes('http')) print('http', await benchHttp(dataDir))
  if (only.includes('mix')) {
    const rev = arg('--baseline')
    const rounds = arg('--rounds')
    print(
      'mix',
      await benchMix({
        coreDataDir: dataDir,
        wideDataDir: wideDir,
        ...(rev ? { baseline: baseline(rev, corpus, (s) => process.stderr.write(`${s}\n`)) } : {}),
        ...(rounds ? { rounds: Number(rounds) } : {}),
        ...(arg('--digests-out') ? { digestsOut: resolve(arg('--digests-out')!) } : {}),
        ...(arg('--digests-check') ? { digestsCheck: resolve(arg('--digests-check')!) } : {})
      })
    )
  }
  if (only.includes('mcp')) print('mcp', await benchMcp({ dataDir }))
  if (only.includes('compare')) print('compare', await benchCompare(dataDir))
  if (only.includes('depth')) print('depth', await benchDepth(sharedCorpus('corpus-world')))
  if (only.includes('check')) print('check', await benchCheck(dataDir))
  if (only.includes('engine')) {
    const engines = [
      ['elasticsearch', process.env.ELASTICSEARCH_URL],
      ['opensearch', process.env.OPENSEARCH_URL]
    ] as const
    for (const [flavor, url] of engines) {
      if (!url) continue
      print(`engine (${flavor})`, await benchEngine({ dataDir, url, flavor }))
      // The wide release through `hwfacts engine load`, as its own process: time and memory.
      const id = new DataDir(wideDir).promotedId()!
      const env = { ELASTICSEARCH_URL: flavor === 'elasticsearch' ? url : '', OPENSEARCH_URL: flavor === 'opensearch' ? url : '', HWFACTS_INDEX_PREFIX: 'hwfacts-bench' }
      const load = await hwfacts(['engine', 'load', id, '--data-dir', wideDir], env)
      if (load.code !== 0) throw new Error(`engine load of the wide release: ${load.err}`)
      print(`engine load of the wide release (${flavor})`, { id, wallS: load.wallS, peakRssMb: load.peakRssMb })
      await hwfacts(['engine', 'retire', id], env)
    }
    if (!engines.some(([, url]) => url)) process.stdout.write('engine: skipped (set OPENSEARCH_URL or ELASTICSEARCH_URL, e.g. eval "$(.ci/services.sh env)")\n')
  }
} finally {
  if (!given) rmSync(dataDir, { recursive: true, force: true })
  if (!wideGiven) rmSync(wideDir, { recursive: true, force: true })
}
