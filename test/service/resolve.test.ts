import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CatalogEntity } from '../../src/model/catalog.js'
import { normalizeKey } from '../../src/model/text.js'
import { CatalogIndex } from '../../src/service/catalog-index.js'
import { HardwareFacts } from '../../src/service/facts.js'
import { DataDir } from '../../src/store/layout.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'
import { CORPUS_INVENTORY, corpusDataDir } from '../helpers/corpus-release.js'

/*
 * Resolution never picks and never invents: every part a query resolves to must match it by the
 * documented rules (README "Resolve never picks"), written here from those rules, not from the code.
 */

/** Case- and punctuation-insensitive form, as the README defines it (ASCII letters and digits). */
const norm = (s: string) => s.toUpperCase().replace(/[^A-Z0-9]/g, '')

/** Does `key` (normalized query) match the entity the way `how` claims? */
function claimHolds(e: CatalogEntity, key: string, how: string): boolean {
  const names = e.keys
  if (how === 'exact') return names.includes(key)
  if (how === 'prefix') return names.some((k) => k.startsWith(key))
  if (how === 'ordering-code') {
    // Selector part `STM32F407VGTx`: the x is the temperature digit; after the part's own suffix at most a packing code.
    const i = e.name.lastIndexOf('x')
    if (e.kind !== 'selector-part' || i < 0) return false
    const stem = norm(e.name.slice(0, i))
    const tail = norm(e.name.slice(i + 1))
    return new RegExp(`^${stem}[0-9]${tail}[A-Z0-9]{0,3}$`).test(key)
  }
  return false
}

/** Selector parts of the raw corpus, from the pin-data file names: `STM32F407V(E-G)Tx` lists flash letters E and G. */
function rawSelectorParts(): string[] {
  const out: string[] = []
  for (const f of readdirSync(join(CORPUS_INVENTORY, 'pins/stm32/mcu'))) {
    if (!f.endsWith('.xml')) continue
    let names = [f.slice(0, -4)]
    for (;;) {
      const m = /\(([^)]*)\)/.exec(names[0]!)
      if (!m) break
      names = names.flatMap((n) => m[1]!.split('-').map((alt) => n.replace(m[0], alt)))
    }
    out.push(...names)
  }
  return [...new Set(out)].sort()
}

let repo: SqliteRepository
let facts: HardwareFacts
let ix: CatalogIndex
beforeAll(async () => {
  const dir = await corpusDataDir()
  repo = new SqliteRepository(dir)
  facts = new HardwareFacts(repo, 'resolve-test')
  const store = (await repo.open(new DataDir(dir).promotedId()!))!
  ix = facts.index(store)
})
afterAll(async () => {
  await repo?.close()
})

describe('name normalizer (properties)', () => {
  const noise = fc.constantFrom(' ', '-', '_', '(', ')', '/', '.', ',', '\t')
  it('ignores ASCII case and punctuation, keeps letters and digits in order, and is idempotent', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split('')), fc.boolean(), fc.option(noise, { nil: undefined })), { maxLength: 30 }), (chars) => {
        const plain = chars.map(([c]) => c).join('')
        const mangled = chars.map(([c, lower, n]) => (lower ? c.toLowerCase() : c) + (n ?? '')).join('')
        expect(normalizeKey(mangled)).toBe(plain)
        expect(normalizeKey(normalizeKey(mangled))).toBe(plain)
      })
    )
  })
  it('keeps only A-Z and 0-9', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (s) => {
        expect(normalizeKey(s)).toMatch(/^[A-Z0-9]*$/)
      })
    )
  })
})

