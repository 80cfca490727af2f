import { factTerms } from '../../model/fact-terms.js'

/** One row of a release file's `facts` table. */
export interface FactRecord {
  ord: number
  id: string
  target: string
  topic: string
  name_key: string
  package: string | null
  revisions: string | null
  tokens: number
  body: string
}

/**
 * The engine document of one fact (mappings/facts-index.json). Terms are recomputed from the
 * body with the indexer's own function, because the SQLite fts table does not keep them.
 */
export function factDocument(r: FactRecord, peripherals: readonly string[]): Record<string, unknown> {
  const fact = JSON.parse(r.body) as { name: string; value: unknown }
  return {
    ord: r.ord,
    id: r.id,
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
