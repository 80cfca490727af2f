import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { acknowledge, CURATION_FORMAT, CurationError, EMPTY_CURATION, loadCuration, validateCuration, type Curation } from '../../indexer/curation/curation.js'
import { catalogTargets, checkReach } from '../../indexer/curation/reach.js'
import type { CatalogEntity, ReleaseCatalog, TargetSummary } from '../../src/model/catalog.js'
import type { DocumentTarget, ParseProblem, Topic } from '../../src/model/fact.js'
import { scratchDirs } from '../helpers/scratch.js'

/*
 * The curation file (indexer/curation/curation.ts: reading, every check, acknowledged problems), the
 * catalog's targets and the reachability check (curation/reach.ts), on hand-made files, targets and
 * catalogs. Expected values are worked out by hand from the doc comments of those files.
 */

const tmp = scratchDirs()
const TOPICS = 'registers, pins, electrical, errata, memory, interrupts, dma, clocks'
const sha = (c: string) => c.repeat(64)
function tgt(key: string, sourcePath: string, topics: Topic[], extra: Partial<DocumentTarget> = {}): DocumentTarget {
  return { key, topics, device: 'D', sourceSha256: sha(sourcePath.length % 2 ? 'a' : 'b'), sourcePath, ...extra }
}

const CUR = (doc: Record<string, unknown>): Record<string, unknown> => ({ format: CURATION_FORMAT, ...doc })
function errorsOf(doc: unknown): string[] {
  try {
    validateCuration(doc, 'c.json')
  } catch (e) {
    expect(e).toBeInstanceOf(CurationError)
    return (e as CurationError).errors
  }
  return []
}

