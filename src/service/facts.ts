import { LRUCache } from 'lru-cache'
import { countTokens } from '../model/tokens.js'
import { TOPICS, type Topic } from '../model/fact.js'
import type { CatalogEntity, TargetSummary } from '../model/catalog.js'
import { queryTerms } from '../model/text.js'
import { ContextParams as ContextSchema, type CatalogPartParams, type CatalogSearchParams, type ContextParams, type PartParams, type ResolveParams } from '../schemas/params.js'
import type { FactQuery, ReleaseRepository, ReleaseStore, SourceRecord } from '../store/types.js'
import { CatalogIndex, type EntityMatch, type TargetChoice } from './catalog-index.js'
import { CursorCodec, type DecodedCursor } from './cursor.js'
import { ServiceError } from './errors.js'
import { SourceChecks } from './source-check.js'

const MAX_NAMES = 100
const DEFAULT_LIMIT = 20
const DEFAULT_MAX_TOKENS = 4000
const DEFAULT_CANDIDATES = 10
/** Every parameter that shapes a context answer, in the schema's order: the cache key. */
const CONTEXT_PARAM_KEYS = Object.keys(ContextSchema.properties) as Array<keyof ContextParams>

export interface ContextResult {
  body: string
  deprecatedRevision: boolean
}

export interface HardwareFactsOptions {
  /** Bytes of context answers kept for repeated requests; 0 turns the cache off. */
  contextCacheBytes?: number
  /** Data directory holding the source archive, re-hashed for `trust.checksumVerified`. */
  archiveRoot?: string
}

function entitySummary(e: CatalogEntity) {
  return {
    name: e.name,
    kind: e.kind,
    ...(e.package ? { package: e.package } : {}),
    ...(e.family ? { family: e.family } : {}),
    ...(e.line ? { line: e.line } : {}),
    ...(e.core ? { core: e.core } : {}),
    ...(e.flashKb !== undefined ? { flashKb: e.flashKb } : {}),
    ...(e.ramKb !== undefined ? { ramKb: e.ramKb } : {}),
    ...(e.maxFrequencyMhz !== undefined ? { maxFrequencyMhz: e.maxFrequencyMhz } : {}),
    ...(e.members ? { memberCount: e.members.length } : {})
  }
}

function targetRef(c: { target: TargetSummary; package?: string; parts?: string[] }, topic: Topic) {
  return {
    key: c.target.key,
    device: c.target.device,
    ...(c.package ? { package: c.package } : {}),
    factCount: c.target.factCounts[topic] ?? 0,
    source: { path: c.target.sourcePath, sha256: c.target.sourceSha256 },
    ...(c.parts ? { parts: c.parts.slice(0, 20), partCount: c.parts.length } : {})
  }
}

const WHY: Record<EntityMatch['how'] | 'member', string> = {
  exact: 'exact name',
  'ordering-code': 'ordering code of this selector part',
  prefix: 'name starts with the query',
  member: 'covered by the matched name'
}

type TopicResolution =
  | { status: 'resolved'; target: ReturnType<typeof targetRef> }
  | { status: 'ambiguous'; candidates: Array<ReturnType<typeof targetRef>>; candidateCount: number; hint: string }
  | { status: 'not_covered'; reason: string; availablePackages?: string[] }

/** Accepts `0x05`, `0x5`, `5`, `05` for the code the errata header writes as `0x05ul`. */
export function canonicalRevision(r: string): string {
  const m = /^(?:0x)?([0-9a-f]+)(?:ul)?$/i.exec(r.trim())
  return m ? '0x' + m[1]!.toLowerCase().replace(/^0+(?=.)/, '').padStart(2, '0') : r.trim().toLowerCase()
}

function splitList(s: string | undefined, param: string): string[] {
  if (s === undefined) return []
  const items = [...new Set(s.split(',').map((x) => x.trim()).filter((x) => x !== ''))]
  if (items.length === 0) throw new ServiceError('INVALID_PARAMETER', `${param} lists no names.`, param)
  if (items.length > MAX_NAMES) throw new ServiceError('INVALID_PARAMETER', `${param} lists ${items.length} names; at most ${MAX_NAMES} are allowed.`, param)
  return items
}