describe('resolve (properties over the corpus catalog)', () => {
  /** Queries near real names: prefixes, mangled names, ordering codes, one character off, noise. */
  const query = () => {
    const names = ix.catalog.entities.map((e) => e.name)
    const name = fc.constantFrom(...names)
    return fc.oneof(
      fc.tuple(name, fc.nat()).map(([n, k]) => n.slice(0, 2 + (k % Math.max(1, n.length - 1)))),
      fc.tuple(name, fc.boolean()).map(([n, lower]) => (lower ? n.toLowerCase() : n.toUpperCase()).replace(/(.)(.)/, '$1-$2 ')),
      fc.tuple(name.filter((n) => n.includes('x')), fc.integer({ min: 0, max: 9 }), fc.constantFrom('', 'TR', 'XXX', 'T', 'TRX1')).map(([n, d, s]) => n.slice(0, n.lastIndexOf('x')) + d + n.slice(n.lastIndexOf('x') + 1) + s),
      fc.tuple(name, fc.nat(), fc.constantFrom(...'A0Z9X'.split(''))).map(([n, i, c]) => {
        const at = i % n.length
        return n.slice(0, at) + c + n.slice(at + 1)
      }),
      fc.string({ minLength: 2, maxLength: 16 })
    )
  }

  it('every matched part matches the query as claimed (exact, ordering code, prefix)', () => {
    fc.assert(
      fc.property(query(), (q) => {
        const { key, matches } = ix.match(q)
        expect(key).toBe(norm(q))
        for (const m of matches) expect(claimHolds(m.entity, key, m.how), `${q} → ${m.entity.name} (${m.how})`).toBe(true)
        // One kind of match per answer, exact alone.
        expect(new Set(matches.map((m) => m.how)).size).toBeLessThanOrEqual(1)
        if (matches[0]?.how === 'exact') expect(matches).toHaveLength(1)
      }),
      { numRuns: 2000 }
    )
  })

  it('resolve names a part only when exactly one matched; candidates are matches or members of the one matched group', async () => {
    await fc.assert(
      fc.asyncProperty(query(), async (q) => {
        fc.pre(q.length >= 2 && q.length <= 128)
        const r = await facts.resolve({ q, candidate_limit: 20 })
        const key = norm(q)
        if (r.part !== null) {
          const e = ix.entity(r.part.name)!
          expect(claimHolds(e, key, r.match!), `${q} → ${r.part.name}`).toBe(true)
        }
        const { matches } = ix.match(q)
        expect(r.status === 'not_found').toBe(matches.length === 0)
        if (matches.length > 1) expect(r.part).toBeNull()
        const group = matches.length === 1 ? new Set(matches[0]!.entity.members ?? []) : new Set<string>()
        for (const c of r.candidates) {
          const e = ix.entity(c.name)!
          expect(claimHolds(e, key, 'exact') || claimHolds(e, key, 'prefix') || claimHolds(e, key, 'ordering-code') || group.has(c.name), `${q} → candidate ${c.name}`).toBe(true)
        }
        for (const [topic, t] of Object.entries(r.topics)) {
          if (t.status !== 'resolved') continue
          // A resolved topic is one document target: the part, or the one target every matched part shares.
          expect(t.target.key, `${q} ${topic}`).toEqual(expect.any(String))
        }
      }),
      { numRuns: 400 }
    )
  })
})

describe('ordering codes that fit two selector parts (raw pin-data file names)', () => {
  it('are ambiguous, with both parts as candidates: never a silent pick', async () => {
    const parts = rawSelectorParts()
    const shared: Array<{ code: string; parts: string[] }> = []
    for (const a of parts)
      for (const b of parts) {
        const ia = a.lastIndexOf('x')
        const ib = b.lastIndexOf('x')
        if (a >= b || ia < 0 || ib < 0 || norm(a.slice(0, ia)) !== norm(b.slice(0, ib))) continue
        const [ta, tb] = [a.slice(ia + 1), b.slice(ib + 1)]
        // `…T6` + the longer suffix, which the shorter part's pattern reads as a packing code.
        const [short, long] = ta.length <= tb.length ? [ta, tb] : [tb, ta]
        if (!long.startsWith(short) || long.length - short.length > 3) continue
        shared.push({ code: a.slice(0, ia) + '6' + long, parts: [a, b] })
      }
    expect(shared.length).toBeGreaterThan(5)
    const picked: string[] = []
    for (const { code, parts: both } of shared) {
      const r = await facts.resolve({ q: code, candidate_limit: 20 })
      const names = r.candidates.map((c) => c.name)
      if (r.part !== null || r.status !== 'ambiguous' || !both.every((p) => names.includes(p))) picked.push(`${code} → ${r.status} ${r.part?.name ?? ''} [${names.join(' ')}]`)
    }
    expect(picked).toEqual([])
  })

  it('an ordering code of one selector part resolves to exactly that part', async () => {
    const r = await facts.resolve({ q: 'STM32F407VGT6TR' })
    expect(r).toMatchObject({ status: 'resolved', match: 'ordering-code', part: { name: 'STM32F407VGTx' } })
    expect((await facts.resolve({ q: 'stm32f407vgt6' })).part?.name).toBe('STM32F407VGTx')
    // Not a digit where the temperature range goes, or more than a packing code after it: no ordering code.
    expect((await facts.resolve({ q: 'STM32F407VGTA' })).match).not.toBe('ordering-code')
    expect((await facts.resolve({ q: 'STM32F407VGT6TRXX' })).match).not.toBe('ordering-code')
  })
})
