import { createHash } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { main } from '../../indexer/cli.js'
import { readManifest } from '../../indexer/releases.js'
import { DataDir } from '../../src/store/layout.js'
import { SAMPLE_CORPUS } from '../helpers/sample-corpus.js'

const ROOT = resolve(import.meta.dirname, '..', '..')
const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })))
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'hwfacts-sample-'))
  dirs.push(d)
  return d
}

describe('hwfacts sample (what npm start runs on a fresh clone)', () => {
  it('builds and promotes a release of every source of the sample corpus, each archived with its inventory digest', async () => {
    const data = new DataDir(fresh())
    expect(await main(['sample', '--data-dir', data.root])).toBe(0)
    const id = data.promotedId()!
    expect(id).toBeDefined()
    const inventory = JSON.parse(readFileSync(join(SAMPLE_CORPUS, 'sources.json'), 'utf8')) as { sources: Array<{ path: string; sha256: string }> }
    const manifest = readManifest(data, id)!
    expect(manifest.problems).toEqual([])
    expect(manifest.sources.map((s) => [s.path, s.sha256]).sort()).toEqual(
      inventory.sources.map((s) => [s.path, createHash('sha256').update(readFileSync(join(SAMPLE_CORPUS, s.path))).digest('hex')]).sort()
    )
  })

  it('leaves a data dir with a promoted release alone: neither rebuilt nor re-promoted', async () => {
    const data = new DataDir(fresh())
    expect(await main(['sample', '--data-dir', data.root])).toBe(0)
    const id = data.promotedId()!
    const before = readdirSync(data.root, { recursive: true }).length
    expect(await main(['sample', '--data-dir', data.root])).toBe(0)
    expect(data.promotedId()).toBe(id)
    expect(readdirSync(data.root, { recursive: true }).length).toBe(before)
  })
})

describe('layering', () => {
  /** Every relative import specifier of every .ts file under dir, with the file it is in. */
  function imports(dir: string): Array<{ file: string; target: string }> {
    const out: Array<{ file: string; target: string }> = []
    for (const name of readdirSync(join(ROOT, dir), { recursive: true }) as string[]) {
      if (!name.endsWith('.ts')) continue
      const file = join(ROOT, dir, name)
      for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g))
        out.push({ file: relative(ROOT, file), target: relative(ROOT, resolve(file, '..', m[1]!)) })
    }
    return out
  }

  it('nothing under src/ imports the indexer or the tests', () => {
    expect(imports('src').filter((i) => /^(indexer|test)\//.test(i.target))).toEqual([])
  })

  it('the store imports nothing of the service (its errors are its own, src/store/errors.ts)', () => {
    expect(imports('src/store').filter((i) => i.target.startsWith('src/service/'))).toEqual([])
  })
})
