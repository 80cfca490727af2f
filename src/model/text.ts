/**
 * Normalization shared by the indexer and every store, so that lookups and text matching
 * give identical answers whichever store serves them.
 */

/** Case- and punctuation-insensitive lookup key: `stm32f407v(e-g)tx` → `STM32F407VEGTX`. */
export function normalizeKey(s: string): string {
  return s.toUpperCase().replace(/[^A-Z0-9]/g, '')
}

const TERM_SPLIT = /[^a-z0-9]+/
const MAX_QUERY_TERMS = 16

/** Searchable terms of a text: lowercase alphanumeric runs, deduplicated, in first-seen order. */
export function terms(text: string): string[] {
  const out = new Set<string>()
  for (const t of text.toLowerCase().split(TERM_SPLIT)) if (t !== '') out.add(t)
  return [...out]
}

/** Terms of a client's `query`: at most MAX_QUERY_TERMS, ignoring one-letter noise. */
export function queryTerms(query: string): string[] {
  return terms(query)
    .filter((t) => t.length > 1)
    .slice(0, MAX_QUERY_TERMS)
}
