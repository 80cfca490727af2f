import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ContextParams } from '../../src/schemas/params.js'
import { CursorCodec } from '../../src/service/cursor.js'
import { HardwareFacts } from '../../src/service/facts.js'
import { DataDir } from '../../src/store/layout.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'
import { CORPUS_INVENTORY, corpusDataDir } from '../helpers/corpus-release.js'
import { ReleaseFiles, storedBodies } from '../store/model.js'

/*
 * Context paging and token budgeting, checked against expectations derived from the stored fact
 * bodies (the facts as served) and the raw sources, never from the service's own query code.
 */

interface Body {
  id: string
  name: string
  value: Record<string, unknown>
}
interface Page {
  status: string
  facts: Body[]
  page: { returned: number; limit: number; maxTokens: number; tokens: number; truncatedBy: 'limit' | 'max_tokens' | null; nextCursor: string | null; budgetTooSmall: boolean; neededMaxTokens: number | null }
  notes?: string[]
  cursorNote?: string
}

const SECRET = 'context-test-secret'
let repo: SqliteRepository
let facts: HardwareFacts
let releaseId: string
let files: ReleaseFiles

beforeAll(async () => {
  const dir = await corpusDataDir()
  releaseId = new DataDir(dir).promotedId()!
  repo = new SqliteRepository(dir)
  facts = new HardwareFacts(repo, SECRET)
  files = new ReleaseFiles(new DataDir(dir).releaseDb(releaseId))
})
afterAll(async () => {
  files?.close()
  await repo?.close()
})

const ask = async (p: Partial<ContextParams> & { part: string; topic: ContextParams['topic'] }) => {
  const { body } = await facts.context(p as ContextParams)
  return { body, r: JSON.parse(body) as Page }
}
const errorOf = async (p: Partial<ContextParams> & { part: string; topic: ContextParams['topic'] }) => {
  try {
    await facts.context(p as ContextParams)
    return undefined
  } catch (err) {
    const e = err as { code: string; param?: string }
    return `${e.code} ${e.param}`
  }
}

/** The stored bodies of one target and topic, in document order. */
const bodies = (target: string, topic: string): Body[] => [...storedBodies(files, target, topic).values()].map((b) => JSON.parse(b) as Body)

const strings = (v: unknown): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.flatMap(strings) : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : [])
const wordsOf = (f: Body) => [f.name, ...strings(f.value)].join(' ').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean)

/** The documented selection: names/prefixes ORed (case-insensitive); with a query, facts matching at least one word, most matches first. */
function expected(all: Body[], o: { prefixes?: string[]; query?: string[] }): Body[] {
  const pre = (o.prefixes ?? []).map((p) => p.toLowerCase())
  const q = o.query ?? []
  return all
    .map((f, ord) => ({ f, ord, score: q.filter((t) => wordsOf(f).some((w) => w.startsWith(t))).length }))
    .filter((x) => (pre.length === 0 || pre.some((p) => x.f.name.toLowerCase().startsWith(p))) && (q.length === 0 || x.score > 0))
    .sort((a, b) => b.score - a.score || a.ord - b.ord)
    .map((x) => x.f)
}

