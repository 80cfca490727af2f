import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { TOPICS, type Topic } from '../../src/model/fact.js'
import { HardwareFacts } from '../../src/service/facts.js'
import { DataDir } from '../../src/store/layout.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'
import type { FactQuery, FactRow, ReleaseRepository } from '../../src/store/types.js'
import { corpusDataDir } from '../helpers/corpus-release.js'
import { FactModel, rng, type ModelFact } from './model.js'

export interface RepositoryUnderTest {
  repo: ReleaseRepository
  close?: () => Promise<void>
}

const SECRET = 'conformance-cursor-secret'

/** The corpus release the global setup provides, else the shared on-demand build. */
async function corpusData(): Promise<string> {
  const provided = (inject as (key: string) => unknown)('corpusDataDir')
  return typeof provided === 'string' ? provided : corpusDataDir()
}

/** Runs `fn` over `items` with at most `n` in flight (the engine answers concurrent searches). */
async function pool<T, R>(items: readonly T[], n: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length)
  let i = 0
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (i < items.length) {
        const k = i++
        out[k] = await fn(items[k]!)
      }
    })
  )
  return out
}

interface Mismatch {
  what: string
  expected: unknown
  actual: unknown
}

function expectNoMismatches(mismatches: Mismatch[], checked: number): void {
  // One assertion over the whole sample; the first few differences are shown in full.
  expect({ checked, mismatches: mismatches.length, first: mismatches.slice(0, 3) }).toEqual({ checked, mismatches: 0, first: [] })
}

const pickCase = (r: ReturnType<typeof rng>, s: string) => (r.next() < 0.5 ? s.toUpperCase() : s.toLowerCase())

/** A broad, deterministic sample of FactQueries over every target/topic of the release. */
function sampleQueries(model: FactModel, seed: number): FactQuery[] {
  const r = rng(seed)
  const out: FactQuery[] = []
  for (const { target, topic } of model.scopes()) {
    const facts = model.facts(target, topic)
    const base: FactQuery = { target, topic, names: [], prefixes: [], terms: [], limit: 20 }
    const f1 = r.pick(facts)
    const f2 = r.pick(facts)
    const segment = (f: ModelFact) => (f.name.includes('.') ? f.name.slice(0, f.name.indexOf('.') + 1) : f.name.slice(0, Math.min(3, f.name.length)))
    const term = (f: ModelFact) => r.pick(f.terms.filter((t) => t.length > 1).concat(['zz']))
    const t1 = term(f1)
    const t2 = term(f2)
    out.push({ ...base, limit: 7 })
    out.push({ ...base, names: [f1.name, f2.name.toUpperCase(), 'NO_SUCH_FACT'], limit: 50 })
    out.push({ ...base, prefixes: [pickCase(r, segment(f1))], limit: 25 })
    out.push({ ...base, names: [f2.name.toLowerCase()], prefixes: [f1.name.slice(0, 2), 'zz'], limit: 30 })
    out.push({ ...base, terms: [t1], limit: 15 })
    out.push({ ...base, terms: [t1, t2.slice(0, 3)], limit: 40 })
    out.push({ ...base, terms: [t2, t1, 'qqzzx', f1.terms[0] ?? 'a'], limit: 20 })
    out.push({ ...base, terms: [t1.slice(0, 2)], prefixes: [segment(f2)], limit: 10 })
    const periph = [...f1.peripherals, ...f2.peripherals]
    if (periph.length) {
      const p = r.pick(periph)
      out.push({ ...base, peripheral: p, limit: 30 }, { ...base, peripheral: p, terms: [t1, t2], limit: 12 }, { ...base, peripheral: 'NOPE0' })
    }
    const pkgs = [...new Set(facts.map((f) => f.package).filter((p): p is string => p !== null))]
    if (pkgs.length) {
      const p = r.pick(pkgs)
      out.push({ ...base, package: pickCase(r, p), limit: 50 }, { ...base, package: p, prefixes: [segment(f1)], terms: [t1] }, { ...base, package: 'NOPKG99' })
    }
    if (topic === 'errata') {
      const plain = [...new Set(facts.flatMap((f) => (f.revisions ? [...f.revisions.affected, ...f.revisions.notAffected] : [])))].sort()
      // Codes listed as not affected while unlisted ones are: the markers a store must not drop.
      const marked = [...new Set(facts.flatMap((f) => (f.revisions?.unlisted ? [...f.revisions.notAffected] : [])))].sort()
      for (const c of [...new Set([...marked.slice(0, 2), ...plain.slice(0, 4), '0x99', '*', ''])]) out.push({ ...base, siliconRevision: c, limit: 50 })
      if (plain.length) out.push({ ...base, siliconRevision: r.pick(plain), terms: [t1], limit: 50 })
    }
  }
  // Positions inside result sets: the rows after a random (score, ord) of the full answer.
  const withAfter: FactQuery[] = []
  for (const q of out) {
    if (r.next() > 0.3) continue
    const full = model.query({ ...q, limit: 1_000_000 })
    if (full.length < 2) continue
    const at = full[r.int(full.length - 1)]!
    withAfter.push({ ...q, after: { score: at.score, ord: at.ord } })
  }
  return [...out, ...withAfter]
}

