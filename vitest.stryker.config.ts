import { statSync } from 'node:fs'
import { defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'
import { MODULES } from './test/mutation/modules.mjs'

// Only the test files of the module being mutated (HWFACTS_MUTATE), in one fork.
const mod = MODULES[(process.env.HWFACTS_MUTATE ?? 'cursor') as keyof typeof MODULES]

/** The position of the first of the module's test globs a file matches (`*` within one path segment). */
const globs = mod.tests.map((g) => new RegExp(`(^|/)${g.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replaceAll('*', '[^/]*')}$`))
const listed = (file: string) => globs.findIndex((g) => g.test(file))

/**
 * Smallest test file first: Stryker runs a mutant's files one after another and stops at the first
 * failing test, and the small hand-written suites kill most mutants in milliseconds, where the
 * corpus suites take seconds (vitest's own order puts the slowest file first). Files of an earlier
 * glob of the module's list go before those of a later one (a small suite that needs a service goes
 * after the focused suite that does not).
 */
class SmallestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return [...files].sort((a, b) => listed(a.moduleId) - listed(b.moduleId) || statSync(a.moduleId).size - statSync(b.moduleId).size)
  }
}

export default defineConfig({
  test: {
    include: mod.tests,
    globalSetup: mod.tests.some((t) => t.startsWith('test/http') || t.startsWith('test/mcp')) ? ['test/global-setup.ts'] : [],
    testTimeout: 30_000,
    hookTimeout: 300_000,
    pool: 'forks',
    sequence: { sequencer: SmallestFirst }
  }
})
