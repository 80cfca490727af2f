import { beforeAll, describe, expect, it } from 'vitest'
import type { CatalogEntity, ReleaseCatalog, TargetSummary } from '../../src/model/catalog.js'
import { normalizeKey, queryTerms, terms } from '../../src/model/text.js'
import { CatalogIndex } from '../../src/service/catalog-index.js'

/*
 * The catalog lookups on a small hand-made catalog, so that every expected answer can be worked
 * out by hand from the documented rules (README "Resolve never picks"): exact keys first, then
 * every part whose ordering-code rule accepts the code, then every entity a key of which starts
 * with the query; suggestions by edit distance to the start of a name; one choice per target
 * (per package for pins); curated gaps by name prefix; ranking by query words that start a word.
 */

const part = (name: string, extra: Partial<CatalogEntity> = {}): CatalogEntity => ({ name, kind: 'selector-part', keys: [normalizeKey(name)], targets: {}, ...extra })
const target = (key: string): TargetSummary => ({ key, topics: ['pins'], device: key, sourceSha256: '0'.repeat(64), sourcePath: key, factCounts: {} })

const A = part('ACME100AT', {
  ordering: { stem: 'ACME100A', suffix: '[0-9]T(TR)?', reason: 'digit, T, optional TR' },
  targets: { pins: ['p:100'], registers: ['svd:ACME'], errata: ['nowhere'] },
  package: 'QFN32',
  family: 'ACME1',
  line: 'ACME100',
  core: 'Arm Cortex-M0'
})
const B = part('ACME100ATN', { ordering: { stem: 'ACME100A', suffix: '[0-9]TN(TR)?', reason: 'digit, TN, optional TR' }, targets: { pins: ['p:100N'], registers: ['svd:ACME'] }, package: 'QFN48' })
// A shorter stem whose rule also accepts ACME100A6T: a code two parts could own.
const E = part('ACME10', { kind: 'device', ordering: { stem: 'ACME10', suffix: '0A[0-9]T', reason: 'odd rule' }, targets: { registers: ['svd:ACME'] } })
const R = part('ACME100(A-B)T', { kind: 'refname', members: ['ACME100AT', 'ACME100ATN'] })
const G = part('ACME2', { kind: 'refname', members: ['ACME2X', 'ACME2Y', 'GONE'] })
const X = part('ACME2X', { targets: { pins: ['p:2'], registers: ['svd:ACME2'] }, package: 'LQFP64' })
const Y = part('ACME2Y', { targets: { pins: ['p:2'], registers: ['svd:ACME2'] }, package: 'LQFP48' })
const D = part('nRF99', { kind: 'device', keys: ['NRF99', 'NRF99XXAA'], ordering: { stem: 'NRF99', suffix: '[A-Z]{4}', reason: 'package and variant' }, targets: { errata: ['nordic-errata:NRF99'] } })

const catalog: ReleaseCatalog = {
  entities: [A, B, E, R, G, X, Y, D],
  targets: ['p:100', 'p:100N', 'svd:ACME', 'svd:ACME2', 'p:2', 'nordic-errata:NRF99'].map(target),
  gaps: [
    { match: 'ACME*', topic: 'errata', reason: 'No ACME errata source.' },
    { match: 'nrf', topic: 'pins', reason: 'No Nordic pin source.' }
  ]
}
// Built in a hook, not at import: a constructor that throws must fail the tests, not the file's collection.
let ix: CatalogIndex
beforeAll(() => {
  ix = new CatalogIndex(catalog)
})
const names = (r: { matches: Array<{ entity: CatalogEntity; how: string }> }) => r.matches.map((m) => `${m.entity.name}/${m.how}`)

