import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base'
import { describe, expect, it } from 'vitest'
import type { CatalogEntity, ReleaseCatalog, TargetSummary } from '../../src/model/catalog.js'
import type { Topic } from '../../src/model/fact.js'
import { normalizeKey } from '../../src/model/text.js'
import { canonicalRevision, HardwareFacts, splitList } from '../../src/service/facts.js'
import { ServiceError } from '../../src/service/errors.js'
import { selectionOf, type FactQuery, type ReleaseManifest, type ReleaseRepository, type ReleaseStore, type SourceRecord } from '../../src/store/types.js'

/*
 * The service layer outside the context page (src/service/facts.ts: which release a request reads,
 * the answer cache, resolve, coverage's resolution rules, catalog search, catalog part and its
 * sources, the answers without facts) over an in-memory repository of hand-made catalogs. Every
 * expected answer is worked out from the contract (service-spec.md: statuses, "resolve never
 * picks", the answer members) and the catalog below; no corpus, no release files.
 */

const sha = (s: string) => createHash('sha256').update(s).digest('hex')
const target = (key: string, path: string, extra: Partial<TargetSummary> = {}): TargetSummary => ({
  key,
  topics: ['registers'],
  device: key.split(':')[1]!,
  sourceSha256: sha(path),
  sourcePath: path,
  factCounts: { registers: 12, pins: 30 },
  ...extra
})
const ent = (name: string, extra: Partial<CatalogEntity> = {}): CatalogEntity => ({ name, kind: 'selector-part', keys: [normalizeKey(name)], targets: {}, ...extra })

const TARGETS: TargetSummary[] = [
  target('svd:QZ1', 'svd/QZ1.svd', { problems: { count: 3, first: [{ file: 'svd/QZ1.svd', line: 4, reason: 'odd field' }] } }),
  target('pin:QZ100', 'pins/QZ100.xml'),
  target('svd:QZ2A', 'svd/QZ2A.svd'),
  target('svd:QZ2B', 'svd/QZ2B.svd'),
  target('pin:QZ300', 'pins/QZ300.xml'),
  target('svd:BAD', 'svd/bad.svd', { failure: { file: 'svd/bad.svd', line: 7, reason: 'not XML' }, factCounts: {} }),
  target('svd:BAD2', 'svd/bad2.svd', { failure: { file: 'svd/bad2.svd', reason: 'empty' }, factCounts: {} }),
  target('svd:QZ5', 'svd/QZ5.svd', { sources: [{ sourcePath: 'svd/QZ5.svd', sourceSha256: sha('svd/QZ5.svd') }, { sourcePath: 'svd/alt/QZ5.svd', sourceSha256: sha('alt') }] }),
  target('svd:QZ6', 'svd/QZ6.svd'),
  target('chip:QZ6', 'chips/QZ6.json', { factCounts: { registers: 9 } }),
  target('svd:QZ7', 'svd/QZ7.svd'),
  target('chip:QZ6B', 'chips/QZ6B.json', { factCounts: { registers: 9 } }),
  target('pin:BADP', 'pins/bad.xml', { failure: { file: 'pins/bad.xml', reason: 'no pins' }, factCounts: {} }),
  target('err:ZX1', 'errata/ZX1.h'),
  target('svd:QZ7X', 'svd/QZ7X.svd'),
  ...Array.from({ length: 10 }, (_, i) => target(`svd:QZ80${i}`, `svd/QZ80${i}.svd`))
]
const MANY_PACKAGES = Array.from({ length: 70 }, (_, i) => `PKG${100 + i}`)
const ENTITIES: CatalogEntity[] = [
  ent('QZ100AT', {
    ordering: { stem: 'QZ100A', suffix: '[0-9]T', reason: 'digit, T' },
    targets: { registers: ['svd:QZ1'], pins: ['pin:QZ100'] },
    package: 'QFN32',
    family: 'QZ1',
    line: 'QZ100',
    core: 'Arm Cortex-M0',
    vendor: 'Quazar',
    flashKb: 0,
    ramKb: 4,
    maxFrequencyMhz: 48,
    reason: 'a selector part of QZ1'
  }),
  // A shorter stem whose rule also accepts QZ100A6T: an ordering code two parts could own.
  ent('QZ10', { kind: 'device', ordering: { stem: 'QZ10', suffix: '0A[0-9]T', reason: 'odd rule' }, targets: { registers: ['svd:QZ1'] } }),
  ent('QZ200', { kind: 'device', targets: { registers: ['svd:QZ2A', 'svd:QZ2B'] } }),
  ent('QZ300(A-B)', { kind: 'refname', members: ['QZ300A', 'QZ300B', 'QZ300GONE'] }),
  ent('QZ300A', { targets: { pins: ['pin:QZ300'] }, package: 'LQFP48' }),
  ent('QZ300B', { targets: { pins: ['pin:QZ300'] }, package: 'QFN32' }),
  ent('QZ400', { kind: 'device', targets: { registers: ['svd:BAD', 'svd:BAD2'] } }),
  ent('QZ500', { kind: 'device', members: Array.from({ length: 21 }, (_, i) => `QZ5M${String(i).padStart(2, '0')}`) }),
  ...Array.from({ length: 21 }, (_, i) => ent(`QZ5M${String(i).padStart(2, '0')}`, { targets: { registers: ['svd:QZ5'] } })),
  ent('QZ600', { kind: 'device', targets: { registers: ['svd:QZ6', 'chip:QZ6'] } }),
  ent('QZ700', { kind: 'device', targets: { registers: ['svd:QZ7', 'svd:QZ7X', 'chip:QZ6'] } }),
  ent('QZ800', { kind: 'device', targets: { registers: TARGETS.filter((t) => t.key.startsWith('svd:QZ80')).map((t) => t.key) } }),
  ent('QZ900', { kind: 'refname', members: MANY_PACKAGES.map((p) => `QZ9-${p}`) }),
  ...MANY_PACKAGES.map((p) => ent(`QZ9-${p}`, { targets: { pins: ['pin:QZ300'] }, package: p })),
  ent('QZN1', { kind: 'device' }),
  // A readable pin source and a failed one, no cross-check rule for pins: both are candidates.
  ent('QZ410', { kind: 'device', targets: { pins: ['pin:QZ100', 'pin:BADP'] } }),
  // A failed SVD beside a readable one: the readable one is served (the failed one is no lead).
  ent('QZ420', { kind: 'device', targets: { registers: ['svd:QZ6', 'svd:BAD'] } }),
  // Two pin targets in one package: not "several packages".
  ent('QZ430', { targets: { pins: ['pin:QZ100', 'pin:QZ300'] }, package: 'QFN32' }),
  // A pin target the release does not have: a package, but no source.
  ent('QZ440', { targets: { pins: ['pin:GONE'] }, package: 'SO8' }),
  // Two chip targets beside the SVD: served the SVD, the chips unchecked (one kind, two targets).
  ent('QZ610', { kind: 'device', targets: { registers: ['svd:QZ6', 'chip:QZ6', 'chip:QZ6B'] } }),
  ent('QZ950', { kind: 'refname', members: MANY_PACKAGES.slice(0, 8).map((p) => `QZ9-${p}`) }),
  // An ordering code only one part owns.
  ent('QZ960', { ordering: { stem: 'QZ960', suffix: '[A-Z]{2}', reason: 'two letters' }, targets: { registers: ['svd:QZ1'] } }),
  ent('ZX2', { targets: { registers: ['svd:QZ1'] } }),
  ent('QZN2', { kind: 'device' }),
  ent('ZX1', { targets: { registers: ['svd:QZ1'], errata: ['err:ZX1'] } })
]
const CATALOG: ReleaseCatalog = {
  entities: ENTITIES,
  targets: TARGETS,
  gaps: [
    { match: 'QZ*', topic: 'errata', reason: 'No QZ errata source.' },
    { match: 'ZX2', topic: 'electrical', reason: 'No ZX2 electrical source.' }
  ],
  crossCheck: [{ topic: 'registers', order: ['cmsis-svd', 'stm32-data-chip'], reason: 'SVDs served, chip data checked.' }]
}
const SOURCES: SourceRecord[] = TARGETS.flatMap((t) => t.sources ?? [t]).map((s, i) => ({
  path: s.sourcePath,
  sha256: s.sourceSha256,
  bytes: 10,
  kind: s.sourcePath.startsWith('chips/') ? 'stm32-data-chip' : 'cmsis-svd',
  publisher: 'Quazar',
  ...(i === 1 ? { distributor: 'Mirror Inc' } : s.sourcePath === 'svd/QZ6.svd' ? { distributor: 'Quazar GitHub' } : {}),
  license: 'CC0-1.0',
  archivePath: `archive/sha256/${s.sourceSha256.slice(0, 2)}/${s.sourceSha256}`
})) as SourceRecord[]

