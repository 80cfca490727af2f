import type { Topic } from '../model/fact.js'
import type { CatalogEntity, ReleaseCatalog, TargetSummary } from '../model/catalog.js'
import { normalizeKey, queryTerms, terms } from '../model/text.js'

export type MatchKind = 'exact' | 'ordering-code' | 'prefix'

export interface EntityMatch {
  entity: CatalogEntity
  how: MatchKind
}

/** One distinct document target a set of parts maps to for a topic (pins: per package). */
export interface TargetChoice {
  target: TargetSummary
  package?: string
  parts: string[]
}

/** The two rows of distance(), reused: suggestions run it over every key of a release's catalog. */
let rows = [new Int32Array(64), new Int32Array(64)] as const

/**
 * Levenshtein distance between a and the first bLen characters of b, bounded: returns max+1 as
 * soon as the distance must exceed max.
 */
function distance(a: string, b: string, bLen: number, max: number): number {
  if (Math.abs(a.length - bLen) > max) return max + 1
  if (rows[0].length <= bLen) rows = [new Int32Array(bLen * 2), new Int32Array(bLen * 2)]
  let [prev, cur] = rows
  for (let j = 0; j <= bLen; j++) prev[j] = j
  for (let i = 1; i <= a.length; i++) {
    const c = a.charCodeAt(i - 1)
    cur[0] = i
    let rowMin = i
    for (let j = 1; j <= bLen; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (c === b.charCodeAt(j - 1) ? 0 : 1))
      cur[j] = v
      if (v < rowMin) rowMin = v
    }
    if (rowMin > max) return max + 1
    const done = prev
    prev = cur
    cur = done
  }
  return prev[bLen]!
}

/**
 * In-memory lookups over one release's catalog (hundreds of entities, built once per release).
 * Both stores hand over the same catalog, so resolution is identical whichever store serves.
 */
export class CatalogIndex {
  private readonly byKey = new Map<string, CatalogEntity>()
  /** Ordering-code rules by stem: the entity and its compiled suffix pattern. */
  private readonly byStem = new Map<string, Array<{ entity: CatalogEntity; suffix: RegExp }>>()
  private readonly stemLengths: number[] = []
  /** Keys open to prefix matching, sorted. RefNames with alternatives are not: `STM32F103C8BTX` is no real name. */
  private readonly prefixKeys: Array<[string, CatalogEntity]> = []
  private readonly byName = new Map<string, CatalogEntity>()
  readonly targets = new Map<string, TargetSummary>()
  private readonly searchText = new Map<CatalogEntity, Set<string>>()
  /** Source kind (inventory `kind`) by artifact path. */
  private readonly kinds: Map<string, string>

  constructor(
    readonly catalog: ReleaseCatalog,
    sources: ReadonlyArray<{ path: string; kind: string }> = []
  ) {
    this.kinds = new Map(sources.map((s) => [s.path, s.kind]))
    for (const t of catalog.targets) this.targets.set(t.key, t)
    for (const e of catalog.entities) {
      this.byName.set(e.name, e)
      for (const k of e.keys) {
        this.byKey.set(k, e)
        if (!(e.kind === 'refname' && e.name.includes('('))) this.prefixKeys.push([k, e])
      }
      if (e.ordering) {
        const list = this.byStem.get(e.ordering.stem) ?? []
        list.push({ entity: e, suffix: new RegExp(`^(?:${e.ordering.suffix})$`) })
        this.byStem.set(e.ordering.stem, list)
      }
      this.searchText.set(e, new Set(terms([e.name, e.kind, e.package, e.family, e.line, e.core].filter(Boolean).join(' '))))
    }
    this.prefixKeys.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    this.stemLengths = [...new Set([...this.byStem.keys()].map((k) => k.length))].sort((a, b) => b - a)
  }

  entity(name: string): CatalogEntity | undefined {
    return this.byName.get(name)
  }

