import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildRelease } from '../../indexer/build.js'
import { DataDir } from '../../src/store/layout.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')
/** The shared corpus inventory next to the work tree. */
export const CORPUS_INVENTORY = resolve(ROOT, '..', 'shared', 'corpus')
/** The project's curation: what no rule derives from the corpus (the shared corpus carries none). */
export const CURATION = resolve(ROOT, 'indexer', 'curation', 'curation.json')

/** Everything a release's content depends on: the indexer's code, the model, the schema, the inventory. */
export function buildInputsDigest(): string {
  const h = createHash('sha256')
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name)
      if (statSync(p).isDirectory()) walk(p)
      // The engine loader reads releases; it does not shape them.
      else if (!/^engine/.test(name)) h.update(relative(ROOT, p)).update(readFileSync(p))
    }
  }
  for (const d of ['indexer', 'src/model', 'src/store/sqlite']) walk(join(ROOT, d))
  h.update(readFileSync(join(CORPUS_INVENTORY, 'sources.json')))
  return h.digest('hex').slice(0, 12)
}

/**
 * Keyed by the build inputs, so a change to the indexer rebuilds instead of testing a stale release.
 * HWFACTS_TEST_CORPUS_DATA names a release built beforehand: mutation runs use the one built from
 * the unmutated code instead of rebuilding it with instrumented code in every sandbox.
 */
export const CORPUS_DATA_DIR = process.env.HWFACTS_TEST_CORPUS_DATA ?? join(ROOT, '.cache', 'test-data', `corpus-${buildInputsDigest()}`)

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * A data directory holding a promoted release built from the real corpus. Built once (by the
 * global setup) and kept in `.cache/test-data/`: every suite, and every run with the same inputs, reuses it.
 * Test files run in parallel forks, so a lock directory makes one of them build while the others wait.
 */
export async function corpusDataDir(): Promise<string> {
  const data = new DataDir(CORPUS_DATA_DIR)
  if (data.promotedId() !== undefined) return CORPUS_DATA_DIR
  mkdirSync(CORPUS_DATA_DIR, { recursive: true })
  const lock = join(CORPUS_DATA_DIR, '.build-lock')
  for (;;) {
    try {
      mkdirSync(lock)
      break
    } catch {
      if (data.promotedId() !== undefined) return CORPUS_DATA_DIR
      // A lock left by a killed run is taken over after 20 minutes.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 20 * 60_000) rmSync(lock, { recursive: true, force: true })
      await sleep(1000)
    }
  }
  try {
    if (data.promotedId() === undefined) {
      const r = await buildRelease({ inventory: CORPUS_INVENTORY, dataDir: CORPUS_DATA_DIR, curation: CURATION })
      data.promote(r.id)
    }
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
  return CORPUS_DATA_DIR
}

// `npx tsx test/helpers/corpus-release.ts` builds it ahead of a test run.
if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  const t = Date.now()
  corpusDataDir().then((d) => process.stdout.write(`corpus release ready in ${d} (${Math.round((Date.now() - t) / 1000)} s)\n`))
}
