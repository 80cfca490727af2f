import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync, symlinkSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { corpusDataDir } from './helpers/corpus-release.js'
import { hasRedisServer, privateRedis } from './helpers/redis.js'
import { NO_REDIS } from './helpers/services.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const CACHE = join(ROOT, '.cache')
const say = (m: string) => process.stdout.write(`${m}\n`)

/**
 * Unpacks a shared corpus (`corpus-wide`, about 10 s; `corpus-world`, about 25 s) into .cache once,
 * so the suites that read it run everywhere the shared archive is, not only where someone unpacked
 * it by hand. Unpacked beside it first and renamed, so an interrupted run leaves no half corpus behind.
 */
function unpackCorpus(name: 'corpus-wide' | 'corpus-world'): void {
  const archive = resolve(ROOT, '..', 'shared', `${name}.tar.xz`)
  if (existsSync(join(CACHE, name, 'sources.json'))) return
  mkdirSync(CACHE, { recursive: true })
  // A mutation sandbox has no .cache of its own: it links the project's unpacked corpus (run.mjs names it).
  const linked = process.env.HWFACTS_CORPUS_CACHE && join(process.env.HWFACTS_CORPUS_CACHE, name)
  if (linked && existsSync(join(linked, 'sources.json'))) {
    symlinkSync(realpathSync(linked), join(CACHE, name))
    return
  }
  if (!existsSync(archive)) {
    say(`${name}: ${archive} is missing; its suites skip`)
    return
  }
  const t = Date.now()
  const tmp = mkdtempSync(join(CACHE, `${name}-unpack-`))
  try {
    execFileSync('tar', ['-xJf', archive, '-C', tmp])
    rmSync(join(CACHE, name), { recursive: true, force: true })
    renameSync(join(tmp, name), join(CACHE, name))
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
  say(`${name} unpacked into .cache/${name} (${Math.round((Date.now() - t) / 1000)} s)`)
}

/**
 * Builds the whole-corpus release once, before the test files fork, so none of them waits on
 * another; unpacks the wide corpus; and, when REDIS_URL is unset, starts a Redis of the run's own
 * whose URL the test forks inherit. Returns the teardown that stops it.
 */
export default async function setup(): Promise<() => void> {
  const t = Date.now()
  const dir = await corpusDataDir()
  say(`corpus release ready in ${dir} (${Math.round((Date.now() - t) / 1000)} s)`)
  unpackCorpus('corpus-wide')
  unpackCorpus('corpus-world')
  if (process.env.REDIS_URL || !hasRedisServer) {
    if (!process.env.REDIS_URL) say(`redis suites skipped: ${NO_REDIS}`)
    return () => {}
  }
  const redis = await privateRedis()
  process.env.REDIS_URL = redis.url
  say(`redis started for this run at ${redis.url}`)
  return () => {
    redis.stop()
    delete process.env.REDIS_URL
  }
}
