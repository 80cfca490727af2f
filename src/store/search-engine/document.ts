import { factTerms } from '../../model/fact-terms.js'
import { decodeFact } from '../fact-body.js'
import type { StoredFact } from '../sqlite/store.js'

/**
 * The engine document of one fact (mappings/facts-index.json). Terms are recomputed from the
 * body with the indexer's own function, because the SQLite fts table does not keep them.
 */
export function factDocument(r: StoredFact): Record<string, unknown> {
  const fact = decodeFact(r.body)
  const { peripherals } = r
  return {
    ord: r.ord,
    id: fact.id,
    target: r.target,
    topic: r.topic,
    name_key: r.name_key,
    ...(r.package !== null ? { package: r.package } : {}),
    ...(r.revisions !== null ? { revisions: r.revisions } : {}),
    ...(peripherals.length ? { peripherals } : {}),
    terms: factTerms(fact.name, fact.value),
    tokens: r.tokens,
    body: r.body
  }
}
