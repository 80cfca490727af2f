import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import type { FactDraft } from '../../src/model/fact.js'
import {
  NORDIC_ERRATA_HEADER_KIND,
  NORDIC_ERRATA_MATRIX_KIND,
  nordicErrataAdapter,
  parseNordicErrata,
  type NordicErrataOutput
} from '../../indexer/sources/nordic-errata.js'
import type { AdapterResult, LoadedArtifact } from '../../indexer/sources/types.js'

const here = dirname(fileURLToPath(import.meta.url))
const FIXTURES = join(here, '../fixtures/nordic')
// The corpus stays in ../shared next to the project; it is read, never copied.
const CORPUS = resolve(here, '../../../shared/corpus')

function artifact(path: string, content: Buffer, kind: string): LoadedArtifact {
  return {
    path,
    sha256: createHash('sha256').update(content).digest('hex'),
    bytes: content.length,
    kind,
    publisher: 'fixture',
    license: 'MIT',
    mediaType: 'text/plain',
    content
  }
}

function fixture(name: string): LoadedArtifact {
  const kind = name.endsWith('.dox') ? NORDIC_ERRATA_MATRIX_KIND : NORDIC_ERRATA_HEADER_KIND
  return artifact(`fixtures/nordic/${name}`, readFileSync(join(FIXTURES, name)), kind)
}

function fixtureText(name: string): string {
  return readFileSync(join(FIXTURES, name), 'utf8')
}

function fact(r: AdapterResult, model: string, name: string): FactDraft | undefined {
  return r.facts.find((f) => f.target === `nordic-errata:${model}` && f.name === name)
}

function mustFact(r: AdapterResult, model: string, name: string): FactDraft {
  const f = fact(r, model, name)
  if (!f) throw new Error(`no ${name} for ${model}`)
  return f
}

/** 1-based line of the first occurrence of `needle` at or after line `after`. */
function lineOf(text: string, needle: string, after = 1): number {
  const lines = text.split('\n')
  for (let i = after - 1; i < lines.length; i++) if ((lines[i] ?? '').includes(needle)) return i + 1
  throw new Error(`'${needle}' not found`)
}