describe('context paging and token budget (properties over the corpus release)', () => {
  const PART = 'STM32F407VGT6'
  let regs: Body[]
  let vocabulary: string[]
  let prefixes: string[]
  beforeAll(() => {
    regs = bodies('svd:STMicro/STM32F407', 'registers')
    const count = new Map<string, number>()
    for (const f of regs.slice(0, 3000)) for (const w of new Set(wordsOf(f))) if (w.length > 2 && !/^\d+$/.test(w)) count.set(w, (count.get(w) ?? 0) + 1)
    vocabulary = [...count].filter(([, n]) => n >= 3 && n <= 400).map(([w]) => w).sort().slice(0, 300)
    prefixes = [...new Set(regs.map((f) => f.name.slice(0, f.name.indexOf('.') + 1)))].filter((p) => p !== '').sort()
  })

  it('never exceeds max_tokens (real cl100k_base count of the whole body), and the pages of a walk are the expected facts in order', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 256, max: 16000 }),
        fc.integer({ min: 1, max: 50 }),
        fc.option(fc.array(fc.nat(), { minLength: 1, maxLength: 3 }), { nil: undefined }),
        fc.option(fc.array(fc.nat(), { minLength: 1, maxLength: 2 }), { nil: undefined }),
        async (maxTokens, limit, qi, pi) => {
          const query = qi?.map((i) => vocabulary[i % vocabulary.length]!)
          const pre = pi?.map((i) => prefixes[i % prefixes.length]!)
          const want = expected(regs, { ...(pre ? { prefixes: pre } : {}), ...(query ? { query: [...new Set(query)] } : {}) })
          const params = { part: PART, topic: 'registers' as const, max_tokens: maxTokens, limit, ...(query ? { query: query.join(' ') } : {}), ...(pre ? { fact_name_prefixes: pre.join(',') } : {}) }
          const got: Body[] = []
          let cursor: string | undefined
          for (let page = 0; page < 4; page++) {
            const { body, r } = await ask({ ...params, ...(cursor ? { cursor } : {}) })
            expect(countTokens(body)).toBeLessThanOrEqual(maxTokens)
            expect(r.facts.length).toBeLessThanOrEqual(limit)
            expect(r.page.returned).toBe(r.facts.length)
            got.push(...r.facts)
            const more = want.length > got.length
            // A page stops early only for a reason, and a reason always comes with a way on (or a note).
            if (!more) expect([r.page.truncatedBy, r.page.nextCursor]).toEqual([null, null])
            else if (r.facts.length === limit) expect(r.page.truncatedBy).toBe('limit')
            else {
              expect(r.page.truncatedBy).toBe('max_tokens')
              // Stopped early only when the next fact would not fit. The service counts the parts apart
              // (never fewer tokens than the joined whole: up to one more per fact at its comma), and the
              // cursor's room at its largest: hence the slack of 32 plus one per fact of the page.
              expect(countTokens(body) + countTokens(JSON.stringify(want[got.length])) + 1).toBeGreaterThan(maxTokens - 32 - r.facts.length)
            }
            if (more && r.facts.length > 0) expect(r.page.nextCursor).toEqual(expect.any(String))
            cursor = r.page.nextCursor ?? undefined
            if (!cursor) break
          }
          expect(got.map((f) => f.id)).toEqual(want.slice(0, got.length).map((f) => f.id))
        }
      ),
      { numRuns: 40 }
    )
  })

  it('a page that ends exactly at the last fact has no cursor; one more fact gives one', async () => {
    const names = 'RCC.CR,RCC.PLLCFGR,RCC.CFGR'
    const full = (await ask({ part: PART, topic: 'registers', fact_names: names, limit: 3 })).r
    expect(full.facts.map((f) => f.name)).toEqual(['RCC.CR', 'RCC.PLLCFGR', 'RCC.CFGR'])
    expect(full.page).toMatchObject({ returned: 3, truncatedBy: null, nextCursor: null })
    const first = (await ask({ part: PART, topic: 'registers', fact_names: names, limit: 2 })).r
    expect(first.page).toMatchObject({ returned: 2, truncatedBy: 'limit', nextCursor: expect.any(String) })
    const second = (await ask({ part: PART, topic: 'registers', fact_names: names, limit: 2, cursor: first.page.nextCursor! })).r
    expect(second.facts.map((f) => f.name)).toEqual(['RCC.CFGR'])
    expect(second.page).toMatchObject({ returned: 1, truncatedBy: null, nextCursor: null })
    expect(second.notes ?? []).toEqual([])
  })

  it('a fact larger than the budget is not cut: no facts, no cursor, and page.budgetTooSmall with the max_tokens that would do', async () => {
    // The largest register fact by the real tokenizer; the smallest budget cannot hold it.
    const rcc = regs.filter((f) => f.name.startsWith('RCC.') || f.name.startsWith('USART1.')).sort((a, b) => countTokens(JSON.stringify(b)) - countTokens(JSON.stringify(a)))[0]!
    expect(countTokens(JSON.stringify(rcc))).toBeGreaterThan(300)
    const { body, r } = await ask({ part: PART, topic: 'registers', fact_names: rcc.name, max_tokens: 256 })
    expect(countTokens(body)).toBeLessThanOrEqual(256)
    expect(r.facts).toEqual([])
    expect(r.page).toMatchObject({ returned: 0, truncatedBy: 'max_tokens', nextCursor: null, budgetTooSmall: true })
    // The note and page.neededMaxTokens say how much would do.
    expect(r.notes!.join(' ')).toMatch(new RegExp(`max_tokens of at least ${r.page.neededMaxTokens}`))
    expect(r.cursorNote).toBeUndefined()
    // Reached through a cursor, the same dead end also says how to go on.
    const before = regs[regs.indexOf(rcc) - 1]!
    const pair = `${before.name},${rcc.name}`
    const first = (await ask({ part: PART, topic: 'registers', fact_names: pair, limit: 1 })).r
    expect(first.facts.map((f) => f.name)).toEqual([before.name])
    const next = (await ask({ part: PART, topic: 'registers', fact_names: pair, limit: 1, max_tokens: 256, cursor: first.page.nextCursor! })).r
    expect(next.facts).toEqual([])
    // The page says it: a client that checks budgetTooSmall repeats with neededMaxTokens, not a larger guess.
    expect(next.page).toMatchObject({ truncatedBy: 'max_tokens', nextCursor: null, budgetTooSmall: true })
    expect(next.page.neededMaxTokens).toBeGreaterThan(256)
    const rest = (await ask({ part: PART, topic: 'registers', fact_names: pair, limit: 1, max_tokens: next.page.neededMaxTokens!, cursor: first.page.nextCursor! })).r
    expect(rest.facts.map((f) => f.name)).toEqual([rcc.name])
  })

  it('a cursor is bound to every parameter that shapes the result set, query terms included', async () => {
    const base = { part: PART, topic: 'registers' as const, limit: 2 }
    const variants: Array<Partial<ContextParams>> = [
      { query: 'usart baud' },
      { fact_name_prefixes: 'USART1.,USART2.' },
      { fact_names: 'RCC.CR,RCC.CFGR,RCC.PLLCFGR' },
      { peripheral: 'usart1' },
      { fact_name_prefixes: 'USART', query: 'enable' }
    ]
    for (const v of variants) {
      const r = (await ask({ ...base, ...v })).r
      const cursor = r.page.nextCursor!
      expect(cursor, JSON.stringify(v)).toEqual(expect.any(String))
      // The same query continues; any change to it is refused.
      expect((await ask({ ...base, ...v, cursor })).r.status).toBe('ok')
      const changed: Array<Partial<ContextParams>> = [
        { ...v, query: v.query ? v.query + ' clock' : 'clock' },
        { ...v, query: undefined },
        { ...v, fact_name_prefixes: (v.fact_name_prefixes ?? 'GPIO') + ',RCC.' },
        { ...v, fact_names: (v.fact_names ?? 'RCC.CR') + ',RCC.CIR' },
        { ...v, peripheral: v.peripheral ? 'usart2' : 'rcc' },
        { ...v, topic: 'electrical' }
      ]
      for (const c of changed) {
        const p = Object.fromEntries(Object.entries({ ...base, ...c, cursor }).filter(([, x]) => x !== undefined)) as ContextParams
        if (JSON.stringify({ ...base, ...v }) === JSON.stringify({ ...base, ...c })) continue
        expect(await errorOf(p), JSON.stringify(c)).toBe('INVALID_CURSOR cursor')
      }
      // Another part, another release.
      expect(await errorOf({ ...base, ...v, part: 'STM32F407VET6', cursor }), 'part').toBe(undefined)
      expect(await errorOf({ ...base, ...v, corpus_release: '0123456789abcdef', cursor })).toBe('INVALID_CURSOR cursor')
    }
    const q1 = (await ask({ ...base, query: 'usart' })).r.page.nextCursor!
    expect(await errorOf({ ...base, query: 'baud', cursor: q1 })).toBe('INVALID_CURSOR cursor')
  })

  it('a cursor of a release no longer kept is INVALID_CURSOR, not an unknown release', async () => {
    const forged = new CursorCodec(SECRET).encode('0123456789abcdef', 'x', { score: 0, ord: 1 })
    expect(await errorOf({ part: PART, topic: 'registers', cursor: forged })).toBe('INVALID_CURSOR cursor')
    expect(await errorOf({ part: PART, topic: 'registers', cursor: forged, corpus_release: '0123456789abcdef' })).toBe('INVALID_CURSOR cursor')
    expect(await errorOf({ part: PART, topic: 'registers', corpus_release: '0123456789abcdef' })).toBe('UNKNOWN_CORPUS_RELEASE corpus_release')
    const ours = (await ask({ part: PART, topic: 'registers', limit: 1, corpus_release: releaseId })).r.page.nextCursor!
    expect((await ask({ part: PART, topic: 'registers', limit: 1, corpus_release: releaseId, cursor: ours })).r.facts).toHaveLength(1)
    expect((await ask({ part: PART, topic: 'registers', limit: 1, cursor: ours })).r.facts).toHaveLength(1)
  })

  it('default limit and budget are the spec\'s: 20 facts, 4000 tokens', async () => {
    const r = (await ask({ part: PART, topic: 'registers', fact_name_prefixes: 'GPIOA.MODER.' })).r
    expect(r.page).toMatchObject({ limit: 20, maxTokens: 4000, returned: 16 })
    const big = (await ask({ part: PART, topic: 'registers' })).r
    expect(big.page.limit).toBe(20)
    expect(big.page.maxTokens).toBe(4000)
  })
})

