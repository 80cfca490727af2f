import { isDeepStrictEqual } from 'node:util'
import { LRUCache } from 'lru-cache'
import type { Topic } from '../model/fact.js'
import { countTokens } from '../model/tokens.js'
import type { ComparePartsParams, CompareReleasesParams } from '../schemas/compare.js'
import { LazyFact } from '../store/fact-body.js'
import type { FactRow, ReleaseStore } from '../store/types.js'
import type { TargetChoice } from './catalog-index.js'
import { CursorCodec, type DecodedCursor } from './cursor.js'
import { ServiceError } from './errors.js'
import { splitList, type HardwareFacts, type ReleaseReader } from './facts.js'
import { readAll } from './read-all.js'
import { TokenPager, type Page } from './pager.js'
import { packagePins } from './pins.js'

/**
 * Comparisons over the public store interface: every fact of one resolved target (narrowed by the
 * store's name and peripheral filters) is read from each side, matched by name, and the differences
 * are paged like /v1/context: in a fixed order, within limit and max_tokens, with an HMAC cursor.
 * The whole list of differences is made once per comparison and kept in an LRU, so paging does
 * not read and match the facts again. Facts are read through the store's decoder; entries embed the
 * stored fact bodies as they are (the same bytes /v1/context returns) with their index-time token
 * counts: a comparison counts only the text it writes itself.
 */

/** A stored fact as the store returns it: its body (the public JSON) and the index-time token count of that body. */
type Row = Pick<FactRow, 'body' | 'tokens'>

/** A stored fact as a comparison reads it: through the store's lazy reader (name at once, value and scope when compared, never the evidence whole), with the row, whose body an entry embeds as it is. */
type Read = LazyFact & { row: Row }

const read = (row: Row): Read => Object.assign(new LazyFact(row.body), { row })

/**
 * A difference: its own members, then two sides, each a stored body embedded verbatim (or null).
 * Serialized when first paged; the bodies are never parsed and re-serialized, and their token
 * counts come from the index: only the entry's own text is counted.
 */
interface Entry {
  own: object
  keys: readonly [string, string]
  a: Row | undefined
  b: Row | undefined
  /** Its JSON in pieces (the bodies among them), joined with the page's: each body is copied once. */
  json?: string[]
  tokens?: number
}

interface Comparison {
  entries: Entry[]
  head: Record<string, unknown>
}

const DEFAULT_LIMIT = 20
const DEFAULT_MAX_TOKENS = 4000
const DEFAULT_CANDIDATES = 10
/** A side made here (pins), counted when paged. */
const UNCOUNTED = -1

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
/** Most compared members are strings or numbers: the deep comparison only for objects. */
const same = (x: unknown, y: unknown) => x === y || (typeof x === 'object' && x !== null && typeof y === 'object' && y !== null && isDeepStrictEqual(x, y))

/** Members whose values come from a small fixed set: written as part of the literal text around them. */
const FIXED = new Set(['kind', 'status', 'change', 'member'])
/** Token counts of literal texts: keys, punctuation and FIXED values, so a bounded set. */
const literals = new Map<string, number>()

/**
 * JSON text with its token count, made of literal pieces (counted once per distinct piece) and
 * values (counted each). String values are split from their quotes and numbers from the
 * punctuation around them, where the tokenizer's pre-tokenizer splits them anyway; a stored body
 * comes with its own count. Joined at punctuation, the pieces never tokenize into more than their
 * counts add up to (as /v1/context's facts; the tests check every page with the real tokenizer).
 */
class CountedJson {
  /** Kept apart, to be joined once with the whole page: a string grown piece by piece is slow to flatten. */
  private readonly parts: string[] = []
  tokens = 0
  private literal = ''

  private flush(): void {
    if (this.literal === '') return
    let n = literals.get(this.literal)
    if (n === undefined) literals.set(this.literal, (n = countTokens(this.literal)))
    this.parts.push(this.literal)
    this.tokens += n
    this.literal = ''
  }

  /** Text that is already JSON, with its token count. */
  raw(json: string, tokens: number): void {
    this.flush()
    this.parts.push(json)
    this.tokens += tokens
  }

