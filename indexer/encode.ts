import { hash } from 'node:crypto'
import type { FactDraft, Topic } from '../src/model/fact.js'
import { factTerms } from '../src/model/fact-terms.js'
import { countTokens, TOKENIZER } from '../src/model/tokens.js'
import { BODY_BLOCK_FACTS, packBodies, SCHEMA_VERSION } from '../src/store/sqlite/schema.js'

/** Bumped whenever the facts produced from the same sources change: part of every parse cache key. */
export const INDEXER_FORMAT = 2

/** Everything besides the adapters that shapes an encoded chunk. */
export const ENCODER = `indexer ${INDEXER_FORMAT}\nschema ${SCHEMA_VERSION}\ntokenizer ${TOKENIZER}`

/**
 * A fact as the release stores it, apart from what depends on the whole corpus (its `ord` and the
 * scope prefix of its terms). Computed next to the adapter that produced the fact, in a worker:
 * serializing, counting tokens and extracting terms are most of a build's work.
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
  /** The fact's search terms, space-separated and not yet scoped to its target (see writeTerms). */
  terms: string
}

/** Stable across releases: the same fact of the same target keeps its id. */
function factId(f: FactDraft): string {
  // One-shot: no Hash object per fact.
  return hash('sha256', `${f.target}\0${f.topic}\0${f.name}\0${f.scope.package ?? ''}`, 'hex').slice(0, 20)
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
    package: f.scope.package ?? null,
    revisions: revisionTokens(f),
    tokens: countTokens(body),
    body,
    peripherals: (f.peripherals ?? []).map((p) => p.toUpperCase()),
    terms: factTerms(f.name, f.value).join(' ')
  }
}

/**
 * Up to CHUNK_FACTS facts of one target and topic, in document order, as the release stores them:
 * per-fact columns, and the bodies already packed into blocks (schema.ts). What a parse worker
 * writes to the parse cache and the build copies into the release.
 */
export interface EncodedChunk {
  target: string
  topic: Topic
  names: string[]
  ids: string[]
  packages: Array<string | null>
  revisions: Array<string | null>
  tokens: number[]
  peripherals: string[][]
  /** Search terms, space-separated, not yet scoped to the target (see writeTerms). */
  terms: string[]
  /** The bodies, BODY_BLOCK_FACTS to a block. */
  blocks: Buffer[]
}

/** Facts per chunk: bounds what one message, cache record or write batch holds. */
export const CHUNK_FACTS = 256 * BODY_BLOCK_FACTS

/** Packs bodies BODY_BLOCK_FACTS at a time. */
export function packBlocks(bodies: readonly string[]): Buffer[] {
  const blocks: Buffer[] = []
  for (let i = 0; i < bodies.length; i += BODY_BLOCK_FACTS) blocks.push(packBodies(bodies.slice(i, i + BODY_BLOCK_FACTS)))
  return blocks
}

/**
 * One adapter result's facts as chunks: targets in order of first appearance, each target's topics
 * by name, each topic's facts in document order. Names are unique per target/topic/package: the
 * first statement in document order wins. Each draft is released once encoded (the array's slot
 * is emptied), so a big unit's drafts and encodings are never all held at once.
 */
export function* encodeChunks(facts: Array<FactDraft | undefined>): Generator<EncodedChunk> {
  const groups = new Map<string, Map<Topic, number[]>>()
  facts.forEach((f, i) => {
    let byTopic = groups.get(f!.target)
    if (!byTopic) groups.set(f!.target, (byTopic = new Map()))
    const list = byTopic.get(f!.topic)
    if (list) list.push(i)
    else byTopic.set(f!.topic, [i])
  })
  for (const [target, byTopic] of groups) {
    for (const topic of [...byTopic.keys()].sort()) {
      const seen = new Set<string>()
      let chunk: EncodedChunk | undefined
      let bodies: string[] = []
      const flush = () => {
        const c = chunk!
        c.blocks = packBlocks(bodies)
        chunk = undefined
        bodies = []
        return c
      }
      for (const i of byTopic.get(topic)!) {
        const e = encodeFact(facts[i]!)
        facts[i] = undefined
        if (seen.has(e.id)) continue
        seen.add(e.id)
        chunk ??= { target, topic, names: [], ids: [], packages: [], revisions: [], tokens: [], peripherals: [], terms: [], blocks: [] }
        chunk.names.push(e.name)
        chunk.ids.push(e.id)
        chunk.packages.push(e.package)
        chunk.revisions.push(e.revisions)
        chunk.tokens.push(e.tokens)
        chunk.peripherals.push(e.peripherals)
        chunk.terms.push(e.terms)
        bodies.push(e.body)
        if (bodies.length === CHUNK_FACTS) yield flush()
      }
      if (chunk) yield flush()
    }
  }
}