describe('curation file', () => {
  it('is optional: none beside the inventory is the empty curation, with nothing for the release id to hash', () => {
    const dir = tmp('hwfacts-cur-')
    expect(loadCuration(dir)).toEqual({ curation: EMPTY_CURATION, raw: '' })
    writeFileSync(join(dir, 'sources.json'), '{"sources":[]}')
    expect(loadCuration(join(dir, 'sources.json'))).toEqual({ curation: EMPTY_CURATION, raw: '' })
    expect(EMPTY_CURATION).toEqual({ aliases: [], overrides: [], gaps: [], acknowledged: [], crossCheck: [] })
  })

  it('is read beside the inventory (its directory or its sources.json), or from the path given', () => {
    const dir = tmp('hwfacts-cur-')
    const raw = JSON.stringify(CUR({ gaps: [{ match: 'STM32*', topic: 'errata', reason: 'no errata source' }] }))
    writeFileSync(join(dir, 'curation.json'), raw)
    writeFileSync(join(dir, 'sources.json'), '{"sources":[]}')
    const gaps = [{ match: 'STM32*', topic: 'errata', reason: 'no errata source' }]
    expect(loadCuration(dir)).toEqual({ curation: { ...EMPTY_CURATION, gaps }, raw, file: join(dir, 'curation.json') })
    expect(loadCuration(join(dir, 'sources.json'))).toEqual({ curation: { ...EMPTY_CURATION, gaps }, raw, file: join(dir, 'curation.json') })
    const other = join(tmp('hwfacts-cur-'), 'mine.json')
    const raw2 = JSON.stringify(CUR({ note: 'n' }))
    writeFileSync(other, raw2)
    expect(loadCuration(dir, other)).toEqual({ curation: EMPTY_CURATION, raw: raw2, file: other })
  })

  it('an unreadable or non-JSON file is one CurationError naming the file', () => {
    const dir = tmp('hwfacts-cur-')
    const missing = join(dir, 'nope.json')
    expect(() => loadCuration(dir, missing)).toThrow(CurationError)
    try {
      loadCuration(dir, missing)
    } catch (e) {
      expect((e as CurationError).file).toBe(missing)
      expect((e as CurationError).errors).toEqual([expect.stringMatching(/^cannot be read: ENOENT/)])
      expect((e as Error).message).toBe(`${missing}: 1 bad curation entry:\n  ${(e as CurationError).errors[0]}`)
    }
    const bad = join(dir, 'curation.json')
    writeFileSync(bad, '{ "format": ')
    try {
      loadCuration(dir)
      expect.unreachable()
    } catch (e) {
      expect((e as CurationError).file).toBe(bad)
      expect((e as CurationError).errors).toEqual([expect.stringMatching(/^not JSON: /)])
    }
  })

  it('the document must be an object of the current format with known sections, each an array of objects', () => {
    for (const doc of [null, [], 'x', 3]) expect(errorsOf(doc)).toEqual(['the file is not a JSON object'])
    expect(errorsOf({ format: 'hwfacts-curation/1' })).toEqual(['format: expected "hwfacts-curation/2", found "hwfacts-curation/1"'])
    expect(errorsOf({})).toEqual(['format: expected "hwfacts-curation/2", found undefined'])
    expect(errorsOf(CUR({ note: 'free text', aliases: {}, gaps: [[]], acknowledged: [null] }))).toEqual([
      'aliases: expected an array',
      'gaps[0]: expected an object',
      'gaps[0]: match must be a name with at most a trailing *',
      'gaps[0]: topic must be one of registers, pins, electrical, errata, memory, interrupts, dma, clocks',
      'gaps[0]: reason must say why (a non-empty string)',
      'acknowledged[0]: expected an object',
      'acknowledged[0]: file must be a non-empty string',
      'acknowledged[0]: reason must say why (a non-empty string)'
    ])
    expect(errorsOf(CUR({ overrides: 'x', crossCheck: [7], extra: [] }))).toEqual([
      'extra: unknown section (expected aliases, overrides, gaps, acknowledged, crossCheck)',
      'overrides: expected an array',
      'crossCheck[0]: expected an object',
      `crossCheck[0]: topic must be one of ${TOPICS}`,
      'crossCheck[0]: order must list two or more distinct source kinds',
      'crossCheck[0]: reason must say why (a non-empty string)'
    ])
    const e = new CurationError('f.json', ['a', 'b'])
    expect(e.message).toBe('f.json: 2 bad curation entries:\n  a\n  b')
  })

  it('entries: every member checked, unknown members refused, what is valid kept as written', () => {
    const doc = CUR({
      aliases: [
        { name: 'Blinky', device: 'QZ7001', reason: 'sold as' },
        { name: 'B2', device: 'QZ7002', topics: ['registers', 'memory'], reason: 'r' },
        { name: 'B3', device: ' ', topics: [], reason: 'r', extra: 1 },
        { name: 'B4', device: 'D', topics: ['wiring'], reason: '  ' },
        { name: 'B5', device: 'D', topics: 'registers', reason: 'r' }
      ],
      overrides: [
        { match: 'STM32F4*', topic: 'errata', device: null, reason: 'none' },
        { match: 'nRF52832', topic: 'registers', device: 'nrf52', reason: 'r' },
        { match: '*', topic: 'registers', device: 3, reason: 'r' },
        { match: 'A*B', topic: 'pins', device: '', reason: 'r' }
      ],
      gaps: [{ match: 'X', topic: 'clocks', reason: 'r' }, { match: 7, topic: 'dma', reason: 'r' }],
      acknowledged: [
        { file: 'a.h', reason: 'known' },
        { file: 'b.h', line: 12, reason: 'known' },
        { file: 'c.h', line: 1.5, reason: 'r' },
        { file: 'd.h', line: '3', reason: 'r' },
        { file: '', reason: 'r' }
      ],
      crossCheck: [
        { topic: 'pins', order: ['stm32-pin-data-mcu', 'stm32-data-chip'], compare: ['alternateFunctions'], subset: true, reason: 'ST first' },
        { topic: 'interrupts', order: ['a', 'b'], reason: 'r' },
        { topic: 'memory', order: ['a', 'a'], reason: 'r' },
        { topic: 'dma', order: 'ab', reason: 'r' },
        { topic: 'clocks', order: ['a', ''], reason: 'r' },
        { topic: 'errata', order: ['a', 'b'], compare: ['x', 'x'], reason: 'r' },
        { topic: 'registers', order: ['a', 'b'], compare: 'x', reason: 'r' },
        { topic: 'electrical', order: ['a', 'b'], compare: [''], subset: false, reason: 'r' }
      ]
    })
    const topics = 'registers, pins, electrical, errata, memory, interrupts, dma, clocks'
    expect(errorsOf(doc)).toEqual([
      'aliases[2]: unknown member "extra"',
      'aliases[2]: device must be a non-empty string',
      `aliases[2]: topics must list topics (${topics})`,
      `aliases[3]: topics must list topics (${topics})`,
      'aliases[3]: reason must say why (a non-empty string)',
      `aliases[4]: topics must list topics (${topics})`,
      'overrides[2]: match must be a name with at most a trailing *',
      'overrides[2]: device must be a device name or null',
      'overrides[3]: match must be a name with at most a trailing *',
      'overrides[3]: device must be a device name or null',
      'gaps[1]: match must be a name with at most a trailing *',
      'acknowledged[2]: line must be a line number (an integer ≥ 1)',
      'acknowledged[3]: line must be a line number (an integer ≥ 1)',
      'acknowledged[4]: file must be a non-empty string',
      'crossCheck[2]: order must list two or more distinct source kinds',
      'crossCheck[3]: order must list two or more distinct source kinds',
      'crossCheck[4]: order must list two or more distinct source kinds',
      'crossCheck[5]: compare must list one or more distinct value members',
      'crossCheck[6]: compare must list one or more distinct value members',
      'crossCheck[7]: compare must list one or more distinct value members',
      'crossCheck[7]: subset must be true or left out'
    ])
    const valid = CUR({
      aliases: (doc.aliases as unknown[]).slice(0, 2),
      overrides: (doc.overrides as unknown[]).slice(0, 2),
      gaps: (doc.gaps as unknown[]).slice(0, 1),
      acknowledged: (doc.acknowledged as unknown[]).slice(0, 2),
      crossCheck: (doc.crossCheck as unknown[]).slice(0, 2)
    })
    const c = validateCuration(valid, 'c.json')
    expect(c).toEqual({
      aliases: [
        { name: 'Blinky', device: 'QZ7001', reason: 'sold as' },
        { name: 'B2', device: 'QZ7002', topics: ['registers', 'memory'], reason: 'r' }
      ],
      overrides: [
        { match: 'STM32F4*', topic: 'errata', device: null, reason: 'none' },
        { match: 'nRF52832', topic: 'registers', device: 'nrf52', reason: 'r' }
      ],
      gaps: [{ match: 'X', topic: 'clocks', reason: 'r' }],
      acknowledged: [
        { file: 'a.h', reason: 'known' },
        { file: 'b.h', line: 12, reason: 'known' }
      ],
      crossCheck: [
        { topic: 'pins', order: ['stm32-pin-data-mcu', 'stm32-data-chip'], compare: ['alternateFunctions'], subset: true, reason: 'ST first' },
        { topic: 'interrupts', order: ['a', 'b'], reason: 'r' }
      ]
    })
    expect(Object.keys(c.aliases[0]!)).toEqual(['name', 'device', 'reason'])
    expect(Object.keys(c.acknowledged[0]!)).toEqual(['file', 'reason'])
    expect(Object.keys(c.crossCheck[1]!)).toEqual(['topic', 'order', 'reason'])
    // A second rule for a topic, and subset without compare.
    expect(
      errorsOf(
        CUR({
          crossCheck: [
            { topic: 'pins', order: ['a', 'b'], reason: 'r' },
            { topic: 'pins', order: ['b', 'a'], reason: 'again' },
            { topic: 'dma', order: ['a', 'b'], subset: true, reason: 'r' },
            { topic: 'wiring', order: ['a', 'b'], reason: 'r' }
          ]
        })
      )
    ).toEqual(['crossCheck[1]: topic pins has a rule already', 'crossCheck[2]: subset needs compare (the lists it applies to)', `crossCheck[3]: topic must be one of ${topics}`])
    // Each list check at its edge: one of several bad, too few, empty; an invalid rule takes no topic.
    expect(
      errorsOf(
        CUR({
          aliases: [{ name: 'A', device: 'D', topics: ['registers', 'wiring'], reason: 'r' }],
          acknowledged: [{ file: 'a.h', line: 0, reason: 'r' }, { file: 'b.h', line: -3, reason: 'r' }],
          crossCheck: [
            { topic: 'pins', order: ['a'], reason: 'r' },
            { topic: 'pins', order: ['a', 'b'], compare: [], reason: 'r' },
            { topic: 'pins', order: ['a', 'b'], compare: ['x', ''], reason: 'r' },
            { topic: 'pins', order: ['a', 'b'], reason: 'r' }
          ]
        })
      )
    ).toEqual([
      `aliases[0]: topics must list topics (${topics})`,
      'acknowledged[0]: line must be a line number (an integer ≥ 1)',
      'acknowledged[1]: line must be a line number (an integer ≥ 1)',
      'crossCheck[0]: order must list two or more distinct source kinds',
      'crossCheck[1]: compare must list one or more distinct value members',
      'crossCheck[2]: compare must list one or more distinct value members'
    ])
  })

  it('acknowledge: matching problems become notes (by file, and line when given); unmatched acknowledgements are notes too', () => {
    const curation: Curation = {
      ...EMPTY_CURATION,
      acknowledged: [
        { file: 'a.h', line: 12, reason: 'typo upstream' },
        { file: 'b.h', reason: 'whole file' },
        { file: 'c.h', line: 3, reason: 'fixed since' },
        { file: 'd.h', reason: 'gone' }
      ]
    }
    const problems: ParseProblem[] = [
      { file: 'a.h', line: 11, reason: 'bad value' },
      { file: 'a.h', line: 12, reason: 'bad value' },
      { file: 'b.h', reason: 'no device' },
      { file: 'b.h', line: 4, reason: 'bad line' },
      { file: 'e.h', line: 1, reason: 'other' }
    ]
    expect(acknowledge(problems, curation)).toEqual({
      problems: [problems[0], problems[4]],
      notes: [
        'acknowledged source defect a.h:12: bad value (curation: typo upstream)',
        'acknowledged source defect b.h: no device (curation: whole file)',
        'acknowledged source defect b.h:4: bad line (curation: whole file)',
        'curation acknowledged c.h:3: no such problem in this release',
        'curation acknowledged d.h: no such problem in this release'
      ]
    })
    expect(acknowledge(problems, EMPTY_CURATION)).toEqual({ problems, notes: [] })
  })
})