  value(v: unknown): void {
    if (Array.isArray(v)) {
      this.literal += '['
      v.forEach((x, i) => (i > 0 && (this.literal += ','), this.value(x)))
      this.literal += ']'
    } else if (v !== null && typeof v === 'object') this.members(v as Record<string, unknown>)
    else if (typeof v === 'string') {
      const json = JSON.stringify(v)
      // Escapes would be split from what they escape: such a string is counted whole.
      if (json.length !== v.length + 2) return this.raw(json, countTokens(json))
      this.literal += '"'
      this.raw(v, countTokens(v))
      this.literal += '"'
    } else if (typeof v === 'number') {
      const json = JSON.stringify(v)
      this.raw(json, countTokens(json))
    } else this.literal += JSON.stringify(v)
  }

  /** An object's members, left open (no `}`) when `open`, for members the caller adds. */
  members(o: Record<string, unknown>, open = false): void {
    let sep = '{'
    for (const k in o) {
      const v = o[k]
      if (v === undefined) continue
      this.literal += `${sep}"${k}":`
      sep = ','
      if (FIXED.has(k) && typeof v === 'string') this.literal += JSON.stringify(v)
      else this.value(v)
    }
    if (sep === '{') this.literal += '{'
    if (!open) this.literal += '}'
  }

  /** A member holding a stored body (or null), after open members. */
  side(key: string, r: Row | undefined): void {
    this.literal += `,"${key}":`
    if (!r) this.literal += 'null'
    else if (r.tokens === UNCOUNTED) this.raw(r.body, countTokens(r.body))
    else this.raw(r.body, r.tokens)
  }

  done(suffix: string): string[] {
    this.literal += suffix
    this.flush()
    return this.parts
  }
}

/** An entry's JSON and tokens: its own members, then its two sides. */
function serialize(e: Entry): number {
  const w = new CountedJson()
  w.members(e.own as Record<string, unknown>, true)
  w.side(e.keys[0], e.a)
  w.side(e.keys[1], e.b)
  e.json = w.done('}')
  return (e.tokens = w.tokens)
}

/** What one side resolved to: a target to read, or the refusal to show (candidates, reason, suggestions). */
interface Side {
  store: ReleaseStore
  choice?: TargetChoice
  view: Record<string, unknown>
}

/** The members a parts comparison looks at, per kind of register element. */
const REGISTER_MEMBERS = {
  peripheral: ['baseAddress'],
  register: ['address', 'offset', 'size', 'resetValue', 'resetMask', 'access', 'array'],
  field: ['bitOffset', 'bitWidth', 'access']
} as const
type RegisterKind = keyof typeof REGISTER_MEMBERS

/** The kind, from the member only its kind has (src/schemas/facts.ts). */
function registerKind(f: Read): RegisterKind {
  return 'baseAddress' in f.value ? 'peripheral' : 'bitOffset' in f.value ? 'field' : 'register'
}

/** A name filter applied in memory (pins: signal names), as the store applies it to fact names. */
function nameFilter(names: string[], prefixes: string[]): (n: string) => boolean {
  if (!names.length && !prefixes.length) return () => true
  const exact = new Set(names.map((n) => n.toUpperCase()))
  const pre = prefixes.map((p) => p.toUpperCase())
  return (n) => {
    const u = n.toUpperCase()
    return exact.has(u) || pre.some((p) => u.startsWith(p))
  }
}

export class Compare {
  private readonly cache = new LRUCache<string, Comparison>({
    // The stored bodies an entry holds dominate (a body cut from a block keeps the block alive); strings are mostly ASCII.
    maxSize: 32 << 20,
    sizeCalculation: (c) => c.entries.reduce((n, e) => n + (e.a?.body.length ?? 0) + (e.b?.body.length ?? 0) + 256, 256)
  })

  /** Finished pages, for repeated requests (releases are immutable): as /v1/context's answer cache. */
  private readonly pages = new LRUCache<string, string>({ maxSize: 16 << 20, sizeCalculation: (body, key) => body.length + key.length })

  constructor(private readonly facts: HardwareFacts) {}

