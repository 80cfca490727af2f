import { terms } from './text.js'

/** Strings of a fact value, for text matching: descriptions, signals, enumerated names. */
export function collectText(v: unknown, out: string[]): void {
  if (typeof v === 'string') out.push(v)
  else if (Array.isArray(v)) for (const x of v) collectText(x, out)
  else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) collectText(x, out)
}

/**
 * The searchable terms of a fact: its name plus every string in its value. The one definition
 * every store indexes (SQLite's fts row, the search engine's `terms` field), so query terms
 * match the same facts whichever store serves them.
 */
export function factTerms(name: string, value: unknown): string[] {
  const texts = [name]
  collectText(value, texts)
  return terms(texts.join(' '))
}
