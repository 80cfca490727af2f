import { LRUCache } from 'lru-cache'
import { countTokens } from '../model/tokens.js'
import type { Topic } from '../model/fact.js'
import { DEPTH_VERSION, LATEST_VERSION, reaches, SEED_VERSION, VERSION_TOPICS, type ContractVersion } from '../model/versions.js'
import type { CatalogEntity, TargetSummary } from '../model/catalog.js'
import { queryTerms } from '../model/text.js'
import { ContextParams as ContextSchema, type CatalogPartParams, type CatalogSearchParams, type ContextParams, type PartParams, type ResolveParams } from '../schemas/params.js'
import type { DiscrepanciesParams } from '../schemas/discrepancies.js'
import type { ContextResponse } from '../schemas/responses.js'
import type { FactQuery, ReleaseRepository, ReleaseStore, SourceRecord } from '../store/types.js'
import { CatalogIndex, type EntityMatch, type TargetChoice } from './catalog-index.js'
import { crossCheck, crossCheckedRow, planCrossCheck, type CrossCheckResult, type CrossPlan, type Discrepancy } from './cross-check.js'
import { CursorCodec, type DecodedCursor } from './cursor.js'
import { ServiceError } from './errors.js'
import { SourceChecks } from './source-check.js'
import { TokenPager, type Page, type PageHead } from './pager.js'

const MAX_NAMES = 100
const DEFAULT_LIMIT = 20
const DEFAULT_MAX_TOKENS = 4000
const DEFAULT_CANDIDATES = 10
/** The topics answers list when the caller names none: the seed contract's. */
const SEED_TOPICS = VERSION_TOPICS[SEED_VERSION]
/** Cross-checked sources (the checked ones' evidence, `agreement`, `crossCheck`) came with 2026-12-01: an earlier version is served the first source of a rule alone. */
const crossChecksIn = (v: ContractVersion) => reaches(v, DEPTH_VERSION)
/** Every parameter that shapes a context answer, in the schema's order: the cache key. */
const CONTEXT_PARAM_KEYS = Object.keys(ContextSchema.properties) as Array<keyof ContextParams>

/** An answer's cache key: what answers (route and release) and every parameter, in a fixed order. */
const answerKey = (route: string, release: string, keys: readonly string[], p: Record<string, unknown>) => `${route}\0${release}\0${JSON.stringify(keys.map((k) => p[k] ?? null))}`

export interface ContextResult {
  body: string
  deprecatedRevision: boolean
}

/** Who reads: the release list of the caller's API key; null for in-process callers without a key. */
export interface ReleaseReader {
  readonly releases: readonly string[]
}