  /** One side: the part resolved for the topic in this release, never picked among several. */
  private side(store: ReleaseStore, part: string, topic: Topic): Side {
    const ix = this.facts.index(store)
    const { key, matches } = ix.match(part)
    const base = { part, release: store.manifest.id }
    if (matches.length === 0) return { store, view: { ...base, status: 'not_found', target: null, suggestions: ix.suggestions(key) } }
    const { res, choice } = this.facts.topicResolution(ix, matches.map((m) => m.entity), topic, DEFAULT_CANDIDATES)
    if (choice) {
      const t = choice.target
      const target = { key: t.key, device: t.device, ...(choice.package ? { package: choice.package } : {}), source: { path: t.sourcePath, sha256: t.sourceSha256 } }
      return { store, choice, view: { ...base, status: 'resolved', target } }
    }
    const { status, ...why } = res as Exclude<typeof res, { status: 'resolved' }>
    return { store, view: { ...base, status, target: null, ...why } }
  }

  private static status(a: Side, b: Side): string {
    for (const s of ['not_found', 'ambiguous', 'source_failed', 'not_covered'])
      if (a.view.status === s || b.view.status === s) return s
    return 'ok'
  }

  /** A cursor, if any, checked against the release it must belong to (when that is known). */
  private decode(cursor: string | undefined): DecodedCursor | undefined {
    return cursor === undefined ? undefined : this.facts.cursors.decode(cursor)
  }

  /** The release a cursor pins, read with the caller's key as if named; a release no longer kept is an invalid cursor. */
  private async storeFor(decoded: DecodedCursor | undefined, named: string | undefined, param: string, reader?: ReleaseReader | null): Promise<ReleaseStore> {
    if (decoded && named !== undefined && decoded.release !== named)
      throw new ServiceError('INVALID_CURSOR', `The cursor belongs to corpus release ${decoded.release}, not ${named}.`, 'cursor')
    try {
      return decoded ? await this.facts.store(decoded.release, reader, 'cursor') : await this.facts.store(named, reader, param)
    } catch (err) {
      if (decoded && err instanceof ServiceError && err.code === 'UNKNOWN_CORPUS_RELEASE')
        throw new ServiceError('INVALID_CURSOR', `The cursor's corpus release ${decoded.release} is no longer kept.`, 'cursor')
      throw err
    }
  }

  async releases(p: CompareReleasesParams, reader?: ReleaseReader | null): Promise<string> {
    const topic = p.topic as Topic
    const names = splitList(p.fact_names, 'fact_names')
    const prefixes = splitList(p.fact_name_prefixes, 'fact_name_prefixes')
    const peripheral = this.peripheral(topic, p.peripheral)
    const decoded = this.decode(p.cursor)
    // Both releases are checked against the key's release list, each under its own parameter.
    const fromStore = await this.facts.store(p.from_release, reader, 'from_release')
    const toStore = await this.storeFor(decoded, p.to_release, 'to_release', reader)
    return this.remember(`r${fromStore.manifest.id}${toStore.manifest.id}`, p, () => this.releasesIn(p, fromStore, toStore, decoded, names, prefixes, peripheral))
  }

  private async releasesIn(p: CompareReleasesParams, fromStore: ReleaseStore, toStore: ReleaseStore, decoded: DecodedCursor | undefined, names: string[], prefixes: string[], peripheral: string | undefined): Promise<string> {
    const topic = p.topic as Topic
    const from = this.side(fromStore, p.part, topic)
    const to = this.side(toStore, p.part, topic)
    const filters = { ...(names.length ? { factNames: names } : {}), ...(prefixes.length ? { factNamePrefixes: prefixes } : {}), ...(peripheral ? { peripheral } : {}) }
    const status = Compare.status(from, to)
    const head = (c: Partial<Record<'artifacts' | 'counts', unknown>>) => ({
      topic,
      status,
      from: from.view,
      to: to.view,
      filters,
      artifacts: c.artifacts ?? [],
      counts: c.counts ?? { added: 0, removed: 0, changed: 0, unchanged: 0 }
    })
    if (!from.choice || !to.choice)
      return this.page({ head: head({}), entries: [] }, 'changes', p, undefined, undefined, ['A part did not resolve to one target in both releases: nothing compared; see from/to.'])
    const binding = CursorCodec.bind(['releases', fromStore.manifest.id, from.choice.target.key, to.choice.target.key, to.choice.package, topic, names.join(','), prefixes.join(','), peripheral])
    const key = `r${toStore.manifest.id}${binding}`
    let c = this.cache.get(key)
    if (!c) {
      const [a, b] = await Promise.all([
        readAll(fromStore, from.choice, topic, names, prefixes, peripheral),
        readAll(toStore, to.choice, topic, names, prefixes, peripheral)
      ])
      c = diffReleases(a, b, from.choice, to.choice)
      c.head = head(c.head)
      this.cache.set(key, c)
    }
    return this.page(c, 'changes', p, { release: toStore.manifest.id, binding }, decoded)
  }

