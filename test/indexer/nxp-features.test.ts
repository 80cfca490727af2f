import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { FactDraft } from '../../src/model/fact.js'
import { NXP_FEATURES_KIND, nxpFeaturesAdapter } from '../../indexer/sources/nxp-features.js'
import { catalogTargets } from '../../indexer/curation/reach.js'
import type { LoadedArtifact } from '../../indexer/sources/types.js'

const here = dirname(fileURLToPath(import.meta.url))
const FIXTURES = join(here, '../fixtures/nxp-features')
// The world corpus is read where it is unpacked, never copied.
const WORLD = resolve(here, '../../.cache/corpus-world')
const haveWorld = existsSync(join(WORLD, 'sources.json'))
if (!haveWorld) console.log(`nxp features: world-corpus checks skipped: ${WORLD} is not there`)

function artifact(path: string, content: Buffer): LoadedArtifact {
  const sha256 = createHash('sha256').update(content).digest('hex')
  return { path, sha256, bytes: content.length, kind: NXP_FEATURES_KIND, publisher: 'NXP Semiconductors', license: 'BSD-3-Clause', mediaType: 'text/x-c', content }
}

const fixture = (name: string) => artifact(`features/nxp/${name}`, readFileSync(join(FIXTURES, name)))
const world = (name: string) => artifact(`features/nxp/${name}`, readFileSync(join(WORLD, 'features/nxp', name)))

function fact(facts: FactDraft[], name: string): FactDraft {
  const f = facts.find((x) => x.name === name)
  if (!f) throw new Error(`no ${name}`)
  return f
}

/** The parts a header names, in order of first mention, each with the 1-based line it is first written on. */
function partsByRegex(text: string): [string, number][] {
  const out = new Map<string, number>()
  text.split('\n').forEach((l, i) => {
    for (const m of l.matchAll(/defined\(CPU_(\w+)\)/g)) if (!out.has(m[1]!)) out.set(m[1]!, i + 1)
  })
  return [...out]
}

/**
 * Every erratum flag set to 1, by line: its module, id, the one-line @brief above it, and how deep
 * in conditionals it sits (1: only the include guard, so for every part).
 */
