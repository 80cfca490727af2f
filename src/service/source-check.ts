import { join } from 'node:path'
import { hashFiles } from '../store/hash-files.js'
import type { ReleaseManifest } from '../store/types.js'

export interface SourceCheck {
  ok: boolean
  /** Why the check failed or could not be made. */
  reason?: string
}

interface Progress {
  total: number
  done: number
  failed: string[]
}

/**
 * Re-hashes a release's archived source artifacts against their inventory sha256, once per
 * release and process, so `trust.checksumVerified` reports a check this service made rather
 * than a promise. The hashing runs in a worker thread: the service starts it at start-up and
 * answers meanwhile; an answer that reports checksums waits for the check to finish. Without an
 * archive (e.g. an engine-only instance) nothing is verified.
 */
export class SourceChecks {
  private readonly byRelease = new Map<string, Promise<Map<string, SourceCheck>>>()
  private readonly progress = new Map<string, Progress>()

  constructor(private readonly archiveRoot: string | undefined) {}

  /** The check of each source of the release, by path: started on first call, settled when every source is re-hashed. */
  of(m: ReleaseManifest): Promise<Map<string, SourceCheck>> {
    let checks = this.byRelease.get(m.id)
    if (!checks) {
      checks = this.check(m)
      this.byRelease.set(m.id, checks)
    }
    return checks
  }

  /** How the check of a release stands (for readiness): undefined when it was never started. */
  status(id: string): { ok: boolean; detail: string } | undefined {
    const p = this.progress.get(id)
    if (!p) return undefined
    const failed = p.failed.length > 0 ? `; ${p.failed.length} do not match their inventory sha256 or are missing (first: ${p.failed[0]})` : ''
    if (p.done < p.total) return { ok: p.failed.length === 0, detail: `re-hashing the archived sources of release ${id}: ${p.done} of ${p.total} done${failed}` }
    return { ok: p.failed.length === 0, detail: `${p.total} archived sources of release ${id} re-hashed${failed || ', all match'}` }
  }

  private check(m: ReleaseManifest): Promise<Map<string, SourceCheck>> {
    const root = this.archiveRoot
    if (root === undefined) return Promise.resolve(new Map(m.sources.map((s) => [s.path, { ok: false, reason: 'this instance has no source archive to check' }])))
    const progress: Progress = { total: m.sources.length, done: 0, failed: [] }
    this.progress.set(m.id, progress)
    const checks = new Map<string, SourceCheck>()
    const settle = (i: number, c: SourceCheck) => {
      checks.set(m.sources[i]!.path, c)
      progress.done++
      if (!c.ok) progress.failed.push(m.sources[i]!.path)
    }
    return hashFiles(
      m.sources.map((s) => join(root, s.archivePath)),
      (i, actual, code) => {
        if (actual === null) settle(i, { ok: false, reason: `the archived artifact is missing (${code})` })
        else settle(i, actual === m.sources[i]!.sha256 ? { ok: true } : { ok: false, reason: `the archived bytes hash to ${actual}, not the inventory sha256` })
      }
    ).then(
      () => checks,
      // The thread died (out of memory, killed): what it did not check is not verified.
      (err: Error) => {
        m.sources.forEach((s, i) => checks.has(s.path) || settle(i, { ok: false, reason: `the check could not be made (${err.message})` }))
        return checks
      }
    )
  }
}
