#!/usr/bin/env node
// `node test/mutation/survivors.mjs <module> [file-fragment]`: the score of the last run of a module
// (reports/mutation/<module>.json) and its surviving / no-coverage mutants, one line each.
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

const [name, only] = process.argv.slice(2)
if (!name) throw new Error('usage: survivors.mjs <module> [file-fragment]')
const root = resolve(import.meta.dirname, '..', '..')
const report = JSON.parse(readFileSync(join(root, 'reports', 'mutation', `${name}.json`), 'utf8'))

const counts = {}
const left = []
for (const [file, { source, mutants }] of Object.entries(report.files)) {
  const lines = source.split('\n')
  for (const m of mutants) {
    counts[m.status] = (counts[m.status] ?? 0) + 1
    if ((m.status === 'Survived' || m.status === 'NoCoverage') && (!only || file.includes(only))) {
      const { start, end } = m.location
      const orig = start.line === end.line ? lines[start.line - 1].slice(start.column - 1, end.column - 1) : lines[start.line - 1].slice(start.column - 1) + ' …'
      left.push(`${file}:${start.line}:${start.column} ${m.status} ${m.mutatorName}: ${orig.trim().slice(0, 70)} → ${(m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 70)}`)
    }
  }
}
const killed = (counts.Killed ?? 0) + (counts.Timeout ?? 0)
const valid = killed + (counts.Survived ?? 0) + (counts.NoCoverage ?? 0)
console.log(`${name}: ${((100 * killed) / valid).toFixed(1)}% (${killed} of ${valid}; ${JSON.stringify(counts)})`)
for (const l of left) console.log(l)
