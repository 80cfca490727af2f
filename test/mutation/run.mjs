#!/usr/bin/env node
// `npm run mutate [-- module ...]`: StrykerJS per module (see modules.mjs), incremental, one at a time.
import { spawnSync } from 'node:child_process'
import { mkdirSync, realpathSync, symlinkSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { MODULES } from './modules.mjs'

const root = resolve(import.meta.dirname, '..', '..')
const asked = process.argv.slice(2).filter((a) => !a.startsWith('-'))
const extra = process.argv.slice(2).filter((a) => a.startsWith('-'))
const names = asked.length ? asked : Object.keys(MODULES)
for (const n of names) if (!MODULES[n]) throw new Error(`unknown module ${n}; one of: ${Object.keys(MODULES).join(', ')}`)

// Sandboxes live in .stryker-tmp/<sandbox>/: tests reach the corpus as ../shared from the project root.
const tmp = join(root, '.stryker-tmp')
mkdirSync(tmp, { recursive: true })
rmSync(join(tmp, 'shared'), { force: true })
symlinkSync(realpathSync(join(root, '..', 'shared')), join(tmp, 'shared'))

let failed = 0
for (const n of names) {
  process.stdout.write(`\n== mutate ${n}\n`)
  const r = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs', ...extra], { cwd: root, stdio: 'inherit', env: { ...process.env, HWFACTS_MUTATE: n, ...MODULES[n].env } })
  if (r.status !== 0) failed++
}
process.exit(failed ? 1 : 0)
