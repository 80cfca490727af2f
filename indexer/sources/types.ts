import type { CatalogPart, DocumentTarget, FactDraft, ParseProblem, PartNumber } from '../../src/model/fact.js'
import type { SourceMeta } from '../../src/model/source.js'

/** One inventory record (`sources.json`), with its bytes already verified against `sha256`. */
export interface LoadedArtifact extends SourceMeta {
  content: Buffer
}

export interface AdapterResult {
  targets: DocumentTarget[]
  facts: FactDraft[]
  /** STM32 selector parts of the ST pin data. */
  parts: CatalogPart[]
  /** Part numbers other sources name (see PartNumber). */
  partNumbers?: PartNumber[]
  problems: ParseProblem[]
}

/**
 * A source adapter turns every artifact of its kinds into facts. It receives all of them at once
 * because some formats reference each other (an STM32 MCU file names its GPIO modes file).
 * It never throws for bad input: a file it cannot read becomes a ParseProblem.
 */
export interface SourceAdapter {
  readonly name: string
  /**
   * Bump whenever the adapter's output for the same bytes changes: with the adapter's name and
   * the sha256 of every artifact of a unit, it keys the build's parse cache (absent: '1').
   */
  readonly version?: string
  readonly kinds: readonly string[]
  parse(artifacts: readonly LoadedArtifact[]): AdapterResult
  /**
   * Groups of the artifacts that parse independently, so a build can parse them in parallel:
   * `parse` of each group, concatenated in this order, must equal `parse` of them all, but for
   * what the build checks across units: an artifact in several groups may report the same
   * problem in each (the build keeps the first), and a target key two groups give is the build's
   * to report (the first in unit order is kept).
   * Without it, all of an adapter's artifacts are one group.
   */
  units?(artifacts: readonly LoadedArtifact[]): LoadedArtifact[][]
}

export function emptyResult(): AdapterResult {
  return { targets: [], facts: [], parts: [], problems: [] }
}

/** Results of several artifacts (or groups) as one, in order. */
export function concatResults(results: Iterable<AdapterResult>): AdapterResult {
  const out = emptyResult()
  const partNumbers: PartNumber[] = []
  for (const r of results) {
    // Loops, not push(...spread): a file can yield more facts than the argument limit.
    for (const t of r.targets) out.targets.push(t)
    for (const f of r.facts) out.facts.push(f)
    for (const p of r.parts) out.parts.push(p)
    for (const p of r.partNumbers ?? []) partNumbers.push(p)
    for (const p of r.problems) out.problems.push(p)
  }
  if (partNumbers.length > 0) out.partNumbers = partNumbers
  return out
}
