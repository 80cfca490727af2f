// The score and the surviving mutants of a module's last Stryker run (reports/mutation/<module>.json),
// and the summary of it that is committed (test/mutation/reports/<module>.json).
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { loadavg } from 'node:os'

const root = resolve(import.meta.dirname, '..', '..')
export const summaryDir = join(import.meta.dirname, 'reports')

/** Stryker's score: (killed + timed out) / (killed + timed out + survived + no coverage), one decimal. */
export function score(counts) {
  const killed = (counts.Killed ?? 0) + (counts.Timeout ?? 0)
  const valid = killed + (counts.Survived ?? 0) + (counts.NoCoverage ?? 0)
  return { killed, valid, percent: Math.round((1000 * killed) / valid) / 10 }
}

/** Counts by status and one line per surviving or uncovered mutant (in file and position order). */
export function readRun(name) {
  const report = JSON.parse(readFileSync(join(root, 'reports', 'mutation', `${name}.json`), 'utf8'))
  const counts = {}
  const left = []
  for (const file of Object.keys(report.files).sort()) {
    const { source, mutants } = report.files[file]
    const lines = source.split('\n')
    for (const m of mutants) {
      counts[m.status] = (counts[m.status] ?? 0) + 1
      if (m.status !== 'Survived' && m.status !== 'NoCoverage') continue
      const { start, end } = m.location
      const orig = start.line === end.line ? lines[start.line - 1].slice(start.column - 1, end.column - 1) : lines[start.line - 1].slice(start.column - 1) + ' …'
      left.push({ at: [start.line, start.column], line: `${file}:${start.line}:${start.column} ${m.status} ${m.mutatorName}: ${orig.trim().slice(0, 70)} → ${(m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 70)}`, file })
    }
  }
  left.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.at[0] - b.at[0] || a.at[1] - b.at[1] || (a.line < b.line ? -1 : 1)))
  return { counts, survivors: left.map((l) => l.line) }
}

/**
 * Writes the committed summary of a whole-module run: what was mutated, with which tests, on which
 * commit (and whether the work tree had uncommitted changes), the counts, the score and every survivor.
 */
export function writeSummary(name, mod, { seconds, concurrency } = {}) {
  const git = (...a) => execFileSync('git', a, { cwd: root, encoding: 'utf8' }).trim()
  const { counts, survivors } = readRun(name)
  const summary = {
    module: name,
    commit: git('rev-parse', 'HEAD'),
    // Changes to the code or tests; other modules' summaries written by the same run are not.
    uncommittedChanges: git('status', '--porcelain', '--untracked-files=no', '--', '.', ':!test/mutation/reports') !== '',
    finished: new Date().toISOString().slice(0, 16) + 'Z',
    // Unknown when written afterwards from a run's report (survivors.mjs --write).
    ...(seconds === undefined ? {} : { seconds: Math.round(seconds), concurrency }),
    loadAverage: Math.round(loadavg()[0] * 10) / 10,
    mutate: mod.mutate,
    tests: mod.tests,
    counts: Object.fromEntries(Object.entries(counts).sort()),
    score: score(counts).percent,
    survivors
  }
  mkdirSync(summaryDir, { recursive: true })
  writeFileSync(join(summaryDir, `${name}.json`), JSON.stringify(summary, null, 2) + '\n')
  return summary
}