/**
 * The service layer: every capability of the REST routes and the MCP tools, over one release
 * repository. Returns plain JSON values; expected failures are ServiceErrors with stable codes.
 */
export class HardwareFacts {
  private readonly indexes = new WeakMap<ReleaseStore, CatalogIndex>()
  readonly cursors: CursorCodec
  private readonly contextCache: LRUCache<string, ContextResult> | undefined
  readonly sourceChecks: SourceChecks

  constructor(
    readonly repo: ReleaseRepository,
    cursorSecret: string,
    opts: HardwareFactsOptions = {}
  ) {
    this.cursors = new CursorCodec(cursorSecret)
    this.sourceChecks = new SourceChecks(opts.archiveRoot)
    const bytes = opts.contextCacheBytes ?? 0
    // Bodies are mostly ASCII: a string's length is close to its bytes.
    this.contextCache = bytes > 0 ? new LRUCache({ maxSize: bytes, sizeCalculation: (r, key) => r.body.length + key.length + 64 }) : undefined
  }

  /** The promoted release, or the kept one `corpus_release` names. */
  async store(corpusRelease?: string): Promise<ReleaseStore> {
    if (corpusRelease !== undefined) {
      const s = await this.repo.open(corpusRelease)
      if (!s) throw new ServiceError('UNKNOWN_CORPUS_RELEASE', `No kept corpus release has id ${corpusRelease}.`, 'corpus_release')
      return s
    }
    const id = await this.repo.promotedId()
    const s = id === undefined ? undefined : await this.repo.open(id)
    if (!s) throw new ServiceError('NOT_READY', 'No corpus release is promoted yet.')
    return s
  }

  index(store: ReleaseStore): CatalogIndex {
    let ix = this.indexes.get(store)
    if (!ix) {
      ix = new CatalogIndex(store.catalog)
      this.indexes.set(store, ix)
    }
    return ix
  }

  private topicResolution(ix: CatalogIndex, entities: CatalogEntity[], topic: Topic, limit: number, pkg?: string): { res: TopicResolution; choice?: TargetChoice } {
    const { choices, packages } = ix.choices(entities, topic, pkg)
    if (choices.length === 1) return { res: { status: 'resolved', target: targetRef(choices[0]!, topic) }, choice: choices[0]! }
    if (choices.length > 1) {
      const pkgs = [...new Set(choices.map((c) => c.package).filter(Boolean))]
      const hint =
        topic === 'pins' && pkgs.length > 1 && pkg === undefined
          ? `Several packages (${pkgs.slice(0, 8).join(', ')}${pkgs.length > 8 ? ', …' : ''}): give package=… or a full selector part.`
          : 'Several document targets match: give a full selector part or ordering code.'
      return { res: { status: 'ambiguous', candidates: choices.slice(0, limit).map((c) => targetRef(c, topic)), candidateCount: choices.length, hint } }
    }
    if (pkg !== undefined && packages.length > 0)
      return { res: { status: 'not_covered', reason: `No matching part comes in package ${pkg}.`, availablePackages: packages } }
    const reason = entities.map((e) => ix.gap(e, topic)).find((r) => r !== undefined)
    return { res: { status: 'not_covered', reason: reason ?? `No source in this release gives ${topic} facts for this part.` } }
  }

