import { defineConfig } from 'vitest/config'
import { MODULES } from './test/mutation/modules.mjs'

// Only the test files of the module being mutated (HWFACTS_MUTATE), in one fork.
const mod = MODULES[(process.env.HWFACTS_MUTATE ?? 'cursor') as keyof typeof MODULES]

export default defineConfig({
  test: {
    include: mod.tests,
    globalSetup: mod.tests.some((t) => t.startsWith('test/http') || t.startsWith('test/mcp')) ? ['test/global-setup.ts'] : [],
    testTimeout: 30_000,
    hookTimeout: 300_000,
    pool: 'forks'
  }
})
