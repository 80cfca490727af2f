import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { STM32_DATA_KIND, stm32DataAdapter } from '../../indexer/sources/stm32-data.js'
import { jsonPointerLines, JsonLinesError } from '../../indexer/sources/stm32-data/json-lines.js'
import type { LoadedArtifact } from '../../indexer/sources/types.js'

const here = dirname(fileURLToPath(import.meta.url))
const FIXTURE = join(here, '../fixtures/stm32-data/STM32X123AB.json')
// The world corpus is read where it is unpacked, never copied.
const WORLD = resolve(here, '../../.cache/corpus-world')
const haveWorld = existsSync(join(WORLD, 'sources.json'))
if (!haveWorld) console.log(`stm32-data: world-corpus checks skipped: ${WORLD} is not there`)

function artifact(path: string, content: Buffer | string): LoadedArtifact {
  const bytes = Buffer.from(content)
  const sha256 = createHash('sha256').update(bytes).digest('hex')
  return { path, sha256, bytes: bytes.length, kind: STM32_DATA_KIND, publisher: 'STMicroelectronics', license: 'MIT OR Apache-2.0', mediaType: 'application/json', content: bytes }
}

/** 1-based line of the first line of `text` holding `needle` at or after `from`. */
function lineOf(text: string, needle: string, from = 1): number {
  const i = text.split('\n').findIndex((l, n) => n + 1 >= from && l.includes(needle))
  if (i === -1) throw new Error(`${needle} not in the text`)
  return i + 1
}

describe('jsonPointerLines', () => {
  const text = [
    '{', //                                   1
    '  "a": 1,', //                           2
    '  "s": "x\\"}]{[ y",', //                3  quotes and brackets inside a string
    '  "a/b": { "~k": [', //                  4  pointer escapes
    '    10,', //                             5
    '    { "deep": [', //                     6
    '      [1, 2],', //                       7
    '      "]\\"[{"', //                      8  an escaped quote in what is stepped over
    '    ] },', //                            9
    '    [],', //                             10
    '    true', //                            11
    '  ] },', //                              12
    '  "e": {},', //                          13
    '  "last": null', //                      14
    '}'
  ].join('\n')

  it('gives the line of each member key and array element up to the depth asked', () => {
    expect(() => JSON.parse(text)).not.toThrow()
    expect(Object.fromEntries(jsonPointerLines(text, 3))).toEqual({
      '/a': 2,
      '/s': 3,
      '/a~1b': 4,
      '/a~1b/~0k': 4,
      '/a~1b/~0k/0': 5,
      '/a~1b/~0k/1': 6,
      '/a~1b/~0k/2': 10,
      '/a~1b/~0k/3': 11,
      '/e': 13,
      '/last': 14
    })
  })

  it('counts the lines of what it steps over: the same lines at any depth', () => {
    const deep = jsonPointerLines(text, 6)
    expect(deep.get('/a~1b/~0k/1/deep')).toBe(6)
    expect(deep.get('/a~1b/~0k/1/deep/1')).toBe(8)
    expect(deep.get('/a~1b/~0k/1/deep/0/1')).toBe(7)
    expect(deep.get('/last')).toBe(jsonPointerLines(text, 1).get('/last'))
  })

  it('refuses text that is not JSON', () => {
    expect(() => jsonPointerLines('{\n  "a": [1, 2\n}', 3)).toThrow(JsonLinesError)
    expect(() => jsonPointerLines('{\n  "a": "open\n}', 3)).toThrow(JsonLinesError)
  })
})

