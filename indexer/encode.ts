import { hash } from 'node:crypto'
import type { FactDraft, Topic } from '../src/model/fact.js'
import { factTerms, valueTerms } from '../src/model/fact-terms.js'
import { countTokens, TOKENIZER } from '../src/model/tokens.js'
import { erratumColumn, type ErratumRevisions } from '../src/store/revisions.js'
import { BODY_DEFLATE_LEVEL, SCHEMA_VERSION } from '../src/store/sqlite/schema.js'

/** Bumped whenever the facts produced from the same sources change: part of every parse cache key. */
export const INDEXER_FORMAT = 3

/** Everything besides the adapters that shapes a unit's shard (with the zlib version, see unitKey). */
export const ENCODER = `indexer ${INDEXER_FORMAT}\nschema ${SCHEMA_VERSION}\ntokenizer ${TOKENIZER}\ndeflate ${BODY_DEFLATE_LEVEL}`

/**
 * A fact as a shard stores it, apart from its place in the shard (its `ord` and the scope prefix of
 * its terms). Computed next to the adapter that produced the fact, in a worker: serializing,
 * counting tokens and extracting terms are most of a build's work.
 */
export interface EncodedFact {
  target: string
  topic: Topic
  id: string
  name: string
  package: string | null
  revisions: string | null
  tokens: number
  /** The fact's public JSON. */
  body: string
  /** Upper-cased, for the `peripheral` filter. */
  peripherals: string[]
  /** The fact's search terms, space-separated and not yet scoped to its target (see writeShard). */
  terms: string
}

/** Stable across releases: the same fact of the same target keeps its id. */
function factId(f: FactDraft): string {
  // One-shot: no Hash object per fact.
  // A disagreeing source's own fact (scope.source) is told apart from the other sources' by it.
  return hash('sha256', `${f.target}\0${f.topic}\0${f.name}\0${f.scope.package ?? ''}${f.scope.source ? `\0${f.scope.source}` : ''}`, 'hex').slice(0, 20)
}

/** The silicon_revision filter's column of an errata fact (src/store/revisions.ts); null otherwise. */
function revisionTokens(f: FactDraft): string | null {
  if (f.topic !== 'errata') return null
  return erratumColumn(f.value as ErratumRevisions)
}

/** What a recurring member's piece of a body is counted as once (see encodeFact). */
interface Recurring {
  tokens: number
  /** A value's search terms (valueTerms); not kept for scopes. */
  terms?: string[]
}

/**
 * Pieces seen, by their member's JSON (the same member, the same piece). Emptied when full: kept
 * small, as some values are large (2^17 values made a world index's peak RSS 1.5 GB instead of 0.9).
 */
class Seen {
  private readonly map = new Map<string, Recurring>()
  constructor(private readonly before: string, private readonly after: string) {}

  get(json: string, make?: () => string[]): Recurring {
    let r = this.map.get(json)
    if (r === undefined) {
      if (this.map.size >= PIECES_KEPT) this.map.clear()
      r = { tokens: countTokens(this.before + json + this.after), ...(make ? { terms: make() } : {}) }
      this.map.set(json, r)
    }
    return r
  }
}
const PIECES_KEPT = 1 << 14
const values = new Seen('":', ',"scope')
const scopes = new Seen('":', ',"evidence')
const sources = new Seen('', '')

/**
 * The tokens of a body's evidence piece (`":[{…}]…}`), cut again right after each `"locator` and
 * `"excerpt` key (`,"` never occurs inside a JSON string, whose quotes are escaped). A locator's
 * piece (`":"line 12: /device/…","excerpt`) is counted alone; the others, a source's digest and
 * path, an excerpt (a derived peripheral's, a sibling device's), recur and are counted once.
 */
function evidenceTokens(tail: string): number {
  let n = 0
  let from = 0
  let locator = false
  for (;;) {
    const l = tail.indexOf(',"locator', from)
    const e = tail.indexOf(',"excerpt', from)
    const cut = l < 0 || (e >= 0 && e < l) ? e : l
    // Right after the key's name: the quote that follows a letter starts a chunk.
    const end = cut < 0 ? tail.length : cut + KEY_CUT
    const piece = tail.slice(from, end)
    n += locator ? countTokens(piece) : sources.get(piece).tokens
    if (cut < 0) return n
    locator = cut === l
    from = end
  }
}
/** `,"locator` and `,"excerpt` alike. */
const KEY_CUT = ',"locator'.length

/**
 * A fact's body, its token count and its terms. The count is the sum of the body's pieces, each cut
 * right after a member's key: a chunk of the pre-tokenizer certainly starts at a quote after a
 * letter (countTokens), so each piece counts alone as it does in the body. A recurring member's
 * piece (a register's value in a unit's derived peripherals and sibling devices, a unit's scopes)
 * is counted once, and the evidence by its own pieces (evidenceTokens):
 *   `{"id":"…","topic":"…","name":<name>,"value` `":<value>,"scope` `":<scope>,"evidence` `":<evidence>…}`
 */
export function encodeFact(f: FactDraft): EncodedFact {
  const id = factId(f)
  const name = JSON.stringify(f.name)
  const valueJson = JSON.stringify(f.value)
  const scope = JSON.stringify(f.scope)
  const value = values.get(valueJson, () => valueTerms(f.value))
  // What JSON.stringify makes of { id, topic, name, value, scope, evidence, agreement? } (id and
  // topic need no escaping).
  const head = `{"id":"${id}","topic":"${f.topic}","name":${name},"value`
  const tail = `":${JSON.stringify(f.evidence)}${f.agreement ? `,"agreement":"${f.agreement}"` : ''}}`
  return {
    target: f.target,
    topic: f.topic,
    id,
    name: f.name,
    package: f.scope.package ?? null,
    revisions: revisionTokens(f),
    tokens: countTokens(head) + value.tokens + scopes.get(scope).tokens + evidenceTokens(tail),
    body: `${head}":${valueJson},"scope":${scope},"evidence${tail}`,
    peripherals: (f.peripherals ?? []).map((p) => p.toUpperCase()),
    terms: factTerms(f.name, f.value, value.terms).join(' ')
  }
}

/**
 * One unit's facts encoded, in its shard's canonical order: targets by key, each target's topics by
 * name, each topic's facts in document order. Names are unique per target/topic/package: the first
 * statement in document order wins. Each draft is released once encoded (the array's slot is
 * emptied), so a big unit's drafts and encodings are never all held at once.
 */
export function* encodeInOrder(facts: Array<FactDraft | undefined>): Generator<EncodedFact> {
  const groups = new Map<string, Map<Topic, number[]>>()
  facts.forEach((f, i) => {
    let byTopic = groups.get(f!.target)
    if (!byTopic) groups.set(f!.target, (byTopic = new Map()))
    const list = byTopic.get(f!.topic)
    if (list) list.push(i)
    else byTopic.set(f!.topic, [i])
  })
  for (const target of [...groups.keys()].sort()) {
    const byTopic = groups.get(target)!
    for (const topic of [...byTopic.keys()].sort()) {
      const seen = new Set<string>()
      for (const i of byTopic.get(topic)!) {
        const e = encodeFact(facts[i]!)
        facts[i] = undefined
        if (seen.has(e.id)) continue
        seen.add(e.id)
        yield e
      }
    }
  }
}
