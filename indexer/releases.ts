import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DataDir, RELEASE_ID } from '../src/store/layout.js'
import type { ReleaseManifest } from '../src/store/types.js'
import { releaseFileProblems } from '../src/store/sqlite/store.js'
import { sha256Hex } from './inventory.js'

export function readManifest(data: DataDir, id: string): ReleaseManifest | undefined {
  if (!RELEASE_ID.test(id)) return undefined
  try {
    return JSON.parse(readFileSync(data.manifestPath(id), 'utf8')) as ReleaseManifest
  } catch {
    return undefined
  }
}

export class PromotionError extends Error {}

/** Points `promoted` at a kept release; one with parse problems needs an explicit `allowPartial`. */
export function promote(data: DataDir, id: string, allowPartial = false): ReleaseManifest {
  const m = readManifest(data, id)
  if (!m) throw new PromotionError(`no kept release ${id} in ${data.root}`)
  if (m.problems.length > 0 && !allowPartial)
    throw new PromotionError(`release ${id} has ${m.problems.length} source problem(s) and is partial; not promoted (use --allow-partial to override)`)
  data.promote(id)
  return m
}

/** Re-hashes the release's files (top file and shards) against the digests its manifest.json records. */
export async function verifyFiles(data: DataDir, id: string): Promise<string[]> {
  if (!readManifest(data, id)) throw new PromotionError(`no kept release ${id} in ${data.root}`)
  return releaseFileProblems(data.releaseDir(id))
}

/** Re-hashes every archived artifact a release names. */
export function verify(data: DataDir, id: string): Array<{ path: string; ok: boolean; reason?: string }> {
  const m = readManifest(data, id)
  if (!m) throw new PromotionError(`no kept release ${id} in ${data.root}`)
  return m.sources.map((s) => {
    try {
      const actual = sha256Hex(readFileSync(join(data.root, s.archivePath)))
      return actual === s.sha256 ? { path: s.path, ok: true } : { path: s.path, ok: false, reason: `archived bytes hash to ${actual}` }
    } catch (err) {
      return { path: s.path, ok: false, reason: `missing archive (${(err as NodeJS.ErrnoException).code})` }
    }
  })
}
