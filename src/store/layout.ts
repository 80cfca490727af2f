import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'

export const RELEASE_ID = /^[a-f0-9]{16}$/

/**
 * The data directory: `archive/sha256/<2>/<sha256>` holds source artifacts by content,
 * `releases/<id>/{release.sqlite,manifest.json}` the kept releases, `promoted` the promoted id.
 */
export class DataDir {
  constructor(readonly root: string) {}

  releaseDir(id: string): string {
    return join(this.root, 'releases', id)
  }
  releaseDb(id: string): string {
    return join(this.releaseDir(id), 'release.sqlite')
  }
  manifestPath(id: string): string {
    return join(this.releaseDir(id), 'manifest.json')
  }
  archiveRel(sha256: string): string {
    return join('archive', 'sha256', sha256.slice(0, 2), sha256)
  }
  archivePath(sha256: string): string {
    return join(this.root, this.archiveRel(sha256))
  }

  releaseIds(): string[] {
    const dir = join(this.root, 'releases')
    if (!existsSync(dir)) return []
    return readdirSync(dir)
      .filter((d) => RELEASE_ID.test(d) && existsSync(this.manifestPath(d)))
      .sort()
  }

  promotedId(): string | undefined {
    try {
      const id = readFileSync(join(this.root, 'promoted'), 'utf8').trim()
      return RELEASE_ID.test(id) ? id : undefined
    } catch {
      return undefined
    }
  }

  /** Atomic: readers see the old id or the new one, never a torn file. */
  promote(id: string): void {
    mkdirSync(this.root, { recursive: true })
    const tmp = join(this.root, `.promoted-${process.pid}`)
    writeFileSync(tmp, id + '\n')
    renameSync(tmp, join(this.root, 'promoted'))
  }
}
