import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll } from 'vitest'

/**
 * Scratch directories of one test file: `tmp(prefix)` makes one, and all are removed when the
 * file's tests end (forced: release files are read-only).
 */
export function scratchDirs(): (prefix?: string) => string {
  const dirs: string[] = []
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })
  return (prefix = 'hwfacts-') => {
    const d = mkdtempSync(join(tmpdir(), prefix))
    dirs.push(d)
    return d
  }
}