/**
 * ONE suite for every ReleaseRepository: run against SQLite and the search engine over the whole
 * corpus release, it proves both give the same rows (a brute-force model is the oracle), the
 * same paging, and byte-identical service answers (the SQLite repository is the reference).
 */
export function releaseRepositoryConformance(name: string, factory: (dataDir: string) => Promise<RepositoryUnderTest>, opts: { skip?: string } = {}): void {
  if (opts.skip) console.log(`[conformance] ${name}: skipped: ${opts.skip}`)
  describe.skipIf(opts.skip !== undefined)(`ReleaseRepository conformance: ${name}`, () => {
    let under: RepositoryUnderTest
    let repo: ReleaseRepository
    let model: FactModel
    let reference: SqliteRepository
    let facts: HardwareFacts
    let refFacts: HardwareFacts
    let releaseId: string

    beforeAll(async () => {
      const dir = await corpusData()
      releaseId = new DataDir(dir).promotedId()!
      const t = performance.now()
      under = await factory(dir)
      console.log(`[conformance] ${name}: repository ready in ${Math.round(performance.now() - t)} ms`)
      repo = under.repo
      model = new FactModel(new DataDir(dir).releaseDb(releaseId))
      reference = new SqliteRepository(dir)
      facts = new HardwareFacts(repo, SECRET)
      refFacts = new HardwareFacts(reference, SECRET)
    })
    afterAll(async () => {
      model?.close()
      await reference?.close()
      await (under?.close ?? (() => repo?.close()))()
    })

    it('knows the promoted release, keeps it, and refuses unknown ids', async () => {
      expect(await repo.promotedId()).toBe(releaseId)
      expect(await repo.list()).toContain(releaseId)
      expect(await repo.open('0000000000000000')).toBeUndefined()
      expect(await repo.open('not-an-id')).toBeUndefined()
      const store = (await repo.open(releaseId))!
      const ref = (await reference.open(releaseId))!
      expect(store.manifest).toEqual(ref.manifest)
      expect(store.catalog).toEqual(ref.catalog)
    })

    it('answers a broad sample of queryFacts exactly like the model', { timeout: 600_000 }, async () => {
      const t = performance.now()
      const store = (await repo.open(releaseId))!
      const queries = sampleQueries(model, 20260826)
      const mismatches: Mismatch[] = []
      await pool(queries, 4, async (q) => {
        const [actual, expected] = [await store.queryFacts(q), model.query(q)]
        if (JSON.stringify(actual.map(rowKey)) !== JSON.stringify(expected.map(rowKey))) mismatches.push({ what: JSON.stringify(q), expected: expected.map(brief), actual: actual.map(brief) })
        // Token counts of the first and last row, against the reference tokenizer.
        for (const i of new Set([0, actual.length - 1])) {
          if (actual[i] && expected[i] && actual[i]!.tokens !== expected[i]!.tokens) mismatches.push({ what: `tokens of ord ${actual[i]!.ord}`, expected: expected[i]!.tokens, actual: actual[i]!.tokens })
        }
      })
      console.log(`[conformance] ${name}: ${queries.length} queries in ${Math.round(performance.now() - t)} ms`)
      expectNoMismatches(mismatches, queries.length)
    })

    it('selectFacts shows every row of the page, and reads the first rows kept, with their bodies', { timeout: 600_000 }, async () => {
      const store = (await repo.open(releaseId))!
      const r = rng(11)
      // Keep none, some, all, or more than there are; drawn up front, so the cases do not depend on completion order.
      const cases = sampleQueries(model, 4242)
        .filter(() => r.next() < 0.25)
        .map((q) => {
          const expected = model.query(q)
          return { q, expected, keep: r.int(expected.length + 2) }
        })
      const mismatches: Mismatch[] = []
      await pool(cases, 4, async ({ q, expected, keep }) => {
        const selection = await store.selectFacts(q)
        const shown = selection.rows.map((x) => `${x.ord}/${x.score}/${x.tokens}`)
        const got = await selection.read(keep)
        const want = expected.map((x) => `${x.ord}/${x.score}/${x.tokens}`)
        if (JSON.stringify(shown) !== JSON.stringify(want)) mismatches.push({ what: `rows selected for ${JSON.stringify(q)}`, expected: want, actual: shown })
        if (JSON.stringify(got.map(rowKey)) !== JSON.stringify(expected.slice(0, keep).map(rowKey)))
          mismatches.push({ what: `kept ${keep} of ${JSON.stringify(q)}`, expected: expected.slice(0, keep).map(brief), actual: got.map(brief) })
      })
      expectNoMismatches(mismatches, cases.length)
    })

    it('pages with `after` to the end of result sets, never skipping or repeating a row', { timeout: 600_000 }, async () => {
      const store = (await repo.open(releaseId))!
      const r = rng(7)
      const walks = sampleQueries(model, 99).filter((q) => !q.after && r.next() < 0.15)
      const mismatches: Mismatch[] = []
      await pool(walks, 4, async (q) => {
        const expected = model.query({ ...q, limit: 1_000_000 })
        const limit = Math.max(q.limit, Math.ceil(expected.length / 20))
        const got: FactRow[] = []
        for (let page = 0; page < 50; page++) {
          const last = got[got.length - 1]
          const rows = await store.queryFacts({ ...q, limit, ...(last ? { after: { score: last.score, ord: last.ord } } : {}) })
          got.push(...rows)
          if (rows.length < limit) break
        }
        if (JSON.stringify(got.map(rowKey)) !== JSON.stringify(expected.map(rowKey))) mismatches.push({ what: JSON.stringify(q), expected: expected.length, actual: got.length })
      })
      expectNoMismatches(mismatches, walks.length)
    })

    describe('through the service (HardwareFacts), byte for byte like the SQLite reference', () => {
      /** Outcome of one call: its JSON, or its stable error code and message. */
      const outcome = async (f: () => Promise<unknown>) => {
        try {
          const v = await f()
          return typeof v === 'string' ? v : JSON.stringify(v)
        } catch (err) {
          const e = err as { code?: string; message: string }
          return `error ${e.code ?? '?'}: ${e.message}`
        }
      }
      let sample: string[] = []
      beforeAll(async () => {
        const store = (await reference.open(releaseId))!
        const r = rng(42)
        const names = store.catalog.entities.map((e) => e.name)
        sample = [...new Set([...Array.from({ length: 24 }, () => r.pick(names)), 'STM32F407VG', 'STM32F407VGT6TR', 'stm32f407v(e-g)tx', 'nrf52840', 'nRF52', 'STM32F4', 'STM32', 'XYZ12345', 'ab'])]
      })

      it('resolve, catalog search, catalog part, coverage, sources and release', { timeout: 300_000 }, async () => {
        const mismatches: Mismatch[] = []
        let checked = 0
        const same = async (what: string, f: (h: HardwareFacts) => Promise<unknown>) => {
          checked++
          const [expected, actual] = [await outcome(() => f(refFacts)), await outcome(() => f(facts))]
          if (expected !== actual) mismatches.push({ what, expected, actual })
        }
        for (const part of sample) {
          await same(`resolve ${part}`, (h) => h.resolve({ q: part }))
          await same(`resolve ${part} +query`, (h) => h.resolve({ q: part, query: 'usb low power timer', candidate_limit: 20 }))
          await same(`resolve ${part} @release`, (h) => h.resolve({ q: part, corpus_release: releaseId, candidate_limit: 1 }))
          await same(`catalog search ${part}`, (h) => h.catalogSearch({ q: part }))
          if (part.length >= 4) await same(`catalog part ${part}`, (h) => h.catalogPart({ part }))
          await same(`coverage ${part}`, (h) => h.coverage({ part }))
          await same(`sources ${part}`, (h) => h.sources({ part, corpus_release: releaseId }))
        }
        await same('unknown corpus_release', (h) => h.coverage({ part: 'STM32F407VG', corpus_release: '0123456789abcdef' }))
        const { store: kindA, ...a } = await refFacts.release()
        const { store: kindB, ...b } = await facts.release()
        expect([kindA, kindB]).toEqual(['sqlite', repo.kind])
        expect(b).toEqual(a)
        expectNoMismatches(mismatches, checked)
      })

      it('context: filters, query terms, max_tokens, and cursors followed to the end', { timeout: 600_000 }, async () => {
        const t = performance.now()
        const mismatches: Mismatch[] = []
        let pages = 0
        let walkedToEnd = 0
        const r = rng(5)
        const cases: Array<Record<string, unknown> & { part: string; topic: Topic }> = []
        for (const part of sample) {
          const res = (await refFacts.resolve({ q: part })) as { topics: Record<Topic, { status: string; target?: { key: string; package?: string; factCount: number } }> }
          for (const topic of TOPICS) {
            const t = res.topics[topic]
            if (t.status !== 'resolved' || !t.target) continue
            const fs = model.facts(t.target.key, topic).filter((f) => t.target!.package === undefined || f.package === t.target!.package)
            if (fs.length === 0) continue
            const f = r.pick(fs)
            const words = f.terms.filter((w) => w.length > 2).slice(0, 3)
            const base = { part, topic }
            cases.push({ ...base, limit: 50, max_tokens: 16000, walk: fs.length <= 600 ? fs.length : undefined, pkg: t.target.package })
            cases.push({ ...base, query: words.join(' ') || 'power', limit: 7 })
            cases.push({ ...base, fact_name_prefixes: f.name.slice(0, Math.max(2, f.name.indexOf('.') + 1)), limit: 9, max_tokens: 2000 })
            cases.push({ ...base, fact_names: `${f.name},${r.pick(fs).name.toLowerCase()}`, fact_name_prefixes: 'zz' })
            cases.push({ ...base, max_tokens: 256 })
            if (f.peripherals.size) cases.push({ ...base, peripheral: [...f.peripherals][0]!.toLowerCase(), query: words[0] ?? 'en', limit: 11 })
            if (t.target.package) cases.push({ ...base, package: t.target.package.toLowerCase(), limit: 13 })
            if (topic === 'errata') {
              cases.push({ ...base, silicon_revision: '5', limit: 10 }, { ...base, revision: '0x01', limit: 10 }, { ...base, silicon_revision: '0x99', query: 'dma' })
            }
          }
        }
        await pool(cases, 4, async (c) => {
          const { walk, pkg, ...params } = c as typeof c & { walk?: number; pkg?: string }
          let cursor: string | undefined
          const bodies: string[] = []
          for (let page = 0; page < (walk !== undefined ? 100 : 6); page++) {
            const p = { ...params, ...(cursor ? { cursor } : {}) } as Parameters<HardwareFacts['context']>[0]
            const [expected, actual] = [await outcome(async () => (await refFacts.context(p)).body), await outcome(async () => (await facts.context(p)).body)]
            pages++
            if (expected !== actual) {
              mismatches.push({ what: JSON.stringify(p), expected, actual })
              return
            }
            if (expected.startsWith('error')) return
            const parsed = JSON.parse(actual) as { facts: unknown[]; page: { nextCursor: string | null } }
            bodies.push(...parsed.facts.map((x) => JSON.stringify(x)))
            cursor = parsed.page.nextCursor ?? undefined
            if (!cursor) break
          }
          // Independent of the reference: walking the cursors yields the whole topic, in order, once.
          if (walk !== undefined && !cursor) {
            walkedToEnd++
            const target = ((await refFacts.resolve({ q: c.part })) as { topics: Record<Topic, { target: { key: string } }> }).topics[c.topic].target.key
            const all = model.query({ target, topic: c.topic, names: [], prefixes: [], terms: [], ...(pkg ? { package: pkg } : {}), limit: 1_000_000 })
            if (bodies.length !== all.length || bodies.some((b, i) => b !== all[i]!.body)) mismatches.push({ what: `walk ${JSON.stringify(params)}`, expected: all.length, actual: bodies.length })
          }
        })
        console.log(`[conformance] ${name}: ${cases.length} context cases, ${pages} pages (${walkedToEnd} walked to the end) in ${Math.round(performance.now() - t)} ms`)
        expect(walkedToEnd).toBeGreaterThan(5)
        expectNoMismatches(mismatches, pages)
      })
    })
  })
}

/** Rows compared whole except their token count, which is checked on a sample (see above): counting is slow. */
const rowKey = (r: FactRow) => [r.ord, r.score, r.body]
const brief = (r: FactRow) => `${r.ord}/${r.score}`
