import { readdirSync, readFileSync } from 'node:fs'
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
    // Other vendors' codes extend the part's own name (`nRF52840-QIAA`, `ATSAMD21G18A-AU`): never another part's.
    if (e.kind !== 'selector-part') return names.some((k) => key.startsWith(k) && key.length > k.length)
    // ST selector part `STM32F407VGTx`: the x is the temperature digit, then the part's own suffix, then at most TR.
    const i = e.name.lastIndexOf('x')
    if (i < 0) return false
    const stem = norm(e.name.slice(0, i))
    const tail = norm(e.name.slice(i + 1))
    return new RegExp(`^${stem}[0-9]${tail}(TR)?$`).test(key)
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

describe('ordering codes near two selector parts (raw pin-data file names)', () => {
  // ST's scheme (indexer/curation/rules.ts): the selector part with its temperature-range digit in
  // place of the x, then the part's own tail, then optionally TR (tape and reel). So `…T6N` is the
  // code of `…TxN` alone, while `…T6TR` could be `…Tx` packed on tape or a part whose own tail is TR.
  it('belong to the part whose own suffix they carry, and are ambiguous only when both could own them: never a silent pick', async () => {
    const parts = rawSelectorParts()
    const near: Array<{ code: string; short: string; long: string; packing: boolean }> = []
    for (const a of parts)
      for (const b of parts) {
        const ia = a.lastIndexOf('x')
        const ib = b.lastIndexOf('x')
        if (a >= b || ia < 0 || ib < 0 || norm(a.slice(0, ia)) !== norm(b.slice(0, ib))) continue
        const [ta, tb] = [a.slice(ia + 1), b.slice(ib + 1)]
        const [short, long] = ta.length <= tb.length ? [a, b] : [b, a]
        const [ts, tl] = ta.length <= tb.length ? [ta, tb] : [tb, ta]
        if (!tl.startsWith(ts) || tl.length - ts.length > 3) continue
        near.push({ code: a.slice(0, ia) + '6' + tl, short, long, packing: tl === ts + 'TR' })
      }
    expect(near.length).toBeGreaterThan(5)
    const wrong: string[] = []
    for (const { code, short, long, packing } of near) {
      const r = await facts.resolve({ q: code, candidate_limit: 20 })
      const names = r.candidates.map((c) => c.name)
      const ok = packing
        ? r.part === null && r.status === 'ambiguous' && names.includes(short) && names.includes(long)
        : r.match === 'ordering-code' && r.part?.name === long && !names.includes(short)
      if (!ok) wrong.push(`${code} → ${r.status} ${r.match ?? ''} ${r.part?.name ?? ''} [${names.join(' ')}]`)
    }
    expect(wrong).toEqual([])
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

describe('resolve: ranking, packages, suggestions and gaps', () => {
  /** Words of a candidate as the resolve answer describes it (name, kind, package, family, line, core). */
  const words = (c: Record<string, unknown>) => [c.name, c.kind, c.package, c.family, c.line, c.core].filter((x): x is string => typeof x === 'string').join(' ').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean)

  it('query ranks candidates by the number of its words they match, then by name, and never picks one', async () => {
    const vocabulary = ['lqfp100', 'lqfp64', 'ufqfpn48', 'tfbga100', 'cortex', 'm4', 'm0', 'stm32f4', 'selector', 'refname', 'part', 'lqfp48', 'stm32g0', 'nothing']
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('STM32F4', 'STM32G0', 'STM32F407', 'STM32', 'STM32F0', 'STM32L4'), fc.array(fc.constantFrom(...vocabulary), { minLength: 1, maxLength: 3 }), async (q, ws) => {
        const query = ws.join(' ')
        fc.pre(query.length >= 3)
        const r = await facts.resolve({ q, query, candidate_limit: 20 })
        const plain = await facts.resolve({ q, candidate_limit: 20 })
        expect(r.status).toBe(plain.status)
        expect(r.part).toEqual(plain.part)
        expect(r.candidateCount).toBe(plain.candidateCount)
        const score = (c: Record<string, unknown>) => [...new Set(ws)].filter((w) => words(c).some((x) => x.startsWith(w))).length
        for (let i = 1; i < r.candidates.length; i++) {
          const [a, b] = [r.candidates[i - 1]!, r.candidates[i]!]
          expect(score(a) > score(b) || (score(a) === score(b) && a.name < b.name), `${q} ${query}: ${a.name} before ${b.name}`).toBe(true)
        }
      }),
      { numRuns: 60 }
    )
  })

  it('pins of a family are ambiguous until a package narrows them; an unknown package lists the real ones', async () => {
    const amb = await facts.resolve({ q: 'STM32F407' })
    const pins = amb.topics.pins
    expect(pins.status).toBe('ambiguous')
    if (pins.status !== 'ambiguous') return
    // The packages of the STM32F407 pin-data files, read from their <Mcu Package="…"> attributes.
    const dir = join(CORPUS_INVENTORY, 'pins/stm32/mcu')
    const raw = readdirSync(dir)
      .filter((f) => f.startsWith('STM32F407') && f.endsWith('.xml'))
      .map((f) => /<Mcu [^>]*Package="([^"]+)"/.exec(readFileSync(join(dir, f), 'utf8'))![1]!)
    expect(raw.length).toBeGreaterThan(1)
    expect([...new Set(pins.candidates.map((c) => c.package))].sort()).toEqual([...new Set(raw)].sort())
    expect(pins.candidateCount).toBe(raw.length)
    expect(pins.hint).toMatch(/Several packages \(.*LQFP100.*\): give package=/)
    const one = JSON.parse((await facts.context({ part: 'STM32F407', topic: 'pins', package: 'lqfp100', fact_names: 'PA9' } as never)).body)
    expect(one).toMatchObject({ status: 'ok', target: { key: 'stm32:STM32F407V(E-G)Tx', package: 'LQFP100' } })
    const none = JSON.parse((await facts.context({ part: 'STM32F407', topic: 'pins', package: 'QFN999' } as never)).body)
    expect(none.status).toBe('not_covered')
    expect(none.reason).toBe('No matching part comes in package QFN999.')
    expect(none.availablePackages).toEqual(expect.arrayContaining(['LQFP100']))
    expect([...none.availablePackages].sort()).toEqual(none.availablePackages)
  })

  it('an unknown name gets the nearest names (at most 5, nearest first), and no match', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ix.catalog.entities.filter((e) => e.kind === 'selector-part').map((e) => e.name)), fc.nat(), async (name, at) => {
        const key = norm(name)
        const i = 6 + (at % (key.length - 6))
        const typo = key.slice(0, i) + (key[i] === 'Q' ? 'J' : 'Q') + key.slice(i + 1)
        const r = await facts.resolve({ q: typo })
        fc.pre(r.status === 'not_found')
        const s = r.suggestions!
        expect(s.length).toBeGreaterThan(0)
        expect(s.length).toBeLessThanOrEqual(5)
        expect(s[0]!.distance).toBeLessThanOrEqual(1)
        for (let k = 1; k < s.length; k++) expect(s[k - 1]!.distance < s[k]!.distance || (s[k - 1]!.distance === s[k]!.distance && s[k - 1]!.name < s[k]!.name)).toBe(true)
        for (const x of s) expect(x.distance).toBeLessThanOrEqual(Math.max(2, Math.floor(typo.length / 3)))
      }),
      { numRuns: 60 }
    )
    expect((await facts.resolve({ q: 'zz' })).suggestions).toEqual([])
  })

  it('a topic without a source names the curated reason', async () => {
    const r = await facts.resolve({ q: 'STM32F407VG' })
    expect(r.topics.errata.status).toBe('not_covered')
    if (r.topics.errata.status === 'not_covered') expect(r.topics.errata.reason).toMatch(/STM32/)
    const n = await facts.resolve({ q: 'nRF52840' })
    if (n.topics.pins.status === 'not_covered') expect(n.topics.pins.reason).toMatch(/Nordic|nRF/)
    expect(n.topics.pins.status).toBe('not_covered')
  })
})

