import { isDeepStrictEqual } from 'node:util'
import { LRUCache } from 'lru-cache'
import type { Topic } from '../model/fact.js'
import { countTokens } from '../model/tokens.js'
import type { ComparePartsParams, CompareReleasesParams } from '../schemas/compare.js'
import type { FactQuery, ReleaseStore } from '../store/types.js'
import type { TargetChoice } from './catalog-index.js'
import { CursorCodec, type DecodedCursor } from './cursor.js'
import { ServiceError } from './errors.js'
import { splitList, type HardwareFacts, type ReleaseReader } from './facts.js'

/**
 * Comparisons over the public store interface: every fact of one resolved target (narrowed by the
 * store's name and peripheral filters) is read from each side, matched by name, and the differences
 * are paged like /v1/context: in a fixed order, within limit and max_tokens, with an HMAC cursor.
 * The whole list of differences is made once per comparison and kept (serialized) in an LRU, so
 * paging does not read and match the facts again.
 */

interface StoredFact {
  id: string
  name: string
  value: Record<string, unknown>
  scope: Record<string, unknown> & { package?: string }
  evidence: Array<{ sourcePath: string; sourceSha256: string }>
}

/** A difference, serialized once, with its token count made when first paged. */
interface Entry {
  json: string
  tokens?: number
}

interface Comparison {
  entries: Entry[]
  head: Record<string, unknown>
}

const DEFAULT_LIMIT = 20
const DEFAULT_MAX_TOKENS = 4000
const DEFAULT_CANDIDATES = 10
const READ_BATCH = 5000

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
/** Most compared members are strings or numbers: the deep comparison only for objects. */
const same = (x: unknown, y: unknown) => x === y || (typeof x === 'object' && x !== null && typeof y === 'object' && y !== null && isDeepStrictEqual(x, y))

/** Every fact of the target for the topic, in the store's order. */
async function readAll(store: ReleaseStore, choice: TargetChoice, topic: Topic, names: string[], prefixes: string[], peripheral?: string): Promise<StoredFact[]> {
  const out: StoredFact[] = []
  let after: FactQuery['after']
  for (;;) {
    const rows = await store.queryFacts({
      target: choice.target.key,
      topic,
      names,
      prefixes,
      ...(peripheral !== undefined ? { peripheral } : {}),
      ...(choice.package !== undefined ? { package: choice.package } : {}),
      terms: [],
      ...(after ? { after } : {}),
      limit: READ_BATCH
    })
    for (const r of rows) out.push(JSON.parse(r.body) as StoredFact)
    if (rows.length < READ_BATCH) return out
    const last = rows[rows.length - 1]!
    after = { score: last.score, ord: last.ord }
  }
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
  register: ['address', 'offset', 'size', 'resetValue', 'resetMask', 'access'],
  field: ['bitOffset', 'bitWidth', 'access']
} as const
type RegisterKind = keyof typeof REGISTER_MEMBERS

function registerKind(v: Record<string, unknown>): RegisterKind {
  return 'baseAddress' in v ? 'peripheral' : 'bitOffset' in v ? 'field' : 'register'
}

