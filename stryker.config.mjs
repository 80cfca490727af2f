// StrykerJS for the modules that decide facts and answers; run through `npm run mutate` (not in CI).
import { MODULES } from './test/mutation/modules.mjs'

const name = process.env.HWFACTS_MUTATE ?? 'cursor'
const mod = MODULES[name]
if (!mod) throw new Error(`HWFACTS_MUTATE=${name}: unknown module`)

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.ts', related: false },
  mutate: mod.mutate,
  // A module may ignore mutants that are not behaviour (test/mutation/description-ignorer.mjs: schema descriptions).
  plugins: ['@stryker-mutator/*', './test/mutation/description-ignorer.mjs'],
  ignorers: mod.ignorers ?? [],
  coverageAnalysis: 'perTest',
  // The box is shared: one or two sandboxes at a time.
  concurrency: Number(process.env.HWFACTS_MUTATE_CONCURRENCY ?? 1),
  incremental: true,
  incrementalFile: `reports/mutation/${name}.incremental.json`,
  reporters: ['clear-text', 'progress-append-only', 'json'],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  clearTextReporter: { allowEmojis: false, logTests: false, maxTestsToLog: 0 },
  thresholds: { high: 90, low: 80, break: null },
  timeoutMS: 20000,
  dryRunTimeoutMinutes: 20,
  ignorePatterns: ['.cache', 'data', 'dist', 'reports', 'bench', 'test/opensearch', 'test/elasticsearch', '.scratch'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: true
}
