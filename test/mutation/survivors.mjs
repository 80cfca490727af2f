#!/usr/bin/env node
// `node test/mutation/survivors.mjs <module> [file-fragment]`: the score of the last run of a module
// (reports/mutation/<module>.json) and its surviving / no-coverage mutants, one line each.
import { readRun, score } from './report.mjs'

const [name, only] = process.argv.slice(2)
if (!name) throw new Error('usage: survivors.mjs <module> [file-fragment]')
const { counts, survivors } = readRun(name)
const s = score(counts)
console.log(`${name}: ${s.percent.toFixed(1)}% (${s.killed} of ${s.valid}; ${JSON.stringify(counts)})`)
for (const l of survivors) if (!only || l.split(':')[0].includes(only)) console.log(l)
