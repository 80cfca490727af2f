import Database from 'better-sqlite3'
import { factTerms } from '../../src/model/fact-terms.js'
import { unpackBodies } from '../../src/store/sqlite/schema.js'
import type { Topic } from '../../src/model/fact.js'
import type { FactQuery, FactRow } from '../../src/store/types.js'

export interface ModelFact {
  ord: number
  name: string
  nameKey: string
  package: string | null
  revisions: string | null
  peripherals: Set<string>
  terms: string[]
  tokens: number
  body: string
}

const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase())

/**
 * A brute-force oracle of FactQuery semantics, written from the documented rules rather than
 * from either store: every store must return exactly what this returns.
 */
export class FactModel {
  private readonly db: Database.Database
  private readonly cache = new Map<string, ModelFact[]>()
  private readonly peripherals = new Map<number, Set<string>>()

  constructor(file: string) {
    this.db = new Database(file, { readonly: true, fileMustExist: true })
    for (const r of this.db.prepare<[], { ord: number; peripheral: string }>('SELECT ord, peripheral FROM fact_peripherals').iterate()) {
      const s = this.peripherals.get(r.ord) ?? new Set<string>()
      s.add(r.peripheral)
      this.peripherals.set(r.ord, s)
    }
  }

  /** target/topic pairs with facts, in a stable order. */
  scopes(): Array<{ target: string; topic: Topic; count: number }> {
    return this.db
      .prepare<[], { target: string; topic: Topic; count: number }>('SELECT target, topic, count(*) AS count FROM facts JOIN fact_ranges USING (tt) GROUP BY target, topic ORDER BY target, topic')
      .all()
  }

  /** The stored body of every fact of a range, from its deflated blocks. */
  private bodies(first: number, last: number): Map<number, string> {
    const out = new Map<number, string>()
    const start = this.db.prepare<[number], { first: number }>('SELECT max(first) AS first FROM fact_bodies WHERE first <= ?').get(first)!.first
    for (const b of this.db.prepare<[number, number], { first: number; data: Buffer }>('SELECT first, data FROM fact_bodies WHERE first BETWEEN ? AND ?').iterate(start, last))
      unpackBodies(b.data).forEach((body, i) => out.set(b.first + i, body))
    return out
  }

  facts(target: string, topic: string): ModelFact[] {
    const key = `${target}\0${topic}`
    let list = this.cache.get(key)
    if (!list) {
      const range = this.db.prepare<[string, string], { first: number; last: number }>('SELECT first, last FROM fact_ranges WHERE target = ? AND topic = ?').get(target, topic)
      const bodies = range ? this.bodies(range.first, range.last) : new Map<number, string>()
      list = this.db
        .prepare<[string, string], { ord: number; name_key: string; package: string | null; revisions: string | null; tokens: number }>(
          'SELECT ord, name_key, package, revisions, tokens FROM facts JOIN fact_ranges USING (tt) WHERE target = ? AND topic = ? ORDER BY ord'
        )
        .all(target, topic)
        .map((r) => ({ ...r, body: bodies.get(r.ord)! }))
        .map((r) => {
          const f = JSON.parse(r.body) as { name: string; value: unknown }
          return { ord: r.ord, name: f.name, nameKey: r.name_key, package: r.package, revisions: r.revisions, peripherals: this.peripherals.get(r.ord) ?? new Set(), terms: factTerms(f.name, f.value), tokens: r.tokens, body: r.body }
        })
      this.cache.set(key, list)
    }
    return list
  }

  query(q: FactQuery): FactRow[] {
    const names = new Set(q.names.map((n) => n.toLowerCase()))
    const prefixes = q.prefixes.map((p) => p.toLowerCase())
    const out: FactRow[] = []
    for (const f of this.facts(q.target, q.topic)) {
      if ((names.size || prefixes.length) && !names.has(f.nameKey) && !prefixes.some((p) => f.nameKey.startsWith(p))) continue
      if (q.package !== undefined && (f.package === null || asciiLower(f.package) !== asciiLower(q.package))) continue
      if (q.peripheral !== undefined && !f.peripherals.has(q.peripheral)) continue
      if (q.siliconRevision !== undefined && f.revisions !== null) {
        const r = f.revisions
        const c = q.siliconRevision
        if (!(r.includes(` ${c} `) || (r.includes(' * ') && !r.includes(` !${c} `)))) continue
      }
      const score = q.terms.filter((t) => f.terms.some((x) => x.startsWith(t))).length
      if (q.terms.length && score === 0) continue
      out.push({ ord: f.ord, score, tokens: f.tokens, body: f.body })
    }
    out.sort((a, b) => b.score - a.score || a.ord - b.ord)
    const a = q.after
    const rest = a ? out.filter((r) => (q.terms.length ? r.score < a.score || (r.score === a.score && r.ord > a.ord) : r.ord > a.ord)) : out
    return rest.slice(0, q.limit)
  }

  close(): void {
    this.db.close()
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