const pick = (v: Record<string, unknown>, keys: readonly string[]) => Object.fromEntries(keys.filter((k) => k in v).map((k) => [k, v[k]]))

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
    // Serialized entries dominate; strings are mostly ASCII.
    maxSize: 32 << 20,
    sizeCalculation: (c) => c.entries.reduce((n, e) => n + e.json.length + 16, 256)
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
      const keep = topic === 'pins' ? nameFilter(signal ? [signal] : names, signal ? [] : prefixes) : () => true
      c = diffParts(topic, fa, fb, keep, includeSame)
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
    const limit = p.limit ?? DEFAULT_LIMIT
    const maxTokens = p.max_tokens ?? DEFAULT_MAX_TOKENS
    if (decoded && (!cursorOf || decoded.binding !== cursorOf.binding)) throw new ServiceError('INVALID_CURSOR', 'The cursor belongs to a different comparison.', 'cursor')
    const start = decoded?.pos.ord ?? 0
    if (start > c.entries.length) throw new ServiceError('INVALID_CURSOR', 'The cursor points past the end of this comparison.', 'cursor')
    const headStr = JSON.stringify(c.head).slice(0, -1) + `,"${member}":[`
    const headTokens = countTokens(headStr)
    const tail = (page: Record<string, unknown>, n: string[]) => `],"page":${JSON.stringify(page)}` + (n.length ? `,"notes":${JSON.stringify(n)}` : '') + '}'
    const pageOf = (returned: number, truncatedBy: 'limit' | 'max_tokens' | null, nextCursor: string | null, tokens = maxTokens, needed: number | null = null) => ({
      returned,
      limit,
      maxTokens,
      tokens,
      truncatedBy,
      nextCursor,
      budgetTooSmall: needed !== null,
      neededMaxTokens: needed
    })
    const placeholder = cursorOf ? this.facts.cursors.encode(cursorOf.release, cursorOf.binding, { score: 0, ord: 9_999_999 }) : null
    const tailMax = countTokens(tail(pageOf(limit, 'max_tokens', placeholder), notes))
    let used = headTokens + tailMax
    if (used > maxTokens) throw new ServiceError('INVALID_PARAMETER', `max_tokens=${maxTokens} cannot hold even this comparison's envelope (${used} tokens); raise max_tokens.`, 'max_tokens')
    const taken: Entry[] = []
    let truncatedBy: 'limit' | 'max_tokens' | null = null
    for (let i = start; i < c.entries.length; i++) {
      const e = c.entries[i]!
      if (taken.length === limit) {
        truncatedBy = 'limit'
        break
      }
      e.tokens ??= countTokens(e.json)
      if (used + e.tokens + 1 > maxTokens) {
        truncatedBy = 'max_tokens'
        break
      }
      used += e.tokens + 1
      taken.push(e)
    }
    const out = [...notes]
    let page: ReturnType<typeof pageOf>
    if (taken.length === 0 && truncatedBy === 'max_tokens') {
      const needed = headTokens + tailMax + c.entries[start]!.tokens! + 3
      page = pageOf(0, 'max_tokens', null, maxTokens, needed)
    } else {
      if (start === c.entries.length && cursorOf) out.push(start === 0 ? 'No differences match these filters.' : 'No more entries: this is the end of the comparison.')
      const next = truncatedBy && cursorOf ? this.facts.cursors.encode(cursorOf.release, cursorOf.binding, { score: 0, ord: start + taken.length }) : null
      page = pageOf(taken.length, truncatedBy, next)
    }
    // Counted with tokens = maxTokens, which has at least as many digits as the real count.
    page.tokens = headTokens + countTokens(tail(page, out)) + taken.reduce((n, e) => n + e.tokens! + 1, 0)
    return headStr + taken.map((e) => e.json).join(',') + tail(page, out)
  }
}

const version = (f: StoredFact) => ({ id: f.id, value: f.value, scope: f.scope, evidence: f.evidence })

/** Value members (and `scope`, device aside) whose values differ between two versions of a fact. */
function changedMembers(a: StoredFact, b: StoredFact): string[] {
  const keys = [...new Set([...Object.keys(a.value), ...Object.keys(b.value)])].sort(byName)
  const out = keys.filter((k) => !same(a.value[k], b.value[k]))
  const { device: _da, ...sa } = a.scope
  const { device: _db, ...sb } = b.scope
  if (!isDeepStrictEqual(sa, sb)) out.push('scope')
  return out
}

/** Added, removed and changed facts, matched by (name, package): fact ids embed the target key, which may differ. */
function diffReleases(from: StoredFact[], to: StoredFact[], fc: TargetChoice, tc: TargetChoice): Comparison {
  const key = (f: StoredFact) => `${f.name}\u0000${f.scope.package ?? ''}`
  const old = new Map(from.map((f) => [key(f), f]))
  const cur = new Map(to.map((f) => [key(f), f]))
  const keys = [...new Set([...old.keys(), ...cur.keys()])].sort(byName)
  const counts = { added: 0, removed: 0, changed: 0, unchanged: 0 }
  const entries: Entry[] = []
  for (const k of keys) {
    const a = old.get(k)
    const b = cur.get(k)
    const changed = a && b ? changedMembers(a, b) : []
    if (a && b && changed.length === 0) {
      counts.unchanged++
      continue
    }
    const change = !a ? 'added' : !b ? 'removed' : 'changed'
    counts[change]++
    const f = (a ?? b)!
    entries.push({
      json: JSON.stringify({ change, name: f.name, ...(f.scope.package !== undefined ? { package: f.scope.package } : {}), changedMembers: changed, from: a ? version(a) : null, to: b ? version(b) : null })
    })
  }
  // The artifacts behind either side: the targets' sources and every source an evidence names.
  const shas = (facts: StoredFact[], c: TargetChoice) => {
    const m = new Map<string, string>([[c.target.sourcePath, c.target.sourceSha256]])
    for (const f of facts) for (const e of f.evidence) m.set(e.sourcePath, e.sourceSha256)
    return m
  }
  const fa = shas(from, fc)
  const ta = shas(to, tc)
  const artifacts = [...new Set([...fa.keys(), ...ta.keys()])].sort(byName).map((path) => {
    const x = fa.get(path) ?? null
    const y = ta.get(path) ?? null
    return { path, status: x === null ? 'added' : y === null ? 'removed' : x === y ? 'unchanged' : 'changed', fromSha256: x, toSha256: y }
  })
  return { entries, head: { artifacts, counts } }
}

