import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import Database from 'better-sqlite3'
import { inflateRawSync } from 'node:zlib'
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base'
import type { Topic } from '../../src/model/fact.js'
import type { FactQuery, FactRow } from '../../src/store/types.js'

export interface ModelFact {
  ord: number
  name: string
  package: string | null
  peripherals: Set<string>
  terms: string[]
  body: string
  /** Errata: codes listed as affected / not affected, and whether unlisted codes are. */
  revisions?: { affected: Set<string>; notAffected: Set<string>; unlisted: boolean }
}

interface Body {
  topic: Topic
  name: string
  value: Record<string, unknown>
  scope: { package?: string }
  evidence: Array<{ sourceSha256: string }>
}

const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase())
const strings = (v: unknown): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.flatMap(strings) : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : [])

/** Searchable words of a fact, as the README puts it: lowercase letter/digit runs of its name and of every string of its value. */
const wordsOf = (b: Body) => [...new Set([b.name, ...strings(b.value)].join(' ').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean))]

/**
 * A release's files as the release format lays them out (schema 5), read without src/: the top
 * file `release.sqlite` maps each (target, topic) to a shard file `shards/<sha256>.sqlite` (listed
 * in its `shards` table) and that shard's `tt` and contiguous ords `first..last`.
 */
export class ReleaseFiles {
  private readonly top: Database.Database
  private readonly open = new Map<number, Database.Database>()

  constructor(readonly file: string) {
    this.top = new Database(file, { readonly: true, fileMustExist: true })
  }

  /** The range of one target and topic, and its shard's connection; undefined when it has no facts. */
  range(target: string, topic: string): { db: Database.Database; tt: number; first: number; last: number } | undefined {
    const r = this.top
      .prepare<[string, string], { shard: number; tt: number; first: number; last: number }>('SELECT shard, tt, first, last FROM fact_ranges WHERE target = ? AND topic = ?')
      .get(target, topic)
    if (!r) return undefined
    let db = this.open.get(r.shard)
    if (!db) {
      const { sha256 } = this.top.prepare<[number], { sha256: string }>('SELECT sha256 FROM shards WHERE shard = ?').get(r.shard)!
      db = new Database(join(dirname(this.file), 'shards', `${sha256}.sqlite`), { readonly: true, fileMustExist: true })
      this.open.set(r.shard, db)
    }
    return { db, tt: r.tt, first: r.first, last: r.last }
  }

  /** Every (target, topic) with facts. */
  scopes(): Array<{ target: string; topic: Topic }> {
    return this.top.prepare<[], { target: string; topic: Topic }>('SELECT target, topic FROM fact_ranges ORDER BY target, topic').all()
  }

  close(): void {
    for (const db of this.open.values()) db.close()
    this.top.close()
  }
}

/**
 * The stored body of every fact of one target and topic, by its shard's ord: bodies are deflated
 * (raw) up to 8 to a block, joined by line breaks, in the shard's `fact_bodies` keyed by their
 * first ord.
 */
export function storedBodies(files: ReleaseFiles, target: string, topic: string): Map<number, string> {
  const out = new Map<number, string>()
  const range = files.range(target, topic)
  if (!range) return out
  const { db } = range
  const start = db.prepare<[number], { first: number }>('SELECT max(first) AS first FROM fact_bodies WHERE first <= ?').get(range.first)!.first
  for (const b of db.prepare<[number, number], { first: number; data: Buffer }>('SELECT first, data FROM fact_bodies WHERE first BETWEEN ? AND ?').iterate(start, range.last))
    inflateRawSync(b.data)
      .toString('utf8')
      .split('\n')
      .forEach((body, i) => {
        if (b.first + i >= range.first && b.first + i <= range.last) out.set(b.first + i, body)
      })
  return out
}

/**
 * A brute-force oracle of FactQuery semantics, written from the documented rules rather than
 * from either store, and independent of src/ and of the indexer's derived columns: it reads
 * only each fact's identity (ord, target, topic) and its public JSON body, and re-derives every
 * filter from the body (name, package, errata revisions, words) or from the raw source artifact
 * in the release's archive (the peripheral instances of a pin's signals). Every store must
 * return exactly what this returns.
 */
export class FactModel {
  private readonly files: ReleaseFiles
  private readonly archive: string
  private readonly cache = new Map<string, ModelFact[]>()
  private readonly instances = new Map<string, Set<string>>()
  private readonly tokens = new Map<ModelFact, number>()

  constructor(file: string) {
    this.files = new ReleaseFiles(file)
    // <data dir>/releases/<id>/release.sqlite; artifacts are archived by sha256 in <data dir>/archive.
    this.archive = join(dirname(dirname(dirname(file))), 'archive', 'sha256')
  }

  /** target/topic pairs with facts, in a stable order, with the number of facts their shard holds. */
  scopes(): Array<{ target: string; topic: Topic; count: number }> {
    return this.files.scopes().map(({ target, topic }) => {
      const r = this.files.range(target, topic)!
      return { target, topic, count: r.db.prepare<[number], { n: number }>('SELECT count(*) AS n FROM facts WHERE tt = ?').get(r.tt)!.n }
    })
  }