  async parts(p: ComparePartsParams, reader?: ReleaseReader | null): Promise<string> {
    const topic = p.topic as Topic
    const names = splitList(p.fact_names, 'fact_names')
    const prefixes = splitList(p.fact_name_prefixes, 'fact_name_prefixes')
    const peripheral = this.peripheral(topic, p.peripheral)
    if (p.signal !== undefined && topic !== 'pins') throw new ServiceError('INVALID_PARAMETER', 'signal narrows pins only; use it with topic=pins.', 'signal')
    const decoded = this.decode(p.cursor)
    const store = await this.storeFor(decoded, p.corpus_release, 'corpus_release', reader)
    return this.remember(`p${store.manifest.id}`, p, () => this.partsIn(p, store, decoded, names, prefixes, peripheral))
  }

  private async partsIn(p: ComparePartsParams, store: ReleaseStore, decoded: DecodedCursor | undefined, names: string[], prefixes: string[], peripheral: string | undefined): Promise<string> {
    const topic = p.topic as Topic
    const signal = p.signal?.toUpperCase()
    const includeSame = p.include_same ?? false
    const a = this.side(store, p.part, topic)
    const b = this.side(store, p.other, topic)
    const filters = {
      ...(names.length ? { factNames: names } : {}),
      ...(prefixes.length ? { factNamePrefixes: prefixes } : {}),
      ...(peripheral ? { peripheral } : {}),
      ...(signal ? { signal } : {}),
      includeSame
    }
    const status = Compare.status(a, b)
    const head = (counts?: unknown) => ({
      release: store.manifest.id,
      topic,
      status,
      part: a.view,
      other: b.view,
      filters,
      counts: counts ?? { onlyPart: 0, onlyOther: 0, differs: 0, same: 0 }
    })
    if (!a.choice || !b.choice)
      return this.page({ head: head(), entries: [] }, 'entries', p, undefined, undefined, ['A part did not resolve to one target for this topic: nothing compared; see part/other.'])
    const binding = CursorCodec.bind(['parts', a.choice.target.key, a.choice.package, b.choice.target.key, b.choice.package, topic, names.join(','), prefixes.join(','), peripheral, signal, String(includeSame)])
    const key = `p${store.manifest.id}${binding}`
    let c = this.cache.get(key)
    if (!c) {
      // Pins are compared by signal, not by the fact (pin) name: the filters apply to signals.
      const storeNames = topic === 'pins' ? [] : names
      const storePrefixes = topic === 'pins' ? [] : prefixes
      const [fa, fb] = await Promise.all([
        readAll(store, a.choice, topic, storeNames, storePrefixes, peripheral),
        readAll(store, b.choice, topic, storeNames, storePrefixes, peripheral)
      ])
      c = topic === 'pins' ? diffPins(fa, fb, nameFilter(signal ? [signal] : names, signal ? [] : prefixes), includeSame) : diffParts(topic, fa, fb, includeSame)
      c.head = head(c.head.counts)
      this.cache.set(key, c)
    }
    return this.page(c, 'entries', p, { release: store.manifest.id, binding }, decoded)
  }

  /**
   * Releases are immutable: the same parameters (cursor included) on the same releases give the same
   * body, kept after the key's access to the releases was checked. Errors are never kept.
   */
  private async remember(releases: string, p: object, make: () => Promise<string>): Promise<string> {
    const key = releases + JSON.stringify(p)
    let body = this.pages.get(key)
    if (body === undefined) this.pages.set(key, (body = await make()))
    return body
  }