function errataByRegex(text: string): { module: string; id: string; title: string; line: number; depth: number }[] {
  const lines = text.split('\n')
  const out = []
  let depth = 0
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!
    if (/^\s*#\s*if/.test(l)) depth++
    if (/^\s*#\s*endif/.test(l)) depth--
    const m = /^\s*#define FSL_FEATURE_([A-Z0-9]+)_HAS_ERRATA_(\w+) \(1\)/.exec(l)
    if (!m) continue
    const brief = /^\s*\/\* @brief (.*) \*\/$/.exec(lines[i - 1]!)
    out.push({ module: m[1]!, id: m[2]!, title: brief![1]!, line: i + 1, depth })
  }
  return out
}

describe('nxp features adapter: hand-written shapes', () => {
  // Built in each test: a mutant that throws while building must fail tests, not their collection.
  const parsed = () => nxpFeaturesAdapter.parse([fixture('EDGE1_features.h')])

  it('gives the device target, named by the file, and every CPU_ part with the line it is written on', () => {
    const r = parsed()
    expect(r.targets).toHaveLength(1)
    expect(r.targets[0]).toMatchObject({ key: 'nxp-features:EDGE1', device: 'EDGE1', topics: ['errata'], identity: { vendor: 'NXP Semiconductors' } })
    expect(r.targets[0]!.identity!.core).toBeUndefined()
    // EDGE1D is on the continuation line of the #elif (line 20), EDGE1E in a second chain.
    expect(r.partNumbers!.map((p) => [p.name, p.line])).toEqual([
      ['EDGE1A', 13],
      ['EDGE1B', 13],
      ['EDGE1C', 19],
      ['EDGE1D', 20],
      ['EDGE1E', 38]
    ])
    for (const p of r.partNumbers!) expect(p).toMatchObject({ vendor: 'NXP Semiconductors', device: 'EDGE1', targets: ['nxp-features:EDGE1'], sourcePath: 'features/nxp/EDGE1_features.h' })
  })

  it('scopes each erratum to the parts of the blocks where it is 1, and leaves parts out when that is every part', () => {
    const r = parsed()
    // 7914 is 0 everywhere, 51327n(x) is function-like, 051472 is under #ifdef __ZEPHYR__: no fact.
    expect(r.facts.map((f) => f.name).sort()).toEqual(['errata.007885', 'errata.050050', 'errata.050577', 'errata.3777', 'errata.5641', 'errata.6070'])
    expect(fact(r.facts, 'errata.6070').scope).toEqual({ device: 'EDGE1' }) // top level
    expect(fact(r.facts, 'errata.5641').scope).toEqual({ device: 'EDGE1', parts: ['EDGE1A', 'EDGE1B'] }) // 1 in the #if, 0 in the #elif
    expect(fact(r.facts, 'errata.050050').scope).toEqual({ device: 'EDGE1' }) // #if, #elif and #else: every part
    expect(fact(r.facts, 'errata.050577').scope).toEqual({ device: 'EDGE1', parts: ['EDGE1C', 'EDGE1D'] }) // HAS_-less spelling
    expect(fact(r.facts, 'errata.3777').scope).toEqual({ device: 'EDGE1', parts: ['EDGE1E'] }) // #else: the part no branch named
    expect(fact(r.facts, 'errata.007885').scope).toEqual({ device: 'EDGE1', parts: ['EDGE1A'] })
  })

  it('gives id, module and the @brief text as value, and the define lines as evidence', () => {
    const r = parsed()
    const f = fact(r.facts, 'errata.5641')
    expect(f).toMatchObject({ target: 'nxp-features:EDGE1', topic: 'errata' })
    expect(f.value).toEqual({ id: '5641', module: 'FLEXCAN', title: 'Is affected by errata with ID 5641 (set in the first block only).' })
    expect(f.evidence).toHaveLength(1) // the 0 in the #elif is not evidence of the erratum
    expect(f.evidence[0]!.locator).toMatch(/^line 16: #define FSL_FEATURE_FLEXCAN_HAS_ERRATA_5641\b/)
    expect(f.evidence[0]!.excerpt).toBe('/* @brief Is affected by errata with ID 5641 (set in the first block * only). */ #define FSL_FEATURE_FLEXCAN_HAS_ERRATA_5641 (1)')
    expect(f.evidence[0]!.sourceSha256).toBe(createHash('sha256').update(readFileSync(join(FIXTURES, 'EDGE1_features.h'))).digest('hex'))
    expect(fact(r.facts, 'errata.050050').evidence.map((e) => Number(/^line (\d+)/.exec(e.locator)![1]))).toEqual([18, 25, 30])
  })

  it('reports an erratum under a condition that is not about parts, with its line', () => {
    const r = parsed()
    expect(r.problems).toEqual([{ file: 'features/nxp/EDGE1_features.h', line: 49, reason: expect.stringMatching(/FSL_FEATURE_LPSPI_HAS_ERRATA_051472 .*not about parts \(line 47\)/) }])
  })
})

describe('nxp features adapter: malformed input', () => {
  // Built in each test: a mutant that throws while building must fail tests, not their collection.
  const parsed = () => nxpFeaturesAdapter.parse([fixture('BAD_features.h')])
  const at = (line: number) => parsed().problems.filter((p) => p.line === line).map((p) => p.reason)

  it('reports each malformed line and still reads the rest', () => {
    const r = parsed()
    expect(at(7)).toEqual([expect.stringContaining('#elif condition is not a list of defined(CPU_…) parts')])
    expect(at(9)).toEqual([expect.stringContaining('FSL_FEATURE_PIT_HAS_ERRATA_7914 is 1 under a condition that is not about parts (line 7)')])
    expect(at(13)).toEqual([expect.stringContaining("FSL_FEATURE_GPT_HAS_ERRATA_3777 is '(2)', not 0 or 1")])
    expect(at(14)).toEqual(['unsupported directive #undef'])
    expect(at(17)).toEqual(['#endif without an open #if'])
    expect(r.problems).toHaveLength(5)
    expect(r.partNumbers!.map((p) => p.name)).toEqual(['BADA', 'BADB'])
    expect(r.targets.map((t) => t.key)).toEqual(['nxp-features:BAD'])
  })

  it('names the parts of an erratum when a part condition could not be read, even if it covers every part it could', () => {
    const r = parsed()
    expect(r.facts.map((f) => [f.name, f.scope])).toEqual([['errata.6070', { device: 'BAD', parts: ['BADA', 'BADB'] }]])
  })

  it('refuses an erratum two macros give, and one only in a block no part of the file reaches', () => {
    const text = [
      '#if defined(CPU_TWOA)', // 1
      '#define FSL_FEATURE_I2C_HAS_ERRATA_6070 (1)', // 2
      '#else', // 3: every part of the file is named above: no part reaches this block
      '#define FSL_FEATURE_GPT_HAS_ERRATA_3777 (1)', // 4
      '#endif', // 5
      '#define FSL_FEATURE_LPI2C_HAS_ERRATA_6070 (1)' // 6
    ].join('\n')
    const two = nxpFeaturesAdapter.parse([artifact('features/nxp/TWO_features.h', Buffer.from(text))])
    expect(two.facts.map((f) => [f.name, f.value.module, f.scope])).toEqual([['errata.6070', 'I2C', { device: 'TWO' }]])
    expect(two.problems).toEqual([
      { file: 'features/nxp/TWO_features.h', line: 4, reason: 'FSL_FEATURE_GPT_HAS_ERRATA_3777 is 1 only in blocks no part of the file reaches; not read' },
      { file: 'features/nxp/TWO_features.h', line: 6, reason: 'FSL_FEATURE_LPI2C_HAS_ERRATA_6070 gives errata.6070, which FSL_FEATURE_I2C_HAS_ERRATA_6070 already gives; skipped' }
    ])
  })

  it('a file not named <device>_features.h gives a problem and no target, so the catalog shows its source as failed', () => {
    const a = artifact('features/nxp/notes.h', Buffer.from('#define FSL_FEATURE_I2C_HAS_ERRATA_6070 (1)\n'))
    const bad = nxpFeaturesAdapter.parse([a])
    expect(bad.targets).toEqual([])
    expect(bad.problems).toEqual([{ file: a.path, reason: 'not named <device>_features.h: notes.h' }])
    const [t] = catalogTargets([a], bad.targets, bad.problems, new Map())
    expect(t).toMatchObject({ key: 'failed:features/nxp/notes.h', topics: ['errata'], failure: { reason: 'not named <device>_features.h: notes.h' } })
  })
})

describe('nxp features adapter: a header without an erratum set', () => {
  it('still gives its target (with the core its name carries) and its parts, and no fact', () => {
    const r = nxpFeaturesAdapter.parse([fixture('NOERRATA_cm4_features.h')])
    expect(r.facts).toEqual([])
    expect(r.problems).toEqual([])
    expect(r.targets.map((t) => [t.key, t.device, t.identity])).toEqual([['nxp-features:NOERRATA_cm4', 'NOERRATA_cm4', { vendor: 'NXP Semiconductors', core: 'cm4' }]])
    expect(r.partNumbers!.map((p) => [p.name, p.device, p.core, p.line])).toEqual([['NOERRATA256VLL4', 'NOERRATA_cm4', 'cm4', 4]])
  })
})

describe.skipIf(!haveWorld)('nxp features adapter: world corpus headers', () => {
  it('MKL25Z4: every CPU_ part with its line, and I2C erratum 6070 for every part', () => {
    const a = world('MKL25Z4_features.h')
    const text = a.content.toString('utf8')
    const r = nxpFeaturesAdapter.parse([a])
    expect(r.problems).toEqual([])
    const parts = partsByRegex(text)
    expect(parts.length).toBe(12)
    expect(r.partNumbers!.map((p) => [p.name, p.line])).toEqual(parts)
    expect(r.partNumbers!.every((p) => p.device === 'MKL25Z4' && p.vendor === 'NXP Semiconductors')).toBe(true)
    const errata = errataByRegex(text)
    expect(errata.map((e) => [e.module, e.id, e.depth])).toEqual([['I2C', '6070', 1]])
    expect(r.facts.map((f) => [f.name, f.value, f.scope])).toEqual(errata.map((e) => [`errata.${e.id}`, { id: e.id, module: e.module, title: e.title }, { device: 'MKL25Z4' }]))
    expect(r.facts[0]!.evidence.map((e) => e.locator)).toEqual([`line ${errata[0]!.line}: #define FSL_FEATURE_I2C_HAS_ERRATA_6070`])
  })

  it('MK22F12: parts on continuation lines and in two chains, and its errata with their titles', () => {
    const a = world('MK22F12_features.h')
    const text = a.content.toString('utf8')
    const r = nxpFeaturesAdapter.parse([a])
    expect(r.problems).toEqual([])
    const parts = partsByRegex(text)
    expect(r.partNumbers!.map((p) => [p.name, p.line])).toEqual(parts)
    // At least one part is first written on a continuation line of its #elif.
    expect(parts.some(([, line]) => !/^\s*#/.test(text.split('\n')[line - 1]!))).toBe(true)
    const errata = errataByRegex(text)
    expect(errata.length).toBeGreaterThan(0)
    expect(r.facts.map((f) => [f.name, f.value, f.scope.parts])).toEqual(
      errata.map((e) => [`errata.${e.id}`, { id: e.id, module: e.module, title: e.title }, e.depth === 1 ? undefined : expect.any(Array)])
    )
  })

  it('every header: no problem, one target each, as many parts and errata as the raw text names', () => {
    const inv = JSON.parse(readFileSync(join(WORLD, 'sources.json'), 'utf8')) as { sources: { path: string; kind: string }[] }
    const mine = inv.sources.filter((s) => s.kind === NXP_FEATURES_KIND).map((s) => artifact(s.path, readFileSync(join(WORLD, s.path))))
    expect(mine.length).toBe(267)
    const units = nxpFeaturesAdapter.units!(mine)
    expect(units.map((u) => u.length)).toEqual(mine.map(() => 1))
    let parts = 0
    let flags = 0
    for (const a of mine) {
      const text = a.content.toString('utf8')
      parts += partsByRegex(text).length
      // Distinct flags set to 1, both spellings (`_HAS_ERRATA_` and `_ERRATA_`).
      flags += new Set(text.match(/^\s*#define FSL_FEATURE_\w+?_ERRATA_\w+ \(1\)/gm)?.map((l) => l.trim())).size
    }
    const r = nxpFeaturesAdapter.parse(mine)
    expect(r.problems).toEqual([])
    expect(r.targets.map((t) => t.sourcePath)).toEqual(mine.map((a) => a.path))
    expect(r.partNumbers!.length).toBe(parts)
    expect(r.facts.length).toBe(flags)
  })
})