  private resolveIn(ix: CatalogIndex, q: string, limit: number, query?: string, pkg?: string) {
    const { key, matches } = ix.match(q)
    const entities = matches.map((m) => m.entity)
    const topics = {} as Record<Topic, TopicResolution>
    const choices = {} as Partial<Record<Topic, TargetChoice>>
    for (const t of TOPICS) {
      const r = this.topicResolution(ix, entities, t, limit, pkg)
      topics[t] = r.res
      if (r.choice) choices[t] = r.choice
    }
    const anyAmbiguous = TOPICS.some((t) => topics[t].status === 'ambiguous')
    const status = matches.length === 0 ? 'not_found' : anyAmbiguous || (matches.length > 1 && TOPICS.every((t) => topics[t].status !== 'resolved')) ? 'ambiguous' : 'resolved'
    // One matched group (an SVD device, a RefName): its member parts are the candidates to choose from.
    const only = matches.length === 1 ? matches[0]!.entity : undefined
    const pool: Array<{ entity: CatalogEntity; how: EntityMatch['how'] | 'member' }> =
      only?.members && status === 'ambiguous'
        ? only.members.map((m) => ix.entity(m)).filter((e): e is CatalogEntity => e !== undefined).map((entity) => ({ entity, how: 'member' as const }))
        : matches
    const ranked = [...pool].sort((a, b) => ix.score(b.entity, query) - ix.score(a.entity, query) || (a.entity.name < b.entity.name ? -1 : 1))
    return { key, matches, status, topics, choices, ranked } as const
  }

  /** The ranked candidates a client may choose from, each with why it matched. */
  private candidates(ranked: ReturnType<HardwareFacts['resolveIn']>['ranked'], limit: number) {
    return ranked.slice(0, limit).map((m) => ({ ...entitySummary(m.entity), why: WHY[m.how] }))
  }

  async resolve(p: ResolveParams) {
    const store = await this.store(p.corpus_release)
    const ix = this.index(store)
    const limit = p.candidate_limit ?? DEFAULT_CANDIDATES
    const r = this.resolveIn(ix, p.q, limit, p.query)
    const single = r.matches.length === 1 ? r.matches[0]! : undefined
    return {
      release: store.manifest.id,
      q: p.q,
      normalized: r.key,
      status: r.status,
      match: r.matches[0]?.how ?? null,
      part: single ? { ...entitySummary(single.entity), ...(single.entity.reason ? { reason: single.entity.reason } : {}) } : null,
      topics: r.topics,
      candidates: this.candidates(r.ranked, limit),
      candidateCount: r.ranked.length,
      ...(r.status === 'not_found' ? { suggestions: ix.suggestions(r.key) } : {}),
      next:
        r.status === 'not_found'
          ? 'No part has this name: check the suggestions or search the catalog with /v1/catalog/search.'
          : r.status === 'ambiguous'
            ? 'Do not pick a candidate on your own: ask for, or pass, a full selector part or ordering code (pins: or a package), then call /v1/context.'
            : 'Call /v1/context with this part and a topic whose status is resolved.'
    }
  }

  async catalogSearch(p: CatalogSearchParams) {
    const store = await this.store()
    const ix = this.index(store)
    const limit = p.candidate_limit ?? DEFAULT_CANDIDATES
    const { key, matches } = ix.match(p.q, (e) => e.kind === 'selector-part' || e.kind === 'refname')
    return {
      release: store.manifest.id,
      q: p.q,
      normalized: key,
      status: matches.length === 0 ? 'not_found' : 'found',
      match: matches[0]?.how ?? null,
      results: matches.slice(0, limit).map((m) => ({ ...entitySummary(m.entity), why: WHY[m.how], topics: Object.keys(m.entity.targets).sort() })),
      total: matches.length,
      ...(matches.length === 0 ? { suggestions: ix.suggestions(key) } : {})
    }
  }

  private sourcesOf(store: ReleaseStore, keys: Iterable<string>): Array<SourceRecord & { targets: string[]; trust: Record<string, unknown> }> {
    const ix = this.index(store)
    const byPath = new Map<string, string[]>()
    for (const k of keys) {
      const t = ix.targets.get(k)
      if (!t) continue
      const list = byPath.get(t.sourcePath) ?? []
      if (!list.includes(k)) list.push(k)
      byPath.set(t.sourcePath, list)
    }
    const checks = this.sourceChecks.of(store.manifest)
    return store.manifest.sources
      .filter((s) => byPath.has(s.path))
      .map((s) => ({
        ...s,
        targets: byPath.get(s.path)!.sort(),
        trust: {
          checksumVerified: checks.get(s.path)?.ok === true,
          checksumNote: checks.get(s.path)?.ok
            ? 'This service re-hashed the archived bytes and they match the inventory sha256.'
            : `Not verified by this service: ${checks.get(s.path)?.reason ?? 'no check was made'}.`,
          publisherDistributed: (s.distributor ?? s.publisher).startsWith(s.publisher),
          license: s.license
        }
      }))
  }