  private peripheral(topic: Topic, peripheral: string | undefined): string | undefined {
    if (peripheral === undefined) return undefined
    if (topic !== 'registers') throw new ServiceError('INVALID_PARAMETER', 'peripheral narrows registers only in a comparison; use fact_names or signal.', 'peripheral')
    return peripheral.toUpperCase()
  }

  /**
   * One page of a comparison: entries from the cursor's position on, within limit and max_tokens
   * counted over the whole answer (head, entries, page, notes). Head, entries and tail are counted
   * apart and joined at punctuation, as /v1/context does.
   */
  private page(
    c: Comparison,
    member: 'changes' | 'entries',
    p: { limit?: number; max_tokens?: number },
    cursorOf: { release: string; binding: string } | undefined,
    decoded: DecodedCursor | undefined,
    notes: string[] = []
  ): string {
    const pager = new TokenPager(p.limit ?? DEFAULT_LIMIT, p.max_tokens ?? DEFAULT_MAX_TOKENS)
    if (decoded && (!cursorOf || decoded.binding !== cursorOf.binding)) throw new ServiceError('INVALID_CURSOR', 'The cursor belongs to a different comparison.', 'cursor')
    const start = decoded?.pos.ord ?? 0
    if (start > c.entries.length) throw new ServiceError('INVALID_CURSOR', 'The cursor points past the end of this comparison.', 'cursor')
    const text = JSON.stringify(c.head).slice(0, -1) + `,"${member}":[`
    const head = { text, tokens: countTokens(text) }
    const placeholder = cursorOf ? this.facts.cursors.encode(cursorOf.release, cursorOf.binding, { score: 0, ord: 9_999_999 }) : null
    const tailTokens = pager.fullTailTokens(placeholder, notes)
    // As /v1/context: a budget too small for the envelope (and the next entry) is a page without entries that says what would do.
    const entryless = (page: Page) => this.entryless(c, member, page, notes, pager.maxTokens)
    if (start === c.entries.length) {
      if (head.tokens + tailTokens > pager.maxTokens) return entryless(pager.page(0, null, null))
      const end = cursorOf ? [start === 0 ? 'No differences match these filters.' : 'No more entries: this is the end of the comparison.'] : []
      return pager.render(head, [], pager.page(0, null, null), [...notes, ...end]) ?? entryless(pager.page(0, null, null))
    }
    const tokensOf = (i: number) => {
      const e = c.entries[start + i]!
      return e.tokens ?? serialize(e)
    }
    const { taken, truncatedBy } = pager.fit(c.entries.length - start, tokensOf, head.tokens + tailTokens)
    const items = c.entries.slice(start, start + taken).map((e) => ({ body: e.json!, tokens: e.tokens! }))
    const cursorAfter = (n: number) => this.facts.cursors.encode(cursorOf!.release, cursorOf!.binding, { score: 0, ord: start + n })
    return pager.fill(head, items, truncatedBy, cursorAfter, notes) ?? entryless(pager.page(0, 'max_tokens', null, TokenPager.neededMaxTokens(head.tokens, tailTokens, tokensOf(0))))
  }

  /**
   * A page without entries within max_tokens: the head as it is, else with the sides' targets and
   * the artifacts left out (`elided`, as /v1/context elides its filter echo), which the next call
   * with the budget the page names gives in full; if even that does not fit, max_tokens is too
   * small for this answer at all.
   */
  private entryless(c: Comparison, member: 'changes' | 'entries', page: Page, notes: readonly string[], maxTokens: number): string {
    const compact = Object.fromEntries(
      Object.entries(c.head).map(([k, v]) => [k, k === 'artifacts' ? [] : (v as { target?: unknown }).target ? { ...(v as object), target: null } : v])
    )
    // Last, an ambiguous side's candidates left out too (as /v1/context cuts its candidates to the
    // budget), with a note naming the budget that lists them: never a 400 for a budget in range.
    const full = countTokens(JSON.stringify({ ...c.head, [member]: [], page, ...(notes.length ? { notes } : {}) }))
    const uncandidated = Object.fromEntries(Object.entries(compact).map(([k, v]) => [k, Array.isArray((v as { candidates?: unknown }).candidates) ? { ...(v as object), candidates: [] } : v]))
    const cut = [...notes, `max_tokens=${maxTokens} leaves no room for the candidates of the ambiguous side; max_tokens=${full} lists them.`]
    for (const [head, n] of [
      [c.head, notes],
      [{ ...compact, elided: true }, notes],
      [{ ...uncandidated, elided: true }, cut]
    ] as const) {
      page.tokens = maxTokens
      const body = (p: unknown) => JSON.stringify({ ...head, [member]: [], page: p, ...(n.length ? { notes: n } : {}) })
      const tokens = countTokens(body(page))
      if (tokens > maxTokens) continue
      page.tokens = tokens
      return body(page)
    }
    throw new ServiceError('INVALID_PARAMETER', `max_tokens=${maxTokens} cannot hold even this comparison without entries; raise max_tokens.`, 'max_tokens')
  }
}