export interface HardwareFactsOptions {
  /** Bytes of answers kept for repeated requests (context, resolve, coverage, catalog search); 0 turns the cache off. */
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

export function targetRef(c: { target: TargetSummary; package?: string; parts?: string[] }, topic: Topic) {
  return {
    key: c.target.key,
    device: c.target.device,
    ...(c.package ? { package: c.package } : {}),
    factCount: c.target.factCounts[topic] ?? 0,
    source: { path: c.target.sourcePath, sha256: c.target.sourceSha256 },
    ...(c.target.failure ? { failure: c.target.failure } : {}),
    ...(c.target.problems ? { sourceProblems: c.target.problems } : {}),
    ...(c.parts ? { parts: c.parts.slice(0, 20), partCount: c.parts.length } : {})
  }
}

const WHY: Record<EntityMatch['how'] | 'member', string> = {
  exact: 'exact name',
  'ordering-code': 'ordering code of this selector part',
  prefix: 'name starts with the query',
  member: 'covered by the matched name'
}

/** Which sources of a cross-checked topic are checked against the served one. */
function crossCheckRef(plan: CrossPlan, topic: Topic) {
  return {
    reason: plan.reason,
    checked: plan.checked.map((c) => ({ key: c.target.key, device: c.target.device, factCount: c.target.factCounts[topic] ?? 0, source: { path: c.target.sourcePath, sha256: c.target.sourceSha256 } })),
    ...(plan.unchecked.length ? { unchecked: plan.unchecked } : {})
  }
}

/** What a cross-check found over the whole topic: facts agreeing, disagreeing, and per checked target those matching none served. */
const crossCounts = (cross: CrossCheckResult) => ({
  agree: cross.agree,
  disagree: cross.disagree,
  onlyChecked: Object.fromEntries(Object.entries(cross.onlyChecked).map(([k, v]) => [k, v.length]))
})

export type TopicResolution =
  | { status: 'resolved'; target: ReturnType<typeof targetRef>; crossCheck?: ReturnType<typeof crossCheckRef> }
  | { status: 'ambiguous'; candidates: Array<ReturnType<typeof targetRef>>; candidateCount: number; hint: string }
  | { status: 'not_covered'; reason: string; availablePackages?: string[] }
  | { status: 'source_failed'; reason: string; failures: Array<{ file: string; line?: number; reason: string }> }

/** One topic of a part: how it resolves, the target chosen, and the cross-check plan where several kinds of source give it. */
export interface TopicAnswer {
  res: TopicResolution
  choice?: TargetChoice
  plan?: CrossPlan
}

/** Accepts `0x05`, `0x5`, `5`, `05` for the code the errata header writes as `0x05ul`. */
export function canonicalRevision(r: string): string {
  const m = /^(?:0x)?([0-9a-f]+)(?:ul)?$/i.exec(r.trim())
  return m ? '0x' + m[1]!.toLowerCase().replace(/^0+(?=.)/, '').padStart(2, '0') : r.trim().toLowerCase()
}

export function splitList(s: string | undefined, param: string): string[] {
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
  /** Answers as UTF-8 JSON, keyed by answerKey: a release is immutable, so an answer never goes stale. */
  private readonly answers: LRUCache<string, Buffer> | undefined
  readonly sourceChecks: SourceChecks

  constructor(
    readonly repo: ReleaseRepository,
    cursorSecret: string,
    opts: HardwareFactsOptions = {}
  ) {
    this.cursors = new CursorCodec(cursorSecret)
    this.sourceChecks = new SourceChecks(opts.archiveRoot)
    const bytes = opts.contextCacheBytes ?? 0
    this.answers = bytes > 0 ? new LRUCache({ maxSize: bytes, sizeCalculation: (body, key) => body.length + key.length + 64 }) : undefined
  }

  /**
   * The promoted release, or the kept one `corpus_release` (or a cursor, `param`) names, if the
   * reader may read it: the promoted release always, also named by its id; another one only when
   * the key lists it, or lists `*` and the release is complete (a partial release, never promotable
   * without --allow-partial, is served only to a key that names it).
   */
  async store(corpusRelease?: string, reader?: ReleaseReader | null, param = 'corpus_release'): Promise<ReleaseStore> {
    const promoted = await this.repo.promotedId()
    if (corpusRelease !== undefined && corpusRelease !== promoted) {
      const named = !reader || reader.releases.includes(corpusRelease)
      const forbidden = (why: string) => new ServiceError('FORBIDDEN', `This API key may not read corpus release ${corpusRelease}${why}.`, param)
      if (!named && !reader.releases.includes('*')) throw forbidden('')
      const s = await this.repo.open(corpusRelease)
      if (!s) throw new ServiceError('UNKNOWN_CORPUS_RELEASE', `No kept corpus release has id ${corpusRelease}.`, param)
      if (!named && s.manifest.problems.length > 0) throw forbidden(': it is a partial release, served only to keys that name it')
      return s
    }
    const s = promoted === undefined ? undefined : await this.repo.open(promoted)
    if (!s) throw new ServiceError('NOT_READY', 'No corpus release is promoted yet.')
    return s
  }

  /**
   * The release a request reads, and its cursor decoded: a cursor pins its release, so paging
   * survives a promotion in between, and the key must be allowed to read that release, as if it
   * had been named with corpus_release; without a cursor, corpus_release's or the promoted one.
   */
  async storeOf(p: { corpus_release?: string; cursor?: string }, reader?: ReleaseReader | null): Promise<{ store: ReleaseStore; decoded: DecodedCursor | undefined }> {
    const decoded = p.cursor === undefined ? undefined : this.cursors.decode(p.cursor)
    if (!decoded) return { store: await this.store(p.corpus_release, reader), decoded }
    if (p.corpus_release !== undefined && decoded.release !== p.corpus_release)
      throw new ServiceError('INVALID_CURSOR', `The cursor belongs to corpus release ${decoded.release}, not ${p.corpus_release}.`, 'cursor')
    try {
      return { store: await this.store(decoded.release, reader, 'cursor'), decoded }
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'UNKNOWN_CORPUS_RELEASE') throw new ServiceError('INVALID_CURSOR', `The cursor's corpus release ${decoded.release} is no longer kept.`, 'cursor')
      throw err
    }
  }

  /**
   * Opens the promoted release and builds its catalog index now, at start, so the first request
   * does not pay for it (about a second for the wide corpus). Without a promoted release: nothing.
   */
  async warm(): Promise<void> {
    const id = await this.repo.promotedId()
    const s = id === undefined ? undefined : await this.repo.open(id)
    if (s) this.index(s)
  }

  index(store: ReleaseStore): CatalogIndex {
    let ix = this.indexes.get(store)
    if (!ix) {
      ix = new CatalogIndex(store.catalog, store.manifest.sources)
      this.indexes.set(store, ix)
    }
    return ix
  }

  /**
   * An answer of the release a request reads, as JSON text: from the answer cache, else made,
   * serialized and kept. A release is immutable and every answer is a function of it and the
   * parameters (`keys`, the route's whole parameter set), so a repeated request gets the same
   * bytes; errors are thrown, never kept. The caller serializes (the REST route with its schema).
   */
  async answer<P extends { corpus_release?: string; cursor?: string }, T>(
    route: string,
    keys: readonly string[],
    p: P,
    reader: ReleaseReader | null | undefined,
    make: (store: ReleaseStore) => T | Promise<T>,
    serialize: (v: T) => string
  ): Promise<string> {
    const { store } = await this.storeOf(p, reader)
    return this.cached(() => answerKey(route, store.manifest.id, keys, p), async () => serialize(await make(store)))
  }