const R1 = '1111111111111111'
const R2 = '2222222222222222'
const PARTIAL = '3333333333333333'
const manifest = (id: string, problems: unknown[] = []): ReleaseManifest =>
  ({ format: 'hwfacts-release/1', id, createdAt: '2026-11-26T00:00:00.000Z', indexerFormat: 1, tokenizer: 'cl100k_base', sources: SOURCES, counts: { facts: 0, parts: 0, targets: 0, byTopic: {} }, problems, coverageNotes: [] }) as ReleaseManifest

const ROWS = [1, 2, 3].map((ord) => ({ ord, score: 0, tokens: 8, body: `{"name":"R${ord}"}` }))
interface Fake extends ReleaseRepository {
  opened: string[]
  queries: FactQuery[]
  promoted: string | undefined
}
function repo(promoted: string | undefined = R1): Fake {
  const stores = new Map<string, ReleaseStore>()
  const queries: FactQuery[] = []
  for (const [id, problems] of [[R1, []], [R2, []], [PARTIAL, [{ file: 'x', reason: 'y' }]]] as const) {
    stores.set(id, {
      manifest: manifest(id, [...problems]),
      catalog: CATALOG,
      queryFacts: async () => [],
      // QZ1's registers: three rows; every other page is empty.
      selectFacts: async (q) => (queries.push(q), selectionOf(q.target === 'svd:QZ1' && q.topic === 'registers' ? ROWS.filter((r) => !q.after || r.ord > q.after.ord).slice(0, q.limit) : [])),
      close: async () => {}
    })
  }
  const r: Fake = {
    kind: 'sqlite',
    opened: [],
    queries,
    promoted,
    promotedId: async () => r.promoted,
    open: async (id) => (r.opened.push(id), stores.get(id)),
    list: async () => [...stores.keys()],
    close: async () => {}
  }
  return r
}
const SECRET = 'facts-edges'
const service = (r = repo(), opts = {}) => new HardwareFacts(r, SECRET, opts)
/** The error a call fails with, as `CODE param: message`. */
async function failure(f: () => Promise<unknown>): Promise<string> {
  try {
    await f()
  } catch (err) {
    if (err instanceof ServiceError) return `${err.code} ${err.param ?? '-'}: ${err.message}`
    throw err
  }
  return 'no error'
}

describe('canonicalRevision and splitList', () => {
  it('a revision code is read trimmed, leading zeros dropped', () => {
    expect([' 1A ', '0x0005', '0005ul', '00', ' 0x10 '].map(canonicalRevision)).toEqual(['0x1a', '0x05', '0x05', '0x00', '0x10'])
  })

  it('writes a revision code as 0x and at least two lowercase hex digits; other text trimmed and lowercased', () => {
    expect(['0x05', '0x5', '5', '05', '0x05ul', ' 0X1A ', '0x00', '0', '0x100', '0x0100UL', 'rev B ', '0xg1'].map(canonicalRevision)).toEqual([
      '0x05',
      '0x05',
      '0x05',
      '0x05',
      '0x05',
      '0x1a',
      '0x00',
      '0x00',
      '0x100',
      '0x100',
      'rev b',
      '0xg1'
    ])
  })

  it('splits a comma list, trimmed, without empties or repeats, at most 100 names', () => {
    expect(splitList(undefined, 'fact_names')).toEqual([])
    expect(splitList(' A ,b,,A, b ', 'fact_names')).toEqual(['A', 'b'])
    expect(splitList(Array.from({ length: 100 }, (_, i) => `N${i}`).join(','), 'x')).toHaveLength(100)
    const error = (s: string, param: string) => {
      try {
        splitList(s, param)
      } catch (err) {
        const e = err as ServiceError
        return `${e.code} ${e.param}: ${e.message}`
      }
      return 'no error'
    }
    expect(error(' , ,', 'fact_name_prefixes')).toBe('INVALID_PARAMETER fact_name_prefixes: fact_name_prefixes lists no names.')
    expect(error(Array.from({ length: 101 }, (_, i) => `N${i}`).join(','), 'fact_names')).toBe('INVALID_PARAMETER fact_names: fact_names lists 101 names; at most 100 are allowed.')
  })
})

