import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'

export const RELEASE_ID = /^[a-f0-9]{16}$/

/**
 * The data directory: `archive/sha256/<2>/<sha256>` holds source artifacts by content,
 * `releases/<id>/{release.sqlite,shards/,manifest.json}` the kept releases, `promoted` the promoted
 * id, `cache/` the indexer's parse cache (indexer/parse-cache.ts).
 */
export class DataDir {
  /** The last id read from a sound `promoted` pointer: served while the pointer is missing or garbled. */
  private lastGood: string | undefined
  private pointerProblem: string | undefined

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

  /**
   * The promoted id. A missing or garbled pointer (or one naming no kept release) does not take
   * the service down: the last id read from a sound pointer stays promoted, and `pointerStatus`
   * says so. Without one there is nothing promoted.
   */
  promotedId(): string | undefined {
    let text: string | undefined
    try {
      text = readFileSync(join(this.root, 'promoted'), 'utf8')
    } catch {
      // missing or unreadable
    }
    const id = text?.trim()
    if (id !== undefined && RELEASE_ID.test(id) && existsSync(this.manifestPath(id))) {
      this.lastGood = id
      this.pointerProblem = undefined
      return id
    }
    this.pointerProblem =
      text === undefined ? 'the promoted pointer is missing' : RELEASE_ID.test(id ?? '') ? `the promoted pointer names ${id}, which is not kept` : 'the promoted pointer is garbled'
    return this.lastGood
  }

  /** Whether the last read of the pointer was sound, and what is served when it was not. */
  pointerStatus(): { ok: boolean; detail?: string } {
    if (this.pointerProblem === undefined) return { ok: true }
    return { ok: false, detail: this.lastGood ? `${this.pointerProblem}: still serving the last good release ${this.lastGood}` : this.pointerProblem }
  }

  /** Atomic: readers see the old id or the new one, never a torn file. */
  promote(id: string): void {
    mkdirSync(this.root, { recursive: true })
    const tmp = join(this.root, `.promoted-${process.pid}`)
    writeFileSync(tmp, id + '\n')
    renameSync(tmp, join(this.root, 'promoted'))
  }
}
