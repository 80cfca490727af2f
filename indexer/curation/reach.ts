import { basename } from 'node:path'
import { ALL_TOPICS, DEPTH_TOPICS, type DocumentTarget, type ParseProblem, type Topic } from '../../src/model/fact.js'
import type { ReleaseCatalog, TargetSummary } from '../../src/model/catalog.js'
import type { SourceMeta } from '../../src/model/source.js'
import { CatalogIndex } from '../../src/service/catalog-index.js'

/** Topics a source kind gives through targets of its own (GPIO modes and the errata matrix only add to others). */
const KIND_TOPICS: Readonly<Record<string, Topic[]>> = {
  'cmsis-svd': ['registers'],
  'stm32-pin-data-mcu': ['pins', 'electrical'],
  'nordic-mdk-errata-header': ['errata'],
  'nxp-mcux-features-header': ['errata']
}
const PROBLEMS_KEPT = 3

/**
 * The catalog's targets: every target the adapters gave, with its fact counts and the problems its
 * source had; and, for a source that gave no target at all, a failed target in its place, named
 * by the file (`svd/STMicro/STM32F407.svd` → `STM32F407`), so the part it was for learns that its
 * source failed instead of hearing that there is none.
 */
export function catalogTargets(
  sources: readonly Pick<SourceMeta, 'path' | 'sha256' | 'kind' | 'publisher'>[],
  targets: readonly DocumentTarget[],
  problems: readonly ParseProblem[],
  counts: ReadonlyMap<string, Partial<Record<Topic, number>>>
): TargetSummary[] {
  const byFile = new Map<string, ParseProblem[]>()
  for (const p of problems) byFile.set(p.file, [...(byFile.get(p.file) ?? []), p])
  const withTarget = new Set(targets.flatMap((t) => (t.sources ?? [t]).map((x) => x.sourcePath)))
  // Real targets in key order (the facts' canonical order), then failed targets, which have no facts.
  const out: TargetSummary[] = [...targets].sort((a, b) => (a.key < b.key ? -1 : 1)).map((t) => {
    const ps = byFile.get(t.sourcePath)
    return { ...t, factCounts: counts.get(t.key) ?? {}, ...(ps ? { problems: { count: ps.length, first: ps.slice(0, PROBLEMS_KEPT) } } : {}) }
  })
  const failed: TargetSummary[] = []
  for (const s of sources) {
    const topics = KIND_TOPICS[s.kind]
    if (!topics || withTarget.has(s.path)) continue
    const first = byFile.get(s.path)?.[0] ?? { file: s.path, reason: 'the source gave no facts' }
    failed.push({
      key: `failed:${s.path}`,
      topics,
      device: basename(s.path).replace(/\.[^.]+$/, '').replace(/_erratas$/, ''),
      sourceSha256: s.sha256,
      sourcePath: s.path,
      identity: { vendor: s.publisher },
      factCounts: {},
      failure: { file: first.file, ...(first.line !== undefined ? { line: first.line } : {}), reason: first.reason }
    })
  }
  return out.concat(failed.sort((a, b) => (a.key < b.key ? -1 : 1)))
}

/** The source a target is from: its key's prefix (`svd`, `stm32-data`, `probe-rs`, `modm`). */
const sourceOf = (key: string) => key.slice(0, key.indexOf(':'))

/**
 * The reachability check over a derived catalog: every target that has facts must be what some
 * part name resolves to, for one of its topics, through the same lookups the service makes.
 * An unreachable target is a release problem: its facts would be in the release for no one.
 * A depth topic (memory, interrupts, dma, clocks), or one a cross-check rule names (pins: ST's pin
 * data served, stm32-data's checked against it), is meant to come from several sources at once,
 * each checked against the others: there a target is reached when it is its source's one target
 * of the part for that topic.
 */
export function checkReach(catalog: ReleaseCatalog): { problems: ParseProblem[]; reachable: number; total: number } {
  const ix = new CatalogIndex(catalog)
  const several = new Set<Topic>([...DEPTH_TOPICS, ...(catalog.crossCheck ?? []).map((r) => r.topic)])
  const reached = new Set<string>()
  /** Who maps to a target without resolving to it, for the problem's reason. */
  const ambiguousFrom = new Map<string, string>()
  for (const e of catalog.entities) {
    const { matches } = ix.match(e.name)
    if (matches.length !== 1 || matches[0]!.entity !== e) continue
    for (const topic of ALL_TOPICS) {
      const { choices } = ix.choices([e], topic)
      for (const c of choices) {
        const alone = several.has(topic) ? choices.every((o) => o === c || sourceOf(o.target.key) !== sourceOf(c.target.key)) : choices.length === 1
        if (alone) reached.add(c.target.key)
        else if (!ambiguousFrom.has(c.target.key)) ambiguousFrom.set(c.target.key, e.name)
      }
    }
  }
  const problems: ParseProblem[] = []
  let total = 0
  for (const t of catalog.targets) {
    if (t.failure) continue
    total++
    if (reached.has(t.key)) continue
    const amb = ambiguousFrom.get(t.key)
    problems.push({
      file: t.sourcePath,
      reason:
        `no part name resolves to target ${t.key} (device ${t.device}): ` +
        (amb ? `${amb} maps to it only together with another target` : 'no rule derives a part name from it and no curation alias names it') +
        '; add a curation alias naming the part it describes'
    })
  }
  return { problems, reachable: total - problems.length, total }
}