describe('catalog index: match', () => {
  it('an exact key wins alone, whatever the case and punctuation of the query', () => {
    expect(ix.match('acme-100 at')).toEqual({ key: 'ACME100AT', matches: [{ entity: A, how: 'exact' }] })
    expect(names(ix.match('nrf99-xxaa'))).toEqual(['nRF99/exact'])
    expect(ix.entity('nRF99')).toBe(D)
    expect(ix.entity('NRF99')).toBeUndefined()
  })

  it('an empty key matches nothing', () => {
    expect(ix.match('-- ()')).toEqual({ key: '', matches: [] })
  })

  it('ordering codes: every part whose rule accepts the code, the longer stem first; never the part’s own key', () => {
    expect(names(ix.match('ACME100A6T'))).toEqual(['ACME100AT/ordering-code', 'ACME10/ordering-code'])
    expect(names(ix.match('acme100a7tn-tr'))).toEqual(['ACME100ATN/ordering-code'])
    expect(names(ix.match('ACME100A7TTR'))).toEqual(['ACME100AT/ordering-code'])
    expect(names(ix.match('NRF99QFAA'))).toEqual(['nRF99/ordering-code'])
    // The rule's pattern is anchored at both ends.
    expect(names(ix.match('ACME100A7TX'))).toEqual([])
    expect(names(ix.match('XACME100A7T'))).toEqual([])
    // A filter applies to ordering codes too.
    expect(names(ix.match('ACME100A6T', (e) => e.kind === 'device'))).toEqual(['ACME10/ordering-code'])
  })

  it('prefixes: every entity with a key starting with the query, once, in key order; grouped RefNames never', () => {
    expect(names(ix.match('acme'))).toEqual(['ACME10/prefix', 'ACME100AT/prefix', 'ACME100ATN/prefix', 'ACME2/prefix', 'ACME2X/prefix', 'ACME2Y/prefix'])
    expect(names(ix.match('ACME100A'))).toEqual(['ACME100AT/prefix', 'ACME100ATN/prefix'])
    // ACME100(A-B)T's key ACME100ABT starts with ACME100AB, but `ACME100AB…` is no real name.
    expect(names(ix.match('ACME100AB'))).toEqual([])
    // Two keys of one entity start with NRF: it is listed once.
    expect(names(ix.match('nrf'))).toEqual(['nRF99/prefix'])
    expect(names(ix.match('ZZ'))).toEqual([])
    expect(names(ix.match('A'))).toEqual(['ACME10/prefix', 'ACME100AT/prefix', 'ACME100ATN/prefix', 'ACME2/prefix', 'ACME2X/prefix', 'ACME2Y/prefix'])
  })

  it('a filtered-out exact key falls through to ordering codes and prefixes', () => {
    expect(names(ix.match('ACME10', (e) => e.kind === 'selector-part'))).toEqual(['ACME100AT/prefix', 'ACME100ATN/prefix'])
    expect(names(ix.match('ACME2', (e) => e.name !== 'ACME2X'))).toEqual(['ACME2/exact'])
    expect(names(ix.match('ACME2', (e) => e.kind === 'selector-part'))).toEqual(['ACME2X/prefix', 'ACME2Y/prefix'])
  })
})

describe('catalog index: suggestions', () => {
  it('names within the distance limit, by distance then name; at most n', () => {
    // ACME100X → ACME10: delete 0 and X (2); → ACME100AT: X→A, add T (2); ACME100ATN needs 3 > limit 2.
    expect(ix.suggestions('ACME100X')).toEqual([
      { name: 'ACME10', distance: 2 },
      { name: 'ACME100AT', distance: 2 }
    ])
    expect(ix.suggestions('ACME100X', 1)).toEqual([{ name: 'ACME10', distance: 2 }])
    expect(ix.suggestions('ACME2Q')).toEqual([
      { name: 'ACME2', distance: 1 },
      { name: 'ACME2X', distance: 1 },
      { name: 'ACME2Y', distance: 1 },
      { name: 'ACME10', distance: 2 }
    ])
    // Compared with the start of a longer name (query length + 2): ACME1 is 2 from ACME100, the
    // start of ACME100AT; the fifth and last is ACME2X, before ACME2Y by name.
    expect(ix.suggestions('ACME1')).toEqual([
      { name: 'ACME10', distance: 1 },
      { name: 'ACME2', distance: 1 },
      { name: 'ACME100AT', distance: 2 },
      { name: 'ACME100ATN', distance: 2 },
      { name: 'ACME2X', distance: 2 }
    ])
    // A longer query allows more edits: floor(12 / 3) = 4. NRF99XXAAQQQ is 3 from the key NRF99XXAA.
    expect(ix.suggestions('NRF99XXAAQQQ')).toEqual([{ name: 'nRF99', distance: 3 }])
    expect(ix.suggestions('QQQQ')).toEqual([])
  })

  it('keys longer than the distance rows first made for (64) are measured in full, and short ones after them still are', () => {
    const long = part(`LONG${'A'.repeat(76)}`)
    const lix = new CatalogIndex({ entities: [long, part('LONGB')], targets: [], gaps: [] })
    // One substitution (the last A → B) within floor(80 / 3) = 26; LONGB, 75 shorter, is far past it.
    expect(lix.suggestions(`LONG${'A'.repeat(75)}B`)).toEqual([{ name: long.name, distance: 1 }])
    // LONGC → LONGB: one substitution; the long key's start LONGAAA (length 5 + 2) is 3 edits away, past the limit 2.
    expect(lix.suggestions('LONGC')).toEqual([{ name: 'LONGB', distance: 1 }])
    // LONGAAAAC against LONGAAAAAAA (9 + 2): C → A and two insertions, 3 = floor(9 / 3); LONGB is 4 shorter.
    expect(lix.suggestions('LONGAAAAC')).toEqual([{ name: long.name, distance: 3 }])
    expect(ix.suggestions('ACME2Q').map((x) => x.name)).toEqual(['ACME2', 'ACME2X', 'ACME2Y', 'ACME10'])
  })

  it('the smallest distance over an entity’s keys is the one reported', () => {
    // NRF9XXA: to NRF99 (its first 7 chars are all of it) 3 edits; to NRF99XXAA's first 9 chars, 2.
    expect(ix.suggestions('NRF9XXA')).toEqual([{ name: 'nRF99', distance: 2 }])
    // NRF99X: 1 from NRF99, 2 from NRF99XXA (the start of NRF99XXAA): the smaller stays.
    expect(ix.suggestions('NRF99X')).toEqual([{ name: 'nRF99', distance: 1 }])
  })
})