  async catalogPart(p: CatalogPartParams) {
    const { store, ix, r } = await this.lookup(p.part)
    const single = r.matches.length === 1 ? r.matches[0]!.entity : undefined
    const documents: Record<string, unknown> = {}
    for (const t of TOPICS) documents[t] = r.topics[t]
    return {
      release: store.manifest.id,
      part: single ? { ...entitySummary(single), ...(single.members ? { members: single.members } : {}), ...(single.reason ? { reason: single.reason } : {}) } : null,
      status: single ? 'found' : r.matches.length === 0 ? 'not_found' : 'ambiguous',
      match: r.matches[0]?.how ?? null,
      documents,
      sources: single ? this.sourcesOf(store, Object.values(r.choices).map((c) => c.target.key)) : [],
      ...(single ? {} : { candidates: this.candidates(r.ranked, DEFAULT_CANDIDATES), candidateCount: r.ranked.length }),
      ...(r.matches.length === 0 ? { suggestions: ix.suggestions(r.key) } : {})
    }
  }

  /** The release a request reads, its catalog index, and the part resolved in it. */
  private async lookup(part: string, corpusRelease?: string) {
    const store = await this.store(corpusRelease)
    const ix = this.index(store)
    return { store, ix, r: this.resolveIn(ix, part, DEFAULT_CANDIDATES) }
  }

  async coverage(p: PartParams) {
    const { store, ix, r } = await this.lookup(p.part, p.corpus_release)
    const topics: Record<string, unknown> = {}
    for (const t of TOPICS) {
      const res = r.topics[t]
      topics[t] = res.status === 'resolved' ? { status: 'covered', factCount: res.target.factCount, target: res.target } : res
    }
    return {
      release: store.manifest.id,
      part: p.part,
      status: r.status,
      topics,
      covered: TOPICS.filter((t) => r.topics[t].status === 'resolved'),
      notCovered: TOPICS.filter((t) => r.topics[t].status === 'not_covered'),
      ...(r.status !== 'resolved' ? { candidates: this.candidates(r.ranked, DEFAULT_CANDIDATES), candidateCount: r.ranked.length } : {}),
      ...(r.status === 'not_found' ? { suggestions: ix.suggestions(r.key) } : {})
    }
  }

  async sources(p: PartParams) {
    const { store, ix, r } = await this.lookup(p.part, p.corpus_release)
    const byTopic: Record<string, unknown> = {}
    for (const t of TOPICS) {
      const res = r.topics[t]
      byTopic[t] = res.status === 'resolved' ? { status: 'resolved', target: res.target.key, sourcePath: res.target.source.path } : res
    }
    return {
      release: store.manifest.id,
      part: p.part,
      status: r.status,
      topics: byTopic,
      sources: this.sourcesOf(store, Object.values(r.choices).map((c) => c.target.key)),
      ...(r.status === 'not_found' ? { suggestions: ix.suggestions(r.key) } : {})
    }
  }

  async release() {
    const store = await this.store()
    const m = store.manifest
    return {
      id: m.id,
      createdAt: m.createdAt,
      format: m.format,
      indexerFormat: m.indexerFormat,
      tokenizer: m.tokenizer,
      counts: m.counts,
      sourceCount: m.sources.length,
      complete: m.problems.length === 0,
      kept: await this.repo.list(),
      store: this.repo.kind
    }
  }

