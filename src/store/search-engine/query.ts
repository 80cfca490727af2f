import { revisionApplies } from '../revisions.js'
import type { FactQuery, FactRow } from '../types.js'

/**
 * The search request for one FactQuery, shared by Elasticsearch and OpenSearch. Each clause
 * reproduces the SQLite store's SQL exactly (src/store/sqlite/store.ts), so both stores return
 * the same rows in the same order:
 * - names: `name_key IN (lowercased)`; prefixes: the same byte range (`>= p`, `< p + U+FFFF`),
 *   since keyword ranges compare UTF-8 bytes like SQLite's BINARY collation;
 * - package: a term on a field whose normalizer folds ASCII case only (COLLATE NOCASE);
 * - silicon revision: the one rule of src/store/revisions.ts, `instr()` becoming a contains-wildcard;
 * - terms: one constant-score prefix clause per query term, so _score = number of terms matched
 *   (the FTS5 prefix match counted per term), ordered by _score desc, then ord.
 */
export function factSearchBody(q: FactQuery): Record<string, unknown> {
  const filter: unknown[] = [{ term: { target: q.target } }, { term: { topic: q.topic } }]
  if (q.names.length > 0 || q.prefixes.length > 0) {
    const should: unknown[] = []
    if (q.names.length > 0) should.push({ terms: { name_key: q.names.map((n) => n.toLowerCase()) } })
    for (const p of q.prefixes) should.push({ range: { name_key: { gte: p.toLowerCase(), lt: p.toLowerCase() + '\uffff' } } })
    filter.push({ bool: { should, minimum_should_match: 1 } })
  }
  if (q.package !== undefined) filter.push({ term: { package: q.package } })
  if (q.peripheral !== undefined) filter.push({ term: { peripherals: q.peripheral } })
  if (q.siliconRevision !== undefined) filter.push(revisionClause(q.siliconRevision))

  const scored = q.terms.length > 0
  const query = scored
    ? { bool: { filter, should: q.terms.map((t) => ({ constant_score: { filter: { prefix: { terms: t } }, boost: 1 } })), minimum_should_match: 1 } }
    : { bool: { filter } }
  return {
    query,
    sort: scored ? [{ _score: 'desc' }, { ord: 'asc' }] : [{ ord: 'asc' }],
    ...(q.after ? { search_after: scored ? [q.after.score, q.after.ord] : [q.after.ord] } : {}),
    size: q.limit,
    track_total_hits: false,
    _source: ['ord', 'tokens', 'body']
  }
}

/** Lucene wildcard syntax: `*`, `?` and `\` are special. */
function literal(s: string): string {
  return s.replace(/[\\*?]/g, (c) => '\\' + c)
}

/** The revision rule (src/store/revisions.ts) as an engine query: `instr()` becomes a contains-wildcard. */
function revisionClause(code: string): unknown {
  return revisionApplies<unknown>(code, {
    isNull: { bool: { must_not: [{ exists: { field: 'revisions' } }] } },
    contains: (needle) => ({ wildcard: { revisions: { value: `*${literal(needle)}*` } } }),
    or: (...xs) => ({ bool: { should: xs, minimum_should_match: 1 } }),
    and: (a, b) => ({ bool: { filter: [a, b] } }),
    not: (a) => ({ bool: { must_not: [a] } })
  })
}

export interface SearchHit {
  _source: { ord: number; tokens: number; body: string }
  sort: number[]
}

/** FactRows from a search response; with terms, the first sort value is the matched-term count. */
export function factRows(q: FactQuery, hits: SearchHit[]): FactRow[] {
  const scored = q.terms.length > 0
  return hits.map((h) => ({ ord: h._source.ord, score: scored ? h.sort[0]! : 0, tokens: h._source.tokens, body: h._source.body }))
}