describe('catalogTargets', () => {
  const src = (path: string, kind: string, c = 'e') => ({ path, sha256: sha(c), kind, publisher: `pub of ${path}` })

  it('real targets by key with their counts and problems (three kept); a source of a target-giving kind with no target is a failed target', () => {
    const t1 = tgt('svd:b', 'svd/b.svd', ['registers'])
    const t2 = tgt('svd:a', 'svd/a.svd', ['registers'])
    const merged = tgt('svd:m1+m2', 'svd/m1.svd', ['registers'], { sources: [{ sourcePath: 'svd/m1.svd', sourceSha256: sha('1') }, { sourcePath: 'svd/m2.svd', sourceSha256: sha('2') }] })
    const problems: ParseProblem[] = [
      { file: 'svd/a.svd', line: 1, reason: 'p1' },
      { file: 'svd/a.svd', line: 2, reason: 'p2' },
      { file: 'svd/a.svd', reason: 'p3' },
      { file: 'svd/a.svd', line: 4, reason: 'p4' },
      { file: 'svd/Z/broken.svd', line: 9, reason: 'malformed XML' },
      { file: 'svd/Z/broken.svd', line: 10, reason: 'second' },
      { file: 'errata/nordic/nrf91_erratas.h', reason: 'no model' }
    ]
    const sources = [
      src('svd/a.svd', 'cmsis-svd'),
      src('svd/b.svd', 'cmsis-svd'),
      src('svd/m2.svd', 'cmsis-svd'),
      src('svd/Z/broken.svd', 'cmsis-svd', 'f'),
      src('svd/Z/empty.v2.svd', 'cmsis-svd'),
      src('errata/nordic/nrf91_erratas.h', 'nordic-mdk-errata-header'),
      src('pins/stm32/mcu/STM32X.xml', 'stm32-pin-data-mcu'),
      src('errata/nxp/fsl_MK64F.h', 'nxp-mcux-features-header'),
      src('errata/nordic/nrf_erratas_v2.h', 'nordic-mdk-errata-header'),
      src('pins/stm32/mcu/IP/GPIO-x.xml', 'stm32-pin-data-gpio'),
      src('targets/probe-rs/x.yaml', 'probe-rs-target')
    ]
    const counts = new Map([['svd:a', { registers: 4 }]])
    const out = catalogTargets(sources, [t1, t2, merged], problems, counts)
    expect(out.map((t) => t.key)).toEqual([
      'svd:a',
      'svd:b',
      'svd:m1+m2',
      'failed:errata/nordic/nrf91_erratas.h',
      'failed:errata/nordic/nrf_erratas_v2.h',
      'failed:errata/nxp/fsl_MK64F.h',
      'failed:pins/stm32/mcu/STM32X.xml',
      'failed:svd/Z/broken.svd',
      'failed:svd/Z/empty.v2.svd'
    ])
    expect(out[0]).toEqual({ ...t2, factCounts: { registers: 4 }, problems: { count: 4, first: problems.slice(0, 3) } })
    expect(out[1]).toEqual({ ...t1, factCounts: {} })
    expect(out[3]).toEqual({
      key: 'failed:errata/nordic/nrf91_erratas.h',
      topics: ['errata'],
      device: 'nrf91',
      sourceSha256: sha('e'),
      sourcePath: 'errata/nordic/nrf91_erratas.h',
      identity: { vendor: 'pub of errata/nordic/nrf91_erratas.h' },
      factCounts: {},
      failure: { file: 'errata/nordic/nrf91_erratas.h', reason: 'no model' }
    })
    // Only a trailing `_erratas` is dropped.
    expect(out[4]!.device).toBe('nrf_erratas_v2')
    expect(out[5]).toMatchObject({ topics: ['errata'], device: 'fsl_MK64F', failure: { file: 'errata/nxp/fsl_MK64F.h', reason: 'the source gave no facts' } })
    expect(out[6]).toMatchObject({ topics: ['pins', 'electrical'], device: 'STM32X' })
    expect(out[7]).toMatchObject({ topics: ['registers'], device: 'broken', sourceSha256: sha('f'), failure: { file: 'svd/Z/broken.svd', line: 9, reason: 'malformed XML' } })
    expect(out[7]!.problems).toBeUndefined()
    expect(out[8]).toMatchObject({ device: 'empty.v2' })
    expect('line' in out[3]!.failure!).toBe(false)
    expect(catalogTargets([], [], [], new Map())).toEqual([])
  })
})