  /**
   * From the answer cache when there is one, else made (and kept); the key is made only for the
   * cache. Answers are kept as UTF-8 outside the JavaScript heap, each in a buffer of its own size:
   * the cache's bound is then its real footprint (a body with one non-Latin-1 character, such as a
   * cut excerpt's "…", is a two-byte string in V8, twice its length), and the answers it evicts
   * leave the old generation's collector small wrappers instead of the bodies themselves.
   */
  private async cached(key: () => string, make: () => Promise<string>): Promise<string> {
    if (!this.answers) return make()
    const k = key()
    const kept = this.answers.get(k)
    if (kept !== undefined) return kept.toString('utf8')
    const body = await make()
    const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(body))
    bytes.write(body)
    this.answers.set(k, bytes)
    return body
  }

  /**
   * Resolutions of one matched entity without a package, by topic and limit: they depend on the
   * entity alone (its release's catalog is immutable), and most requests name one part. Shared:
   * callers never change what they get.
   */
  private readonly resolutions = new WeakMap<CatalogEntity, Map<string, TopicAnswer>>()

  /** One topic's resolution for matched entities (also used by compare). */
  topicResolution(ix: CatalogIndex, entities: CatalogEntity[], topic: Topic, limit: number, pkg?: string, checks = true): TopicAnswer {
    if (entities.length !== 1 || pkg !== undefined) return this.resolveTopic(ix, entities, topic, limit, pkg, checks)
    let byTopic = this.resolutions.get(entities[0]!)
    if (!byTopic) this.resolutions.set(entities[0]!, (byTopic = new Map()))
    const key = `${topic}\0${limit}\0${checks}`
    let r = byTopic.get(key)
    if (!r) byTopic.set(key, (r = this.resolveTopic(ix, entities, topic, limit, undefined, checks)))
    return r
  }

  /** `checks`: whether the caller's version cross-checks a topic several kinds of source give (else the first kind is served alone). */
  private resolveTopic(ix: CatalogIndex, entities: CatalogEntity[], topic: Topic, limit: number, pkg: string | undefined, checks: boolean): TopicAnswer {
    const { choices: found, packages } = ix.choices(entities, topic, pkg)
    let choices = found
    // The source exists but could not be read: that is not "no source" (not_covered).
    if (choices.length > 0 && choices.every((c) => c.target.failure)) {
      const failures = choices.map((c) => c.target.failure!)
      return { res: { status: 'source_failed', reason: `A source for ${topic} facts of this part is in this release but could not be read: ${failures.map((f) => `${f.file}${f.line ? ` line ${f.line}` : ''}: ${f.reason}`).join('; ')}`, failures } }
    }
    const rule = choices.length > 1 ? ix.crossCheckRule(topic) : undefined
    if (rule) {
      const { plan, leads } = planCrossCheck(choices.filter((c) => !c.target.failure), rule, (c) => ix.kindOf(c.target))
      if (plan && !checks) return { res: { status: 'resolved', target: targetRef(plan.served, topic) }, choice: plan.served }
      if (plan) return { res: { status: 'resolved', target: targetRef(plan.served, topic), crossCheck: crossCheckRef(plan, topic) }, choice: plan.served, plan }
      // A target only checked against another is never served: it is no candidate either.
      choices = choices.filter((c) => c.target.failure || leads.includes(c))
    }
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

  /** The part resolved for each topic of `list` (the topics of the caller's contract version), and its status over them. */
  private resolveIn(ix: CatalogIndex, q: string, limit: number, version: ContractVersion, query?: string) {
    const list = VERSION_TOPICS[version]
    const { key, matches } = ix.match(q)
    const entities = matches.map((m) => m.entity)
    const topics = {} as Record<Topic, TopicResolution>
    const choices = {} as Partial<Record<Topic, TargetChoice>>
    const checked = new Set<string>()
    for (const t of list) {
      const r = this.topicResolution(ix, entities, t, limit, undefined, crossChecksIn(version))
      topics[t] = r.res
      if (r.choice) choices[t] = r.choice
      for (const c of r.plan?.checked ?? []) checked.add(c.target.key)
    }
    const anyAmbiguous = list.some((t) => topics[t].status === 'ambiguous')
    // An ordering code two parts could own is ambiguous even where their targets agree: the part differs.
    const twoOwners = matches.length > 1 && matches[0]!.how === 'ordering-code'
    const status = matches.length === 0 ? 'not_found' : anyAmbiguous || twoOwners || (matches.length > 1 && list.every((t) => topics[t].status !== 'resolved')) ? 'ambiguous' : 'resolved'
    // One matched group (an SVD device, a RefName): its member parts are the candidates to choose from.
    const only = matches.length === 1 ? matches[0]!.entity : undefined
    const pool: Array<{ entity: CatalogEntity; how: EntityMatch['how'] | 'member' }> =
      only?.members && status === 'ambiguous'
        ? only.members.map((m) => ix.entity(m)).filter((e): e is CatalogEntity => e !== undefined).map((entity) => ({ entity, how: 'member' as const }))
        : matches
    const ranked = [...pool].sort((a, b) => ix.score(b.entity, query) - ix.score(a.entity, query) || (a.entity.name < b.entity.name ? -1 : 1))
    // Every target the answer rests on: the chosen ones, and those checked against them.
    const targetKeys = [...new Set([...Object.values(choices).map((c) => c.target.key), ...checked])]
    return { key, matches, status, topics, choices, targetKeys, ranked } as const
  }

  /** Ranked candidates a client may choose from, each with why it matched. */
  private candidates(ranked: ReturnType<HardwareFacts['resolveIn']>['ranked']) {
    return ranked.map((m) => ({ ...entitySummary(m.entity), why: WHY[m.how] }))
  }

  /** `version`: the caller's contract version (src/model/versions.ts), whose topics are listed, in its order. */
  async resolve(p: ResolveParams, reader?: ReleaseReader | null, version: ContractVersion = SEED_VERSION) {
    return this.resolveOn((await this.storeOf(p, reader)).store, p, version)
  }

  /** resolve() in a release already chosen. */
  resolveOn(store: ReleaseStore, p: ResolveParams, version: ContractVersion = SEED_VERSION) {
    const ix = this.index(store)
    const limit = p.candidate_limit ?? DEFAULT_CANDIDATES
    const r = this.resolveIn(ix, p.q, limit, version, p.query)
    const single = r.matches.length === 1 ? r.matches[0]! : undefined
    const { items, page } = this.cursors.listPage(r.ranked, limit, store.manifest.id, CursorCodec.bind(['resolve', r.key, p.query]), p.cursor)
    return {
      release: store.manifest.id,
      q: p.q,
      normalized: r.key,
      status: r.status,
      match: r.matches[0]?.how ?? null,
      part: single ? { ...entitySummary(single.entity), ...(single.entity.reason ? { reason: single.entity.reason } : {}) } : null,
      topics: r.topics,
      candidates: this.candidates(items),
      candidateCount: r.ranked.length,
      page,
      ...(r.status === 'not_found' ? { suggestions: ix.suggestions(r.key) } : {}),
      next:
        r.status === 'not_found'
          ? 'No part has this name: check the suggestions or search the catalog with /v1/catalog/search.'
          : r.status === 'ambiguous'
            ? 'Do not pick a candidate on your own: ask for, or pass, a full selector part or ordering code (pins: or a package), then call /v1/context.'
            : 'Call /v1/context with this part and a topic whose status is resolved.'
    }
  }

  async catalogSearch(p: CatalogSearchParams, reader?: ReleaseReader | null, topics = SEED_TOPICS) {
    return this.catalogSearchOn((await this.storeOf(p, reader)).store, p, topics)
  }

  /** catalogSearch() in a release already chosen. */
  catalogSearchOn(store: ReleaseStore, p: CatalogSearchParams, topics = SEED_TOPICS) {
    const ix = this.index(store)
    const limit = p.candidate_limit ?? DEFAULT_CANDIDATES
    const { key, matches } = ix.match(p.q, (e) => e.kind === 'selector-part' || e.kind === 'refname')
    const { items, page } = this.cursors.listPage(matches, limit, store.manifest.id, CursorCodec.bind(['catalog/search', key]), p.cursor)
    return {
      release: store.manifest.id,
      q: p.q,
      normalized: key,
      status: matches.length === 0 ? 'not_found' : 'found',
      match: matches[0]?.how ?? null,
      results: items.map((m) => ({ ...entitySummary(m.entity), why: WHY[m.how], topics: topics.filter((t) => t in m.entity.targets).sort() })),
      total: matches.length,
      page,
      ...(matches.length === 0 ? { suggestions: ix.suggestions(key) } : {})
    }
  }

  private async sourcesOf(store: ReleaseStore, keys: Iterable<string>): Promise<Array<SourceRecord & { targets: string[]; trust: Record<string, unknown> }>> {
    const ix = this.index(store)
    const byPath = new Map<string, string[]>()
    for (const k of keys) {
      const t = ix.targets.get(k)
      if (!t) continue
      for (const { sourcePath } of t.sources ?? [t]) {
        const list = byPath.get(sourcePath) ?? []
        if (!list.includes(k)) list.push(k)
        byPath.set(sourcePath, list)
      }
    }
    const checks = await this.sourceChecks.of(store.manifest)
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

  async catalogPart(p: CatalogPartParams, version: ContractVersion = SEED_VERSION) {
    const topics = VERSION_TOPICS[version]
    const { store, ix, r } = await this.lookup(p.part, version)
    const single = r.matches.length === 1 ? r.matches[0]!.entity : undefined
    const documents: Record<string, unknown> = {}
    for (const t of topics) documents[t] = r.topics[t]
    return {
      release: store.manifest.id,
      part: single ? { ...entitySummary(single), ...(single.members ? { members: single.members } : {}), ...(single.reason ? { reason: single.reason } : {}) } : null,
      status: single ? 'found' : r.matches.length === 0 ? 'not_found' : 'ambiguous',
      match: r.matches[0]?.how ?? null,
      documents,
      sources: single ? await this.sourcesOf(store, r.targetKeys) : [],
      ...(single ? {} : { candidates: this.candidates(r.ranked.slice(0, DEFAULT_CANDIDATES)), candidateCount: r.ranked.length }),
      ...(r.matches.length === 0 ? { suggestions: ix.suggestions(r.key) } : {})
    }
  }

  /** The release a request reads, its catalog index, and the part resolved in it. */
  private async lookup(part: string, version: ContractVersion, corpusRelease?: string, reader?: ReleaseReader | null) {
    const store = await this.store(corpusRelease, reader)
    const ix = this.index(store)
    return { store, ix, r: this.resolveIn(ix, part, DEFAULT_CANDIDATES, version) }
  }

  async coverage(p: PartParams, reader?: ReleaseReader | null, version: ContractVersion = SEED_VERSION) {
    return this.coverageOn(await this.store(p.corpus_release, reader), p, version)
  }

  /** coverage() in a release already chosen. */
  coverageOn(store: ReleaseStore, p: PartParams, version: ContractVersion = SEED_VERSION) {
    const ix = this.index(store)
    const list = VERSION_TOPICS[version]
    const r = this.resolveIn(ix, p.part, DEFAULT_CANDIDATES, version)
    const topics: Record<string, unknown> = {}
    for (const t of list) {
      const res = r.topics[t]
      topics[t] = res.status === 'resolved' ? { status: 'covered', factCount: res.target.factCount, target: res.target, ...(res.crossCheck ? { crossCheck: res.crossCheck } : {}) } : res
    }
    const withStatus = (s: TopicResolution['status']) => list.filter((t) => r.topics[t].status === s)
    return {
      release: store.manifest.id,
      part: p.part,
      status: r.status,
      topics,
      covered: withStatus('resolved'),
      notCovered: withStatus('not_covered'),
      ...(withStatus('source_failed').length ? { sourceFailed: withStatus('source_failed') } : {}),
      ...(r.status !== 'resolved' ? { candidates: this.candidates(r.ranked.slice(0, DEFAULT_CANDIDATES)), candidateCount: r.ranked.length } : {}),
      ...(r.status === 'not_found' ? { suggestions: ix.suggestions(r.key) } : {})
    }
  }

  async sources(p: PartParams, reader?: ReleaseReader | null, version: ContractVersion = SEED_VERSION) {
    const topics = VERSION_TOPICS[version]
    const { store, ix, r } = await this.lookup(p.part, version, p.corpus_release, reader)
    const byTopic: Record<string, unknown> = {}
    for (const t of topics) {
      const res = r.topics[t]
      byTopic[t] = res.status === 'resolved' ? { status: 'resolved', target: res.target.key, sourcePath: res.target.source.path, ...(res.crossCheck ? { crossCheck: res.crossCheck } : {}) } : res
    }
    return {
      release: store.manifest.id,
      part: p.part,
      status: r.status,
      topics: byTopic,
      sources: await this.sourcesOf(store, r.targetKeys),
      ...(r.status === 'not_found' ? { suggestions: ix.suggestions(r.key) } : {})
    }
  }

  async discrepancies(p: DiscrepanciesParams, reader?: ReleaseReader | null) {
    return this.discrepanciesOn(await this.store(p.corpus_release, reader), p)
  }

  /** A part's disagreements between the sources of its cross-checked topics, paged. */
  async discrepanciesOn(store: ReleaseStore, p: DiscrepanciesParams) {
    const ix = this.index(store)
    const { key, matches } = ix.match(p.part)
    const entities = matches.map((m) => m.entity)
    const topics = p.topic ? [p.topic] : (ix.catalog.crossCheck ?? []).map((r) => r.topic)
    const checked: Array<Record<string, unknown>> = []
    const found: Discrepancy[] = []
    const notes: string[] = []
    for (const topic of matches.length === 1 ? topics : []) {
      const { res, plan } = this.topicResolution(ix, entities, topic, DEFAULT_CANDIDATES)
      if (!plan?.checked.length) {
        notes.push(`${topic}: ${res.status === 'resolved' ? `one source (${res.target.key}), nothing to check it against` : res.status === 'ambiguous' ? 'several targets match, none is picked: name a full selector part' : `not covered (${res.reason})`}.`)
        continue
      }
      const cross = await this.crossChecked(store, topic, plan)
      checked.push({ topic, target: plan.served.target.key, ...crossCheckRef(plan, topic), ...crossCounts(cross) })
      found.push(...cross.discrepancies)
    }
    if (matches.length > 1) notes.push('Several parts match: name one (resolve it first).')
    const limit = p.limit ?? DEFAULT_LIMIT
    const { items, page } = this.cursors.listPage(found, limit, store.manifest.id, CursorCodec.bind(['discrepancies', key, p.topic]), p.cursor)
    return {
      release: store.manifest.id,
      part: p.part,
      status: matches.length === 0 ? 'not_found' : matches.length === 1 ? 'resolved' : 'ambiguous',
      ...(matches.length === 1 ? { resolvedPart: { name: matches[0]!.entity.name, kind: matches[0]!.entity.kind } } : {}),
      checked,
      discrepancies: items,
      count: found.length,
      page,
      notes,
      ...(matches.length === 0 ? { suggestions: ix.suggestions(key) } : {})
    }
  }

  /** The promoted release; its facts per topic for `topics` only. */
  async release(topics = SEED_TOPICS) {
    const store = await this.store()
    const m = store.manifest
    return {
      id: m.id,
      createdAt: m.createdAt,
      format: m.format,
      indexerFormat: m.indexerFormat,
      tokenizer: m.tokenizer,
      counts: { ...m.counts, byTopic: Object.fromEntries(topics.flatMap((t) => (m.counts.byTopic[t] === undefined ? [] : [[t, m.counts.byTopic[t]]]))) },
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
  /** `version`: the caller's contract version; in-process callers (MCP) get the latest. */
  async context(p: ContextParams, reader?: ReleaseReader | null, version: ContractVersion = LATEST_VERSION): Promise<ContextResult> {
    if (p.revision !== undefined && p.silicon_revision !== undefined && canonicalRevision(p.revision) !== canonicalRevision(p.silicon_revision))
      throw new ServiceError('INVALID_PARAMETER', 'revision (deprecated) and silicon_revision disagree; send silicon_revision only.', 'revision')
    const { store, decoded } = await this.storeOf(p, reader)
    const deprecatedRevision = p.revision !== undefined
    const checks = crossChecksIn(version)
    const body = await this.cached(() => answerKey(`context@${checks}`, store.manifest.id, CONTEXT_PARAM_KEYS, p), () => this.contextIn(store, p, decoded, checks))
    return { body, deprecatedRevision }
  }

  /** Cross-checks of a release, by topic and targets: computed once, on first use (a few hundred facts each). */
  private readonly crossChecks = new WeakMap<ReleaseStore, Map<string, Promise<CrossCheckResult>>>()

  crossChecked(store: ReleaseStore, topic: Topic, plan: CrossPlan): Promise<CrossCheckResult> {
    let byKey = this.crossChecks.get(store)
    if (!byKey) this.crossChecks.set(store, (byKey = new Map()))
    const key = [topic, plan.served.target.key, ...plan.checked.map((c) => c.target.key)].join('\0')
    let r = byKey.get(key)
    if (!r) {
      r = crossCheck(store, topic, plan)
      byKey.set(key, r)
      r.catch(() => byKey.delete(key))
    }
    return r
  }

  private async contextIn(store: ReleaseStore, p: ContextParams, decoded: DecodedCursor | undefined, checks: boolean): Promise<string> {
    const ask = contextAsk(p)
    const ix = this.index(store)
    // Only the asked topic is resolved: the other three, and candidate ranking, are not needed here.
    const { key, matches } = ix.match(p.part)
    const { res, choice, plan } = this.topicResolution(ix, matches.map((m) => m.entity), p.topic, DEFAULT_CANDIDATES, p.package, checks)
    const cross = plan?.checked.length ? await this.crossChecked(store, p.topic, plan) : undefined
    const head = contextHead(store.manifest.id, p, matches, res, choice, plan && cross ? { plan, cross } : undefined, ask.filters)
    const env = new Envelope(head, ask.notes, new TokenPager(ask.limit, ask.maxTokens))
    if (!choice) return unresolvedAnswer(env, matches.length === 0 ? { suggestions: ix.suggestions(key) } : undefined, res)
    const binding = CursorCodec.bind([choice.target.key, choice.package, p.topic, ask.names.join(','), ask.prefixes.join(','), ask.peripheral, p.package, ask.siliconRevision, ask.terms.join(' ')])
    if (decoded && decoded.binding !== binding) throw new ServiceError('INVALID_CURSOR', 'The cursor belongs to a different query.', 'cursor')
    return this.factPage(store, env, factQuery(ask, p.topic, choice, decoded), cross, binding, decoded)
  }

  /**
   * The page of the resolved target's facts: which rows fit is chosen from their token counts
   * before any body is read, and the store reads only the bodies kept.
   */
  private async factPage(store: ReleaseStore, env: Envelope, q: FactQuery, cross: CrossCheckResult | undefined, binding: string, decoded: DecodedCursor | undefined): Promise<string> {
    const { pager } = env
    const selection = await store.selectFacts(q)
    // A cross-checked target's rows as answered: the checked sources' evidence and agreement change some bodies and their tokens.
    const rows = cross ? selection.rows.map((r) => crossCheckedRow(r, cross)) : selection.rows
    if (rows.length === 0) {
      env.notes.push(decoded ? 'No more facts: this is the end of the result set.' : 'No facts match these filters.')
      return env.empty(pager.page(0, null, null), {})
    }
    // The tail of a page with facts, at its largest (a cursor-sized placeholder), comes off the budget first.
    const tailTokens = pager.fullTailTokens(this.cursors.encode(store.manifest.id, binding, { score: 99, ord: 9_999_999 }), env.notes)
    if (env.head.tokens + tailTokens > pager.maxTokens) env.elide()
    const { taken, truncatedBy } = pager.fit(rows.length, (i) => rows[i]!.tokens, env.head.tokens + tailTokens)
    const read = await selection.read(taken)
    const facts = cross ? read.map((r) => crossCheckedRow(r, cross)) : read
    const cursorAfter = (n: number) => this.cursors.encode(store.manifest.id, binding, { score: facts[n - 1]!.score, ord: facts[n - 1]!.ord })
    const body = pager.fill(env.head, facts, truncatedBy, cursorAfter, env.notes)
    if (body !== undefined) return body
    // With every filter echoed.
    const neededMaxTokens = TokenPager.neededMaxTokens(env.fullHeadTokens, tailTokens, rows[0]!.tokens)
    env.notes.push(`The next fact alone needs about ${neededMaxTokens} tokens with this answer's envelope, more than max_tokens allows: repeat with max_tokens of at least ${neededMaxTokens}.`)
    return env.empty(pager.page(0, 'max_tokens', null, neededMaxTokens), {})
  }
}

/** A context request's parameters as the answer uses them: parsed, defaulted, echoed as `filters`, and the notes they call for. */
function contextAsk(p: ContextParams) {
  const names = splitList(p.fact_names, 'fact_names')
  const prefixes = splitList(p.fact_name_prefixes, 'fact_name_prefixes')
  const revisionParam = p.silicon_revision ?? p.revision
  const siliconRevision = revisionParam === undefined ? undefined : canonicalRevision(revisionParam)
  const terms = p.query === undefined ? [] : queryTerms(p.query)
  const peripheral = p.peripheral?.toUpperCase()
  const filters = {
    ...(names.length ? { factNames: names } : {}),
    ...(prefixes.length ? { factNamePrefixes: prefixes } : {}),
    ...(peripheral !== undefined ? { peripheral } : {}),
    ...(p.package !== undefined ? { package: p.package } : {}),
    ...(siliconRevision !== undefined ? { siliconRevision } : {}),
    ...(terms.length ? { queryTerms: terms } : {})
  } as ContextFilters
  const notes: string[] = []
  if (p.revision !== undefined) notes.push('revision is deprecated: use silicon_revision.')
  if (siliconRevision !== undefined && p.topic !== 'errata') notes.push('silicon_revision only narrows errata facts.')
  if (p.query !== undefined && terms.length === 0) notes.push('query has no searchable terms (two or more letters or digits); it was not applied.')
  return { names, prefixes, siliconRevision, terms, peripheral, filters, notes, limit: p.limit ?? DEFAULT_LIMIT, maxTokens: p.max_tokens ?? DEFAULT_MAX_TOKENS }
}
type ContextAsk = ReturnType<typeof contextAsk>

/** A context answer's members before `facts`: compact, as its envelope's tokens come out of the client's max_tokens budget. */
function contextHead(
  release: string,
  p: ContextParams,
  matches: readonly EntityMatch[],
  res: TopicResolution,
  choice: TargetChoice | undefined,
  checked: { plan: CrossPlan; cross: CrossCheckResult } | undefined,
  filters: ContextFilters
) {
  return {
    release,
    part: p.part,
    topic: p.topic,
    status: matches.length === 0 ? 'not_found' : res.status === 'resolved' ? 'ok' : res.status,
    ...(matches.length === 1 ? { resolvedPart: { name: matches[0]!.entity.name, kind: matches[0]!.entity.kind } } : {}),
    target: choice ? { key: choice.target.key, device: choice.target.device, ...(choice.package ? { package: choice.package } : {}), source: { path: choice.target.sourcePath, sha256: choice.target.sourceSha256 } } : null,
    // Compact, as `target`: the rule's reason is in resolve and coverage.
    ...(checked
      ? {
          crossCheck: {
            checked: checked.plan.checked.map((c) => ({ key: c.target.key, source: { path: c.target.sourcePath, sha256: c.target.sourceSha256 } })),
            ...(checked.plan.unchecked.length ? { unchecked: checked.plan.unchecked } : {}),
            ...crossCounts(checked.cross)
          }
        }
      : {}),
    filters
  }
}

/** The store query of a context page: one row more than the limit, to tell whether the limit cut the page. */
function factQuery(ask: ContextAsk, topic: Topic, choice: TargetChoice, decoded: DecodedCursor | undefined): FactQuery {
  return {
    target: choice.target.key,
    topic,
    names: ask.names,
    prefixes: ask.prefixes,
    ...(ask.peripheral !== undefined ? { peripheral: ask.peripheral } : {}),
    ...(choice.package !== undefined ? { package: choice.package } : {}),
    ...(topic === 'errata' && ask.siliconRevision !== undefined ? { siliconRevision: ask.siliconRevision } : {}),
    terms: ask.terms,
    ...(decoded ? { after: decoded.pos } : {}),
    limit: ask.limit + 1
  }
}

/** The answer without facts when the part (`notFound`: with suggestions) or its topic does not resolve to one target. */
function unresolvedAnswer(env: Envelope, notFound: { suggestions: ContextExtra['suggestions'] } | undefined, res: TopicResolution): string {
  const extra: ContextExtra = notFound
    ? notFound
    : res.status === 'ambiguous'
      ? { candidates: [...res.candidates], candidateCount: res.candidateCount, hint: res.hint }
      : res.status === 'not_covered'
        ? { reason: res.reason, ...(res.availablePackages ? { availablePackages: res.availablePackages } : {}) }
        : res.status === 'source_failed'
          ? { reason: res.reason, failures: res.failures }
          : {}
  env.notes.push(
    notFound
      ? 'Unknown part: no facts returned.'
      : res.status === 'ambiguous'
        ? 'Ambiguous part for this topic: no facts returned; the candidates are the document targets to choose from (never chosen for you).'
        : res.status === 'source_failed'
          ? 'The source for this topic could not be read: no facts returned.'
          : 'This topic is not covered for this part: no facts returned.'
  )
  return env.empty(env.pager.page(0, null, null), extra)
}

type ContextFilters = ContextResponse['filters']
/** Members of a context answer after `page`: why no facts came (candidates, reason, suggestions). */
type ContextExtra = Pick<ContextResponse, 'suggestions' | 'candidates' | 'candidateCount' | 'hint' | 'reason' | 'failures' | 'availablePackages'>

/**
 * A context answer's JSON around its facts: the head (release … filters), whose filter lists are
 * left out of the echo when the budget needs their room, and the notes; the facts and the tail
 * (page, what replaces facts, notes) are the pager's. Fact bodies are stored serialized, so the
 * answer is assembled as a string.
 */
class Envelope {
  private text: string
  private tokens: number
  private elided = false
  /** The head's tokens with every filter echoed, before any eliding. */
  readonly fullHeadTokens: number

  constructor(
    private readonly fields: { filters: ContextFilters } & Record<string, unknown>,
    readonly notes: string[],
    readonly pager: TokenPager
  ) {
    this.text = JSON.stringify(fields).slice(0, -1) + ',"facts":['
    this.tokens = this.fullHeadTokens = countTokens(this.text)
  }

  get head(): PageHead {
    return { text: this.text, tokens: this.tokens }
  }

  /** Leaves the filter lists out of the echo (they were applied in full); false when there is nothing to leave out. */
  elide(): boolean {
    const { factNames, factNamePrefixes, queryTerms, ...rest } = this.fields.filters
    if (this.elided || (!factNames && !factNamePrefixes && !queryTerms)) return false
    this.elided = true
    this.text = JSON.stringify({ ...this.fields, filters: { ...rest, elided: true } }).slice(0, -1) + ',"facts":['
    this.tokens = countTokens(this.text)
    return true
  }

  /**
   * An answer without facts. Over budget, it gives up candidates from the end (candidateCount
   * still counts them all), saying so (`truncatedBy`, a note) and what max_tokens lists them
   * (`neededMaxTokens`), then the filter lists; if even that does not fit, max_tokens is too small
   * for this answer at all.
   */
  empty(page: Page, extra: ContextExtra): string {
    const { maxTokens } = this.pager
    const listed = extra.candidates?.length ?? 0
    let whole: number | undefined
    for (;;) {
      const tokens = this.tokens + countTokens(this.pager.tail(page, this.notes, extra))
      if (tokens <= maxTokens) {
        page.tokens = tokens
        return this.text + this.pager.tail(page, this.notes, extra)
      }
      if (extra.candidates?.length) {
        if (whole === undefined) {
          // The answer with every candidate, and room for a max_tokens of more digits.
          whole = tokens + 3
          page.truncatedBy = 'max_tokens'
          page.neededMaxTokens = whole
          this.notes.push('')
        }
        extra.candidates.pop()
        this.notes[this.notes.length - 1] = `max_tokens=${maxTokens} leaves room for ${extra.candidates.length} of these ${listed} candidates (candidateCount counts all): max_tokens=${whole} lists the ${listed}.`
      } else if (!this.elide()) throw new ServiceError('INVALID_PARAMETER', `max_tokens=${maxTokens} cannot hold even this answer without facts (${tokens} tokens); raise max_tokens.`, 'max_tokens')
    }
  }
}
