#!/usr/bin/env node
// `npm run mutate [-- module ...]`: StrykerJS per module (see modules.mjs), incremental, one at a time.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { MODULES } from './modules.mjs'

const root = resolve(import.meta.dirname, '..', '..')
// Module names, then Stryker options passed through (`--mutate 'file:10-90'` narrows a run to lines).
const args = process.argv.slice(2)
const asked = []
const extra = []
for (let i = 0; i < args.length; i++) {
  if (!args[i].startsWith('-')) asked.push(args[i])
  else extra.push(args[i], ...(args[i + 1] !== undefined && !args[i + 1].startsWith('-') && !args[i].includes('=') ? [args[++i]] : []))
}
const names = asked.length ? asked : Object.keys(MODULES)
for (const n of names) if (!MODULES[n]) throw new Error(`unknown module ${n}; one of: ${Object.keys(MODULES).join(', ')}`)

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

let failed = 0
for (const n of names) {
  process.stdout.write(`\n== mutate ${n}\n`)
  const r = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs', ...extra], { cwd: root, stdio: 'inherit', env: { ...process.env, HWFACTS_MUTATE: n, HWFACTS_TEST_CORPUS_DATA: corpusData, ...MODULES[n].env } })
  if (r.status !== 0) failed++
}
process.exit(failed ? 1 : 0)