describe('stm32-data adapter: a hand-written chip file', () => {
  const text = readFileSync(FIXTURE, 'utf8')
  // Built in each test: a mutant that throws while building must fail tests, not their collection.
  const parsed = () => stm32DataAdapter.parse([artifact('chips/stm32-data/STM32X123AB.json', text)])

  it('gives the chip with every package it comes in, once each, and each package entry with its own', () => {
    const r = parsed()
    expect(r.problems).toEqual([])
    expect(r.partNumbers!.map((p) => [p.name, p.packages, p.line])).toEqual([
      ['STM32X123AB', ['LQFP48', 'UFQFPN48'], 2],
      ['STM32X123ABTx', ['LQFP48'], 9],
      ['STM32X123ABUx', ['UFQFPN48'], 21],
      ['STM32X123ABUxQ', ['UFQFPN48'], 26]
    ])
    for (const p of r.partNumbers!) expect(p).toMatchObject({ vendor: 'STMicroelectronics', family: 'STM32X1', sourcePath: 'chips/stm32-data/STM32X123AB.json' })
    expect(r.partNumbers!.map((p) => p.device)).toEqual([undefined, 'STM32X123AB', 'STM32X123AB', 'STM32X123AB'])
    for (const p of r.partNumbers!) expect(p.targets).toEqual(['stm32-data:STM32X123AB'])
  })

  it('memory of two layouts: a region both give alike once, the others per layout, named after it (BANK_2: dual-bank)', () => {
    const r = parsed()
    // Its one core has no interrupts, DMA or RCC: the chip's target has memory alone.
    expect(r.targets.map((t) => [t.key, t.topics])).toEqual([['stm32-data:STM32X123AB', ['memory']]])
    const mem = (start: string, size: number, layout?: string) => ({ kind: 'flash', start, size, ...(layout ? { layout } : {}) })
    expect(r.facts.map((f) => [f.name, f.value, f.evidence[0]!.locator])).toEqual([
      ['dual-bank.BANK_1', mem('0x08000000', 65536, 'dual-bank'), `line ${lineOf(text, '"name": "BANK_1"') - 1}: /memory/0/0`],
      ['dual-bank.BANK_2', mem('0x08010000', 65536, 'dual-bank'), `line ${lineOf(text, '"name": "BANK_2"') - 1}: /memory/0/1`],
      ['dual-bank.OTP', mem('0x1FFF7800', 528, 'dual-bank'), `line ${lineOf(text, '"name": "OTP"') - 1}: /memory/0/2`],
      ['SRAM', { kind: 'ram', start: '0x20000000', size: 32768 }, `line ${lineOf(text, '"name": "SRAM"') - 1}: /memory/0/3`],
      ['single-bank.BANK_1', mem('0x08000000', 131072, 'single-bank'), `line ${lineOf(text, '"name": "BANK_1"', lineOf(text, '"name": "SRAM"')) - 1}: /memory/1/0`]
    ])
  })

  it('flash: the BANK_* regions, OTP left out, when every layout agrees (64 + 64 KiB and 128 KiB); no RAM figure', () => {
    const r = parsed()
    expect(r.partNumbers!.map((p) => p.flashKb)).toEqual([128, 128, 128, 128])
    expect(r.partNumbers!.some((p) => p.ramKb !== undefined)).toBe(false)
    // Layouts that disagree (64 + 32 against 128 KiB) say no single size.
    const split = text.replace(/("name": "BANK_2",[^}]*"size": )65536/, '$132768')
    expect(split).not.toBe(text)
    const s = stm32DataAdapter.parse([artifact('chips/stm32-data/STM32X123AB.json', split)])
    expect(s.partNumbers!.map((p) => p.flashKb)).toEqual([undefined, undefined, undefined, undefined])
  })

  it('reports a file it cannot read with its line, and reads the others', () => {
    const r = parsed()
    const good = artifact('chips/stm32-data/STM32X123AB.json', text)
    const notJson = artifact('chips/stm32-data/A.json', text.replace('"package": "UFQFPN48",', '"package": "UFQFPN48"'))
    const noPackage = artifact('chips/stm32-data/B.json', text.replace('"package": "LQFP48",', ''))
    const s = stm32DataAdapter.parse([good, notJson, noPackage])
    expect(s.problems).toEqual([
      { file: notJson.path, line: lineOf(text, '"pins": []'), reason: expect.stringMatching(/^not JSON: /) },
      { file: noPackage.path, line: lineOf(text, '"name": "STM32X123ABTx"') - 1, reason: '/packages/0/package: not a non-empty string' }
    ])
    expect(s.partNumbers!.map((p) => p.sourcePath)).toEqual(r.partNumbers!.map(() => good.path))
  })

  it('units: runs of 32 files in path order, which parse as the whole does', () => {
    const many = Array.from({ length: 70 }, (_, i) => artifact(`chips/stm32-data/C${String(69 - i).padStart(2, '0')}.json`, text))
    const units = stm32DataAdapter.units!(many)
    expect(units.map((u) => u.length)).toEqual([32, 32, 6])
    expect(units.flat().map((a) => a.path)).toEqual(many.map((a) => a.path).sort())
    expect(units.flatMap((u) => stm32DataAdapter.parse(u).partNumbers)).toEqual(stm32DataAdapter.parse(many).partNumbers)
  })
})