describe('catalog index: choices', () => {
  it('one choice per target; pins per package; parts sorted; the packages seen', () => {
    expect(ix.choices([A], 'pins')).toEqual({ choices: [{ target: target('p:100'), package: 'QFN32', parts: ['ACME100AT'] }], packages: ['QFN32'] })
    expect(ix.choices([B, A], 'registers')).toEqual({ choices: [{ target: target('svd:ACME'), parts: ['ACME100AT', 'ACME100ATN'] }], packages: ['QFN32', 'QFN48'] })
  })

  it('a group stands for its members; one pins target in two packages is two choices, by package', () => {
    expect(ix.choices([G], 'pins')).toEqual({
      choices: [
        { target: target('p:2'), package: 'LQFP48', parts: ['ACME2Y'] },
        { target: target('p:2'), package: 'LQFP64', parts: ['ACME2X'] }
      ],
      packages: ['LQFP48', 'LQFP64']
    })
    expect(ix.choices([G, X], 'registers').choices).toEqual([{ target: target('svd:ACME2'), parts: ['ACME2X', 'ACME2Y'] }])
    // The same order whatever order the parts come in.
    expect(ix.choices([Y, X], 'pins').choices.map((c) => c.package)).toEqual(['LQFP48', 'LQFP64'])
    expect(ix.choices([X, Y], 'pins').choices.map((c) => c.package)).toEqual(['LQFP48', 'LQFP64'])
    expect(ix.choices([B, A], 'pins').choices.map((c) => c.target.key)).toEqual(['p:100', 'p:100N'])
  })

  it('a package narrows the choices (case and punctuation aside) but not the packages listed', () => {
    expect(ix.choices([G], 'pins', 'lqfp-48')).toEqual({ choices: [{ target: target('p:2'), package: 'LQFP48', parts: ['ACME2Y'] }], packages: ['LQFP48', 'LQFP64'] })
    expect(ix.choices([G], 'pins', 'BGA1')).toEqual({ choices: [], packages: ['LQFP48', 'LQFP64'] })
    // A part without a package is never filtered out by one.
    expect(ix.choices([D], 'errata', 'QFN32')).toEqual({ choices: [{ target: target('nordic-errata:NRF99'), parts: ['nRF99'] }], packages: [] })
  })

  it('targets the release does not have, and topics a part has no target for, give nothing', () => {
    // A names an errata target the release lacks: no choice, though its package is seen.
    expect(ix.choices([A], 'errata')).toEqual({ choices: [], packages: ['QFN32'] })
    expect(ix.choices([E], 'pins')).toEqual({ choices: [], packages: [] })
    expect(ix.choices([R], 'pins').choices.map((c) => c.target.key)).toEqual(['p:100', 'p:100N'])
  })
})

describe('catalog index: gaps and ranking', () => {
  it('a curated gap applies by topic and by name prefix (a trailing * is the prefix)', () => {
    expect(ix.gap(A, 'errata')).toBe('No ACME errata source.')
    expect(ix.gap(A, 'pins')).toBeUndefined()
    expect(ix.gap(D, 'pins')).toBe('No Nordic pin source.')
    expect(ix.gap(D, 'errata')).toBeUndefined()
  })

  it('score: query words that start a word of the name, kind, package, family, line or core', () => {
    expect(ix.score(A, undefined)).toBe(0)
    expect(ix.score(A, '')).toBe(0)
    expect(ix.score(A, 'qfn cortex-m0')).toBe(3)
    expect(ix.score(A, 'QFN32 qfn32 selector')).toBe(2)
    expect(ix.score(A, 'fn32 ortex')).toBe(0)
    expect(ix.score(A, 'acme1 acme100 arm part')).toBe(4)
    // One-letter words are noise; a word counts once however many words it starts.
    expect(ix.score(A, 'a m acme')).toBe(1)
    // Only the first 16 words of a query count.
    expect(ix.score(A, Array.from({ length: 16 }, (_, i) => `w${i}`).join(' ') + ' qfn32')).toBe(0)
    expect(ix.score(A, Array.from({ length: 15 }, (_, i) => `w${i}`).join(' ') + ' qfn32')).toBe(1)
  })
})

describe('text: terms', () => {
  it('lower-case alphanumeric runs, each once, in first-seen order', () => {
    expect(terms('Hello, hello WORLD_2x -- world')).toEqual(['hello', 'world', '2x'])
    expect(terms('  ')).toEqual([])
    expect(queryTerms('a bb c dd bb')).toEqual(['bb', 'dd'])
  })
})