/** Value members (and `scope`, device aside) whose values differ between two versions of a fact. */
function changedMembers(a: Read, b: Read): string[] {
  const keys = [...new Set([...Object.keys(a.value), ...Object.keys(b.value)])].sort(byName)
  const out = keys.filter((k) => !same(a.value[k], b.value[k]))
  const { device: _da, ...sa } = a.scope
  const { device: _db, ...sb } = b.scope
  if (!isDeepStrictEqual(sa, sb)) out.push('scope')
  return out
}

/** Added, removed and changed facts, matched by (name, package): fact ids embed the target key, which may differ. */
function diffReleases(from: FactRow[], to: FactRow[], fc: TargetChoice, tc: TargetChoice): Comparison {
  const fromFacts = from.map(read)
  const toFacts = to.map(read)
  const byKey = (facts: Read[]) => new Map(facts.map((f) => [`${f.name}\u0000${f.scope.package ?? ''}`, f]))
  const old = byKey(fromFacts)
  const cur = byKey(toFacts)
  // The default sort orders strings by UTF-16 code units, as byName does.
  const keys = [...new Set([...old.keys(), ...cur.keys()])].sort()
  const counts = { added: 0, removed: 0, changed: 0, unchanged: 0 }
  const entries: Entry[] = []
  for (const k of keys) {
    const a = old.get(k)
    const b = cur.get(k)
    // The same bytes (same id, value, scope and evidence) need no comparing.
    const changed = a && b && a.row.body !== b.row.body ? changedMembers(a, b) : []
    if (a && b && changed.length === 0) {
      counts.unchanged++
      continue
    }
    const change = !a ? 'added' : !b ? 'removed' : 'changed'
    counts[change]++
    const f = (a ?? b)!
    entries.push({ own: { change, name: f.name, ...(f.scope.package !== undefined ? { package: f.scope.package } : {}), changedMembers: changed }, keys: ['from', 'to'], a: a?.row, b: b?.row })
  }
  // The artifacts behind either side: the targets' sources and every source an evidence names.
  const shas = (facts: Read[], c: TargetChoice) => {
    const m = new Map<string, string>([[c.target.sourcePath, c.target.sourceSha256]])
    for (const f of facts) f.sources(m)
    return m
  }
  const fa = shas(fromFacts, fc)
  const ta = shas(toFacts, tc)
  const artifacts = [...new Set([...fa.keys(), ...ta.keys()])].sort(byName).map((path) => {
    const x = fa.get(path) ?? null
    const y = ta.get(path) ?? null
    return { path, status: x === null ? 'added' : y === null ? 'removed' : x === y ? 'unchanged' : 'changed', fromSha256: x, toSha256: y }
  })
  return { entries, head: { artifacts, counts } }
}

interface PinAssignment {
  pin: string
  position: string
  af: number | null
  evidence: unknown[]
}

/** Pins by signal: every pin that carries it, with the AF number that selects it. */
function bySignal(rows: FactRow[], keep: (n: string) => boolean): Map<string, PinAssignment[]> {
  const out = new Map<string, PinAssignment[]>()
  for (const [s, pins] of packagePins(rows).bySignal)
    if (keep(s)) out.set(s, pins.map((p) => ({ pin: p.label, position: p.position, af: p.af.get(s) ?? null, evidence: p.evidence })))
  return out
}

const NONE: readonly never[] = []
const ELECTRICAL_MEMBERS = ['value', 'unit'] as const
const PART_KEYS = ['part', 'other'] as const