describe('errata silicon revisions, from the raw errata header', () => {
  /** Per erratum (and `configuration`) function, the switch of one part code: listed revision codes and the default, read from the header text. */
  function switches(header: string, series: string, partCode: string) {
    const out = new Map<number, { cases: Map<string, boolean>; dflt: boolean }>()
    const fn = new RegExp(`static inline bool ${series}_(?:errata|configuration)_(\\d+)\\(void\\)\\s*\\{([\\s\\S]*?)\\n\\}`, 'g')
    for (const m of header.matchAll(fn)) {
      const block = new RegExp(`if \\(var1 == ${partCode}\\)\\s*\\{\\s*switch\\(var2\\)\\s*\\{([\\s\\S]*?)\\}`).exec(m[2]!)
      if (!block) continue
      const cases = new Map<string, boolean>()
      for (const c of block[1]!.matchAll(/case (0x[0-9A-Fa-f]+)ul:\s*return (true|false);/g)) cases.set('0x' + c[1]!.slice(2).toLowerCase().padStart(2, '0'), c[2] === 'true')
      const d = /default:\s*return (true|false);/.exec(block[1]!)
      out.set(Number(m[1]), { cases, dflt: d?.[1] === 'true' })
    }
    return out
  }

  it('a revision listed as not affected excludes the erratum even when unlisted revisions are affected', async () => {
    const header = readFileSync(join(CORPUS_INVENTORY, 'errata/nordic/nrf52_erratas.h'), 'utf8')
    const nrf52840 = switches(header, 'nrf52', '0x08')
    expect(nrf52840.size).toBeGreaterThan(50)
    const all = async (rev: string) => {
      const names = new Set<string>()
      let cursor: string | undefined
      do {
        const r = (await ask({ part: 'nRF52840', topic: 'errata', silicon_revision: rev, limit: 50, max_tokens: 16000, ...(cursor ? { cursor } : {}) })).r
        for (const f of r.facts) names.add(f.name)
        cursor = r.page.nextCursor ?? undefined
      } while (cursor)
      return names
    }
    const revs = [...new Set([...nrf52840.values()].flatMap((s) => [...s.cases.keys()]))].sort()
    expect(revs.length).toBeGreaterThan(2)
    let notAffectedChecked = 0
    for (const rev of [...revs, '0x0f']) {
      const want = [...nrf52840].filter(([, s]) => s.cases.get(rev) ?? s.dflt).map(([n]) => `errata.${n}`).sort()
      const got = [...(await all(rev.replace(/^0x0?/, '')))].sort()
      expect(got, `silicon_revision ${rev}`).toEqual(want)
      notAffectedChecked += [...nrf52840.values()].filter((s) => s.cases.get(rev) === false && s.dflt).length
    }
    // The case the issue names: listed as not affected while every unlisted revision is.
    expect(notAffectedChecked).toBeGreaterThan(0)
  })

  it('revision (deprecated) and silicon_revision must agree when both are given', async () => {
    expect(await errorOf({ part: 'nRF52840', topic: 'errata', revision: '0x01', silicon_revision: '0x02' })).toBe('INVALID_PARAMETER revision')
    const both = await ask({ part: 'nRF52840', topic: 'errata', revision: '1', silicon_revision: '0x01', limit: 5 })
    const one = await ask({ part: 'nRF52840', topic: 'errata', silicon_revision: '0x01', limit: 5 })
    expect(both.r.facts.map((f) => f.id)).toEqual(one.r.facts.map((f) => f.id))
    expect(both.r.notes).toContain('revision is deprecated: use silicon_revision.')
  })
})

