import { terms } from './text.js'

/** Strings of a fact value, for text matching: descriptions, signals, enumerated names. */
function collectText(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v)
  else if (Array.isArray(v)) for (const x of v) collectText(x, out)
  else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) collectText(x, out)
}

/** The terms of every string in a fact's value, in first-seen order. */
export function valueTerms(value: unknown): string[] {
  const texts: string[] = []
  collectText(value, texts)
  return terms(texts.join(' '))
}

/**
 * The searchable terms of a fact: its name's, then its value's (valueTerms) not among them. The
 * one definition every store indexes (SQLite's fts row, the search engine's `terms` field), so
 * query terms match the same facts whichever store serves them.
 */
export function factTerms(name: string, value: unknown, ofValue: string[] = valueTerms(value)): string[] {
  const out = terms(name)
  if (out.length === 0) return ofValue
  const seen = new Set(out)
  for (const t of ofValue) if (!seen.has(t)) out.push(t)
  return out
}