interface DiffSide {
  value?: unknown
  pins?: Array<{ pin: string; position: string; af: number | null; evidence: unknown[] }>
  evidence?: unknown[]
}

/** Pins by signal: every pin that carries it, with the AF number that selects it. */
function bySignal(facts: StoredFact[], keep: (n: string) => boolean): Map<string, NonNullable<DiffSide['pins']>> {
  const out = new Map<string, NonNullable<DiffSide['pins']>>()
  for (const f of facts) {
    const v = f.value as { label: string; position: string; signals?: string[]; alternateFunctions?: Array<{ af: number; signal: string }> }
    const afs = new Map((v.alternateFunctions ?? []).map((a) => [a.signal, a.af]))
    for (const s of new Set([...(v.signals ?? []), ...afs.keys()])) {
      if (!keep(s)) continue
      let l = out.get(s)
      if (!l) out.set(s, (l = []))
      l.push({ pin: v.label, position: v.position, af: afs.get(s) ?? null, evidence: f.evidence })
    }
  }
  for (const l of out.values()) l.sort((x, y) => byName(x.pin, y.pin) || byName(x.position, y.position))
  return out
}

/** One entry per name either part has: on one part only, or compared member by member. */
function diffParts(topic: Topic, fa: StoredFact[], fb: StoredFact[], keep: (n: string) => boolean, includeSame: boolean): Comparison {
  const sides = new Map<string, { a?: DiffSide; b?: DiffSide; kind?: RegisterKind; members: string[] }>()
  const put = (name: string, which: 'a' | 'b', s: DiffSide, members: string[], kind?: RegisterKind) => {
    const e = sides.get(name) ?? { members }
    e[which] = s
    if (kind) e.kind = kind
    // Register kinds list their compared members; the union covers a name that changed kind.
    e.members = [...new Set([...e.members, ...members])]
    sides.set(name, e)
  }
  if (topic === 'pins') {
    for (const [which, facts] of [['a', fa], ['b', fb]] as const)
      for (const [signal, pins] of bySignal(facts, keep)) put(signal, which, { pins }, ['pins'])
  } else {
    for (const [which, facts] of [['a', fa], ['b', fb]] as const)
      for (const f of facts) {
        if (topic === 'registers') {
          const kind = registerKind(f.value)
          put(f.name, which, { value: pick(f.value, REGISTER_MEMBERS[kind]), evidence: f.evidence }, [...REGISTER_MEMBERS[kind]], kind)
        } else if (topic === 'electrical') put(f.name, which, { value: f.value, evidence: f.evidence }, ['value', 'unit'])
        // Errata: whether an erratum of that number is listed for each part; their texts are per device.
        else put(f.name, which, { value: f.value, evidence: f.evidence }, [])
      }
  }
  const counts = { onlyPart: 0, onlyOther: 0, differs: 0, same: 0 }
  const entries: Entry[] = []
  for (const name of [...sides.keys()].sort(byName)) {
    const { a, b, kind, members } = sides.get(name)!
    let differences: Array<{ member: string; part: unknown; other: unknown }> = []
    if (a && b) {
      if (topic === 'pins') {
        const list = (s: DiffSide) => s.pins!.map((x) => (x.af === null ? x.pin : `${x.pin}/AF${x.af}`))
        const la = list(a)
        const lb = list(b)
        if (!isDeepStrictEqual(la, lb)) differences = [{ member: 'pins', part: la, other: lb }]
      } else {
        const va = a.value as Record<string, unknown>
        const vb = b.value as Record<string, unknown>
        differences = members.filter((m) => !same(va[m], vb[m])).map((m) => ({ member: m, part: va[m] ?? null, other: vb[m] ?? null }))
      }
    }
    const status = !b ? 'only_part' : !a ? 'only_other' : differences.length ? 'differs' : 'same'
    counts[status === 'only_part' ? 'onlyPart' : status === 'only_other' ? 'onlyOther' : status]++
    if (status === 'same' && !includeSame) continue
    entries.push({ json: JSON.stringify({ name, ...(kind ? { kind } : {}), status, differences, part: a ?? null, other: b ?? null }) })
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