describe.skipIf(!haveWorld)('stm32-data adapter: world corpus chips', () => {
  it('STM32F407VG: the chip and its packages, as JSON.parse reads them, on the lines the text names them', () => {
    const path = 'chips/stm32-data/STM32F407VG.json'
    const text = readFileSync(join(WORLD, path), 'utf8')
    const json = JSON.parse(text) as { name: string; family: string; packages: { name: string; package: string }[]; memory: { name: string; kind: string; size: number }[][] }
    const r = stm32DataAdapter.parse([artifact(path, text)])
    expect(r.problems).toEqual([])
    const flash = json.memory[0]!.filter((m) => m.kind === 'flash' && m.name.startsWith('BANK_')).reduce((n, m) => n + m.size, 0) / 1024
    expect(flash).toBe(1024) // 64 + 64 + 896 KiB: ST's 1 MB
    const lines = text.split('\n')
    const expected = [{ name: json.name, packages: [...new Set(json.packages.map((p) => p.package))] }, ...json.packages.map((p) => ({ name: p.name, packages: [p.package] }))]
    expect(r.partNumbers!.map((p) => ({ name: p.name, packages: p.packages }))).toEqual(expected)
    for (const p of r.partNumbers!) {
      expect(lines[p.line - 1]!.trim()).toBe(`"name": "${p.name}",`)
      expect(p).toMatchObject({ family: json.family, flashKb: flash, vendor: 'STMicroelectronics' })
    }
  })

  it('every chip file: no problem, the chip and every package entry, each on the line its name is written', { timeout: 120_000 }, () => {
    const inv = JSON.parse(readFileSync(join(WORLD, 'sources.json'), 'utf8')) as { sources: { path: string; kind: string }[] }
    const paths = inv.sources.filter((s) => s.kind === STM32_DATA_KIND).map((s) => s.path)
    expect(paths.length).toBe(1550)
    let expected = 0
    let lineChecks = 0
    for (let i = 0; i < paths.length; i += 32) {
      const arts = paths.slice(i, i + 32).map((p) => artifact(p, readFileSync(join(WORLD, p))))
      const r = stm32DataAdapter.parse(arts)
      expect(r.problems).toEqual([])
      for (const a of arts) {
        const text = a.content.toString('utf8')
        const json = JSON.parse(text) as { name: string; packages: { name: string }[]; cores: { name: string }[] }
        // A multi-core chip's cores are named too (STM32H745ZI_CM7), on the line of the core's name.
        const cores = json.cores.length > 1 ? json.cores.map((c) => c.name) : []
        expected += 1 + json.packages.length + cores.length
        const lines = text.split('\n')
        for (const p of r.partNumbers!.filter((x) => x.sourcePath === a.path)) {
          const core = cores.find((c) => p.name === `${json.name}_${c.toUpperCase()}`)
          expect(lines[p.line - 1]).toContain(`"name": ${JSON.stringify(core ?? p.name)}`)
          lineChecks++
        }
      }
    }
    expect(lineChecks).toBe(expected)
  })
})