  /** `<IP InstanceName=…>` of an STM32 MCU file, read from the archived bytes. */
  private mcuInstances(sha256: string): Set<string> {
    let s = this.instances.get(sha256)
    if (!s) {
      const xml = readFileSync(join(this.archive, sha256.slice(0, 2), sha256), 'utf8')
      s = new Set([...xml.matchAll(/<IP\b[^>]*\bInstanceName="([^"]+)"/g)].map((m) => m[1]!))
      this.instances.set(sha256, s)
    }
    return s
  }

  /**
   * Peripheral instances a fact concerns: a register's is its peripheral (the name's first
   * segment); a pin's are those of its signals: the longest `_`-prefix that is an instance of the
   * MCU, else the text before the first `_`. GPIO and EVENTOUT are modes, not peripherals.
   */
  private peripheralsOf(b: Body): Set<string> {
    if (b.topic === 'registers') return new Set([b.name.split('.')[0]!.toUpperCase()])
    if (b.topic !== 'pins') return new Set()
    const inst = this.mcuInstances(b.evidence[0]!.sourceSha256)
    const out = new Set<string>()
    for (const sig of (b.value.signals as string[] | undefined) ?? []) {
      if (sig === 'GPIO' || sig === 'EVENTOUT') continue
      const parts = sig.split('_')
      let p: string | undefined
      for (let n = parts.length - 1; n > 0 && p === undefined; n--) if (inst.has(parts.slice(0, n).join('_'))) p = parts.slice(0, n).join('_')
      out.add((p ?? parts[0]!).toUpperCase())
    }
    return out
  }

  facts(target: string, topic: string): ModelFact[] {
    const key = `${target}\0${topic}`
    let list = this.cache.get(key)
    if (!list) {
      const bodies = storedBodies(this.files, target, topic)
      const range = this.files.range(target, topic)
      list = (range ? range.db.prepare<[number], { ord: number }>('SELECT ord FROM facts WHERE tt = ? ORDER BY ord').all(range.tt) : [])
        .map((r) => ({ ...r, body: bodies.get(r.ord)! }))
        .map((r) => {
          const b = JSON.parse(r.body) as Body
          const f: ModelFact = { ord: r.ord, name: b.name, package: b.scope.package ?? null, peripherals: this.peripheralsOf(b), terms: wordsOf(b), body: r.body }
          if (b.topic === 'errata') {
            const revs = (b.value.revisions as Array<{ code: string; applies: boolean }> | undefined) ?? []
            f.revisions = {
              affected: new Set(revs.filter((x) => x.applies).map((x) => x.code)),
              notAffected: new Set(revs.filter((x) => !x.applies).map((x) => x.code)),
              unlisted: b.value.appliesToUnlistedRevisions === true
            }
          }
          return f
        })
      this.cache.set(key, list)
    }
    return list
  }

  /** cl100k_base tokens of a body, counted with the reference tokenizer (not the service's). */
  private tokensOf(f: ModelFact): number {
    let n = this.tokens.get(f)
    if (n === undefined) this.tokens.set(f, (n = countTokens(f.body)))
    return n
  }

  query(q: FactQuery): FactRow[] {
    const names = new Set(q.names.map(asciiLower))
    const prefixes = q.prefixes.map(asciiLower)
    const out: Array<{ f: ModelFact; score: number }> = []
    for (const f of this.facts(q.target, q.topic)) {
      const nameKey = asciiLower(f.name)
      if ((names.size || prefixes.length) && !names.has(nameKey) && !prefixes.some((p) => nameKey.startsWith(p))) continue
      if (q.package !== undefined && (f.package === null || asciiLower(f.package) !== asciiLower(q.package))) continue
      if (q.peripheral !== undefined && !f.peripherals.has(q.peripheral)) continue
      if (q.siliconRevision !== undefined && f.revisions) {
        const c = q.siliconRevision
        const r = f.revisions
        if (!(r.affected.has(c) || (r.unlisted && !r.affected.has(c) && !r.notAffected.has(c)))) continue
      }
      const score = q.terms.filter((t) => f.terms.some((x) => x.startsWith(t))).length
      if (q.terms.length && score === 0) continue
      out.push({ f, score })
    }
    out.sort((a, b) => b.score - a.score || a.f.ord - b.f.ord)
    const a = q.after
    const rest = a ? out.filter((r) => (q.terms.length ? r.score < a.score || (r.score === a.score && r.f.ord > a.ord) : r.f.ord > a.ord)) : out
    // Counting tokens with the reference tokenizer is slow (~0.2 ms a fact): only when a row's tokens are read.
    const tokensOf = (f: ModelFact) => this.tokensOf(f)
    return rest.slice(0, q.limit).map(({ f, score }) => ({
      ord: f.ord,
      score,
      body: f.body,
      get tokens() {
        return tokensOf(f)
      }
    }))
  }

  close(): void {
    this.files.close()
  }
}

/** Deterministic pseudo-random numbers (mulberry32), so every run asks the same questions. */
export function rng(seed: number): { next(): number; pick<T>(xs: readonly T[]): T; int(n: number): number } {
  let s = seed >>> 0
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return { next, int: (n) => Math.floor(next() * n), pick: (xs) => xs[Math.floor(next() * xs.length)]! }
}