describe('checkReach', () => {
  const T = (key: string, topics: Topic[], extra: Partial<TargetSummary> = {}): TargetSummary => ({ key, topics, device: key.split(':')[1]!, sourceSha256: sha('a'), sourcePath: `${key.split(':')[1]}.src`, factCounts: {}, ...extra })
  const E = (name: string, targets: CatalogEntity['targets'], extra: Partial<CatalogEntity> = {}): CatalogEntity => ({ name, kind: 'device', keys: [name.toUpperCase()], targets, ...extra })
  const cat = (entities: CatalogEntity[], targets: TargetSummary[], crossCheck?: ReleaseCatalog['crossCheck']): ReleaseCatalog => ({ entities, targets, gaps: [], ...(crossCheck ? { crossCheck } : {}) })

  it('a target some part name resolves to alone, for one of its topics, is reached; failed targets are not counted', () => {
    const c = cat([E('QZ1', { registers: ['svd:QZ1'] }), E('QZ2', { registers: ['svd:QZ2'], errata: ['nordic-errata:E2'] })], [T('svd:QZ1', ['registers']), T('svd:QZ2', ['registers']), T('nordic-errata:E2', ['errata']), T('failed:x', ['registers'], { failure: { file: 'x', reason: 'bad' } })])
    expect(checkReach(c)).toEqual({ problems: [], reachable: 3, total: 3 })
  })

  it('a target no name maps to, or only together with another, is a problem naming it and what to do', () => {
    const c = cat(
      [E('QZ1', { registers: ['svd:A', 'svd:B'] }), E('QZ3', { registers: ['svd:C'] })],
      [T('svd:A', ['registers']), T('svd:B', ['registers']), T('svd:C', ['registers']), T('svd:Lost', ['registers'], { device: 'LOST1', sourcePath: 'svd/lost.svd' })]
    )
    expect(checkReach(c)).toEqual({
      problems: [
        { file: 'A.src', reason: 'no part name resolves to target svd:A (device A): QZ1 maps to it only together with another target; add a curation alias naming the part it describes' },
        { file: 'B.src', reason: 'no part name resolves to target svd:B (device B): QZ1 maps to it only together with another target; add a curation alias naming the part it describes' },
        { file: 'svd/lost.svd', reason: 'no part name resolves to target svd:Lost (device LOST1): no rule derives a part name from it and no curation alias names it; add a curation alias naming the part it describes' }
      ],
      reachable: 1,
      total: 4
    })
  })

  it('the first name that maps to a target ambiguously is the one named', () => {
    const c = cat([E('AA1', { registers: ['svd:A', 'svd:B'] }), E('AA2', { registers: ['svd:A', 'svd:C'] })], [T('svd:A', ['registers']), T('svd:B', ['registers']), T('svd:C', ['registers'])])
    expect(checkReach(c).problems.map((p) => p.reason.split(':')[2])).toEqual([' AA1 maps to it only together with another target; add a curation alias naming the part it describes', ' AA1 maps to it only together with another target; add a curation alias naming the part it describes', ' AA2 maps to it only together with another target; add a curation alias naming the part it describes'])
  })

  it('a name that does not resolve to its own entity alone reaches nothing', () => {
    // QZ1's key is a prefix of QZ10's: `QZ1` is exact, so both are reached; a name whose key another
    // entity owns (a duplicate) does not resolve to itself.
    const twin = E('QZ9', { registers: ['svd:Twin'] })
    const c = cat([E('QZ1', { registers: ['svd:One'] }), E('QZ10', { registers: ['svd:Ten'] }), E('QZ9', { registers: ['svd:Nine'] }), twin], [T('svd:One', ['registers']), T('svd:Ten', ['registers']), T('svd:Nine', ['registers']), T('svd:Twin', ['registers'])])
    const r = checkReach(c)
    expect(r.total).toBe(4)
    expect(r.problems.map((p) => p.reason.slice(0, 40))).toEqual(['no part name resolves to target svd:Nine'])
    expect(r.reachable).toBe(3)
  })

  it('a name with no exact key, matched only by prefix of several, reaches nothing', () => {
    const c = cat([E('QZ1', { registers: ['svd:One'] }, { keys: ['QZ1A', 'QZ1B'] })], [T('svd:One', ['registers'])])
    // `QZ1` matches the entity through two keys: one entity, so it is reached.
    expect(checkReach(c).reachable).toBe(1)
    const d = cat([E('QZ1', { registers: ['svd:One'] }, { keys: ['QZ1A'] }), E('QZ1B', { registers: ['svd:Two'] })], [T('svd:One', ['registers']), T('svd:Two', ['registers'])])
    // QZ1 prefix-matches QZ1A and QZ1B: two entities, not itself alone; QZ1B is exact.
    expect(checkReach(d).problems.map((p) => p.file)).toEqual(['One.src'])
  })

  it('depth topics and cross-checked ones: reached when the target is its source`s one target of the part for the topic', () => {
    const targets = [T('stm32-data:A', ['memory', 'pins']), T('probe-rs:A', ['memory']), T('modm:A1', ['memory']), T('modm:A2', ['memory']), T('stm32:A', ['pins']), T('stm32-data:B', ['pins'])]
    const entities = [E('PartA', { memory: ['stm32-data:A', 'probe-rs:A', 'modm:A1', 'modm:A2'], pins: ['stm32-data:A', 'stm32:A'] }), E('PartB', { pins: ['stm32-data:B', 'stm32:A'] })]
    const plain = checkReach(cat(entities, targets))
    // Memory (a depth topic): one target per source reached, modm's two not. Pins without a cross-check
    // rule: two targets for PartA and for PartB, none reached; stm32:A is reached by neither.
    expect(plain.problems.map((p) => p.reason.slice(0, p.reason.indexOf(' (')))).toEqual([
      'no part name resolves to target modm:A1',
      'no part name resolves to target modm:A2',
      'no part name resolves to target stm32:A',
      'no part name resolves to target stm32-data:B'
    ])
    expect(plain.reachable).toBe(2)
    const checked = checkReach(cat(entities, targets, [{ topic: 'pins', order: ['stm32-pin-data-mcu', 'stm32-data-chip'], reason: 'r' }]))
    expect(checked.problems.map((p) => p.reason.slice(0, p.reason.indexOf(' (')))).toEqual(['no part name resolves to target modm:A1', 'no part name resolves to target modm:A2'])
    expect(checked).toMatchObject({ reachable: 4, total: 6 })
  })
})