  /**
   * Exact keys win; then ordering codes (`STM32F407VGT6TR` → `STM32F407VGTx`, `ATSAMD21G18A-AU` →
   * `ATSAMD21G18A`): every part whose vendor rule accepts the code, however long its stem, so a code
   * two parts could own matches both; then every entity whose key starts with the query.
   * Never narrowed further here: choosing is the caller's job.
   */
  match(q: string, filter?: (e: CatalogEntity) => boolean): { key: string; matches: EntityMatch[] } {
    const key = normalizeKey(q)
    const ok = filter ?? (() => true)
    if (key.length === 0) return { key, matches: [] }
    const exact = this.byKey.get(key)
    if (exact && ok(exact)) return { key, matches: [{ entity: exact, how: 'exact' }] }
    const ordering: EntityMatch[] = []
    for (const len of this.stemLengths) {
      if (len >= key.length) continue
      const rest = key.slice(len)
      for (const r of this.byStem.get(key.slice(0, len)) ?? []) if (r.suffix.test(rest) && ok(r.entity)) ordering.push({ entity: r.entity, how: 'ordering-code' })
    }
    if (ordering.length > 0) return { key, matches: ordering }
    const out: EntityMatch[] = []
    let lo = 0
    let hi = this.prefixKeys.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.prefixKeys[mid]![0] < key) lo = mid + 1
      else hi = mid
    }
    const seen = new Set<CatalogEntity>()
    for (let i = lo; i < this.prefixKeys.length && this.prefixKeys[i]![0].startsWith(key); i++) {
      const e = this.prefixKeys[i]![1]
      if (!seen.has(e) && ok(e)) {
        seen.add(e)
        out.push({ entity: e, how: 'prefix' })
      }
    }
    return { key, matches: out }
  }

  /** Nearest names by edit distance, for `not_found` answers. */
  suggestions(key: string, n = 5): Array<{ name: string; distance: number }> {
    const max = Math.max(2, Math.floor(key.length / 3))
    const best = new Map<string, number>()
    for (const [k, e] of this.prefixKeys) {
      // Against the start of the key: at most two characters longer than the query.
      const d = distance(key, k, Math.min(k.length, key.length + 2), max)
      if (d <= max && d < (best.get(e.name) ?? Infinity)) best.set(e.name, d)
    }
    return [...best]
      .map(([name, d]) => ({ name, distance: d }))
      .sort((a, b) => a.distance - b.distance || (a.name < b.name ? -1 : 1))
      .slice(0, n)
  }

  /** Leaves an entity stands for: itself when it carries the topic, else its members. */
  private leavesFor(e: CatalogEntity, topic: Topic): CatalogEntity[] {
    if (e.targets[topic]?.length || !e.members) return [e]
    return e.members.map((m) => this.byName.get(m)).filter((x): x is CatalogEntity => x !== undefined)
  }

  /** The distinct targets some matched entities map to for a topic, optionally within one package. */
  choices(entities: CatalogEntity[], topic: Topic, pkg?: string): { choices: TargetChoice[]; packages: string[] } {
    const pkgKey = pkg === undefined ? undefined : normalizeKey(pkg)
    const byTarget = new Map<string, TargetChoice>()
    const packages = new Set<string>()
    for (const e of entities) {
      for (const leaf of this.leavesFor(e, topic)) {
        const keys = leaf.targets[topic]
        if (!keys?.length) continue
        if (leaf.package) packages.add(leaf.package)
        if (pkgKey !== undefined && leaf.package !== undefined && normalizeKey(leaf.package) !== pkgKey) continue
        for (const key of keys) {
          const target = this.targets.get(key)
          if (!target) continue
          const perPackage = topic === 'pins' ? leaf.package : undefined
          const id = `${key}|${perPackage ?? ''}`
          let c = byTarget.get(id)
          if (!c) {
            c = { target, ...(perPackage ? { package: perPackage } : {}), parts: [] }
            byTarget.set(id, c)
          }
          if (!c.parts.includes(leaf.name)) c.parts.push(leaf.name)
        }
      }
    }
    const choices = [...byTarget.values()].sort((a, b) => (a.target.key < b.target.key ? -1 : a.target.key > b.target.key ? 1 : (a.package ?? '') < (b.package ?? '') ? -1 : 1))
    for (const c of choices) c.parts.sort()
    return { choices, packages: [...packages].sort() }
  }

  /** The kind of source a target is read from (`cmsis-svd`, `stm32-data-chip`), `unknown` if the inventory does not say. */
  kindOf(t: TargetSummary): string {
    return this.kinds.get(t.sourcePath) ?? 'unknown'
  }

  /** The release's cross-check rule for a topic, if several kinds of source give it. */
  crossCheckRule(topic: Topic): { order: string[]; reason: string } | undefined {
    return this.catalog.crossCheck?.find((r) => r.topic === topic)
  }

  /** Why a topic has no source for an entity, from the release's curated gaps. */
  gap(e: CatalogEntity, topic: Topic): string | undefined {
    const key = normalizeKey(e.name)
    return this.catalog.gaps.find((g) => g.topic === topic && key.startsWith(normalizeKey(g.match.replace(/\*$/, ''))))?.reason
  }

  /** Number of `query` terms an entity's description matches, for ranking candidates. */
  score(e: CatalogEntity, query: string | undefined): number {
    if (!query) return 0
    const text = this.searchText.get(e)!
    let s = 0
    for (const t of queryTerms(query)) for (const w of text) if (w.startsWith(t)) { s++; break }
    return s
  }
}
