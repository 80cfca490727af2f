#!/usr/bin/env node
// `npm run mutate [-- module ...] [--retest-survivors] [--missing]`: StrykerJS per module (see modules.mjs), incremental, one at a time.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { MODULES } from './modules.mjs'
import { summaryDir, writeSummary } from './report.mjs'

const root = resolve(import.meta.dirname, '..', '..')
// Module names, then Stryker options passed through (`--mutate 'file:10-90'` narrows a run to lines).
const args = process.argv.slice(2)
const asked = []
const extra = []
/**
 * Stryker's incremental mode keeps a surviving mutant's result unless a test covering it changed,
 * and it does not know which tests cover a mutant that only module-level or beforeAll code reaches
 * (a "static" one): added tests never retry those. This drops the survivors (and uncovered ones)
 * from the incremental file, so they are tried against every test again; killed ones are kept.
 */
const retest = args.includes('--retest-survivors')
/** `--missing`: the modules without a committed summary of a whole run (test/mutation/reports/), in config order. */
const missing = args.includes('--missing')
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--retest-survivors' || args[i] === '--missing') continue
  if (!args[i].startsWith('-')) asked.push(args[i])
  else extra.push(args[i], ...(args[i + 1] !== undefined && !args[i + 1].startsWith('-') && !args[i].includes('=') ? [args[++i]] : []))
}
const names = asked.length ? asked : Object.keys(MODULES).filter((n) => !missing || !existsSync(join(summaryDir, `${n}.json`)))
for (const n of names) if (!MODULES[n]) throw new Error(`unknown module ${n}; one of: ${Object.keys(MODULES).join(', ')}`)
// A module whose suites need a service: without it they skip, and every mutant would survive.
for (const n of names) for (const v of MODULES[n].requires ?? []) if (!process.env[v]) throw new Error(`module ${n} needs ${v} (see test/mutation/modules.mjs)`)

// Sandboxes live in .stryker-tmp/<sandbox>/: tests reach the corpus as ../shared from the project root.
const tmp = join(root, '.stryker-tmp')
mkdirSync(tmp, { recursive: true })
const shared = realpathSync(join(root, '..', 'shared'))
if (!existsSync(join(tmp, 'shared')) || realpathSync(join(tmp, 'shared')) !== shared) {
  rmSync(join(tmp, 'shared'), { force: true })
  symlinkSync(shared, join(tmp, 'shared'))
}

// The corpus release the suites read, built once from the unmutated code.
const built = spawnSync('npx', ['tsx', 'test/helpers/corpus-release.ts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
const corpusData = /corpus release ready in (\S+)/.exec(built.stdout ?? '')?.[1]
if (!corpusData) throw new Error(`could not build the corpus release: ${built.stdout}`)

function dropSurvivors(name) {
  const file = join(root, 'reports', 'mutation', `${name}.incremental.json`)
  if (!existsSync(file)) return
  const report = JSON.parse(readFileSync(file, 'utf8'))
  let dropped = 0
  for (const f of Object.values(report.files)) {
    const before = f.mutants.length
    f.mutants = f.mutants.filter((m) => m.status !== 'Survived' && m.status !== 'NoCoverage')
    dropped += before - f.mutants.length
  }
  writeFileSync(file, JSON.stringify(report))
  process.stdout.write(`${name}: ${dropped} surviving or uncovered mutants to try again\n`)
}

let failed = 0
for (const n of names) {
  process.stdout.write(`\n== mutate ${n}\n`)
  if (retest) dropSurvivors(n)
  const started = performance.now()
  const r = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs', ...extra], { cwd: root, stdio: 'inherit', env: { ...process.env, HWFACTS_MUTATE: n, HWFACTS_TEST_CORPUS_DATA: corpusData, HWFACTS_CORPUS_CACHE: join(root, '.cache'), ...MODULES[n].env } })
  if (r.status !== 0) failed++
  // A run narrowed by --mutate reports only part of the module: the committed summary stays the last whole run's.
  else if (extra.includes('--mutate') || extra.some((a) => a.startsWith('--mutate='))) process.stdout.write(`${n}: narrowed run, test/mutation/reports/${n}.json left as it was\n`)
  else {
    const s = writeSummary(n, MODULES[n], { seconds: (performance.now() - started) / 1000, concurrency: Number(process.env.HWFACTS_MUTATE_CONCURRENCY ?? 1) })
    process.stdout.write(`${n}: ${s.score} %, summary written to test/mutation/reports/${n}.json (commit ${s.commit.slice(0, 7)}${s.uncommittedChanges ? ' with uncommitted changes' : ''})\n`)
  }
}
process.exit(failed ? 1 : 0)