  /**
   * One bounded page of facts for a part and topic, as a pre-serialized JSON string: fact bodies
   * are stored serialized, so the response is assembled without re-encoding them. A release is
   * immutable and cursors are deterministic, so the same parameters on the same release always give
   * the same body: answers are kept in a byte-bounded LRU keyed by release and parameters.
   */
  async context(p: ContextParams): Promise<ContextResult> {
    if (p.revision !== undefined && p.silicon_revision !== undefined && canonicalRevision(p.revision) !== canonicalRevision(p.silicon_revision))
      throw new ServiceError('INVALID_PARAMETER', 'revision (deprecated) and silicon_revision disagree; send silicon_revision only.', 'revision')
    const decoded = p.cursor === undefined ? undefined : this.cursors.decode(p.cursor)
    if (decoded && p.corpus_release !== undefined && decoded.release !== p.corpus_release)
      throw new ServiceError('INVALID_CURSOR', `The cursor belongs to corpus release ${decoded.release}, not ${p.corpus_release}.`, 'cursor')
    // A cursor pins its release, so paging survives a promotion in between.
    let store: ReleaseStore
    try {
      store = await this.store(decoded?.release ?? p.corpus_release)
    } catch (err) {
      if (decoded && err instanceof ServiceError && err.code === 'UNKNOWN_CORPUS_RELEASE')
        throw new ServiceError('INVALID_CURSOR', `The cursor's corpus release ${decoded.release} is no longer kept.`, 'cursor')
      throw err
    }
    if (!this.contextCache) return this.contextIn(store, p, decoded)
    const key = store.manifest.id + JSON.stringify(CONTEXT_PARAM_KEYS.map((k) => p[k] ?? null))
    let r = this.contextCache.get(key)
    if (r === undefined) {
      r = await this.contextIn(store, p, decoded)
      this.contextCache.set(key, r)
    }
    return r
  }

