import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { buildRelease } from '../../indexer/build.js'
import { NORDIC_ERRATA_HEADER_KIND, parseNordicErrata } from '../../indexer/sources/nordic-errata.js'
import type { LoadedArtifact } from '../../indexer/sources/types.js'
import { HardwareFacts } from '../../src/service/facts.js'
import { DataDir } from '../../src/store/layout.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'
import { scratchDirs } from '../helpers/scratch.js'

/*
 * Every device macro a Nordic errata header tests is a device of that header, whatever its name
 * looks like (NRF54LM20A_XXAA, NRF7120_ENGA_XXAA): an erratum naming a device the adapter has not
 * seen before is read for every device it names, not dropped for all of them. Expected values
 * are worked out by hand from the headers below, or counted from the raw text of the real one.
 */

const tmp = scratchDirs()
const art = (path: string, text: string | Buffer): LoadedArtifact => {
  const content = Buffer.from(text)
  return { path, sha256: createHash('sha256').update(content).digest('hex'), bytes: content.length, kind: NORDIC_ERRATA_HEADER_KIND, publisher: 'test', license: 'MIT', mediaType: 'text/plain', content }
}

/** An nrf54l_erratas.h function in the MDK's layout: reads under every named device, then one `if (var1 == …)` block per device. */
function nrf54lFunction(n: number, blocks: Array<{ device: string; part: string; cases: string[]; dflt: boolean }>): string[] {
  const named = (d: string) => `defined (${d}_XXAA) || defined (DEVELOP_IN_${d})`
  return [
    `/* ========= Errata ${n} ========= */`,
    `static inline bool nrf54l_errata_${n}(void)`,
    '{',
    '    #ifndef NRF54L_SERIES',
    '        return false;',
    '    #else',
    `        #if ${blocks.map((b) => named(b.device)).join(' || ')}`,
    '            uint32_t var1 = *(uint32_t *)0x00FFC340ul;',
    '            uint32_t var2 = *(uint32_t *)0x00FFC344ul;',
    '        #endif',
    ...blocks.flatMap((b) => [
      `        #if ${named(b.device)}`,
      `            if (var1 == ${b.part})`,
      '            {',
      '                switch(var2)',
      '                {',
      ...b.cases.flatMap((c) => [`                    case ${c.split('=')[0]}ul:`, `                        return ${c.split('=')[1]};`]),
      '                    default:',
      `                        return ${b.dflt};`,
      '                }',
      '            }',
      '        #endif'
    ]),
    '        return false;',
    '    #endif',
    '}',
    ''
  ]
}

/** Erratum 1: nRF54L15 (part 0x1C, every revision) and nRF54LM20A (0x29, revision 0x00 only); erratum 2: nRF54LM20A and nRF54LS05B (0x30, revision 0x01 not). */
const NRF54L = [
  '#include <stdbool.h>',
  '',
  ...nrf54lFunction(1, [
    { device: 'NRF54L15', part: '0x1C', cases: ['0x01=true'], dflt: true },
    { device: 'NRF54LM20A', part: '0x29', cases: ['0x00=true', '0x01=false'], dflt: false }
  ]),
  ...nrf54lFunction(2, [
    { device: 'NRF54LM20A', part: '0x29', cases: [], dflt: true },
    { device: 'NRF54LS05B', part: '0x30', cases: ['0x01=false'], dflt: true }
  ])
].join('\n')

