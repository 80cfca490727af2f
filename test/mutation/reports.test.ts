import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
// @ts-expect-error: plain ESM modules of the mutation runner, without types
import { MODULES } from './modules.mjs'
// @ts-expect-error: idem
import { score, summaryDir } from './report.mjs'

interface Module {
  mutate: string[]
  tests: string[]
}
interface Summary {
  module: string
  commit: string
  mutate: string[]
  tests: string[]
  counts: Record<string, number>
  score: number
  survivors: string[]
}

const modules = MODULES as Record<string, Module>
const scores = readFileSync(join(import.meta.dirname, 'SCORES.md'), 'utf8')
const summaries: Summary[] = existsSync(summaryDir)
  ? readdirSync(summaryDir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => JSON.parse(readFileSync(join(summaryDir, f), 'utf8')) as Summary)
  : []

/** The cells of SCORES.md's table row of a module (`| module | mutated | score | mutants | run |`). */
function row(name: string): string[] | undefined {
  const line = scores.split('\n').find((l) => l.startsWith(`| ${name} |`))
  return line?.split('|').map((c) => c.trim())
}

describe('mutation scores: SCORES.md, the config and the committed summaries agree', () => {
  it('every module has a row whose mutated column names each of its line ranges', () => {
    for (const [name, mod] of Object.entries(modules)) {
      const cells = row(name)
      expect(cells, `SCORES.md has no row for ${name}`).toBeDefined()
      for (const glob of mod.mutate) {
        const range = /:(\d+-\d+)$/.exec(glob)?.[1]
        if (range) expect(cells![2], `${name}: ${glob}`).toContain(`:${range}`)
      }
    }
  })

  it('every committed summary is a whole run of its module as configured now, its score its counts', () => {
    for (const s of summaries) {
      const mod = modules[s.module]
      expect(mod, `${s.module}: no such module`).toBeDefined()
      expect(s.mutate, s.module).toEqual(mod!.mutate)
      expect(s.score, s.module).toBe(score(s.counts).percent)
      expect(s.survivors.length, s.module).toBe((s.counts.Survived ?? 0) + (s.counts.NoCoverage ?? 0))
      expect(s.score, `${s.module} scores under 80 %`).toBeGreaterThanOrEqual(80)
      // The run's commit is in this repository's history, so the score can be checked out and re-run.
      expect(() => execFileSync('git', ['cat-file', '-e', `${s.commit}^{commit}`], { stdio: 'ignore' }), `${s.module}: ${s.commit}`).not.toThrow()
      const cells = row(s.module)
      expect(cells?.[3], `${s.module}: SCORES.md's score`).toContain(`**${s.score.toFixed(1)} %**`)
    }
  })
})

// Summaries are written by `npm run mutate` since 2026-11-26; a module run only before then has none yet.
const missing = Object.keys(modules).filter((n) => !summaries.some((s) => s.module === n))
if (missing.length > 0) console.warn(`skipped "every module has a committed summary": none yet for ${missing.join(', ')} (run \`npm run mutate -- <module>\` and commit test/mutation/reports/)`)
it.skipIf(missing.length > 0)('every module has a committed summary of its last whole run', () => {
  expect(missing).toEqual([])
})
