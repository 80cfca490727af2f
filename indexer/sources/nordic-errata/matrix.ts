/** Read stage: the nrfx errata matrix (`errata.dox`), rows cleaned from markdown/doxygen, per series and erratum. */
import type { Evidence, ParseProblem } from '../../../src/model/fact.js'
import { SourceLines } from '../evidence.js'
import type { LoadedArtifact } from '../types.js'
import type { ErrataHandling, NordicErrataStats } from './types.js'

// ---------------------------------------------------------------------------------------------
// errata.dox (nrfx errata matrix)

export interface MatrixEntry {
  series: string
  number: number
  rows: { line: number; handling: ErrataHandling }[]
  text: SourceLines
  artifact: LoadedArtifact
}

export const MATRIX_COLUMNS = ['series', 'erratum', 'handling', 'affected module', 'affected function(s)', 'comment']

export function parseMatrix(a: LoadedArtifact, out: Map<string, MatrixEntry>, problems: ParseProblem[], stats: NordicErrataStats): boolean {
  const text = a.content.toString('utf8')
  const sl = new SourceLines(text)
  const lines = text.split(/\r?\n/)
  const headerIdx = lines.findIndex((l) => /^\s*\|\s*Series\s*\|/i.test(l))
  if (headerIdx === -1) {
    problems.push({ file: a.path, reason: 'no errata matrix table (| Series | Erratum | ... |) found' })
    return false
  }
  const header = splitRow(lines[headerIdx] ?? '').map((c) => c.toLowerCase())
  // The column meanings are taken from the header; a different layout is not guessed at.
  if (header.length !== MATRIX_COLUMNS.length || header.some((c, i) => c !== MATRIX_COLUMNS[i])) {
    problems.push({ file: a.path, line: headerIdx + 1, reason: `unexpected matrix columns: ${header.join(' | ')}` })
    return false
  }
  for (let i = headerIdx + 1; i < lines.length; i++) {
    const raw = lines[i] ?? ''
    if (!raw.trim().startsWith('|')) break
    if (/^\s*\|[\s:|-]*\|\s*$/.test(raw)) continue // the |:---:|...| separator
    const lineNo = i + 1
    const cells = splitRow(raw)
    if (cells.length !== MATRIX_COLUMNS.length) {
      problems.push({ file: a.path, line: lineNo, reason: `matrix row has ${cells.length} cells, expected ${MATRIX_COLUMNS.length}` })
      continue
    }
    const [series, num, handling, module, functions, comment] = cells as [string, string, string, string, string, string]
    if (!/^NRF\w+$/.test(series) || !/^\d+$/.test(num)) {
      problems.push({ file: a.path, line: lineNo, reason: `matrix row without a series/erratum number: ${raw.trim()}` })
      continue
    }
    stats.matrixRows++
    const row: ErrataHandling = {
      handling: cleanDoc(handling),
      module: cleanDoc(module) || null,
      functions: splitFunctions(functions),
      comment: cleanDoc(comment) || null
    }
    const key = `${series}:${Number(num)}`
    let entry = out.get(key)
    if (!entry) {
      entry = { series, number: Number(num), rows: [], text: sl, artifact: a }
      out.set(key, entry)
    }
    if (entry.rows.some((r) => JSON.stringify(r.handling) === JSON.stringify(row))) {
      stats.matrixDuplicateRows++
      continue
    }
    entry.rows.push({ line: lineNo, handling: row })
  }
  return true
}

export function splitRow(line: string): string[] {
  const t = line.trim().replace(/^\|/, '').replace(/\|$/, '')
  return t.split('|').map((c) => c.trim())
}

/** Doxygen/markdown to plain text: `**driver**` → driver, `@ref x` → x, `@tagRedCross` → to be implemented. */
export function cleanDoc(s: string): string {
  return s
    .replace(/@tagRedCross(NoCenter)?\b/g, 'to be implemented')
    .replace(/@ref\s+/g, '')
    .replace(/\*\*(.+?)\*\*/g, '$1')
    .replace(/\s+/g, ' ')
    .trim()
}

/** `@ref a @ref b` → [a, b]; a cell that is not a plain list of identifiers stays one entry. */
export function splitFunctions(cell: string): string[] {
  const cleaned = cleanDoc(cell)
  if (cleaned === '') return []
  const parts = cleaned.split(' ')
  return parts.every((p) => /^[A-Za-z_]\w*(\(\))?$/.test(p)) ? parts : [cleaned]
}

export function matrixEvidence(e: MatrixEntry): Evidence {
  const lines = e.rows.map((r) => r.line)
  const first = lines[0] ?? 1
  // Rows of one erratum are adjacent in practice; quote the adjacent run from the first row.
  let run = 1
  while (lines[run] === first + run) run++
  const where = lines.length === 1 ? `line ${first}` : run === lines.length ? `lines ${first}-${first + run - 1}` : `lines ${lines.join(', ')}`
  return {
    sourceSha256: e.artifact.sha256,
    sourcePath: e.artifact.path,
    locator: `${where}: | ${e.series} | ${e.number} | …`,
    excerpt: e.text.excerpt(first, run)
  }
}