describe('which release a request reads', () => {
  it('the promoted one, also by its id; none promoted is not ready', async () => {
    const r = repo()
    const h = service(r)
    expect((await h.store()).manifest.id).toBe(R1)
    expect((await h.store(R1, { releases: [] })).manifest.id).toBe(R1)
    r.promoted = undefined
    expect(await failure(() => h.store())).toBe('NOT_READY -: No corpus release is promoted yet.')
    r.promoted = '0000000000000000'
    expect(await failure(() => h.store())).toBe('NOT_READY -: No corpus release is promoted yet.')
  })

  it('another kept release: for in-process callers, keys naming it, or `*` keys when it is complete', async () => {
    const h = service()
    expect((await h.store(R2)).manifest.id).toBe(R2)
    expect((await h.store(R2, null)).manifest.id).toBe(R2)
    expect((await h.store(R2, { releases: [R2] })).manifest.id).toBe(R2)
    expect((await h.store(R2, { releases: ['*'] })).manifest.id).toBe(R2)
    expect((await h.store(PARTIAL, { releases: [PARTIAL] })).manifest.id).toBe(PARTIAL)
    expect((await h.store(PARTIAL)).manifest.id).toBe(PARTIAL)
    expect(await failure(() => h.store(R2, { releases: [R1] }))).toBe(`FORBIDDEN corpus_release: This API key may not read corpus release ${R2}.`)
    expect(await failure(() => h.store(PARTIAL, { releases: ['*'] }))).toBe(`FORBIDDEN corpus_release: This API key may not read corpus release ${PARTIAL}: it is a partial release, served only to keys that name it.`)
    expect(await failure(() => h.store('4444444444444444', { releases: ['*'] }))).toBe('UNKNOWN_CORPUS_RELEASE corpus_release: No kept corpus release has id 4444444444444444.')
    expect(await failure(() => h.store('4444444444444444', null, 'cursor'))).toBe('UNKNOWN_CORPUS_RELEASE cursor: No kept corpus release has id 4444444444444444.')
  })

  it('a cursor pins its release, which must agree with corpus_release, be kept and be readable', async () => {
    const r = repo()
    const h = service(r)
    const c2 = h.cursors.encode(R2, 'b', { score: 1, ord: 7 })
    expect(await h.storeOf({ cursor: c2 })).toEqual({ store: await h.store(R2), decoded: { release: R2, binding: 'b', pos: { score: 1, ord: 7 } } })
    expect((await h.storeOf({ cursor: c2, corpus_release: R2 })).store.manifest.id).toBe(R2)
    expect(await h.storeOf({ corpus_release: R2 })).toEqual({ store: await h.store(R2), decoded: undefined })
    expect(await failure(() => h.storeOf({ cursor: c2, corpus_release: R1 }))).toBe(`INVALID_CURSOR cursor: The cursor belongs to corpus release ${R2}, not ${R1}.`)
    const gone = h.cursors.encode('4444444444444444', 'b', { score: 0, ord: 1 })
    expect(await failure(() => h.storeOf({ cursor: gone }))).toBe("INVALID_CURSOR cursor: The cursor's corpus release 4444444444444444 is no longer kept.")
    expect(await failure(() => h.storeOf({ cursor: c2 }, { releases: [R1] }))).toBe(`FORBIDDEN cursor: This API key may not read corpus release ${R2}.`)
  })

  it('warm opens the promoted release and builds its index; nothing without one', async () => {
    const r = repo()
    const h = service(r)
    await h.warm()
    expect(r.opened).toEqual([R1])
    const s = (await r.open(R1))!
    expect(h.index(s)).toBe(h.index(s))
    const none = repo()
    none.promoted = undefined
    await service(none).warm()
    expect(none.opened).toEqual([])
  })
})

describe('the answer cache', () => {
  it('keeps answers per route, release and parameters when it has room; errors are not kept', async () => {
    const h = service(repo(), { contextCacheBytes: 1 << 20 })
    let made = 0
    const make = async (s: ReleaseStore) => ({ n: ++made, release: s.manifest.id })
    const ask = (p: Record<string, unknown>, route = 'r', keys = ['a', 'b']) => h.answer(route, keys, p, null, make, (v) => JSON.stringify(v))
    expect(await ask({ a: 1 })).toBe(`{"n":1,"release":"${R1}"}`)
    expect(await ask({ a: 1 })).toBe(`{"n":1,"release":"${R1}"}`)
    expect(await ask({ a: 1, c: 9 })).toBe(`{"n":1,"release":"${R1}"}`)
    expect(await ask({ a: 1, b: null })).toBe(`{"n":1,"release":"${R1}"}`)
    expect(await ask({ a: 2 })).toBe(`{"n":2,"release":"${R1}"}`)
    expect(await ask({ b: 1 })).toBe(`{"n":3,"release":"${R1}"}`)
    expect(await ask({ a: 1 }, 'other')).toBe(`{"n":4,"release":"${R1}"}`)
    expect(await ask({ a: 1, corpus_release: R2 }, 'r', ['a'])).toBe(`{"n":5,"release":"${R2}"}`)
    expect(await ask({ a: 1, corpus_release: R2 }, 'r', ['a'])).toBe(`{"n":5,"release":"${R2}"}`)
    expect(await ask({ a: 'é…' })).toBe(`{"n":6,"release":"${R1}"}`)
    expect(await ask({ a: 'é…' })).toBe(`{"n":6,"release":"${R1}"}`)
    let fail = true
    const flaky = async () => {
      if (fail) throw new ServiceError('NOT_READY', 'later')
      return 'ok'
    }
    await expect(h.answer('f', [], {}, null, flaky, (v) => v)).rejects.toThrow('later')
    fail = false
    expect(await h.answer('f', [], {}, null, flaky, (v) => v)).toBe('ok')
  })

  it('without room, every answer is made again', async () => {
    const h = service(repo(), { contextCacheBytes: 0 })
    let made = 0
    const ask = () => h.answer('r', ['a'], { a: 1 } as Record<string, unknown>, null, async () => ++made, String)
    expect([await ask(), await ask()]).toEqual(['1', '2'])
  })
})

