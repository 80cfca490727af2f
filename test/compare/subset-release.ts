import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { buildRelease } from '../../indexer/build.js'
import { CURATION } from '../helpers/corpus-release.js'

/**
 * A release of a few records of a corpus inventory: a `sources.json` in a scratch directory that
 * lists just those records, with each path linked to the corpus file (record paths are relative to
 * the inventory and may not leave it), indexed with the project's curation as the test helpers do.
 */
export async function subsetRelease(corpus: string, paths: Array<string | { path: string; as: string }>, dataDir: string): Promise<string> {
  const inv = JSON.parse(readFileSync(join(corpus, 'sources.json'), 'utf8')) as { sources: Array<{ path: string }> }
  const links: Array<[string, string]> = []
  const records = paths.map((x) => {
    // `as`: the same artifact listed under another path, as a source moved in the inventory would be.
    const { path, as } = typeof x === 'string' ? { path: x, as: x } : x
    const r = inv.sources.find((s) => s.path === path)
    if (!r) throw new Error(`${corpus}/sources.json lists no ${path}`)
    links.push([resolve(corpus, path), as])
    return { ...r, path: as }
  })
  const dir = mkdtempSync(join(tmpdir(), 'hwfacts-subset-'))
  for (const [file, as] of links) {
    mkdirSync(dirname(join(dir, as)), { recursive: true })
    symlinkSync(file, join(dir, as))
  }
  writeFileSync(join(dir, 'sources.json'), JSON.stringify({ sources: records }))
  return (await buildRelease({ inventory: dir, dataDir, curation: CURATION })).id
}
