import type { DocumentTarget, FactDraft } from '../../src/model/fact.js'
import { concatResults, emptyResult, type AdapterResult } from './types.js'

/**
 * One device described by several artifacts (Fujitsu's and Spansion's SVDs of the same MB9
 * devices, before and after Spansion took over Fujitsu's microcontrollers) is one target with
 * several sources, not two targets to choose between. Its facts are checked across the sources:
 * - a fact every source that gives it gives alike: one fact, every source's evidence, `agree`;
 * - a fact the sources give differently: one fact per source, scoped to it (`scope.source`),
 *   each `disagree`: no value is picked;
 * - a fact one source alone gives: as that source gives it.
 * `results` are the sources' own results, one target each, in inventory order.
 */
export function mergeSources(results: readonly AdapterResult[], keyPrefix: string): AdapterResult {
  const own = results.filter((r) => r.targets.length === 1)
  if (own.length < 2) return concatResults(results)
  const first = own[0]!.targets[0]!
  const key = `${keyPrefix}${own.map((r) => r.targets[0]!.key.slice(keyPrefix.length)).join('+')}`
  const target: DocumentTarget = {
    ...first,
    key,
    topics: [...new Set(own.flatMap((r) => r.targets[0]!.topics))].sort(),
    sources: own.map((r) => ({ sourcePath: r.targets[0]!.sourcePath, sourceSha256: r.targets[0]!.sourceSha256 }))
  }
  // Facts by topic and name, in first-seen order; per name, what each source gave.
  const byName = new Map<string, FactDraft[]>()
  for (const r of own)
    for (const f of r.facts) {
      const k = `${f.topic}\0${f.name}\0${f.scope.package ?? ''}`
      const list = byName.get(k)
      if (list) list.push(f)
      else byName.set(k, [f])
    }
  const out = emptyResult()
  out.targets.push(target)
  for (const r of results) for (const p of r.problems) out.problems.push(p)
  for (const list of byName.values()) {
    if (list.length === 1) {
      out.facts.push({ ...list[0]!, target: key })
      continue
    }
    const values = list.map((f) => JSON.stringify([f.value, { ...f.scope }]))
    if (values.every((v) => v === values[0])) {
      out.facts.push({ ...list[0]!, target: key, evidence: list.flatMap((f) => f.evidence), agreement: 'agree' })
    } else {
      for (const f of list) out.facts.push({ ...f, target: key, scope: { ...f.scope, source: f.evidence[0]!.sourcePath }, agreement: 'disagree' })
    }
  }
  return out
}