describe('resolve: edges of the matching rules', () => {
  /** Plain Levenshtein distance, for checking the suggestions' reported distances. */
  function lev(a: string, b: string): number {
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
    for (let j = 1; j <= b.length; j++) d[0]![j] = j
    for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    return d[a.length]![b.length]!
  }

  it('exact names win; an empty key matches nothing', async () => {
    expect(await facts.resolve({ q: 'STM32F407VGTx' })).toMatchObject({ match: 'exact', part: { name: 'STM32F407VGTx' } })
    for (const q of ['--', '  ', '()']) expect((await facts.resolve({ q })).status, q).toBe('not_found')
  })

  it('ordering codes: a digit, the part\'s own suffix, then at most the packing code TR', async () => {
    const via = async (q: string) => {
      const r = await facts.resolve({ q, candidate_limit: 20 })
      return r.match === 'ordering-code' ? r.candidates.map((c) => c.name).sort() : []
    }
    for (const q of ['STM32F407VGT6', 'STM32F407VGT7', 'STM32F407VGT6TR']) expect(await via(q), q).toEqual(['STM32F407VGTx'])
    // Anything else after the digit is no ST ordering code of that part.
    for (const q of ['STM32F407VGT6XYZ', 'STM32F407VGT6T', 'STM32F407VGT6TRX']) expect(await via(q), q).toEqual([])
    // STM32G071KBTxN (pin file STM32G071K(8-B)TxN): its suffix N, then the packing code; never STM32G071KBTx.
    expect(await via('STM32G071KBT6NTR')).toEqual(['STM32G071KBTxN'])
  })

  it('a RefName with alternatives is no prefix of real names: `STM32F103C8B…` is not a part', async () => {
    const grouped = ix.catalog.entities.filter((e) => e.kind === 'refname' && e.name.includes('('))
    expect(grouped.length).toBeGreaterThan(10)
    for (const e of grouped.slice(0, 40)) {
      const key = norm(e.name).slice(0, -1)
      const { matches } = ix.match(key)
      expect(matches.map((m) => m.entity.name), key).not.toContain(e.name)
    }
  })

  it('suggestion distances are edit distances to the start of the suggested name', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ix.catalog.entities.filter((e) => e.kind === 'selector-part').map((e) => e.name)), fc.nat(), fc.integer({ min: 1, max: 3 }), async (name, at, cut) => {
        const key = norm(name).slice(0, -cut)
        const i = 5 + (at % (key.length - 5))
        const typo = key.slice(0, i) + (key[i] === 'Q' ? 'J' : 'Q') + key.slice(i + 1)
        const r = await facts.resolve({ q: typo })
        fc.pre(r.status === 'not_found')
        for (const s of r.suggestions!) {
          const e = ix.entity(s.name)!
          // Grouped RefNames (`(E-G)`) are never suggested by name prefix.
          expect(e.kind === 'refname' && e.name.includes('(')).toBe(false)
          const best = Math.min(...e.keys.map((k) => lev(typo, k.slice(0, Math.max(typo.length, Math.min(k.length, typo.length + 2))))))
          expect(s.distance, `${typo} → ${s.name}`).toBe(best)
        }
      }),
      { numRuns: 60 }
    )
  })

  it('candidates rank by words that start with a query word, not words that merely contain it', async () => {
    const r = await facts.resolve({ q: 'STM32F407', query: 'lqfp', candidate_limit: 20 })
    const first = r.candidates[0]!
    expect(first.package).toMatch(/^LQFP/)
    const bga = await facts.resolve({ q: 'STM32F407', query: 'fp100', candidate_limit: 20 })
    // `fp100` starts no word: no candidate is ranked up, so the order is by name.
    expect(bga.candidates.map((c) => c.name)).toEqual([...bga.candidates.map((c) => c.name)].sort())
  })
})