describe('the envelope: filters as applied, notes, answers without facts, the budget edge', () => {
  const F407 = { part: 'STM32F407VGT6', topic: 'registers' as const }

  it('echoes every filter it applied, and only those', async () => {
    const { r } = await ask({ ...F407, fact_names: 'USART1.CR1,USART1.BRR', fact_name_prefixes: 'USART1.SR.', peripheral: 'usart1', query: 'Enable USART', limit: 5 })
    const f = (r as unknown as { filters: Record<string, unknown> }).filters
    expect(f.factNames).toEqual(['USART1.CR1', 'USART1.BRR'])
    expect(f.factNamePrefixes).toEqual(['USART1.SR.'])
    expect(f.peripheral).toBe('USART1')
    expect(f.queryTerms).toEqual(['enable', 'usart'])
    expect(Object.keys(f).sort()).toEqual(['factNamePrefixes', 'factNames', 'peripheral', 'queryTerms'])
    const bare = JSON.parse((await facts.context({ ...F407, limit: 1 } as ContextParams)).body) as { filters: object; resolvedPart?: { name: string } }
    expect(bare.filters).toEqual({})
    expect(bare.resolvedPart?.name).toBeTypeOf('string')
    const errata = JSON.parse((await facts.context({ part: 'nRF52832', topic: 'errata', silicon_revision: 'rev2', package: 'QFN48', limit: 1 } as ContextParams)).body) as { filters: Record<string, unknown> }
    expect(Object.keys(errata.filters).sort()).toEqual(['package', 'siliconRevision'])
    expect(errata.filters.package).toBe('QFN48')
  })

  it('a peripheral filter alone gives that peripheral\'s facts only, in order, to the end', async () => {
    const all = (await ask({ ...F407, fact_name_prefixes: 'USART2', limit: 50 })).r.facts.map((f) => f.name)
    const usart2 = all.filter((n) => n === 'USART2' || n.startsWith('USART2.'))
    expect(usart2.length).toBeGreaterThan(10)
    const { r } = await ask({ ...F407, peripheral: 'usart2', limit: 50 })
    expect(r.facts.map((f) => f.name)).toEqual(usart2)
  })

  it('a list of no names is refused naming its own parameter, with a reason', async () => {
    expect(await errorOf({ ...F407, fact_names: ' , ,' })).toBe('INVALID_PARAMETER fact_names')
    expect(await errorOf({ ...F407, fact_name_prefixes: ',' })).toBe('INVALID_PARAMETER fact_name_prefixes')
    const err = await facts.context({ part: 'nRF52840', topic: 'errata', revision: '0x01', silicon_revision: '0x02' } as ContextParams).catch((e: Error) => e)
    expect((err as Error).message).toMatch(/disagree/)
    const cursor = (await ask({ ...F407, query: 'usart', limit: 1 })).r.page.nextCursor!
    const other = await facts.context({ ...F407, query: 'baud', limit: 1, cursor } as ContextParams).catch((e: Error) => e)
    expect((other as Error).message).toMatch(/different query/)
  })

  it('says when a parameter was not applied: silicon_revision outside errata, a query without searchable terms', async () => {
    const { r } = await ask({ ...F407, silicon_revision: 'Z', limit: 1 })
    expect(r.notes?.join(' ')).toMatch(/silicon_revision.*errata/)
    // Echoed in its canonical form.
    expect((r as unknown as { filters: object }).filters).toEqual({ siliconRevision: 'z' })
    const q = (await ask({ ...F407, query: '!!!', limit: 1 })).r
    expect(q.notes?.join(' ')).toMatch(/query has no searchable terms/)
    expect(q.facts.length).toBe(1)
    const plain = (await ask({ part: 'nRF52832', topic: 'errata', silicon_revision: 'rev2', limit: 1 })).r
    expect(plain.notes ?? []).toEqual([])
  })

  it('answers without facts say why: unknown part (with suggestions), ambiguous part (with candidates), no match, end of the set', async () => {
    const unknown = JSON.parse((await facts.context({ part: 'STM32F408VG', topic: 'registers' } as ContextParams)).body) as Page & { suggestions: string[]; target: null }
    expect(unknown.status).toBe('not_found')
    expect(unknown.target).toBeNull()
    expect(unknown.suggestions.length).toBeGreaterThan(0)
    expect(unknown.notes).toEqual(['Unknown part: no facts returned.'])
    const amb = JSON.parse((await facts.context({ part: 'STM32F407', topic: 'pins' } as ContextParams)).body) as Page & { candidates: Array<{ package: string }>; candidateCount: number }
    expect(amb.status).toBe('ambiguous')
    expect(amb.facts).toEqual([])
    expect(amb.candidates.map((c) => c.package)).toEqual(expect.arrayContaining(['LQFP100', 'LQFP144']))
    expect(amb.candidateCount).toBeGreaterThanOrEqual(amb.candidates.length)
    expect(amb.notes?.join(' ')).toMatch(/Ambiguous part.*the candidates are the document targets to choose from/)
    const none = (await ask({ ...F407, fact_names: 'NO.SUCH.REGISTER' })).r
    expect(none.status).toBe('ok')
    expect(none.facts).toEqual([])
    expect(none.notes).toEqual(['No facts match these filters.'])
  })

  it('the smallest budget that holds a page holds it whole; one token less gives back a fact, never more than the budget', async () => {
    const p = { ...F407, fact_names: 'USART1.CR1,USART1.BRR,USART1.CR2', limit: 50 }
    const whole = (await ask(p)).r
    expect(whole.facts.map((f) => f.name).sort()).toEqual(['USART1.BRR', 'USART1.CR1', 'USART1.CR2'])
    expect(whole.page.truncatedBy).toBeNull()
    // The budget reserves room for a cursor until the page is known to be the last: the smallest
    // max_tokens giving all three facts lies a little above the whole answer's own count.
    let b = whole.page.tokens
    while ((await ask({ ...p, max_tokens: b })).r.facts.length < 3) b++
    const exact = await ask({ ...p, max_tokens: b })
    expect(exact.r.page.truncatedBy).toBeNull()
    expect(exact.r.page.tokens).toBe(whole.page.tokens)
    const less = await ask({ ...p, max_tokens: b - 1 })
    expect(less.r.facts.length).toBe(2)
    expect(less.r.page.truncatedBy).toBe('max_tokens')
    expect(less.r.page.nextCursor).toBeTypeOf('string')
    expect(less.r.page.tokens).toBeLessThanOrEqual(b - 1)
    expect(countTokens(less.body)).toBeLessThanOrEqual(b - 1)
  })

  it('leaves the filter lists out of the echo when they alone would not fit, and candidates beyond the budget out of an ambiguous answer', async () => {
    const many = Array.from({ length: 60 }, (_, i) => `GPIOA.MODER.MODER${i}`).join(',')
    const { r, body } = await ask({ ...F407, fact_names: many, max_tokens: 256 })
    const f = (r as unknown as { filters: Record<string, unknown> }).filters
    expect(f.elided).toBe(true)
    expect(f.factNames).toBeUndefined()
    expect(countTokens(body)).toBeLessThanOrEqual(256)
    const unknown = JSON.parse((await facts.context({ part: 'STM32F408VG', topic: 'registers', fact_names: many, max_tokens: 256 } as ContextParams)).body) as { filters: Record<string, unknown>; page: { tokens: number } }
    expect(unknown.filters.elided).toBe(true)
    expect(unknown.page.tokens).toBeLessThanOrEqual(256)
    const amb = await ask({ part: 'STM32F407', topic: 'pins', max_tokens: 256 })
    const a = amb.r as unknown as { status: string; candidates: unknown[]; candidateCount: number }
    expect(a.status).toBe('ambiguous')
    expect(a.candidates.length).toBeLessThan(a.candidateCount)
    expect(countTokens(amb.body)).toBeLessThanOrEqual(256)
  })
})
