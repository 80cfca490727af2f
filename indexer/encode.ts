import { createHash } from 'node:crypto'
import type { FactDraft, Topic } from '../src/model/fact.js'
import { factTerms } from '../src/model/fact-terms.js'
import { countTokens } from '../src/model/tokens.js'

/**
 * A fact as the release stores it, apart from what depends on the whole corpus (its `ord` and the
 * scope prefix of its terms). Computed next to the adapter that produced the fact, in a worker:
 * serializing, counting tokens and extracting terms are most of a build's work.
 */
export interface EncodedFact {
  target: string
  topic: Topic
  id: string
  /** For the problem reported when the fact names no known target. */
  name: string
  sourcePath: string
  nameKey: string
  package: string | null
  revisions: string | null
  tokens: number
  /** The fact's public JSON. */
  body: string
  /** Upper-cased, for the `peripheral` filter. */
  peripherals: string[]
  /** The fact's search terms, space-separated and not yet scoped to its target (see scopedTerms). */
  terms: string
}

/** Stable across releases: the same fact of the same target keeps its id. */
function factId(f: FactDraft): string {
  return createHash('sha256')
    .update(`${f.target}\0${f.topic}\0${f.name}\0${f.scope.package ?? ''}`)
    .digest('hex')
    .slice(0, 20)
}

/** Revision tokens for the silicon_revision filter: applicable codes, `*` when unlisted codes apply, `!code` for listed non-applicable ones. */
function revisionTokens(f: FactDraft): string | null {
  if (f.topic !== 'errata') return null
  const value = f.value as { revisions?: Array<{ code: string; applies: boolean }>; appliesToUnlistedRevisions?: boolean }
  const toks = (value.revisions ?? []).map((r) => (r.applies ? r.code : `!${r.code}`))
  if (value.appliesToUnlistedRevisions) toks.push('*')
  return ` ${toks.join(' ')} `
}

export function encodeFact(f: FactDraft): EncodedFact {
  const id = factId(f)
  const body = JSON.stringify({ id, topic: f.topic, name: f.name, value: f.value, scope: f.scope, evidence: f.evidence })
  return {
    target: f.target,
    topic: f.topic,
    id,
    name: f.name,
    sourcePath: f.evidence[0]?.sourcePath ?? '?',
    nameKey: f.name.toLowerCase(),
    package: f.scope.package ?? null,
    revisions: revisionTokens(f),
    tokens: countTokens(body),
    body,
    peripherals: (f.peripherals ?? []).map((p) => p.toUpperCase()),
    terms: factTerms(f.name, f.value).join(' ')
  }
}

/** The terms as the fts table indexes them: each one prefixed with its target and topic scope. */
export function scopedTerms(terms: string, scope: string): string {
  return terms === '' ? '' : scope + terms.replaceAll(' ', ' ' + scope)
}