type PartStatus = 'only_part' | 'only_other' | 'differs' | 'same'
const COUNT_OF: Record<PartStatus, 'onlyPart' | 'onlyOther' | 'differs' | 'same'> = { only_part: 'onlyPart', only_other: 'onlyOther', differs: 'differs', same: 'same' }

/** Pins: one entry per signal either part has, its pins with AF numbers compared as `PA9/AF7` lists. */
function diffPins(fa: FactRow[], fb: FactRow[], keep: (n: string) => boolean, includeSame: boolean): Comparison {
  const a = bySignal(fa, keep)
  const b = bySignal(fb, keep)
  const counts = { onlyPart: 0, onlyOther: 0, differs: 0, same: 0 }
  const entries: Entry[] = []
  const list = (pins: PinAssignment[]) => pins.map((x) => (x.af === null ? x.pin : `${x.pin}/AF${x.af}`))
  for (const name of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const pa = a.get(name)
    const pb = b.get(name)
    const la = pa && list(pa)
    const lb = pb && list(pb)
    const differences = la && lb && !isDeepStrictEqual(la, lb) ? [{ member: 'pins', part: la, other: lb }] : []
    const status: PartStatus = !pb ? 'only_part' : !pa ? 'only_other' : differences.length ? 'differs' : 'same'
    counts[COUNT_OF[status]]++
    if (status === 'same' && !includeSame) continue
    const side = (pins: PinAssignment[] | undefined) => (pins ? { body: JSON.stringify({ pins }), tokens: UNCOUNTED } : undefined)
    entries.push({ own: { name, status, differences }, keys: PART_KEYS, a: side(pa), b: side(pb) })
  }
  return { entries, head: { counts } }
}

/**
 * Registers, electrical, errata and the depth topics: one entry per fact name either part has, with
 * both facts as stored; registers compared on their kind's members, electrical on value and unit,
 * errata on being listed at all (their texts are per device), the others on every member.
 */
function diffParts(topic: Topic, fa: FactRow[], fb: FactRow[], includeSame: boolean): Comparison {
  const sides = new Map<string, { a?: Read; b?: Read }>()
  for (const r of fa) {
    const f = read(r)
    sides.set(f.name, { a: f })
  }
  for (const r of fb) {
    const f = read(r)
    const s = sides.get(f.name)
    if (s) s.b = f
    else sides.set(f.name, { b: f })
  }
  const counts = { onlyPart: 0, onlyOther: 0, differs: 0, same: 0 }
  const entries: Entry[] = []
  for (const name of [...sides.keys()].sort()) {
    const { a, b } = sides.get(name)!
    let kind: RegisterKind | undefined
    // Undefined: every member of both values (the depth topics).
    let members: readonly string[] | undefined = topic === 'electrical' ? ELECTRICAL_MEMBERS : topic === 'errata' ? NONE : undefined
    if (topic === 'registers') {
      const ka = a && registerKind(a)
      const kb = b && registerKind(b)
      kind = (ka ?? kb)!
      // A name that changed kind is compared on the members of both kinds.
      members = ka && kb && ka !== kb ? [...new Set([...REGISTER_MEMBERS[ka], ...REGISTER_MEMBERS[kb]])] : REGISTER_MEMBERS[kind]
    }
    const differences =
      a && b
        ? (members ?? [...new Set([...Object.keys(a.value), ...Object.keys(b.value)])].sort()).filter((m) => !same(a.value[m], b.value[m])).map((m) => ({ member: m, part: a.value[m] ?? null, other: b.value[m] ?? null }))
        : NONE
    const status: PartStatus = !b ? 'only_part' : !a ? 'only_other' : differences.length ? 'differs' : 'same'
    counts[COUNT_OF[status]]++
    if (status === 'same' && !includeSame) continue
    // An undefined kind is left out of the JSON.
    entries.push({ own: { name, kind, status, differences }, keys: PART_KEYS, a: a?.row, b: b?.row })
  }
  return { entries, head: { counts } }
}

const instances = new WeakMap<HardwareFacts, Compare>()

/** The comparisons over this service (one per HardwareFacts, so REST and MCP share its cache). */
export function compareOf(facts: HardwareFacts): Compare {
  let c = instances.get(facts)
  if (!c) instances.set(facts, (c = new Compare(facts)))
  return c
}
