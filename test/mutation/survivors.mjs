#!/usr/bin/env node
// `node test/mutation/survivors.mjs <module> [file-fragment] [--write]`: the score of the last run of a module
// (reports/mutation/<module>.json) and its surviving / no-coverage mutants, one line each; `--write` also
// writes the committed summary of that run (test/mutation/reports/<module>.json) for HEAD's commit.
import { MODULES } from './modules.mjs'
import { readRun, score, writeSummary } from './report.mjs'

const args = process.argv.slice(2)
const [name, only] = args.filter((a) => a !== '--write')
if (!name) throw new Error('usage: survivors.mjs <module> [file-fragment] [--write]')
if (args.includes('--write')) writeSummary(name, MODULES[name])
const { counts, survivors } = readRun(name)
const s = score(counts)
console.log(`${name}: ${s.percent.toFixed(1)}% (${s.killed} of ${s.valid}; ${JSON.stringify(counts)})`)
for (const l of survivors) if (!only || l.split(':')[0].includes(only)) console.log(l)
