import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { shardFileName } from '../store/sqlite/schema.js'
import { releaseFileProblems } from '../store/sqlite/store.js'
import type { ReleaseManifest } from '../store/types.js'
import type { ReadinessCheck } from './routes/health.js'

export interface ReleaseFilesOptions {
  /** The directory of the release being served (its manifest.json and files), or undefined when none is. */
  servedDir: () => Promise<string | undefined>
  /** The size and mtime of every file are compared at most this often (on a /readyz call). */
  statEveryMs?: number
  /** Every file is re-hashed against its manifest in the background this often. */
  digestEveryMs?: number
}

type Stamp = { bytes: number; mtimeMs: number }

/**
 * The served release's files, checked while it is served (they are only checked when opened):
 * cheaply, size and mtime of each against what they were when first seen (and the manifest's size),
 * and fully, every digest re-computed in a worker thread in the background. A damaged or changed
 * file makes this critical check fail, so /readyz answers 503 naming the file, and a load balancer
 * takes the instance out before a restart on the release would fail.
 */
export function releaseFilesCheck(opts: ReleaseFilesOptions): ReadinessCheck & { stop: () => void } {
  const statEvery = opts.statEveryMs ?? 5_000
  let dir: string | undefined
  let stamps = new Map<string, Stamp>()
  let expected = new Map<string, number>()
  let statProblems: string[] = []
  let statAt = -Infinity
  let digestProblems: string[] = []
  let digestAt: string | undefined
  let digesting: Promise<void> | undefined

  const stat = () => {
    statAt = performance.now()
    statProblems = []
    for (const [name, bytes] of expected) {
      try {
        const s = statSync(join(dir!, name))
        const was = stamps.get(name)
        if (s.size !== bytes) statProblems.push(`${name} has ${s.size} bytes; its manifest records ${bytes}`)
        else if (was === undefined) stamps.set(name, { bytes: s.size, mtimeMs: s.mtimeMs })
        else if (was.mtimeMs !== s.mtimeMs) statProblems.push(`${name} was modified while served (mtime changed)`)
      } catch (err) {
        statProblems.push(`${name} cannot be read (${(err as NodeJS.ErrnoException).code})`)
      }
    }
  }
  const digest = () => {
    if (dir === undefined || digesting) return
    const d = dir
    digesting = releaseFileProblems(d)
      .then((p) => {
        if (d !== dir) return
        digestProblems = p
        digestAt = new Date().toISOString()
        // The bytes are what the manifest says: a changed mtime alone (a touch, a copy back) is no damage.
        if (p.length === 0) {
          stamps = new Map()
          stat()
        }
      })
      .finally(() => (digesting = undefined))
  }
  const timer = setInterval(digest, opts.digestEveryMs ?? 10 * 60_000)
  timer.unref()

  return {
    name: 'release-files',
    critical: true,
    stop: () => clearInterval(timer),
    check: async () => {
      const served = await opts.servedDir()
      if (served === undefined) return { ok: true, detail: 'no release served' }
      if (served !== dir) {
        dir = served
        const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as ReleaseManifest
        expected = new Map([...(m.database ? [['release.sqlite', m.database.bytes] as const] : []), ...(m.shards ?? []).map((s) => [shardFileName(s.sha256), s.bytes] as const)])
        stamps = new Map()
        digestProblems = []
        digestAt = undefined
        stat()
      } else if (performance.now() - statAt >= statEvery) stat()
      // A changed file is re-hashed at once: damage is confirmed (or a touch forgiven) without waiting for the next round.
      if (statProblems.length > 0) digest()
      const problems = [...statProblems, ...digestProblems]
      if (problems.length > 0) return { ok: false, detail: `the served release's files are damaged: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? ` (and ${problems.length - 3} more)` : ''}` }
      return { ok: true, detail: `${expected.size} files: size and mtime unchanged; ${digestAt ? `every digest matched at ${digestAt}` : 'digests checked when opened'}` }
    }
  }
}