describe('nordic errata: every device macro a header tests is a device of it', () => {
  it('devices named NRF54LM20A_XXAA or NRF54LS05B_XXAA get their own targets and facts, beside the known ones', () => {
    const { result: r } = parseNordicErrata([art('errata/nordic/nrf54l_erratas.h', NRF54L)])
    expect(r.problems).toEqual([])
    expect(r.targets.map((t) => [t.key, t.description])).toEqual([
      ['nordic-errata:NRF54L15', 'Nordic MDK errata for NRF54L15: variants NRF54L15_XXAA; part code 0x1c'],
      ['nordic-errata:NRF54LM20A', 'Nordic MDK errata for NRF54LM20A: variants NRF54LM20A_XXAA; part code 0x29'],
      ['nordic-errata:NRF54LS05B', 'Nordic MDK errata for NRF54LS05B: variants NRF54LS05B_XXAA; part code 0x30']
    ])
    expect(r.facts.map((f) => [f.target, f.name, f.value.revisions, f.value.appliesToUnlistedRevisions])).toEqual([
      ['nordic-errata:NRF54L15', 'errata.1', [{ code: '0x01', applies: true }], true],
      ['nordic-errata:NRF54LM20A', 'errata.1', [{ code: '0x00', applies: true }, { code: '0x01', applies: false }], false],
      ['nordic-errata:NRF54LM20A', 'errata.2', [], true],
      ['nordic-errata:NRF54LS05B', 'errata.2', [{ code: '0x01', applies: false }], true]
    ])
  })

  it('a variant macro with an engineering tag (NRF7120_ENGA_XXAA) is a device named without its _XXAA', () => {
    const text = ['static inline bool nrf71_errata_3(void)', '{', '    #if defined (NRF7120_ENGA_XXAA)', '        return true;', '    #endif', '    return false;', '}'].join('\n')
    const { result: r } = parseNordicErrata([art('errata/nordic/nrf71_erratas.h', text)])
    expect(r.problems).toEqual([])
    expect(r.targets.map((t) => [t.device, t.identity])).toEqual([['NRF7120_ENGA', { vendor: 'Nordic Semiconductor', series: 'nRF71', variants: ['NRF7120_ENGA_XXAA'] }]])
    expect(r.facts.map((f) => f.name)).toEqual(['errata.3'])
  })

  it('a release of that header: nRF54LM20A and nRF54LS05B are covered for errata', async () => {
    const corpus = tmp('hwfacts-errata-corpus-')
    const path = 'errata/nordic/nrf54l_erratas.h'
    mkdirSync(join(corpus, dirname(path)), { recursive: true })
    writeFileSync(join(corpus, path), NRF54L)
    const a = art(path, NRF54L)
    const source = { path, sha256: a.sha256, bytes: a.bytes, kind: a.kind, publisher: 'Nordic Semiconductor', license: 'BSD-3-Clause', mediaType: 'text/plain' }
    writeFileSync(join(corpus, 'sources.json'), JSON.stringify({ format: 'hwfacts-source-inventory/1', sources: [source] }))
    const data = tmp('hwfacts-errata-data-')
    const built = await buildRelease({ inventory: corpus, dataDir: data })
    expect(built.problems).toEqual([])
    expect(built.manifest.counts.targets).toBe(3)
    new DataDir(data).promote(built.id)
    const repo = new SqliteRepository(data)
    try {
      const facts = new HardwareFacts(repo, 'test-secret')
      for (const [part, count] of [['nRF54LM20A', 2], ['nRF54LS05B', 1], ['nRF54L15', 1]] as const) {
        const c = await facts.coverage({ part })
        expect(c.status, part).toBe('resolved')
        expect(c.topics.errata, part).toMatchObject({ status: 'covered', factCount: count, target: { key: `nordic-errata:${part.replace('nRF', 'NRF')}` } })
      }
    } finally {
      await repo.close()
    }
  })
})

const WORLD = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '.cache', 'corpus-world')
const NRF54L_REAL = 'errata/nordic/nrf54l_erratas.h'

describe('nordic errata: the real nrf54l_erratas.h', () => {
  it('every erratum function naming a device gives that device a fact: nRF54L15, nRF54LM20A and the others', (ctx) => {
    const file = join(WORLD, NRF54L_REAL)
    if (!existsSync(file)) {
      console.log(`[nordic-errata-devices] ${file} is absent (the world corpus does not hold it, or is not unpacked): not tested`)
      return ctx.skip()
    }
    const raw = readFileSync(file, 'utf8')
    // Independent count: the functions whose body names <device>_XXAA, read off the text.
    const bodies = [...raw.matchAll(/^static inline bool nrf54l_(?:errata|configuration)_\d+\(void\)\n\{\n([\s\S]*?)^\}/gm)].map((m) => m[1] as string)
    const devices = [...new Set(raw.match(/\bNRF54L[A-Z0-9]*(?=_XXAA\b)/g))].sort()
    expect(devices).toEqual(expect.arrayContaining(['NRF54L15', 'NRF54LM20A']))
    const { result: r } = parseNordicErrata([art(NRF54L_REAL, raw)])
    expect(r.problems).toEqual([])
    for (const d of devices) {
      const named = bodies.filter((b) => new RegExp(`\\b${d}_XXAA\\b`).test(b)).length
      expect(r.facts.filter((f) => f.target === `nordic-errata:${d}`).length, d).toBe(named)
    }
  })
})
