import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { corpusDataDir } from './helpers/corpus-release.js'
import { hasRedisServer, privateRedis } from './helpers/redis.js'
import { NO_REDIS } from './helpers/services.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const CACHE = join(ROOT, '.cache')
const WIDE_ARCHIVE = resolve(ROOT, '..', 'shared', 'corpus-wide.tar.xz')

const say = (m: string) => process.stdout.write(`${m}\n`)

/**
 * Unpacks the wide corpus into .cache/corpus-wide once (about 10 s), so the suites that read it
 * run everywhere the shared archive is, not only where someone unpacked it by hand. Unpacked
 * beside it first and renamed, so an interrupted run leaves no half corpus behind.
 */
function unpackWideCorpus(): void {
  if (existsSync(join(CACHE, 'corpus-wide', 'sources.json'))) return
  if (!existsSync(WIDE_ARCHIVE)) {
    say(`wide corpus: ${WIDE_ARCHIVE} is missing; its suites skip`)
    return
  }
  const t = Date.now()
  const tmp = mkdtempSync(join(CACHE, 'corpus-wide-unpack-'))
  try {
    execFileSync('tar', ['-xJf', WIDE_ARCHIVE, '-C', tmp])
    rmSync(join(CACHE, 'corpus-wide'), { recursive: true, force: true })
    renameSync(join(tmp, 'corpus-wide'), join(CACHE, 'corpus-wide'))
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
  say(`wide corpus unpacked into .cache/corpus-wide (${Math.round((Date.now() - t) / 1000)} s)`)
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
  unpackWideCorpus()
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