type Obj = Record<string, any>
const summary = (name: string) => {
  const e = ENTITIES.find((x) => x.name === name)!
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
const tref = (key: string, topic: Topic, more: Obj = {}) => {
  const t = TARGETS.find((x) => x.key === key)!
  return {
    key,
    device: t.device,
    ...(more.package ? { package: more.package } : {}),
    factCount: t.factCounts[topic] ?? 0,
    source: { path: t.sourcePath, sha256: t.sourceSha256 },
    ...(t.failure ? { failure: t.failure } : {}),
    ...(t.problems ? { sourceProblems: t.problems } : {}),
    ...(more.parts ? { parts: more.parts.slice(0, 20), partCount: more.parts.length } : {})
  }
}
const NEXT = {
  resolved: 'Call /v1/context with this part and a topic whose status is resolved.',
  ambiguous: 'Do not pick a candidate on your own: ask for, or pass, a full selector part or ordering code (pins: or a package), then call /v1/context.',
  not_found: 'No part has this name: check the suggestions or search the catalog with /v1/catalog/search.'
}
const NO_SOURCE = (t: Topic) => ({ status: 'not_covered', reason: `No source in this release gives ${t} facts for this part.` })
const GAP = { status: 'not_covered', reason: 'No QZ errata source.' }

describe('resolve', () => {
  it('one part: each topic resolved to its target or not covered (a curated gap, else no source), with the part and its reason', async () => {
    const r = (await service().resolve({ q: 'qz-100 at' })) as Obj
    expect(r).toEqual({
      release: R1,
      q: 'qz-100 at',
      normalized: 'QZ100AT',
      status: 'resolved',
      match: 'exact',
      part: { ...summary('QZ100AT'), reason: 'a selector part of QZ1' },
      topics: {
        registers: { status: 'resolved', target: tref('svd:QZ1', 'registers', { parts: ['QZ100AT'] }) },
        pins: { status: 'resolved', target: tref('pin:QZ100', 'pins', { package: 'QFN32', parts: ['QZ100AT'] }) },
        electrical: NO_SOURCE('electrical'),
        errata: GAP
      },
      candidates: [{ ...summary('QZ100AT'), why: 'exact name' }],
      candidateCount: 1,
      page: { returned: 1, limit: 10, nextCursor: null },
      next: NEXT.resolved
    })
    expect(r).not.toHaveProperty('suggestions')
    // The later contract's topics, in its order; a part without a reason has none in `part`.
    const later = (await service().resolve({ q: 'ZX1' }, null, '2026-12-01')) as Obj
    expect(Object.keys(later.topics)).toEqual(['registers', 'pins', 'electrical', 'errata', 'memory', 'interrupts', 'dma', 'clocks'])
    expect(later.part).toEqual(summary('ZX1'))
    // One target of a cross-checked topic: nothing to check it against.
    expect(later.topics.registers).toEqual({ status: 'resolved', target: tref('svd:QZ1', 'registers', { parts: ['ZX1'] }) })
    expect(later.topics.errata).toEqual({ status: 'resolved', target: tref('err:ZX1', 'errata', { parts: ['ZX1'] }) })
    expect(later.topics.memory).toEqual(NO_SOURCE('memory'))
  })

  it('an ordering code two parts could own is ambiguous, even where their targets agree', async () => {
    const r = (await service().resolve({ q: 'QZ100A6T' })) as Obj
    expect([r.status, r.match, r.part, r.next]).toEqual(['ambiguous', 'ordering-code', null, NEXT.ambiguous])
    expect(r.topics.registers).toEqual({ status: 'resolved', target: tref('svd:QZ1', 'registers', { parts: ['QZ10', 'QZ100AT'] }) })
    expect(r.candidates).toEqual([
      { ...summary('QZ10'), why: 'ordering code of this selector part' },
      { ...summary('QZ100AT'), why: 'ordering code of this selector part' }
    ])
    // The rules are anchored: a longer code is no ordering code of either.
    expect(((await service().resolve({ q: 'QZ100A9TX' })) as Obj).status).toBe('not_found')
  })

  it('several targets of a topic are ambiguous: candidates up to the limit, their count, a hint; never picked', async () => {
    const h = service()
    const r = (await h.resolve({ q: 'QZ200', candidate_limit: 1 })) as Obj
    expect(r.status).toBe('ambiguous')
    expect(r.topics.registers).toEqual({
      status: 'ambiguous',
      candidates: [tref('svd:QZ2A', 'registers', { parts: ['QZ200'] })],
      candidateCount: 2,
      hint: 'Several document targets match: give a full selector part or ordering code.'
    })
    // Another limit: its own resolution, though the entity's resolutions are kept.
    expect(((await h.resolve({ q: 'QZ200', candidate_limit: 5 })) as Obj).topics.registers.candidates).toEqual([
      tref('svd:QZ2A', 'registers', { parts: ['QZ200'] }),
      tref('svd:QZ2B', 'registers', { parts: ['QZ200'] })
    ])
  })

  it('pins in several packages: a hint naming them; a RefName offers its members', async () => {
    const r = (await service().resolve({ q: 'QZ300(A-B)' })) as Obj
    expect(r.status).toBe('ambiguous')
    expect(r.topics.pins).toEqual({
      status: 'ambiguous',
      candidates: [tref('pin:QZ300', 'pins', { package: 'LQFP48', parts: ['QZ300A'] }), tref('pin:QZ300', 'pins', { package: 'QFN32', parts: ['QZ300B'] })],
      candidateCount: 2,
      hint: 'Several packages (LQFP48, QFN32): give package=… or a full selector part.'
    })
    expect(r.candidates).toEqual([
      { ...summary('QZ300A'), why: 'covered by the matched name' },
      { ...summary('QZ300B'), why: 'covered by the matched name' }
    ])
    expect(r.part).toEqual(summary('QZ300(A-B)'))
    const many = (await service().resolve({ q: 'QZ900' })) as Obj
    expect(many.topics.pins.hint).toBe(`Several packages (${MANY_PACKAGES.slice(0, 8).join(', ')}, …): give package=… or a full selector part.`)
    expect(many.topics.pins.candidateCount).toBe(70)
    expect(many.candidateCount).toBe(70)
    expect(many.page.nextCursor).not.toBeNull()
  })

  it('a source that could not be read is source_failed, naming each failure', async () => {
    const r = (await service().resolve({ q: 'QZ400' })) as Obj
    expect(r.topics.registers).toEqual({
      status: 'source_failed',
      reason: 'A source for registers facts of this part is in this release but could not be read: svd/bad.svd line 7: not XML; svd/bad2.svd: empty',
      failures: [
        { file: 'svd/bad.svd', line: 7, reason: 'not XML' },
        { file: 'svd/bad2.svd', reason: 'empty' }
      ]
    })
    // No topic resolved, no topic ambiguous: the one part is found.
    expect(r.status).toBe('resolved')
  })

  it('failed sources beside readable ones, one package, a target the release lacks, an exact number of packages', async () => {
    const h = service()
    const mixed = (await h.resolve({ q: 'QZ410' })) as Obj
    expect(mixed.topics.pins).toEqual({
      status: 'ambiguous',
      candidates: [tref('pin:BADP', 'pins', { parts: ['QZ410'] }), tref('pin:QZ100', 'pins', { parts: ['QZ410'] })],
      candidateCount: 2,
      hint: 'Several document targets match: give a full selector part or ordering code.'
    })
    expect(((await h.resolve({ q: 'QZ420' })) as Obj).topics.registers).toEqual({ status: 'resolved', target: tref('svd:QZ6', 'registers', { parts: ['QZ420'] }) })
    expect(((await h.resolve({ q: 'QZ430' })) as Obj).topics.pins.hint).toBe('Several document targets match: give a full selector part or ordering code.')
    expect(((await h.resolve({ q: 'QZ440' })) as Obj).topics.pins).toEqual(NO_SOURCE('pins'))
    expect(((await h.resolve({ q: 'QZ950' })) as Obj).topics.pins.hint).toBe(`Several packages (${MANY_PACKAGES.slice(0, 8).join(', ')}): give package=… or a full selector part.`)
    // The first matched part with a curated gap gives the reason.
    expect(((await h.resolve({ q: 'ZX' })) as Obj).topics.electrical).toEqual({ status: 'not_covered', reason: 'No ZX2 electrical source.' })
    // An ordering code one part owns resolves.
    const one = (await h.resolve({ q: 'QZ960AB' })) as Obj
    expect([one.status, one.match, one.part?.name]).toEqual(['resolved', 'ordering-code', 'QZ960'])
    // A group whose topics resolve is its own candidate, not its members.
    const group = (await h.resolve({ q: 'QZ500' })) as Obj
    expect([group.status, group.candidates.map((c: Obj) => c.name), group.candidateCount]).toEqual(['resolved', ['QZ500'], 1])
  })

  it('a target of many parts lists the first 20 and counts them all', async () => {
    const r = (await service().resolve({ q: 'QZ500' })) as Obj
    const parts = Array.from({ length: 21 }, (_, i) => `QZ5M${String(i).padStart(2, '0')}`)
    expect(r.topics.registers).toEqual({ status: 'resolved', target: tref('svd:QZ5', 'registers', { parts }) })
  })

  it('cross-checked topics: the first kind of the rule served, the others checked (from 2026-12-01 only)', async () => {
    // One service: the entity's resolutions are kept per contract version too.
    const h = service()
    const seed = (await h.resolve({ q: 'QZ600' })) as Obj
    expect(seed.topics.registers).toEqual({ status: 'resolved', target: tref('svd:QZ6', 'registers', { parts: ['QZ600'] }) })
    const later = (await h.resolve({ q: 'QZ600' }, null, '2026-12-01')) as Obj
    const chip = TARGETS.find((t) => t.key === 'chip:QZ6')!
    expect(later.topics.registers).toEqual({
      status: 'resolved',
      target: tref('svd:QZ6', 'registers', { parts: ['QZ600'] }),
      crossCheck: { reason: 'SVDs served, chip data checked.', checked: [{ key: 'chip:QZ6', device: 'QZ6', factCount: 9, source: { path: chip.sourcePath, sha256: chip.sourceSha256 } }] }
    })
    expect(((await h.resolve({ q: 'QZ610' }, null, '2026-12-01')) as Obj).topics.registers.crossCheck).toEqual({
      reason: 'SVDs served, chip data checked.',
      checked: [],
      unchecked: [{ kind: 'stm32-data-chip', targets: ['chip:QZ6', 'chip:QZ6B'] }]
    })
    // Two SVDs lead: ambiguous between them; the chip data, only ever checked, is no candidate.
    const two = (await service().resolve({ q: 'QZ700' }, null, '2026-12-01')) as Obj
    expect(two.topics.registers).toEqual({
      status: 'ambiguous',
      candidates: [tref('svd:QZ7', 'registers', { parts: ['QZ700'] }), tref('svd:QZ7X', 'registers', { parts: ['QZ700'] })],
      candidateCount: 2,
      hint: 'Several document targets match: give a full selector part or ordering code.'
    })
  })

  it('an unknown name: not_found with suggestions; prefixes that resolve nothing alone are ambiguous', async () => {
    const r = (await service().resolve({ q: 'QZ100AX' })) as Obj
    expect(r).toMatchObject({ status: 'not_found', match: null, part: null, candidates: [], candidateCount: 0, next: NEXT.not_found })
    expect(r.suggestions.map((s: Obj) => s.name)).toContain('QZ100AT')
    const q = (await service().resolve({ q: 'QZ30' })) as Obj
    expect([q.status, q.match]).toEqual(['ambiguous', 'prefix'])
    // A RefName with alternatives is no prefix match (`QZ300AB…` is no real name).
    expect(q.candidates.map((c: Obj) => `${c.name}/${c.why}`)).toEqual(['QZ300A/name starts with the query', 'QZ300B/name starts with the query'])
    // Ranked by the query's words, then by name.
    const ranked = (await service().resolve({ q: 'QZ30', query: 'qfn32' })) as Obj
    expect(ranked.candidates.map((c: Obj) => c.name)).toEqual(['QZ300B', 'QZ300A'])
    // Two matches and no topic resolved: the part is not identified.
    const none = (await service().resolve({ q: 'QZN' })) as Obj
    expect([none.status, none.candidateCount, none.next]).toEqual(['ambiguous', 2, NEXT.ambiguous])
    expect(none).not.toHaveProperty('suggestions')
    // Ten matches whose one topic resolves to one target: not ambiguous.
    const ten = (await service().resolve({ q: 'QZ5M0' })) as Obj
    expect([ten.status, ten.candidateCount]).toEqual(['resolved', 10])
  })

  it('pages the candidates with a cursor bound to the query', async () => {
    const h = service()
    const first = (await h.resolve({ q: 'QZ5', candidate_limit: 20 })) as Obj
    expect(first.candidates).toHaveLength(20)
    expect(first.candidateCount).toBe(22)
    expect(first.candidates[0].name).toBe('QZ500')
    const rest = (await h.resolve({ q: 'QZ5', candidate_limit: 20, cursor: first.page.nextCursor })) as Obj
    expect(rest.candidates.map((c: Obj) => c.name)).toEqual(['QZ5M19', 'QZ5M20'])
    expect(rest.page.nextCursor).toBeNull()
    expect(await failure(() => h.resolve({ q: 'QZ5', query: 'other',  candidate_limit: 20, cursor: first.page.nextCursor }))).toBe('INVALID_CURSOR cursor: The cursor belongs to a different query.')
  })
})

describe('coverage, sources, discrepancies and the release', () => {
  const DEPTH = '2026-12-01' as const
  const SEED_TOPICS = ['registers', 'pins', 'electrical', 'errata']

  it('coverage: each topic as resolve decides it, a resolved one as covered with its fact count and target; the lists of each status', async () => {
    const s = service()
    const c = (await s.coverage({ part: 'QZ100AT' })) as Obj
    expect(c).toEqual({
      release: R1,
      part: 'QZ100AT',
      status: 'resolved',
      topics: {
        registers: { status: 'covered', factCount: 12, target: tref('svd:QZ1', 'registers', { parts: ['QZ100AT'] }) },
        pins: { status: 'covered', factCount: 30, target: tref('pin:QZ100', 'pins', { package: 'QFN32', parts: ['QZ100AT'] }) },
        electrical: NO_SOURCE('electrical'),
        errata: GAP
      },
      covered: ['registers', 'pins'],
      notCovered: ['electrical', 'errata']
    })
    // From 2026-12-01 every topic, and a cross-checked one says which sources it checks.
    const depth = (await s.coverage({ part: 'QZ600' }, null, DEPTH)) as Obj
    expect(Object.keys(depth.topics)).toHaveLength(8)
    expect(depth.topics.registers).toMatchObject({ status: 'covered', target: { key: 'svd:QZ6' }, crossCheck: { checked: [{ key: 'chip:QZ6' }] } })
    expect((await s.coverage({ part: 'QZ600' })) as Obj).not.toHaveProperty('topics.registers.crossCheck')
    // Every source failed: listed apart.
    const failed = (await s.coverage({ part: 'QZ400' })) as Obj
    expect([failed.topics.registers.status, failed.sourceFailed, failed.covered]).toEqual(['source_failed', ['registers'], []])
    expect(failed).not.toHaveProperty('candidates')
  })

  it('coverage of a part not identified: its candidates and their count; of an unknown name: suggestions too', async () => {
    const s = service()
    const none = (await s.coverage({ part: 'QZN' })) as Obj
    const resolved = (await s.resolve({ q: 'QZN' })) as Obj
    expect([none.status, none.candidateCount, none.candidates]).toEqual(['ambiguous', 2, resolved.candidates])
    expect(none).not.toHaveProperty('suggestions')
    const unknown = (await s.coverage({ part: 'QZ100AX' })) as Obj
    expect(unknown).toMatchObject({ status: 'not_found', candidates: [], candidateCount: 0, covered: [] })
    expect(unknown.suggestions).toEqual(((await s.resolve({ q: 'QZ100AX' })) as Obj).suggestions)
    expect(unknown.notCovered).toEqual(SEED_TOPICS)
    // Many candidates: the first ten listed, all counted.
    const many = (await s.coverage({ part: 'QZ9-PKG1' })) as Obj
    expect(many.candidateCount).toBe(((await s.resolve({ q: 'QZ9-PKG1' })) as Obj).candidateCount)
    expect(many.candidateCount).toBeGreaterThan(10)
    expect(many.candidates).toHaveLength(10)
  })

  it('sources: per topic the target and its source path (a cross-check named), the source records behind them; suggestions for an unknown name', async () => {
    const s = service()
    const r = (await s.sources({ part: 'QZ100AT' })) as Obj
    expect(r.topics).toEqual({
      registers: { status: 'resolved', target: 'svd:QZ1', sourcePath: 'svd/QZ1.svd' },
      pins: { status: 'resolved', target: 'pin:QZ100', sourcePath: 'pins/QZ100.xml' },
      electrical: NO_SOURCE('electrical'),
      errata: GAP
    })
    expect([r.release, r.part, r.status]).toEqual([R1, 'QZ100AT', 'resolved'])
    expect(r.sources.map((x: Obj) => x.path).sort()).toEqual(['pins/QZ100.xml', 'svd/QZ1.svd'])
    expect(r).not.toHaveProperty('suggestions')
    const depth = (await s.sources({ part: 'QZ600' }, null, DEPTH)) as Obj
    expect(depth.topics.registers).toMatchObject({ status: 'resolved', target: 'svd:QZ6', sourcePath: 'svd/QZ6.svd', crossCheck: { checked: [{ key: 'chip:QZ6' }] } })
    expect(depth.sources.map((x: Obj) => x.path).sort()).toEqual(['chips/QZ6.json', 'svd/QZ6.svd'])
    const unknown = (await s.sources({ part: 'QZ100AX' })) as Obj
    expect([unknown.status, unknown.sources]).toEqual(['not_found', []])
    expect(unknown.suggestions.map((x: Obj) => x.name)).toContain('QZ100AT')
    // Another kept release, by name.
    expect(((await s.sources({ part: 'QZ100AT', corpus_release: R2 })) as Obj).release).toBe(R2)
  })

  it('discrepancies: the cross-checked topics of one part, each checked or why not; several parts or none are not picked', async () => {
    const s = service()
    const checked = (await s.discrepancies({ part: 'QZ600' })) as Obj
    expect(checked).toMatchObject({ release: R1, part: 'QZ600', status: 'resolved', resolvedPart: { name: 'QZ600', kind: 'device' }, discrepancies: [], count: 0, notes: [] })
    expect(checked.checked).toHaveLength(1)
    expect(checked.checked[0]).toMatchObject({ topic: 'registers', target: 'svd:QZ6' })
    const why = async (part: string, topic?: Topic) => ((await s.discrepancies({ part, ...(topic ? { topic } : {}) })) as Obj).notes
    expect(await why('QZ100AT')).toEqual(['registers: one source (svd:QZ1), nothing to check it against.'])
    expect(await why('QZ200')).toEqual(['registers: several targets match, none is picked: name a full selector part.'])
    expect(await why('QZN1')).toEqual(['registers: not covered (No source in this release gives registers facts for this part.).'])
    expect(await why('QZ100AT', 'pins')).toEqual(['pins: one source (pin:QZ100), nothing to check it against.'])
    const several = (await s.discrepancies({ part: 'QZN' })) as Obj
    expect(several).toMatchObject({ status: 'ambiguous', checked: [], notes: ['Several parts match: name one (resolve it first).'] })
    expect(several).not.toHaveProperty('resolvedPart')
    const none = (await s.discrepancies({ part: 'QZ100AX' })) as Obj
    expect(none).toMatchObject({ status: 'not_found', checked: [], notes: [] })
    expect(none.suggestions.map((x: Obj) => x.name)).toContain('QZ100AT')
    expect(checked).not.toHaveProperty('suggestions')
  })

  it('the release: the promoted one, its counts per topic of the version only, its sources, whether complete, the kept ones, the store', async () => {
    const r = repo()
    const s = service(r)
    const store = (await r.open(R1))!
    store.manifest.counts.byTopic = { registers: 5, pins: 3, memory: 2 }
    const seed = (await s.release()) as Obj
    expect(seed).toEqual({
      id: R1,
      createdAt: '2026-11-26T00:00:00.000Z',
      format: 'hwfacts-release/1',
      indexerFormat: 1,
      tokenizer: 'cl100k_base',
      counts: { facts: 0, parts: 0, targets: 0, byTopic: { registers: 5, pins: 3 } },
      sourceCount: SOURCES.length,
      complete: true,
      kept: [R1, R2, PARTIAL],
      store: 'sqlite'
    })
    expect(((await s.release(['registers', 'memory', 'dma'] as Topic[])) as Obj).counts.byTopic).toEqual({ registers: 5, memory: 2 })
    expect(((await service(repo(PARTIAL)).release()) as Obj).complete).toBe(false)
  })
})

describe('catalog search and catalog part', () => {
  it('search lists selector parts and RefNames only, with the topics each carries, sorted', async () => {
    const h = service()
    const r = (await h.catalogSearch({ q: 'QZ30' })) as Obj
    expect(r).toEqual({
      release: R1,
      q: 'QZ30',
      normalized: 'QZ30',
      status: 'found',
      match: 'prefix',
      results: [
        { ...summary('QZ300A'), why: 'name starts with the query', topics: ['pins'] },
        { ...summary('QZ300B'), why: 'name starts with the query', topics: ['pins'] }
      ],
      total: 2,
      page: { returned: 2, limit: 10, nextCursor: null }
    })
    expect(((await h.catalogSearch({ q: 'QZ100AT' })) as Obj).results[0].topics).toEqual(['pins', 'registers'])
    expect(((await h.catalogSearch({ q: 'QZ100AT' }, null, ['registers', 'memory'])) as Obj).results[0].topics).toEqual(['registers'])
    // Devices are not listed.
    const none = (await h.catalogSearch({ q: 'QZ200' })) as Obj
    expect([none.status, none.match, none.results, none.total]).toEqual(['not_found', null, [], 0])
    expect(none.suggestions.length).toBeGreaterThan(0)
    expect(((await h.catalogSearch({ q: 'QZ300(A-B)' })) as Obj).results).toEqual([{ ...summary('QZ300(A-B)'), why: 'exact name', topics: [] }])
    // QZ500 is a device: only its 21 members.
    const paged = (await h.catalogSearch({ q: 'QZ5', candidate_limit: 20 })) as Obj
    expect([paged.results.length, paged.total]).toEqual([20, 21])
    expect(((await h.catalogSearch({ q: 'QZ5', candidate_limit: 20, cursor: paged.page.nextCursor })) as Obj).results.map((x: Obj) => x.name)).toEqual(['QZ5M20'])
    expect(await failure(() => h.catalogSearch({ q: 'QZ5M', candidate_limit: 20, cursor: paged.page.nextCursor }))).toBe('INVALID_CURSOR cursor: The cursor belongs to a different query.')
  })

  it('part: the documents per topic and the sources they rest on, with what this service verified', async () => {
    const root = mkdtempSync(join(tmpdir(), 'hwfacts-facts-archive-'))
    try {
      // The archive holds svd/QZ1.svd's bytes; pins/QZ100.xml is missing.
      const s1 = SOURCES.find((s) => s.path === 'svd/QZ1.svd')!
      mkdirSync(join(root, 'archive', 'sha256', s1.sha256.slice(0, 2)), { recursive: true })
      writeFileSync(join(root, s1.archivePath), 'svd/QZ1.svd')
      const r = (await service(repo(), { archiveRoot: root }).catalogPart({ part: 'QZ100AT' })) as Obj
      expect(r.status).toBe('found')
      expect(r.part).toEqual({ ...summary('QZ100AT'), reason: 'a selector part of QZ1' })
      expect(r.documents).toEqual({
        registers: { status: 'resolved', target: tref('svd:QZ1', 'registers', { parts: ['QZ100AT'] }) },
        pins: { status: 'resolved', target: tref('pin:QZ100', 'pins', { package: 'QFN32', parts: ['QZ100AT'] }) },
        electrical: NO_SOURCE('electrical'),
        errata: GAP
      })
      const pinsSource = SOURCES.find((s) => s.path === 'pins/QZ100.xml')!
      expect(r.sources).toEqual([
        {
          ...s1,
          targets: ['svd:QZ1'],
          trust: { checksumVerified: true, checksumNote: 'This service re-hashed the archived bytes and they match the inventory sha256.', publisherDistributed: true, license: 'CC0-1.0' }
        },
        {
          ...pinsSource,
          targets: ['pin:QZ100'],
          trust: { checksumVerified: false, checksumNote: 'Not verified by this service: the archived artifact is missing (ENOENT).', publisherDistributed: false, license: 'CC0-1.0' }
        }
      ])
      expect(r.match).toBe('exact')
      expect(r).not.toHaveProperty('candidates')
      expect(r).not.toHaveProperty('suggestions')
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('part: every source of a target of several, and the checked ones of a cross-check; a distributor named after the publisher is the publisher', async () => {
    const h = service()
    const five = (await h.catalogPart({ part: 'QZ500' })) as Obj
    expect(five.part).toEqual({ ...summary('QZ500'), members: ENTITIES.find((e) => e.name === 'QZ500')!.members })
    expect(five.sources.map((s: Obj) => [s.path, s.targets, s.trust.checksumVerified, s.trust.checksumNote])).toEqual([
      ['svd/QZ5.svd', ['svd:QZ5'], false, 'Not verified by this service: this instance has no source archive to check.'],
      ['svd/alt/QZ5.svd', ['svd:QZ5'], false, 'Not verified by this service: this instance has no source archive to check.']
    ])
    const later = (await h.catalogPart({ part: 'QZ600' }, '2026-12-01')) as Obj
    expect(later.sources.map((s: Obj) => [s.path, s.targets])).toEqual([
      ['svd/QZ6.svd', ['svd:QZ6']],
      ['chips/QZ6.json', ['chip:QZ6']]
    ])
    expect(Object.keys(later.documents)).toEqual(['registers', 'pins', 'electrical', 'errata', 'memory', 'interrupts', 'dma', 'clocks'])
    const seed = (await h.catalogPart({ part: 'QZ600' })) as Obj
    expect(seed.sources.map((s: Obj) => s.path)).toEqual(['svd/QZ6.svd'])
    // svd/QZ6.svd is distributed by "Quazar GitHub": the publisher's own.
    expect(seed.sources[0].distributor).toBe('Quazar GitHub')
    expect(seed.sources[0].trust.publisherDistributed).toBe(true)
  })

  it('part: ambiguous or unknown names list candidates or suggestions, and no sources', async () => {
    const h = service()
    const amb = (await h.catalogPart({ part: 'QZ100A6T' })) as Obj
    expect([amb.status, amb.part, amb.sources, amb.candidateCount]).toEqual(['ambiguous', null, [], 2])
    expect(amb.candidates.map((c: Obj) => c.name)).toEqual(['QZ10', 'QZ100AT'])
    expect(amb).not.toHaveProperty('suggestions')
    const many = (await h.catalogPart({ part: 'QZ5M' })) as Obj
    expect([many.candidates.length, many.candidateCount]).toEqual([10, 21])
    const unknown = (await h.catalogPart({ part: 'QZ100AX' })) as Obj
    expect([unknown.status, unknown.match, unknown.part, unknown.candidates, unknown.candidateCount]).toEqual(['not_found', null, null, [], 0])
    expect(unknown.suggestions.map((s: Obj) => s.name)).toContain('QZ100AT')
  })
})

describe('context answers without facts', () => {
  const ctx = async (p: Obj, h = service()) => JSON.parse((await h.context(p as never)).body) as Obj
  const tokensOf = async (p: Obj) => {
    const body = (await service().context(p as never)).body
    return { body, parsed: JSON.parse(body) as Obj, real: countTokens(body) }
  }

  it('an unknown part: its suggestions and a note', async () => {
    const r = await ctx({ part: 'QZ100AX', topic: 'registers' })
    expect(r.status).toBe('not_found')
    expect(r.facts).toEqual([])
    expect(r.suggestions.map((s: Obj) => s.name)).toContain('QZ100AT')
    expect(r.notes).toEqual(['Unknown part: no facts returned.'])
    expect(r.page).toMatchObject({ returned: 0, truncatedBy: null, nextCursor: null, budgetTooSmall: false, neededMaxTokens: null })
  })

  it('an ambiguous topic: the candidates, their count and the hint', async () => {
    const r = await ctx({ part: 'QZ200', topic: 'registers' })
    expect(r.candidates).toEqual([tref('svd:QZ2A', 'registers', { parts: ['QZ200'] }), tref('svd:QZ2B', 'registers', { parts: ['QZ200'] })])
    expect([r.candidateCount, r.hint]).toEqual([2, 'Several document targets match: give a full selector part or ordering code.'])
    expect(r.notes).toEqual(['Ambiguous part for this topic: no facts returned; the candidates are the document targets to choose from (never chosen for you).'])
  })

  it('not covered: the reason, and the packages there are when the one asked for is not', async () => {
    const gap = await ctx({ part: 'QZ100AT', topic: 'errata' })
    expect([gap.reason, gap.notes]).toEqual(['No QZ errata source.', ['This topic is not covered for this part: no facts returned.']])
    expect(gap).not.toHaveProperty('availablePackages')
    // A package asked of a topic no leaf has packages for: the gap still says why.
    expect((await ctx({ part: 'QZ100AT', topic: 'errata', package: 'BGA9' })).reason).toBe('No QZ errata source.')
    const pkg = await ctx({ part: 'QZ300(A-B)', topic: 'pins', package: 'BGA9' })
    expect([pkg.reason, pkg.availablePackages]).toEqual(['No matching part comes in package BGA9.', ['LQFP48', 'QFN32']])
  })

  it('a source that failed: the reason and each failure', async () => {
    const r = await ctx({ part: 'QZ400', topic: 'registers' })
    expect(r.failures).toEqual([
      { file: 'svd/bad.svd', line: 7, reason: 'not XML' },
      { file: 'svd/bad2.svd', reason: 'empty' }
    ])
    expect(r.reason).toMatch(/^A source for registers facts of this part is in this release but could not be read: /)
    expect(r.notes).toEqual(['The source for this topic could not be read: no facts returned.'])
  })

  it('over budget, candidates are given up from the end, saying what max_tokens lists them all', async () => {
    const small = await tokensOf({ part: 'QZ800', topic: 'registers', max_tokens: 256 })
    const p = small.parsed
    expect(p.candidateCount).toBe(10)
    expect(p.candidates.length).toBeGreaterThan(0)
    expect(p.candidates.length).toBeLessThan(10)
    expect(p.candidates).toEqual(TARGETS.filter((t) => t.key.startsWith('svd:QZ80')).slice(0, p.candidates.length).map((t) => tref(t.key, 'registers', { parts: ['QZ800'] })))
    expect(p.page.truncatedBy).toBe('max_tokens')
    // Not too small a budget for the answer: candidates were cut, which neededMaxTokens undoes.
    expect(p.page.budgetTooSmall).toBe(false)
    const needed = p.page.neededMaxTokens as number
    expect(p.notes[p.notes.length - 1]).toBe(`max_tokens=256 leaves room for ${p.candidates.length} of these 10 candidates (candidateCount counts all): max_tokens=${needed} lists the 10.`)
    expect(p.page.tokens).toBeLessThanOrEqual(256)
    expect(small.real).toBeLessThanOrEqual(p.page.tokens)
    // As many as fit: one more would not.
    const all = await tokensOf({ part: 'QZ800', topic: 'registers', max_tokens: needed })
    expect(all.parsed.candidates).toHaveLength(10)
    expect(all.parsed.page).toMatchObject({ truncatedBy: null, neededMaxTokens: null, budgetTooSmall: false })
    expect(all.real).toBeLessThanOrEqual(needed)
    expect(all.parsed.page.tokens).toBeGreaterThan(needed - 10)
    // A budget of exactly the answer's tokens holds it.
    const exact = await tokensOf({ part: 'QZ800', topic: 'registers', max_tokens: all.parsed.page.tokens })
    expect(exact.parsed.candidates).toHaveLength(10)
    expect(exact.parsed.page.tokens).toBe(all.parsed.page.tokens)
  })

  it('then the filter lists, and with nothing left to give up, max_tokens is too small', async () => {
    const names = Array.from({ length: 60 }, (_, i) => `REGISTER_NUMBER_${i}`).join(',')
    const r = await ctx({ part: 'QZ100AT', topic: 'errata', fact_names: names, peripheral: 'usart1', max_tokens: 256 })
    expect(r.filters).toEqual({ peripheral: 'USART1', elided: true })
    expect((await ctx({ part: 'QZ100AT', topic: 'errata', fact_name_prefixes: names, max_tokens: 256 })).filters).toEqual({ elided: true })
    // Terms that tokenize badly: the echo of the terms used (at most MAX_QUERY_TERMS) is what does not fit.
    const words = Array.from({ length: 60 }, (_, i) => `q${i}z7k${i}w9x${i}v3j${i}`).join(' ')
    expect((await ctx({ part: 'QZ100AT', topic: 'errata', query: words, max_tokens: 256 })).filters).toEqual({ elided: true })
    // Elided and still too big: max_tokens is too small.
    expect(await failure(() => service().context({ part: 'QZ900', topic: 'pins', package: 'BGA9', fact_names: names, max_tokens: 256 } as never))).toMatch(
      /^INVALID_PARAMETER max_tokens: max_tokens=256 cannot hold even this answer without facts \(\d+ tokens\); raise max_tokens\.$/
    )
    expect(r.reason).toBe('No QZ errata source.')
    expect(r.page.tokens).toBeLessThanOrEqual(256)
    const roomy = await ctx({ part: 'QZ100AT', topic: 'errata', fact_names: names, max_tokens: 4000 })
    expect(roomy.filters.factNames).toHaveLength(60)
    const err = await failure(() => service().context({ part: 'QZ900', topic: 'pins', package: 'BGA9', max_tokens: 256 } as never))
    // The answer's own count (with max_tokens of as many digits): nothing was left out of it.
    const whole = await ctx({ part: 'QZ900', topic: 'pins', package: 'BGA9', max_tokens: 999 })
    expect(whole.filters).toEqual({ package: 'BGA9' })
    expect(err).toBe(`INVALID_PARAMETER max_tokens: max_tokens=256 cannot hold even this answer without facts (${whole.page.tokens} tokens); raise max_tokens.`)
  })
})

describe('the store query of a context page', () => {
  it('the resolved target and topic, the filters, the package of the choice, revisions for errata only, one row more than the limit', async () => {
    const r = repo()
    const h = service(r)
    await h.context({ part: 'QZ100AT', topic: 'registers', fact_names: 'A,b', fact_name_prefixes: 'UART.', peripheral: 'usart1', query: 'baud rate', silicon_revision: '5', limit: 7 } as never)
    expect(r.queries.pop()).toEqual({ target: 'svd:QZ1', topic: 'registers', names: ['A', 'b'], prefixes: ['UART.'], peripheral: 'USART1', terms: ['baud', 'rate'], limit: 8 })
    await h.context({ part: 'QZ100AT', topic: 'pins' } as never)
    expect(r.queries.pop()).toEqual({ target: 'pin:QZ100', topic: 'pins', names: [], prefixes: [], package: 'QFN32', terms: [], limit: 21 })
    // The next page: after the cursor's position.
    const first = JSON.parse((await h.context({ part: 'QZ100AT', topic: 'registers', limit: 1 } as never)).body) as Obj
    expect(first.facts).toEqual([{ name: 'R1' }])
    expect(r.queries.pop()).toEqual({ target: 'svd:QZ1', topic: 'registers', names: [], prefixes: [], terms: [], limit: 2 })
    const next = JSON.parse((await h.context({ part: 'QZ100AT', topic: 'registers', limit: 1, cursor: first.page.nextCursor } as never)).body) as Obj
    expect(next.facts).toEqual([{ name: 'R2' }])
    expect(r.queries.pop()).toEqual({ target: 'svd:QZ1', topic: 'registers', names: [], prefixes: [], terms: [], after: { score: 0, ord: 1 }, limit: 2 })
    await h.context({ part: 'ZX1', topic: 'errata', silicon_revision: '5', package: 'qfn32' } as never)
    expect(r.queries.pop()).toEqual({ target: 'err:ZX1', topic: 'errata', names: [], prefixes: [], siliconRevision: '0x05', terms: [], limit: 21 })
  })
})
