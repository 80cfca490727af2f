import type { Topic } from '../model/fact.js'
import type { FactQuery, FactRow, ReleaseStore } from '../store/types.js'
import type { TargetChoice } from './catalog-index.js'

/** Rows read per store call by readAll. */
const READ_BATCH = 5000

/**
 * Every fact of a resolved target for a topic (pins: of its package), narrowed by the store's name
 * and peripheral filters, in the store's order: what a comparison, a check or a cross-check reads whole.
 */
export async function readAll(store: ReleaseStore, choice: TargetChoice, topic: Topic, names: string[], prefixes: string[], peripheral?: string): Promise<FactRow[]> {
  const out: FactRow[] = []
  let after: FactQuery['after']
  for (;;) {
    const rows = await store.queryFacts({
      target: choice.target.key,
      topic,
      names,
      prefixes,
      ...(peripheral !== undefined ? { peripheral } : {}),
      ...(choice.package !== undefined ? { package: choice.package } : {}),
      terms: [],
      ...(after ? { after } : {}),
      limit: READ_BATCH
    })
    if (rows.length < READ_BATCH) return out.length === 0 ? rows : out.concat(rows)
    for (const r of rows) out.push(r)
    const last = rows[rows.length - 1]!
    after = { score: last.score, ord: last.ord }
  }
}