describe('nordic errata adapter: fixture shapes', () => {
  it('reads the nRF52 shapes: FICR guard, #elif, several devices, no switch, fall-through, no default', () => {
    const text = fixtureText('shapes_nrf52_erratas.h')
    const { result: r, stats } = parseNordicErrata([fixture('shapes_nrf52_erratas.h')])
    expect(r.problems).toEqual([])
    expect(r.targets.map((t) => t.key)).toEqual([
      'nordic-errata:NRF52810',
      'nordic-errata:NRF52832',
      'nordic-errata:NRF52833',
      'nordic-errata:NRF52840'
    ])
    const t832 = r.targets.find((t) => t.key === 'nordic-errata:NRF52832')
    expect(t832).toMatchObject({ device: 'NRF52832', topics: ['errata'], sourcePath: 'fixtures/nordic/shapes_nrf52_erratas.h' })
    expect(t832?.description).toContain('NRF52832_XXAA, NRF52832_XXAB')

    // Erratum 1: engineering-sample read guard and #elif, then one block per device.
    const e1 = mustFact(r, 'NRF52832', 'errata.1')
    expect(e1.topic).toBe('errata')
    expect(e1.value).toMatchObject({
      number: 1,
      series: 'nRF52',
      device: 'NRF52832',
      kind: 'erratum',
      partCode: '0x06',
      variants: ['NRF52832_XXAA', 'NRF52832_XXAB'],
      revisions: [
        { code: '0x03', applies: false },
        { code: '0x04', applies: true }
      ],
      appliesToUnlistedRevisions: true,
      workaroundEnabledByDefault: true
    })
    expect(e1.value).not.toHaveProperty('handling') // no matrix artifact given
    expect(e1.scope).toEqual({ device: 'NRF52832', siliconRevisions: ['0x04'] })
    const def1 = lineOf(text, 'static inline bool nrf52_errata_1(void)', 20)
    const if1 = lineOf(text, 'if (var1 == 0x06)', def1)
    expect(e1.evidence).toHaveLength(1)
    expect(e1.evidence[0]?.locator).toBe(`line ${if1}: nrf52_errata_1() › if (var1 == 0x06)`)
    expect(e1.evidence[0]?.excerpt).toBe(
      'if (var1 == 0x06) switch(var2) case 0x03ul: return false; case 0x04ul: return true; default: return true;'
    )
    expect(e1.evidence[0]?.sourceSha256).toBe(fixture('shapes_nrf52_erratas.h').sha256)
    expect(mustFact(r, 'NRF52840', 'errata.1').value).toMatchObject({
      partCode: '0x08',
      revisions: [
        { code: '0x00', applies: true },
        { code: '0x01', applies: false }
      ],
      appliesToUnlistedRevisions: false
    })

    // Erratum 2: `return true;` for the whole device block, no part code, no switch.
    const e2 = mustFact(r, 'NRF52810', 'errata.2')
    expect(e2.value).toMatchObject({ partCode: null, revisions: [], appliesToUnlistedRevisions: true, workaroundEnabledByDefault: false })
    const def2 = lineOf(text, 'static inline bool nrf52_errata_2(void)', 20)
    expect(e2.evidence[0]?.locator).toBe(`line ${lineOf(text, 'return true;', def2)}: nrf52_errata_2() › return true;`)

    // Erratum 3: if (var1 == ...) without switch; fall-through labels and no default.
    expect(mustFact(r, 'NRF52833', 'errata.3').value).toMatchObject({ partCode: '0x0d', revisions: [], appliesToUnlistedRevisions: true })
    expect(mustFact(r, 'NRF52840', 'errata.3').value).toMatchObject({
      revisions: [
        { code: '0x00', applies: true },
        { code: '0x01', applies: true },
        { code: '0x02', applies: false }
      ],
      appliesToUnlistedRevisions: false
    })
    expect(mustFact(r, 'NRF52840', 'errata.3').scope.siliconRevisions).toEqual(['0x00', '0x01'])

    // Erratum 4 never applies (all false), erratum 5 is a stub: no facts, but counted.
    expect(r.facts.filter((f) => f.name === 'errata.4' || f.name === 'errata.5')).toEqual([])
    expect(stats.neverApplies).toBe(1)
    expect(stats.functionsWithoutFacts).toEqual(['nrf52_errata_4', 'nrf52_errata_5'])

    // Configuration functions share the erratum number space.
    expect(mustFact(r, 'NRF52840', 'errata.6').value).toMatchObject({ kind: 'configuration', function: 'nrf52_configuration_6' })
    expect(stats.configurationFunctions).toBe(1)

    // Erratum 7 names only NRF52832_XXAB: narrower than the model, so scope.parts says so.
    const e7 = mustFact(r, 'NRF52832', 'errata.7')
    expect(e7.value).toMatchObject({ variants: ['NRF52832_XXAB'] })
    expect(e7.scope).toEqual({ device: 'NRF52832', parts: ['NRF52832_XXAB'], siliconRevisions: ['0x07'] })
  })

  it('reads the nRF5340 core shapes as NRF5340_APPLICATION / NRF5340_NETWORK', () => {
    const { result: r, stats } = parseNordicErrata([fixture('shapes_nrf53_erratas.h')])
    expect(r.problems).toEqual([])
    expect(r.targets.map((t) => t.key)).toEqual(['nordic-errata:NRF5340_APPLICATION', 'nordic-errata:NRF5340_NETWORK'])
    expect(r.targets[0]?.description).toContain('NRF5340_XXAA')
    expect(mustFact(r, 'NRF5340_APPLICATION', 'errata.1').value).toMatchObject({
      series: 'nRF53',
      variants: ['NRF5340_XXAA'],
      revisions: [
        { code: '0x02', applies: true },
        { code: '0x03', applies: false }
      ]
    })
    expect(fact(r, 'NRF5340_NETWORK', 'errata.1')).toBeUndefined()
    expect(mustFact(r, 'NRF5340_NETWORK', 'errata.2').scope.siliconRevisions).toEqual(['0x02', '0x03'])
    expect(fact(r, 'NRF5340_APPLICATION', 'errata.2')).toBeUndefined()
    // One block shared by both cores: two facts pointing at the same lines.
    const app3 = mustFact(r, 'NRF5340_APPLICATION', 'errata.3')
    const net3 = mustFact(r, 'NRF5340_NETWORK', 'errata.3')
    expect(app3.value).toMatchObject({ revisions: [{ code: '0x02', applies: true }], appliesToUnlistedRevisions: true })
    expect(net3.value).toMatchObject({ revisions: [{ code: '0x02', applies: true }], appliesToUnlistedRevisions: true })
    expect(app3.evidence[0]?.locator).toBe(net3.evidence[0]?.locator)
    // Errata 1 and 2 name NRF5340 but each only one core: the other core is not "named".
    expect(stats.neverApplies).toBe(0)
  })

  it('reads nRF54H: a series name with a letter, part code and revision from the header\'s own registers', () => {
    const { result: r } = parseNordicErrata([fixture('shapes_nrf54h_erratas.h')])
    expect(r.problems).toEqual([])
    expect(r.targets.map((t) => [t.key, t.identity])).toEqual([
      ['nordic-errata:NRF54H20', { vendor: 'Nordic Semiconductor', series: 'nRF54H', variants: ['NRF54H20_XXAA'] }]
    ])
    // if (var1 == 0x16) { case 0x02ul: return true; default: return true; }
    expect(mustFact(r, 'NRF54H20', 'errata.8').value).toMatchObject({
      series: 'nRF54H',
      partCode: '0x16',
      revisions: [{ code: '0x02', applies: true }],
      appliesToUnlistedRevisions: true,
      workaroundEnabledByDefault: true
    })
    // case 0x02ul: true; case 0x03ul: false; default: false; ENABLE_WORKAROUND defaults to 0.
    expect(mustFact(r, 'NRF54H20', 'errata.12').value).toMatchObject({
      revisions: [
        { code: '0x02', applies: true },
        { code: '0x03', applies: false }
      ],
      appliesToUnlistedRevisions: false,
      workaroundEnabledByDefault: false
    })
  })

  it('keeps two nRF91 devices with the same part code apart by their #if block', () => {
    const { result: r } = parseNordicErrata([fixture('shapes_nrf91_erratas.h')])
    expect(r.problems).toEqual([])
    expect(mustFact(r, 'NRF9120', 'errata.1').value).toMatchObject({
      partCode: '0x09',
      revisions: [
        { code: '0x01', applies: false },
        { code: '0x03', applies: true }
      ],
      appliesToUnlistedRevisions: true
    })
    expect(mustFact(r, 'NRF9160', 'errata.1').value).toMatchObject({
      partCode: '0x09',
      revisions: [
        { code: '0x01', applies: true },
        { code: '0x02', applies: true }
      ],
      appliesToUnlistedRevisions: false
    })
  })

  it('turns every shape it cannot interpret into a ParseProblem with a line, and goes on', () => {
    const name = 'malformed_nrf52_erratas.h'
    const text = fixtureText(name)
    const file = `fixtures/nordic/${name}`
    let r: AdapterResult | undefined
    expect(() => {
      r = nordicErrataAdapter.parse([fixture(name)])
    }).not.toThrow()
    if (!r) throw new Error('no result')
    const def = (n: number): number => lineOf(text, `static inline bool nrf52_errata_${n}(void)`, 15)
    const problem = (n: number) => r?.problems.find((p) => p.reason.startsWith(`nrf52_errata_${n}()`))

    expect(problem(10)).toMatchObject({ file, line: lineOf(text, 'defined (NRF_FLPR)') })
    expect(problem(10)?.reason).toMatch(/unknown macro NRF_FLPR/)
    expect(problem(11)).toMatchObject({ file, line: lineOf(text, 'return maybe;') })
    expect(problem(12)).toMatchObject({ file, line: lineOf(text, 'switch(var1)') })
    // The block's #if lost its #endif, so the function's last #endif closes it and, as for a
    // C preprocessor, the outer #ifndef is the one left open.
    expect(problem(13)).toMatchObject({ file, line: lineOf(text, '#ifndef NRF52_SERIES', def(13)) })
    expect(problem(13)?.reason).toMatch(/unterminated #if/)
    expect(problem(14)).toMatchObject({ file, line: lineOf(text, 'if (var1 == 0x06)', def(14)) })
    expect(problem(14)?.reason).toMatch(/other than 0x06/)
    expect(problem(15)?.reason).toMatch(/variants of NRF52832 differ/)
    expect(problem(15)?.line).toBeGreaterThan(def(15))
    expect(problem(16)).toMatchObject({ file, line: def(16) })
    expect(problem(16)?.reason).toMatch(/not delimited/)
    expect(problem(19)).toMatchObject({ file, line: lineOf(text, '0x10000100ul') })
    expect(r.problems.find((p) => p.reason.includes('nrf52_errata_18()'))?.reason).toMatch(/declared but never defined/)
    expect(r.problems).toHaveLength(9)

    // The one well-formed function, right after the unterminated one, is still read in full.
    expect(r.facts.map((f) => `${f.target} ${f.name}`)).toEqual(['nordic-errata:NRF52832 errata.17'])
    expect(mustFact(r, 'NRF52832', 'errata.17').value).toMatchObject({
      revisions: [
        { code: '0x03', applies: true },
        { code: '0x04', applies: false }
      ],
      workaroundEnabledByDefault: true
    })
  })

  it('joins the errata matrix: cleaned handling rows, evidence lines, duplicates and bad rows', () => {
    const dox = fixtureText('errata.dox')
    const { result: r, stats } = parseNordicErrata([
      fixture('errata.dox'),
      fixture('shapes_nrf52_erratas.h'),
      fixture('shapes_nrf53_erratas.h')
    ])
    expect(r.problems).toEqual([{ file: 'fixtures/nordic/errata.dox', line: lineOf(dox, '| NRF52  | 9 '), reason: expect.stringMatching(/4 cells/) }])

    const e1 = mustFact(r, 'NRF52832', 'errata.1')
    expect(e1.value).toMatchObject({
      handling: [
        { handling: 'driver', module: 'nrfx_pwm', functions: ['nrfx_pwm_init', 'nrfx_pwm_uninit'], comment: null },
        { handling: 'code', module: 'nrfx_twis', functions: [], comment: 'The driver does not use the STOP task.' }
      ],
      workaroundInMdk: false
    })
    const row1 = lineOf(dox, '| NRF52  | 1 ')
    expect(e1.evidence[1]).toMatchObject({
      sourcePath: 'fixtures/nordic/errata.dox',
      sourceSha256: fixture('errata.dox').sha256,
      locator: `lines ${row1}-${row1 + 1}: | NRF52 | 1 | …`
    })
    expect(e1.evidence[1]?.excerpt).toContain('| NRF52 | 1 | **driver** | @ref nrfx_pwm |')
    // The matrix rows are per series+number: the nRF52840 fact of erratum 1 gets them too.
    expect(mustFact(r, 'NRF52840', 'errata.1').value).toMatchObject({ workaroundInMdk: false })
    expect((mustFact(r, 'NRF52840', 'errata.1').value.handling as unknown[]).length).toBe(2)

    expect(mustFact(r, 'NRF52810', 'errata.2').value).toMatchObject({
      handling: [{ handling: 'to be implemented', module: 'NFCT/PPI', functions: [], comment: null }]
    })
    expect(mustFact(r, 'NRF52840', 'errata.3').value).toMatchObject({
      handling: [{ handling: 'driver / code', module: 'nrfx_i2s', functions: ['nrfx_i2s_irq_handler'], comment: null }]
    })
    expect(mustFact(r, 'NRF52840', 'errata.6').value).toMatchObject({ handling: [{ handling: 'MDK' }], workaroundInMdk: true })
    // No matrix row: empty handling, nothing said about MDK, a single evidence entry.
    const e7 = mustFact(r, 'NRF52832', 'errata.7')
    expect(e7.value).toMatchObject({ handling: [] })
    expect(e7.value).not.toHaveProperty('workaroundInMdk')
    expect(e7.evidence).toHaveLength(1)
    // Series are matched: NRF53 3 is the nRF53 erratum 3 (both cores), not nRF52 erratum 3.
    expect(mustFact(r, 'NRF5340_NETWORK', 'errata.3').value).toMatchObject({ handling: [{ handling: 'MDK' }] })
    expect(mustFact(r, 'NRF5340_NETWORK', 'errata.2').value).toMatchObject({
      handling: [{ handling: 'other', comment: 'Same as nRF52 Series erratum 1' }]
    })
    expect(stats.matrixDuplicateRows).toBe(1)
    expect(stats.matrixRows).toBe(9)
    expect(stats.matrixRowsWithoutFact).toEqual(['NRF54L:7'])
  })

  it('refuses a matrix whose columns it does not know', () => {
    const bad = Buffer.from('| Series | Erratum | Module | Handling |\n|:-:|:-:|:-:|:-:|\n| NRF52 | 1 | x | y |\n')
    const { result: r } = parseNordicErrata([artifact('bad.dox', bad, NORDIC_ERRATA_MATRIX_KIND), fixture('shapes_nrf91_erratas.h')])
    expect(r.problems).toEqual([{ file: 'bad.dox', line: 1, reason: expect.stringMatching(/unexpected matrix columns/) }])
    expect(r.facts.length).toBe(2)
    // An unreadable matrix must not turn into "no handling rows" claims.
    for (const f of r.facts) expect(f.value).not.toHaveProperty('handling')
  })
})

// ---------------------------------------------------------------------------------------------
// The real corpus

interface InventoryRecord {
  path: string
  sha256: string
  bytes: number
  kind: string
  publisher: string
  license: string
  mediaType: string
}

function loadCorpus(): LoadedArtifact[] {
  const inv = JSON.parse(readFileSync(join(CORPUS, 'sources.json'), 'utf8')) as { sources: InventoryRecord[] }
  return inv.sources
    .filter((s) => nordicErrataAdapter.kinds.includes(s.kind))
    .map((s) => {
      const content = readFileSync(join(CORPUS, s.path))
      expect(createHash('sha256').update(content).digest('hex')).toBe(s.sha256)
      return { ...s, content }
    })
}

interface RawBlock {
  models: string[]
  part: string
  revisions: { code: string; applies: boolean }[]
  unlisted: boolean
}

/** The text of one function: from its definition to the next definition. */
function rawFunction(raw: string, fn: string): string {
  const start = raw.indexOf(`static inline bool ${fn}(void)\n{`)
  if (start === -1) throw new Error(`${fn} not in header`)
  const end = raw.indexOf('\nstatic inline bool ', start + 1)
  return raw.slice(start, end === -1 ? undefined : end)
}

/**
 * Independent reading of a function, by plain text scanning: every `if (var1 == X)`, the
 * devices named between the previous `#endif` and it (the wrapping #if lines), and the
 * `case 0x..ul: return ...;` lines up to its `default:`.
 */
function rawBlocks(fnText: string): RawBlock[] {
  const out: RawBlock[] = []
  for (const m of fnText.matchAll(/if \(var1 == (0x[0-9A-Fa-f]+)\)/g)) {
    const before = fnText.slice(0, m.index)
    const cond = before.slice(before.lastIndexOf('#endif'))
    const variants = [...new Set(cond.match(/NRF\d+_XX[A-Z]{2}/g) ?? [])]
    const cores = ['APPLICATION', 'NETWORK'].filter((c) => cond.includes(`defined (NRF_${c})`) || cond.includes(`defined(NRF_${c})`))
    const models = variants.flatMap((v) => {
      const base = v.replace(/_XX[A-Z]{2}$/, '')
      return cores.length === 0 ? [base] : cores.map((c) => `${base}_${c}`)
    })
    const after = fnText.slice(m.index)
    const dflt = /default:\s*return (true|false);/.exec(after)
    if (!dflt) throw new Error('no default')
    const cases = [...after.slice(0, dflt.index).matchAll(/case (0x[0-9A-Fa-f]+)ul:\s*return (true|false);/g)]
    out.push({
      models: [...new Set(models)],
      part: (m[1] ?? '').toLowerCase(),
      revisions: cases.map((c) => ({ code: (c[1] ?? '').toLowerCase(), applies: c[2] === 'true' })),
      unlisted: dflt[1] === 'true'
    })
  }
  return out
}

function rawBlockFor(raw: string, fn: string, model: string): RawBlock {
  const b = rawBlocks(rawFunction(raw, fn)).filter((x) => x.models.includes(model))
  expect(b).toHaveLength(1)
  return b[0] as RawBlock
}

describe('nordic errata adapter: real corpus', () => {
  let out: NordicErrataOutput
  let raw: Record<string, string>
  let ms = 0

  beforeAll(() => {
    const artifacts = loadCorpus()
    raw = Object.fromEntries(artifacts.map((a) => [a.path.split('/').pop() ?? '', a.content.toString('utf8')]))
    const t0 = performance.now()
    out = parseNordicErrata(artifacts)
    ms = performance.now() - t0
    const perModel = new Map<string, number>()
    for (const f of out.result.facts) perModel.set(f.target, (perModel.get(f.target) ?? 0) + 1)
    console.log(
      `nordic errata: ${artifacts.length} files parsed in ${ms.toFixed(0)} ms; ${out.result.targets.length} targets, ` +
        `${out.result.facts.length} facts (${[...perModel].map(([k, v]) => `${k.replace('nordic-errata:', '')} ${v}`).join(', ')}); ` +
        `stats ${JSON.stringify({ ...out.stats, matrixRowsWithoutFact: out.stats.matrixRowsWithoutFact.length })}`
    )
  })

  it('reads all four files without a problem, one target per model', () => {
    expect(out.result.problems).toEqual([])
    expect(out.result.targets.map((t) => t.key)).toEqual(
      ['NRF52805', 'NRF52810', 'NRF52811', 'NRF52820', 'NRF52832', 'NRF52833', 'NRF52840', 'NRF5340_APPLICATION', 'NRF5340_NETWORK', 'NRF9120', 'NRF9160'].map(
        (m) => `nordic-errata:${m}`
      )
    )
    const t = out.result.targets.find((x) => x.key === 'nordic-errata:NRF52832')
    expect(t).toMatchObject({ device: 'NRF52832', sourcePath: 'errata/nordic/nrf52_erratas.h', topics: ['errata'] })
    expect(t?.description).toContain('NRF52832_XXAA, NRF52832_XXAB')
    expect(ms).toBeLessThan(20_000)
  })

  it('nRF52832 erratum 109 applies to revisions 0x05-0x07 and unlisted ones, not 0x03/0x04', () => {
    const rawBlock = rawBlockFor(raw['nrf52_erratas.h'] ?? '', 'nrf52_errata_109', 'NRF52832')
    // What the brief states, checked against the raw text first...
    expect(rawBlock.revisions.filter((r) => r.applies).map((r) => r.code)).toEqual(['0x05', '0x06', '0x07'])
    expect(rawBlock.revisions.filter((r) => !r.applies).map((r) => r.code)).toEqual(['0x03', '0x04'])
    expect(rawBlock.unlisted).toBe(true)
    // ...then the adapter against the raw text.
    const f = mustFact(out.result, 'NRF52832', 'errata.109')
    expect(f.value).toMatchObject({
      number: 109,
      series: 'nRF52',
      device: 'NRF52832',
      partCode: rawBlock.part,
      variants: ['NRF52832_XXAA', 'NRF52832_XXAB'],
      revisions: rawBlock.revisions,
      appliesToUnlistedRevisions: rawBlock.unlisted
    })
    expect(f.scope).toEqual({ device: 'NRF52832', siliconRevisions: ['0x05', '0x06', '0x07'] })
    // Evidence: the right file and bytes, and a line inside nrf52_errata_109() that shows the switch.
    const h = raw['nrf52_erratas.h'] ?? ''
    const ev = f.evidence[0]
    expect(ev?.sourceSha256).toBe('8e054a49fa5c5e2b230678b33324e634a01bea3241e9ad487a6517595ff010bf')
    const line = Number(/^line (\d+): nrf52_errata_109\(\) › if \(var1 == 0x06\)$/.exec(ev?.locator ?? '')?.[1])
    expect(h.split('\n')[line - 1]?.trim()).toBe('if (var1 == 0x06)')
    expect(line).toBeGreaterThan(lineOf(h, 'static inline bool nrf52_errata_109(void)', 300))
    expect(line).toBeLessThan(lineOf(h, 'static inline bool nrf52_errata_110(void)', 300))
    expect(ev?.excerpt).toContain('case 0x03ul: return false; case 0x04ul: return false; case 0x05ul: return true;')
    expect(ev?.excerpt).toContain('default: return true;')
    expect(f.evidence[1]?.sourcePath).toBe('errata/nordic/errata.dox')
  })

  it('matches the raw header text for nRF52840, nRF5340 and nRF9160 cases', () => {
    const cases: [file: string, fn: string, model: string][] = [
      ['nrf52_erratas.h', 'nrf52_errata_110', 'NRF52840'],
      ['nrf52_erratas.h', 'nrf52_errata_15', 'NRF52840'],
      ['nrf52_erratas.h', 'nrf52_errata_245', 'NRF52840'],
      ['nrf53_erratas.h', 'nrf53_errata_1', 'NRF5340_APPLICATION'],
      ['nrf53_erratas.h', 'nrf53_errata_13', 'NRF5340_NETWORK'],
      ['nrf53_erratas.h', 'nrf53_errata_14', 'NRF5340_NETWORK'],
      ['nrf91_erratas.h', 'nrf91_errata_1', 'NRF9160'],
      ['nrf91_erratas.h', 'nrf91_errata_36', 'NRF9120']
    ]
    for (const [file, fn, model] of cases) {
      const b = rawBlockFor(raw[file] ?? '', fn, model)
      const f = mustFact(out.result, model, `errata.${fn.split('_').pop()}`)
      expect(f.value, `${fn} ${model}`).toMatchObject({ partCode: b.part, revisions: b.revisions, appliesToUnlistedRevisions: b.unlisted })
      expect(f.scope.siliconRevisions).toEqual(b.revisions.filter((r) => r.applies).map((r) => r.code))
    }
    // Single-core / single-device errata stay with their model.
    expect(fact(out.result, 'NRF5340_APPLICATION', 'errata.14')).toBeUndefined()
    expect(fact(out.result, 'NRF5340_APPLICATION', 'errata.13')).toBeDefined()
    expect(fact(out.result, 'NRF9160', 'errata.36')).toBeUndefined()
    // nrf52_errata_245 and nrf91_errata_36 define ENABLE_WORKAROUND as 0.
    expect(mustFact(out.result, 'NRF52840', 'errata.245').value).toMatchObject({ workaroundEnabledByDefault: false })
    expect(mustFact(out.result, 'NRF52840', 'errata.110').value).toMatchObject({ workaroundEnabledByDefault: true })
  })

  it('agrees with a plain text scan of every if (var1 == ...) block in all three headers', () => {
    const expected = new Map<string, RawBlock>()
    for (const file of ['nrf52_erratas.h', 'nrf53_erratas.h', 'nrf91_erratas.h']) {
      const text = raw[file] ?? ''
      for (const m of text.matchAll(/static inline bool (nrf\d+_(?:errata|configuration)_(\d+))\(void\)\n\{/g)) {
        for (const b of rawBlocks(rawFunction(text, m[1] ?? ''))) {
          if (!b.unlisted && b.revisions.every((r) => !r.applies)) continue
          for (const model of b.models) {
            const key = `nordic-errata:${model} errata.${m[2]}`
            expect(expected.has(key), key).toBe(false)
            expected.set(key, b)
          }
        }
      }
    }
    expect(new Set(out.result.facts.map((f) => `${f.target} ${f.name}`))).toEqual(new Set(expected.keys()))
    for (const f of out.result.facts) {
      const b = expected.get(`${f.target} ${f.name}`) as RawBlock
      expect(f.value, `${f.target} ${f.name}`).toMatchObject({ partCode: b.part, revisions: b.revisions, appliesToUnlistedRevisions: b.unlisted })
    }
  })

  it('attaches the six errata.dox rows of NRF52 109, read independently from the raw table', () => {
    const dox = raw['errata.dox'] ?? ''
    const rows = dox.split('\n').filter((l) => /^\|\s*NRF52\s*\|\s*109\s*\|/.test(l))
    expect(rows).toHaveLength(6)
    const rawRows = rows.map((l) => {
      const cells = l.split('|').slice(1, -1).map((c) => c.trim())
      return {
        handling: (cells[2] ?? '').replace(/\*/g, ''),
        module: (cells[3] ?? '').replace('@ref ', ''),
        functions: (cells[4] ?? '').split(/\s+/).filter((w) => w !== '' && w !== '@ref')
      }
    })
    const f = mustFact(out.result, 'NRF52832', 'errata.109')
    const handling = f.value.handling as { handling: string; module: string; functions: string[] }[]
    expect(handling.map((h) => ({ handling: h.handling, module: h.module, functions: h.functions }))).toEqual(rawRows)
    expect(handling.map((h) => h.module)).toEqual(['nrfx_pwm', 'nrfx_spim', 'nrfx_spis', 'nrfx_twim', 'nrfx_twis', 'nrfx_uarte'])
    expect(f.value.workaroundInMdk).toBe(false)
    const first = lineOf(dox, rows[0] ?? '')
    expect(f.evidence[1]?.locator).toBe(`lines ${first}-${first + 5}: | NRF52 | 109 | …`)
    // MDK-handled errata say so.
    expect(mustFact(out.result, 'NRF52832', 'errata.108').value).toMatchObject({ workaroundInMdk: true })
  })

  it('reports what is not a fact: stubs, configurations, duplicate and unmatched matrix rows', () => {
    const s = out.stats
    expect(s.configurationFunctions).toBe(5)
    expect(s.functionsWithoutFacts).toEqual(['nrf53_errata_37', 'nrf53_errata_103', 'nrf91_errata_37'])
    expect(s.presentMismatches).toEqual([])
    expect(s.matrixDuplicateRows).toBe(1) // NRF53 160 twice
    expect(s.matrixRowsWithoutFact).toContain('NRF53:103') // the header's nrf53_errata_103 is a stub
    expect(s.matrixRowsWithoutFact.filter((k) => !k.startsWith('NRF54'))).toEqual(['NRF53:103'])
  })
})

const WIDE = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '.cache', 'corpus-wide')
const haveWide = existsSync(join(WIDE, 'sources.json'))
if (!haveWide) console.log(`nordic errata: wide-corpus check skipped: ${WIDE} is not unpacked (tar -xJf ../shared/corpus-wide.tar.xz -C .cache)`)

describe.skipIf(!haveWide)('nordic errata adapter: every header of the wide corpus', () => {
  it('parses every nrfx errata header, nrf54h_erratas.h included, without a problem', () => {
    const inv = JSON.parse(readFileSync(join(WIDE, 'sources.json'), 'utf8')) as { sources: Array<{ path: string; kind: string }> }
    const mine = inv.sources.filter((s) => s.kind === NORDIC_ERRATA_HEADER_KIND || s.kind === NORDIC_ERRATA_MATRIX_KIND)
    expect(mine.map((s) => s.path)).toContain('errata/nordic/nrf54h_erratas.h')
    const { result: r } = parseNordicErrata(mine.map((s) => artifact(s.path, readFileSync(join(WIDE, s.path)), s.kind)))
    expect(r.problems).toEqual([])
    // Every header gives at least one device: one errata target per model it names.
    for (const s of mine.filter((x) => x.kind === NORDIC_ERRATA_HEADER_KIND)) expect(r.targets.some((t) => t.sourcePath === s.path), s.path).toBe(true)
    expect(r.targets.map((t) => t.device)).toContain('NRF54H20')
  })
})

describe('nordic errata adapter: a function it cannot read exactly is refused, never guessed', () => {
  // One edit at a time to errata 1 of the shapes fixture (its NRF52832 switch, lines 59-67).
  const base = fixtureText('shapes_nrf52_erratas.h')
  const SWITCH = ['case 0x03ul:', 'return false;', 'case 0x04ul:', 'return true;', 'default:', 'return true;'].map((l, i) => ' '.repeat(i % 2 ? 24 : 20) + l).join('\n')
  const BLOCK = `            if (var1 == 0x06)\n            {\n                switch(var2)\n                {\n${SWITCH}\n                }\n            }\n`
  const ind = (l: string) => '\n' + ' '.repeat(24) + l
  const edits: Array<[string, (t: string) => string, RegExp]> = [
    ['a duplicate case label', (t) => t.replace(SWITCH, SWITCH.replace('case 0x04ul:', 'case 0x03ul:')), /duplicate case/],
    ['two default labels', (t) => t.replace(SWITCH, SWITCH + '\n' + ' '.repeat(20) + 'default:' + ind('return false;')), /two default labels/],
    ['a case label left without a return', (t) => t.replace(SWITCH, SWITCH + '\n' + ' '.repeat(20) + 'case 0x09ul:'), /case label without a return/],
    ['a return without a case label', (t) => t.replace(SWITCH, SWITCH.replace('return false;', 'return false;' + ind('return true;'))), /return without a case label/],
    ['a case that breaks instead of returning', (t) => t.replace(SWITCH, SWITCH.replace(/case 0x04ul:\n\s*return true;/, 'case 0x04ul:' + ind('break;'))), /'break' inside/],
    ['a part code checked twice', (t) => t.replace(BLOCK, BLOCK + BLOCK), /checked twice/],
    ['one device build checking two part codes', (t) => t.replace(BLOCK, BLOCK + BLOCK.replace('0x06', '0x07')), /several part codes/]
  ]
  for (const [what, edit, reason] of edits) {
    it(`refuses ${what}`, () => {
      const text = edit(base)
      expect(text, 'the edit applies').not.toBe(base)
      const r = nordicErrataAdapter.parse([artifact('fixtures/nordic/shapes_nrf52_erratas.h', Buffer.from(text), NORDIC_ERRATA_HEADER_KIND)])
      const p = r.problems.filter((x) => x.reason.startsWith('nrf52_errata_1()'))
      expect(p.map((x) => x.reason).join(' | ')).toMatch(reason)
      expect(p.every((x) => x.line! > lineOf(text, 'static inline bool nrf52_errata_1(void)', 15) - 15)).toBe(true)
      // No fact for the refused erratum, and the others are still read.
      expect(r.facts.filter((f) => f.name === 'errata.1')).toEqual([])
      expect(r.facts.some((f) => f.name === 'errata.7')).toBe(true)
    })
  }
  it('reads the unedited fixture without problems', () => {
    const r = nordicErrataAdapter.parse([artifact('fixtures/nordic/shapes_nrf52_erratas.h', Buffer.from(base), NORDIC_ERRATA_HEADER_KIND)])
    expect(r.problems).toEqual([])
    expect(base).toContain(BLOCK)
  })

  it('takes the workaround default from the ENABLE_WORKAROUND define: 0, 1, or the PRESENT macro', () => {
    const enabled = (text: string) =>
      nordicErrataAdapter
        .parse([artifact('fixtures/nordic/shapes_nrf52_erratas.h', Buffer.from(text), NORDIC_ERRATA_HEADER_KIND)])
        .facts.filter((f) => f.name === 'errata.1')
        .map((f) => f.value.workaroundEnabledByDefault)
    const define = 'NRF52_ERRATA_1_ENABLE_WORKAROUND NRF52_ERRATA_1_PRESENT'
    expect(enabled(base)).toEqual([true, true])
    expect(enabled(base.replace(define, 'NRF52_ERRATA_1_ENABLE_WORKAROUND 0'))).toEqual([false, false])
    expect(enabled(base.replace(define, 'NRF52_ERRATA_1_ENABLE_WORKAROUND 1'))).toEqual([true, true])
    expect(enabled(base.replace('#define NRF52_ERRATA_1_PRESENT 1', '#define NRF52_ERRATA_1_PRESENT 0'))).toEqual([false, false])
  })

  it('refuses a function that can end without returning a value', () => {
    const text = base.replace(SWITCH, SWITCH.replace(/\n\s*default:\n\s*return true;/, ''))
    const end = text.indexOf('/* ========= Errata 2')
    const cut = text.slice(0, end).replace(/\n\s*return false;\n\s*#endif\n\}\n*$/, '\n    #endif\n}\n\n') + text.slice(end)
    expect(cut).not.toBe(text)
    const r = nordicErrataAdapter.parse([artifact('fixtures/nordic/shapes_nrf52_erratas.h', Buffer.from(cut), NORDIC_ERRATA_HEADER_KIND)])
    expect(r.problems.filter((x) => x.reason.startsWith('nrf52_errata_1()')).map((x) => x.reason).join(' | ')).toMatch(/can end without returning/)
  })

  it('reports a PRESENT macro that contradicts the function body, per variant, and keeps the body\'s answer', () => {
    const ok = parseNordicErrata([artifact('fixtures/nordic/shapes_nrf52_erratas.h', Buffer.from(base), NORDIC_ERRATA_HEADER_KIND)])
    const one = (xs: string[]) => xs.filter((x) => x.startsWith('nrf52_errata_1 '))
    expect(one(ok.stats.presentMismatches)).toEqual([])
    const text = base.replace('#define NRF52_ERRATA_1_PRESENT 1', '#define NRF52_ERRATA_1_PRESENT 0')
    const r = parseNordicErrata([artifact('fixtures/nordic/shapes_nrf52_erratas.h', Buffer.from(text), NORDIC_ERRATA_HEADER_KIND)])
    // Errata 1 names NRF52832_XXAA, NRF52832_XXAB and NRF52840_XXAA (lines 19-21) and applies to each.
    expect(one(r.stats.presentMismatches)).toEqual(['NRF52832_XXAA', 'NRF52832_XXAB', 'NRF52840_XXAA'].map((v) => `nrf52_errata_1 ${v}: PRESENT=0 but the function applies`))
    expect(r.result.facts.filter((f) => f.name === 'errata.1').map((f) => f.target).sort()).toEqual(['nordic-errata:NRF52832', 'nordic-errata:NRF52840'])
  })
})
