import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildRelease } from '../../indexer/build.js'
import { DataDir } from '../../src/store/layout.js'

/** The small hand-written corpus `npm start` serves; fast to build in tests. */
export const SAMPLE_CORPUS = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'sample-corpus')

/** The sample corpus' release built and promoted in `dataDir` (a second or so); its id. */
export async function promoteSampleRelease(dataDir: string): Promise<string> {
  const { id } = await buildRelease({ inventory: SAMPLE_CORPUS, dataDir })
  new DataDir(dataDir).promote(id)
  return id
}

/** A copy of the sample corpus whose inventory leaves out the sources under `pathPrefix`: a second, different release. */
export function sampleCorpusWithout(pathPrefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'hwfacts-corpus-'))
  cpSync(SAMPLE_CORPUS, dir, { recursive: true })
  const inv = JSON.parse(readFileSync(join(SAMPLE_CORPUS, 'sources.json'), 'utf8')) as { sources: Array<{ path: string }> }
  inv.sources = inv.sources.filter((s) => !s.path.startsWith(pathPrefix))
  writeFileSync(join(dir, 'sources.json'), JSON.stringify(inv))
  return dir
}