  private async contextIn(store: ReleaseStore, p: ContextParams, decoded: DecodedCursor | undefined): Promise<ContextResult> {
    const names = splitList(p.fact_names, 'fact_names')
    const prefixes = splitList(p.fact_name_prefixes, 'fact_name_prefixes')
    const ix = this.index(store)
    const limit = p.limit ?? DEFAULT_LIMIT
    const maxTokens = p.max_tokens ?? DEFAULT_MAX_TOKENS
    const revisionParam = p.silicon_revision ?? p.revision
    const siliconRevision = revisionParam === undefined ? undefined : canonicalRevision(revisionParam)
    // Only the asked topic is resolved: the other three, and candidate ranking, are not needed here.
    const { key, matches } = ix.match(p.part)
    const notFound = matches.length === 0
    const { res: topicRes, choice } = this.topicResolution(ix, matches.map((m) => m.entity), p.topic, DEFAULT_CANDIDATES, p.package)
    const terms = p.query === undefined ? [] : queryTerms(p.query)
    const filters = {
      ...(names.length ? { factNames: names } : {}),
      ...(prefixes.length ? { factNamePrefixes: prefixes } : {}),
      ...(p.peripheral !== undefined ? { peripheral: p.peripheral.toUpperCase() } : {}),
      ...(p.package !== undefined ? { package: p.package } : {}),
      ...(siliconRevision !== undefined ? { siliconRevision } : {}),
      ...(terms.length ? { queryTerms: terms } : {})
    }
    const notes: string[] = []
    if (p.revision !== undefined) notes.push('revision is deprecated: use silicon_revision.')
    if (siliconRevision !== undefined && p.topic !== 'errata') notes.push('silicon_revision only narrows errata facts.')
    if (p.query !== undefined && terms.length === 0) notes.push('query has no searchable terms (two or more letters or digits); it was not applied.')

    const head = {
      release: store.manifest.id,
      part: p.part,
      topic: p.topic,
      status: notFound ? 'not_found' : topicRes.status === 'resolved' ? 'ok' : topicRes.status,
      ...(matches.length === 1 ? { resolvedPart: { name: matches[0]!.entity.name, kind: matches[0]!.entity.kind } } : {}),
      // Compact: the envelope's tokens come out of the client's max_tokens budget.
      target: choice ? { key: choice.target.key, device: choice.target.device, ...(choice.package ? { package: choice.package } : {}), source: { path: choice.target.sourcePath, sha256: choice.target.sourceSha256 } } : null,
      filters
    }
    const finish = (facts: string[], page: Record<string, unknown>, extra: Record<string, unknown>) =>
      JSON.stringify(head).slice(0, -1) + `,"facts":[${facts.join(',')}],"page":${JSON.stringify(page)}` + (Object.keys(extra).length ? ',' + JSON.stringify(extra).slice(1, -1) : '') + (notes.length ? `,"notes":${JSON.stringify(notes)}` : '') + '}'

    if (!choice) {
      const extra =
        notFound
          ? { suggestions: ix.suggestions(key) }
          : topicRes.status === 'ambiguous'
            ? { candidates: topicRes.candidates, candidateCount: topicRes.candidateCount, hint: topicRes.hint }
            : topicRes.status === 'not_covered'
              ? { reason: topicRes.reason, ...(topicRes.availablePackages ? { availablePackages: topicRes.availablePackages } : {}) }
              : {}
      notes.push(notFound ? 'Unknown part: no facts returned.' : topicRes.status === 'ambiguous' ? 'Ambiguous part for this topic: no facts returned; choose one candidate explicitly.' : 'This topic is not covered for this part: no facts returned.')
      return { body: finish([], { returned: 0, limit, maxTokens, tokens: 0, truncatedBy: null, nextCursor: null }, extra), deprecatedRevision: p.revision !== undefined }
    }

    const binding = CursorCodec.bind([choice.target.key, choice.package, p.topic, names.join(','), prefixes.join(','), filters.peripheral, p.package, siliconRevision, terms.join(' ')])
    if (decoded && decoded.binding !== binding) throw new ServiceError('INVALID_CURSOR', 'The cursor belongs to a different query.', 'cursor')
    const q: FactQuery = {
      target: choice.target.key,
      topic: p.topic,
      names,
      prefixes,
      ...(filters.peripheral !== undefined ? { peripheral: filters.peripheral } : {}),
      ...(choice.package !== undefined ? { package: choice.package } : {}),
      ...(p.topic === 'errata' && siliconRevision !== undefined ? { siliconRevision } : {}),
      terms,
      ...(decoded ? { after: decoded.pos } : {}),
      limit: limit + 1
    }
    const rows = await store.queryFacts(q)
    // The envelope's own tokens (with a cursor-sized placeholder) come off the budget first.
    const sampleCursor = this.cursors.encode(store.manifest.id, binding, { score: 99, ord: 9_999_999 })
    let used = countTokens(finish([], { returned: limit, limit, maxTokens, tokens: maxTokens, truncatedBy: 'max_tokens', nextCursor: sampleCursor }, {})) + 2
    const taken: string[] = []
    let last: { score: number; ord: number } | undefined
    let truncatedBy: 'limit' | 'max_tokens' | null = null
    let nextFactTokens: number | undefined
    for (const row of rows) {
      if (taken.length === limit) {
        truncatedBy = 'limit'
        break
      }
      if (used + row.tokens + 1 > maxTokens) {
        truncatedBy = 'max_tokens'
        nextFactTokens = row.tokens
        break
      }
      used += row.tokens + 1
      taken.push(row.body)
      last = { score: row.score, ord: row.ord }
    }
    const factTokens = used
    const nextCursor = truncatedBy !== null && last ? this.cursors.encode(store.manifest.id, binding, last) : null
    if (truncatedBy === 'max_tokens' && taken.length === 0)
      notes.push(`The next fact alone needs about ${nextFactTokens} tokens, more than max_tokens allows: raise max_tokens to page on.`)
    if (rows.length === 0) notes.push(decoded ? 'No more facts: this is the end of the result set.' : 'No facts match these filters.')
    const extra: Record<string, unknown> = {}
    if (nextCursor === null && truncatedBy === 'max_tokens' && decoded) extra.cursorNote = 'repeat with a larger max_tokens'
    return {
      body: finish(taken, { returned: taken.length, limit, maxTokens, tokens: factTokens, truncatedBy, nextCursor }, extra),
      deprecatedRevision: p.revision !== undefined
    }
  }
}
