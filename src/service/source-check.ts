import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ReleaseManifest } from '../store/types.js'

export interface SourceCheck {
  ok: boolean
  /** Why the check failed or could not be made. */
  reason?: string
}

/**
 * Re-hashes a release's archived source artifacts against their inventory sha256, once per
 * release and process, so `trust.checksumVerified` reports a check this service made rather
 * than a promise. Without an archive (e.g. an engine-only instance) nothing is verified.
 */
export class SourceChecks {
  private readonly byRelease = new Map<string, Map<string, SourceCheck>>()

  constructor(private readonly archiveRoot: string | undefined) {}

  of(m: ReleaseManifest): Map<string, SourceCheck> {
    let checks = this.byRelease.get(m.id)
    if (!checks) {
      checks = new Map(m.sources.map((s) => [s.path, this.check(s.archivePath, s.sha256)]))
      this.byRelease.set(m.id, checks)
    }
    return checks
  }

  private check(archivePath: string, sha256: string): SourceCheck {
    if (this.archiveRoot === undefined) return { ok: false, reason: 'this instance has no source archive to check' }
    let bytes: Buffer
    try {
      bytes = readFileSync(join(this.archiveRoot, archivePath))
    } catch (err) {
      return { ok: false, reason: `the archived artifact is missing (${(err as NodeJS.ErrnoException).code})` }
    }
    const actual = createHash('sha256').update(bytes).digest('hex')
    return actual === sha256 ? { ok: true } : { ok: false, reason: `the archived bytes hash to ${actual}, not the inventory sha256` }
  }
}
