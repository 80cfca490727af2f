import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The small hand-written corpus `npm start` serves; fast to build in tests. */
export const SAMPLE_CORPUS = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'sample-corpus')

/** A copy of the sample corpus whose inventory leaves out the sources under `pathPrefix`: a second, different release. */
export function sampleCorpusWithout(pathPrefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'hwfacts-corpus-'))
  cpSync(SAMPLE_CORPUS, dir, { recursive: true })
  const inv = JSON.parse(readFileSync(join(SAMPLE_CORPUS, 'sources.json'), 'utf8')) as { sources: Array<{ path: string }> }
  inv.sources = inv.sources.filter((s) => !s.path.startsWith(pathPrefix))
  writeFileSync(join(dir, 'sources.json'), JSON.stringify(inv))
  return dir
}
