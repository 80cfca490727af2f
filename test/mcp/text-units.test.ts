import { describe, expect, it } from 'vitest'
import {
  renderCatalogPart,
  renderCheck,
  renderCompareParts,
  renderCompareReleases,
  renderContext,
  renderCoverage,
  renderDiscrepancies,
  renderErrorCode,
  renderRelease,
  renderResolve,
  renderSearch,
  renderSources
} from '../../src/mcp/text.js'

/**
 * The text renderings of the MCP tool results on small hand-made bodies (the members each schema
 * declares). Every expected line is written out from the format each renderer documents
 * (`NAME = value … [evidence]`, `Page: …`, `Next: …`), not taken from a run.
 */
type Obj = Record<string, any>
const r = <T>(x: Obj) => x as T
const text = (...lines: string[]) => lines.join('\n')
const SHA = 'a'.repeat(64)
const DO_NOT_PICK = 'Do not pick a candidate yourself: ask the user which one is meant, or call again with a full selector part or ordering code'

const F407 = { name: 'STM32F407VGT6', kind: 'ordering-code', package: 'LQFP100', family: 'STM32F4', core: 'Arm Cortex-M4', flashKb: 1024, ramKb: 192, maxFrequencyMhz: 168 }
const SVD_TARGET = { key: 'svd:STMicro/STM32F407', source: { path: 'svd/STMicro/STM32F407.svd' }, factCount: 13978, parts: ['A', 'B', 'C', 'D', 'E', 'F', 'G'], partCount: 9 }
const PIN_X = { key: 'stm32:X', package: 'LQFP100', source: { path: 'pins/x.xml' } }
const PIN_Y = { key: 'stm32:Y', package: 'LQFP144', source: { path: 'pins/y.xml' } }
const TOPICS = {
  registers: { status: 'resolved', target: SVD_TARGET },
  pins: { status: 'ambiguous', candidateCount: 2, hint: 'give the package', candidates: [PIN_X, PIN_Y] },
  electrical: { status: 'not_covered', reason: 'no datasheet', availablePackages: ['LQFP100', 'UFBGA176'] },
  errata: { status: 'not_found' },
  memory: undefined
}
const TOPIC_LINES = [
  '  registers: resolved → svd:STMicro/STM32F407, 13978 facts, from svd/STMicro/STM32F407.svd, parts A, B, C, D, E, F, … (9 in all)',
  '  pins: ambiguous, 2 targets — give the package',
  '    - stm32:X [LQFP100], from pins/x.xml',
  '    - stm32:Y [LQFP144], from pins/y.xml',
  '  electrical: not covered — no datasheet (packages: LQFP100, UFBGA176)',
  '  errata: not found'
]

describe('renderResolve', () => {
  it('a resolved part: the part, each topic, and the next call', () => {
    const body = { q: 'STM32F407VGT6', status: 'resolved', match: 'exact', release: 'R1', part: { ...F407, reason: 'ordering code of STM32F407VGTx' }, topics: TOPICS, candidates: [{ ...F407, why: 'exact' }], candidateCount: 1, page: { nextCursor: null } }
    expect(renderResolve(r(body))).toBe(
      text(
        'STM32F407VGT6 → resolved (exact match), release R1',
        'Part: STM32F407VGT6 (ordering-code, LQFP100, STM32F4, Arm Cortex-M4, 1024 KB flash, 192 KB RAM, 168 MHz) — ordering code of STM32F407VGTx',
        'Topics:',
        ...TOPIC_LINES,
        'Next: call get_context with part="STM32F407VGT6" and a topic whose status is resolved.'
      )
    )
    // Resolved with more than one candidate listed: they are shown.
    const two = { ...body, part: { name: 'STM32F407VG' }, topics: {}, candidates: [{ name: 'A1', why: 'w1' }, { name: 'A2', why: 'w2' }], candidateCount: 2 }
    expect(renderResolve(r(two))).toBe(
      text('STM32F407VGT6 → resolved (exact match), release R1', 'Part: STM32F407VG', 'Topics:', 'Candidates (2 of 2):', '  - A1: w1', '  - A2: w2', 'Next: call get_context with part="STM32F407VGT6" and a topic whose status is resolved.')
    )
  })

  it('an ambiguous part: the candidates, the cursor, suggestions, and not to pick', () => {
    const body = {
      q: 'STM32F4',
      status: 'ambiguous',
      release: 'R1',
      topics: {},
      candidates: [{ name: 'STM32F407VG', kind: 'selector-part', memberCount: 3, why: 'prefix' }, { name: 'STM32F405RG', flashKb: 0, why: 'prefix too' }],
      candidateCount: 5,
      page: { nextCursor: 'c2' },
      suggestions: [{ name: 'STM32F407' }, { name: 'STM32F405' }]
    }
    expect(renderResolve(r(body))).toBe(
      text(
        'STM32F4 → ambiguous, release R1',
        'Topics:',
        'Candidates (2 of 5):',
        '  - STM32F407VG (selector-part, 3 members): prefix',
        '  - STM32F405RG (0 KB flash): prefix too',
        'More candidates: call resolve_part again with the same arguments and cursor="c2"',
        'Did you mean: STM32F407, STM32F405?',
        `Next: ${DO_NOT_PICK}.`
      )
    )
  })

  it('no such part', () => {
    const body = { q: 'XYZ', status: 'not_found', release: 'R1', topics: {}, candidates: [], page: { nextCursor: null }, suggestions: [] }
    expect(renderResolve(r(body))).toBe(text('XYZ → not_found, release R1', 'Topics:', 'Next: no part has this name. Check the suggestions, or call search_catalog.'))
  })
})

describe('renderSearch', () => {
  it('the results with their topics, the cursor, and the next call', () => {
    const body = {
      q: 'STM32F40',
      status: 'ok',
      total: 12,
      match: 'prefix',
      release: 'R1',
      results: [{ name: 'STM32F407VG', kind: 'selector-part', topics: ['registers', 'pins'], why: 'prefix of the name' }, { name: 'STM32F405RG', topics: [], why: 'prefix' }],
      page: { nextCursor: 'n1' },
      suggestions: [{ name: 'STM32F401' }]
    }
    expect(renderSearch(r(body))).toBe(
      text(
        'Catalog search "STM32F40": ok, 12 matches (prefix), showing 2; release R1',
        '  - STM32F407VG (selector-part); topics: registers, pins; prefix of the name',
        '  - STM32F405RG; topics: none; prefix',
        'More results: call search_catalog again with the same arguments and cursor="n1"',
        'Did you mean: STM32F401?',
        'Next: call resolve_part with one of these names, then get_context.'
      )
    )
    expect(renderSearch(r({ q: 'ZZ', status: 'ok', total: 0, release: 'R1', results: [], page: { nextCursor: null } }))).toBe('Catalog search "ZZ": ok, 0 matches, showing 0; release R1')
  })
})

const SOURCE_FULL = {
  path: 'svd/STMicro/STM32F407.svd',
  publisher: 'STMicroelectronics',
  distributor: 'ARM',
  license: 'Apache-2.0',
  kind: 'svd',
  sha256: SHA,
  upstream: { url: 'https://example.org/f407', repository: 'https://example.org/repo' },
  targets: ['svd:STMicro/STM32F407'],
  trust: { checksumVerified: true }
}
const SOURCE_BARE = { path: 'pins/x.xml', publisher: 'ST', distributor: 'ST', kind: 'pins', upstream: { repository: 'https://example.org/db' }, targets: [], trust: { checksumVerified: false } }
const SOURCE_LINES = [
  `  - svd/STMicro/STM32F407.svd — publisher STMicroelectronics, via ARM, license Apache-2.0, svd, sha256 ${SHA}, https://example.org/f407, targets svd:STMicro/STM32F407, checksum re-verified by this service`,
  '  - pins/x.xml — publisher ST, pins, https://example.org/db'
]

describe('renderCatalogPart', () => {
  it('the part, its mapping, members, documents and sources', () => {
    const body = {
      part: { name: 'STM32F407VG', kind: 'selector-part', reason: 'named by the selector', members: ['STM32F407VGT6', 'STM32F407VGT7'] },
      status: 'resolved',
      match: 'exact',
      release: 'R1',
      documents: { registers: { status: 'covered', target: 'svd:STMicro/STM32F407', sourcePath: 'svd/STMicro/STM32F407.svd' }, pins: { status: 'covered', target: PIN_X } },
      sources: [SOURCE_FULL, SOURCE_BARE]
    }
    expect(renderCatalogPart(r(body))).toBe(
      text(
        'STM32F407VG (selector-part): resolved (exact match), release R1',
        'Mapping: named by the selector',
        'Members: STM32F407VGT6, STM32F407VGT7',
        'Documents:',
        '  registers: covered → svd:STMicro/STM32F407 from svd/STMicro/STM32F407.svd',
        '  pins: covered → stm32:X [LQFP100], from pins/x.xml',
        'Sources (2):',
        ...SOURCE_LINES
      )
    )
  })

  it('no single part: the candidates and not to pick', () => {
    const body = { status: 'ambiguous', release: 'R1', documents: {}, sources: [], candidates: [{ name: 'A1', why: 'w' }], candidateCount: 4, suggestions: [{ name: 'A' }] }
    expect(renderCatalogPart(r(body))).toBe(text('No single part: ambiguous, release R1', 'Documents:', 'Candidates (1 of 4):', '  - A1: w', `${DO_NOT_PICK}.`, 'Did you mean: A?'))
    expect(renderCatalogPart(r({ part: { name: 'P', members: [] }, status: 'resolved', release: 'R1', documents: {}, sources: [], candidates: [] }))).toBe(text('P: resolved, release R1', 'Documents:'))
  })
})

describe('renderCoverage and renderSources', () => {
  it('coverage: the covered and uncovered topics, each topic, candidates', () => {
    const body = { part: 'STM32F407VGT6', status: 'resolved', release: 'R1', covered: ['registers', 'pins'], notCovered: [], topics: TOPICS }
    expect(renderCoverage(r(body))).toBe(text('STM32F407VGT6: resolved, release R1; covered: registers, pins; not covered: none', ...TOPIC_LINES))
    const amb = { part: 'STM32F4', status: 'ambiguous', release: 'R1', covered: [], notCovered: ['errata'], topics: {}, candidates: [{ name: 'A1', why: 'w' }], candidateCount: 2, suggestions: [{ name: 'X' }] }
    expect(renderCoverage(r(amb))).toBe(text('STM32F4: ambiguous, release R1; covered: none; not covered: errata', 'Candidates (1 of 2):', '  - A1: w', 'Did you mean: X?'))
  })

  it('sources: the count, each topic, each artifact', () => {
    const body = { part: 'STM32F407VGT6', status: 'resolved', release: 'R1', topics: { registers: { status: 'covered', target: 'svd:S', sourcePath: 'svd/s.svd' } }, sources: [SOURCE_FULL, SOURCE_BARE], suggestions: [{ name: 'Y' }] }
    expect(renderSources(r(body))).toBe(text('STM32F407VGT6: resolved, release R1, 2 source artifacts', 'Topics:', '  registers: covered → svd:S from svd/s.svd', 'Sources:', ...SOURCE_LINES, 'Did you mean: Y?'))
    expect(renderSources(r({ part: 'Q', status: 'not_found', release: 'R1', topics: {}, sources: [] }))).toBe(text('Q: not_found, release R1, 0 source artifacts', 'Topics:'))
  })
})

describe('renderDiscrepancies', () => {
  it('what was checked against what, each disagreement with its values and locators, notes, the cursor', () => {
    const body = {
      part: 'nRF52840',
      status: 'resolved',
      release: 'R1',
      count: 1,
      checked: [{ topic: 'interrupts', target: 'svd:Nordic/nrf52840', checked: [{ key: 'probe-rs:nRF52840' }, { key: 'modm:nrf52840' }], agree: 40, disagree: 1 }],
      discrepancies: [{ topic: 'interrupts', name: 'UARTE0', facts: [{ value: { value: 2 }, scope: { source: 'svd' }, evidence: [{ locator: 'line 7' }] }, { value: { value: 3 }, scope: { source: 'modm' }, evidence: [] }] }],
      notes: ['memory: not checked'],
      page: { nextCursor: 'c9' },
      suggestions: [{ name: 'nRF52833' }]
    }
    expect(renderDiscrepancies(r(body))).toBe(
      text(
        'nRF52840: resolved, release R1; 1 discrepancies',
        'interrupts: svd:Nordic/nrf52840 served, checked against probe-rs:nRF52840, modm:nrf52840: 40 agree, 1 disagree',
        '- interrupts UARTE0:',
        '    {"value":2} from svd (line 7)',
        '    {"value":3} from modm (undefined)',
        'memory: not checked',
        'More: call again with cursor=c9',
        'Did you mean: nRF52833?'
      )
    )
    expect(renderDiscrepancies(r({ part: 'P', status: 'resolved', release: 'R1', count: 0, checked: [], discrepancies: [], notes: [], page: { nextCursor: null } }))).toBe('P: resolved, release R1; 0 discrepancies')
  })
})

describe('renderRelease and renderErrorCode', () => {
  it('the release with its counts and kept ids, and the API identity', () => {
    const body = {
      release: { id: 'R1', createdAt: '2026-11-26T00:00:00Z', format: 'sqlite-1', indexerFormat: 'i3', tokenizer: 'cl100k_base', store: 'sqlite', counts: { facts: 100, byTopic: { registers: 60, pins: 40 }, parts: 7, targets: 3 }, sourceCount: 5, complete: true, kept: ['R0', 'R1'] },
      api: { version: '2026-12-01', openapi_sha256: 'abc' }
    }
    expect(renderRelease(r(body))).toBe(
      text(
        'Promoted corpus release R1 (created 2026-11-26T00:00:00Z, sqlite-1, indexer i3, tokenizer cl100k_base, store sqlite)',
        'Counts: 100 facts (registers 60, pins 40), 7 parts, 3 targets, 5 sources; complete: yes',
        'Kept releases (usable as corpus_release): R0, R1',
        'API contract 2026-12-01, abc'
      )
    )
    const incomplete = { ...body, release: { ...body.release, complete: false, kept: [] } }
    expect(renderRelease(r(incomplete)).split('\n').slice(1, 3)).toEqual(['Counts: 100 facts (registers 60, pins 40), 7 parts, 3 targets, 5 sources; complete: no', 'Kept releases (usable as corpus_release): none'])
  })

  it('an error code', () => {
    expect(renderErrorCode(r({ code: 'RATE_LIMITED', status: 429, title: 'Too many', retryable: true, guidance: 'Wait.' }))).toBe('RATE_LIMITED (HTTP 429 Too many; retryable): Wait.')
    expect(renderErrorCode(r({ code: 'NOT_FOUND', status: 404, title: 'Not found', retryable: false, guidance: 'Check.' }))).toBe('NOT_FOUND (HTTP 404 Not found; not retryable): Check.')
  })
})

const ev = (path: string, locator: string) => ({ sourceSha256: SHA, sourcePath: path, locator, excerpt: '' })
const REG = {
  name: 'RCC.AHB1ENR',
  topic: 'registers',
  value: { address: '0x40023830', offset: '0x30', size: 32, resetValue: '0x00100000', access: 'read-write', description: 'AHB1 peripheral clock register' },
  evidence: [ev('svd/STMicro/STM32F407.svd', 'line 5954: /device/…/register[name=AHB1ENR]')]
}
const REG_VALUE = 'address 0x40023830, offset 0x30, 32 bits, reset 0x00100000, read-write — AHB1 peripheral clock register'
const REG_EV = ' [svd/STMicro/STM32F407.svd line 5954: /device/…/register[name=AHB1ENR]]'
const REG_LINE = `RCC.AHB1ENR = ${REG_VALUE}${REG_EV}`
const PAGE = { returned: 1, limit: 20, tokens: 300, maxTokens: 4000, budgetTooSmall: false, neededMaxTokens: null, nextCursor: null, truncatedBy: null }

describe('renderContext: one line per fact, by topic', () => {
  const ctx = (facts: Obj[], over: Obj = {}) =>
    renderContext(r({ part: 'STM32F407VGT6', topic: 'registers', status: 'ok', release: 'R1', filters: {}, facts, page: { ...PAGE, returned: facts.length }, ...over }))
  const lineOf = (f: Obj) => ctx([f]).split('\n')[1]

  it('registers, peripherals and fields', () => {
    expect(lineOf(REG)).toBe(REG_LINE)
    const arr = { name: 'DMA.S0CR', topic: 'registers', value: { address: '0x40026010', offset: '0x10', size: null, resetValue: null, protection: 'secure', array: { count: 8, increment: 24 } }, evidence: [] }
    expect(lineOf(arr)).toBe("DMA.S0CR = address 0x40026010, offset 0x10, protection secure, array of 8 elements 24 bytes apart (address is element 0's)")
    const per = { name: 'USART2', topic: 'registers', value: { baseAddress: '0x40004400', derivedFrom: 'USART1', interrupts: [{ name: 'USART2', value: 38 }, { name: 'X' }] }, evidence: [ev('a.svd', 'line 1'), ev('b.svd', 'line 2'), ev('c.svd', 'line 3')] }
    expect(lineOf(per)).toBe('USART2 = peripheral at base address 0x40004400, derived from USART1, IRQ USART2=38 X=? [a.svd line 1 +2 more]')
    const bare = { name: 'GPIOA', topic: 'registers', value: { baseAddress: '0x40020000', interrupts: [], description: 'GPIO' }, evidence: [ev('a.svd', 'line 9'), ev('b.svd', 'line 10')] }
    expect(lineOf(bare)).toBe('GPIOA = peripheral at base address 0x40020000 — GPIO [a.svd line 9 +1 more]')
    const field = { name: 'RCC.AHB1ENR.GPIOAEN', topic: 'registers', value: { bitOffset: 0, bitWidth: 1, access: 'read-write', enumeratedValues: [{ name: 'Disabled', value: 0 }, { name: 'Enabled', value: 1 }] }, evidence: [] }
    expect(lineOf(field)).toBe('RCC.AHB1ENR.GPIOAEN = bit 0, read-write, values 0=Disabled 1=Enabled')
    const wide = { name: 'R.F', topic: 'registers', value: { bitOffset: 4, bitWidth: 3, enumeratedValues: Array.from({ length: 9 }, (_, i) => ({ name: `V${i}`, ...(i === 8 ? {} : { value: i }) })) }, evidence: [] }
    expect(lineOf(wide)).toBe('R.F = bits [6:4], values 0=V0 1=V1 2=V2 3=V3 4=V4 5=V5 6=V6 7=V7 …')
    const two = { name: 'R.G', topic: 'registers', value: { bitOffset: 8, bitWidth: 2, enumeratedValues: [{ name: 'A' }], description: 'mode' }, evidence: [] }
    expect(lineOf(two)).toBe('R.G = bits [9:8], values ?=A — mode')
  })

  it('pins, electrical values, errata and the depth topics', () => {
    const pin = { name: 'PA9', topic: 'pins', value: { positions: ['68', 'B10'], package: 'LQFP100', type: 'I/O', signals: ['USART1_TX', 'TIM1_CH2'], alternateFunctions: [{ af: 7, signal: 'USART1_TX' }, { af: 1, signal: 'TIM1_CH2' }] }, evidence: [] }
    expect(lineOf(pin)).toBe('PA9 = pin 68, B10 (LQFP100); I/O; signals USART1_TX, TIM1_CH2; AF7 USART1_TX, AF1 TIM1_CH2')
    const one = { name: 'P0.01', topic: 'pins', value: { position: '2', signals: [] }, evidence: [] }
    expect(lineOf(one)).toBe('P0.01 = pin 2')
    const many = { name: 'PB0', topic: 'pins', value: { positions: [], position: '35', signals: Array.from({ length: 17 }, (_, i) => `S${i}`) }, evidence: [] }
    expect(lineOf(many)).toBe(`PB0 = pin 35; signals ${Array.from({ length: 16 }, (_, i) => `S${i}`).join(', ')}, … (17 in all)`)
    expect(lineOf({ name: 'VDD.max', topic: 'electrical', value: { value: 3.6, unit: 'V' }, evidence: [] })).toBe('VDD.max = 3.6 V')
    expect(lineOf({ name: 'N', topic: 'electrical', value: { value: 4 }, evidence: [] })).toBe('N = 4')
    const erratum = {
      name: 'anomaly 109',
      topic: 'errata',
      value: {
        kind: 'anomaly',
        number: 109,
        function: 'DMA access',
        revisions: [{ code: 'AAA0', applies: true }, { code: 'AAB0', applies: false }, { code: 'AAC0', applies: true }],
        appliesToUnlistedRevisions: true,
        handling: [{ handling: 'workaround', module: 'system_nrf52.c', functions: ['a', 'b', 'c', 'd', 'e'] }, { handling: 'none' }],
        workaroundEnabledByDefault: false
      },
      evidence: []
    }
    expect(lineOf(erratum)).toBe(
      'anomaly 109 = anomaly 109; DMA access; applies to revisions AAA0 AAC0 and unlisted ones; not AAB0; handling: workaround system_nrf52.c a, b, c, d, … (5 in all) / none; workaround enabled by default: no'
    )
    const none = { name: 'e', topic: 'errata', value: { kind: 'erratum', number: 1, revisions: [{ code: 'B', applies: false }], workaroundEnabledByDefault: true }, evidence: [] }
    expect(lineOf(none)).toBe('e = erratum 1; applies to revisions none listed; not B; workaround enabled by default: yes')
    expect(lineOf({ name: 'e2', topic: 'errata', value: { kind: 'erratum', number: 2, revisions: [] }, evidence: [] })).toBe('e2 = erratum 2; applies to revisions none listed')
    expect(lineOf({ name: 'ERR050', topic: 'errata', value: { id: 'ERR050', module: 'FlexCAN', title: 'May lose frames' }, evidence: [] })).toBe('ERR050 = erratum ERR050; FlexCAN; May lose frames')
    expect(lineOf({ name: 'SRAM', topic: 'memory', value: { start: '0x20000000', size: 131072, access: 'rwx', secure: false, regions: [1], owner: null }, evidence: [] })).toBe('SRAM = start 0x20000000, size 131072, access rwx, secure false')
  })
})

describe('renderContext: header, filters, page and status', () => {
  const base = { part: 'STM32F407VGT6', topic: 'registers', status: 'ok', release: 'R1', filters: {}, facts: [REG], page: PAGE }

  it('an ok page that ends the result set, with its target and filters', () => {
    const body = { ...base, target: { key: 'svd:STMicro/STM32F407', source: { path: 'svd/STMicro/STM32F407.svd' } }, filters: { peripheral: 'RCC', fact_names: ['A', 'B'], limit: 20 }, notes: ['a note'] }
    expect(renderContext(r(body))).toBe(
      text(
        'STM32F407VGT6 · registers · ok · release R1 · target svd:STMicro/STM32F407, from svd/STMicro/STM32F407.svd',
        'Filters: peripheral=RCC; fact_names=A,B; limit=20',
        REG_LINE,
        'Page: 1 facts (limit 20, 300/4000 tokens); end of the result set',
        'Note: a note'
      )
    )
  })

  it('the page line: the cursor, the truncation, or the budget the next fact needs', () => {
    const page = (p: Obj) => renderContext(r({ ...base, page: { ...PAGE, ...p } })).split('\n').at(-1)
    expect(page({ nextCursor: 'cur1', truncatedBy: 'limit' })).toBe('Page: 1 facts (limit 20, 300/4000 tokens); more facts: call get_context again with the same arguments and cursor="cur1"')
    expect(page({ truncatedBy: 'max_tokens' })).toBe('Page: 1 facts (limit 20, 300/4000 tokens); truncated by max_tokens')
    expect(page({ budgetTooSmall: true, neededMaxTokens: 5120, nextCursor: 'cur1' })).toBe(
      'Page: 1 facts (limit 20, 300/4000 tokens); max_tokens is too small for the next fact: call get_context again with the same arguments and max_tokens=5120'
    )
  })

  it('ambiguous: the candidates and not to pick; not covered: why, and the packages', () => {
    const amb = { ...base, status: 'ambiguous', facts: [], candidateCount: 2, hint: 'give the package', candidates: [PIN_X, PIN_Y], suggestions: [{ name: 'S' }] }
    expect(renderContext(r(amb))).toBe(
      text(
        'STM32F407VGT6 · registers · ambiguous · release R1',
        'Ambiguous: 2 targets — give the package',
        '  - stm32:X [LQFP100], from pins/x.xml',
        '  - stm32:Y [LQFP144], from pins/y.xml',
        `${DO_NOT_PICK} (for pins, package=… also narrows it).`,
        'Did you mean: S?'
      )
    )
    expect(renderContext(r({ ...base, status: 'ambiguous', facts: [], candidateCount: 0 }))).toBe(text('STM32F407VGT6 · registers · ambiguous · release R1', 'Ambiguous: 0 targets — ', `${DO_NOT_PICK} (for pins, package=… also narrows it).`))
    const nc = { ...base, status: 'not_covered', facts: [], reason: 'no pin data', availablePackages: ['LQFP64'] }
    expect(renderContext(r(nc))).toBe(text('STM32F407VGT6 · registers · not_covered · release R1', 'Not covered: no pin data (packages: LQFP64)'))
    expect(renderContext(r({ ...base, status: 'not_covered', facts: [], availablePackages: [] }))).toBe(text('STM32F407VGT6 · registers · not_covered · release R1', 'Not covered: '))
  })
})

const SIDE = (part: string, over: Obj = {}) => ({ part, release: 'R1', status: 'resolved', ...over })

describe('renderCompareReleases', () => {
  const from = { ...REG, value: { ...REG.value, resetValue: '0x00000000', access: 'read-only' } }
  const body = {
    topic: 'registers',
    status: 'ok',
    from: SIDE('STM32F407VG', { release: 'R0' }),
    to: SIDE('STM32F407VG', { release: 'R1' }),
    counts: { added: 1, removed: 1, changed: 2, unchanged: 5 },
    artifacts: [{ status: 'changed', path: 'svd/STMicro/STM32F407.svd' }, { status: 'unchanged', path: 'pins/x.xml' }],
    changes: [
      { change: 'changed', name: 'RCC.AHB1ENR', changedMembers: ['resetValue', 'access', 'scope'], from, to: REG },
      { change: 'changed', name: 'R.L', changedMembers: ['list', 'gone'], from: { name: 'R.L', topic: 'x', value: { list: [] }, evidence: [] }, to: { name: 'R.L', topic: 'x', value: { list: [1, { a: 1 }], gone: { b: 2 } }, evidence: [] } },
      { change: 'added', name: 'RCC.NEW', package: 'LQFP100', from: null, to: { ...REG, name: 'RCC.NEW' } },
      { change: 'removed', name: 'RCC.OLD', from: { name: 'RCC.OLD', topic: 'electrical', value: { value: 1, unit: 'V' }, evidence: [] }, to: null }
    ],
    page: { ...PAGE, returned: 4, nextCursor: 'k' },
    notes: ['n1']
  }

  it('the counts, the changed artifacts, each change with both values and evidences, the page', () => {
    expect(renderCompareReleases(r(body))).toBe(
      text(
        'STM32F407VG · registers · ok · release R0 → R1',
        'Counts: 1 added, 1 removed, 2 changed, 5 unchanged',
        'Artifact changed: svd/STMicro/STM32F407.svd',
        `changed RCC.AHB1ENR: resetValue 0x00000000 → 0x00100000, access read-only → read-write, scope${REG_EV}${REG_EV}`,
        'changed R.L: list [] → 1, {"a":1}, gone undefined → {"b":2}',
        `added RCC.NEW [LQFP100]: ${REG_VALUE}${REG_EV}`,
        'removed RCC.OLD: 1 V',
        'Page: 4 changes (limit 20, 300/4000 tokens); more: call compare_releases again with the same arguments and cursor="k"',
        'Note: n1'
      )
    )
    expect(renderCompareReleases(r({ ...body, changes: [], artifacts: [], page: { ...PAGE, returned: 0 }, notes: undefined })).split('\n').at(-1)).toBe('Page: 0 changes (limit 20, 300/4000 tokens); end of the comparison')
    expect(renderCompareReleases(r({ ...body, changes: [], artifacts: [], page: { ...PAGE, returned: 0, budgetTooSmall: true, neededMaxTokens: 900 } })).split('\n').at(-2)).toBe(
      'Page: 0 changes (limit 20, 300/4000 tokens); max_tokens is too small for the next one: call compare_releases again with max_tokens=900'
    )
  })

  it('a side that did not resolve: why, its candidates and suggestions, and not to pick', () => {
    const amb = {
      ...body,
      status: 'ambiguous',
      from: SIDE('STM32F4', { release: 'R0', status: 'ambiguous', hint: 'more letters', candidates: [PIN_X], suggestions: [{ name: 'STM32F407' }] }),
      to: SIDE('STM32F4', { status: 'not_found', reason: 'no such part' })
    }
    expect(renderCompareReleases(r(amb))).toBe(
      text(
        'STM32F4 · registers · ambiguous · release R0 → R1',
        'From STM32F4 (release R0): ambiguous — more letters',
        '  - stm32:X [LQFP100], from pins/x.xml',
        '  Did you mean: STM32F407?',
        'To STM32F4 (release R1): not_found — no such part',
        `${DO_NOT_PICK}.`
      )
    )
    const nf = { ...body, status: 'not_found', from: SIDE('Q', { status: 'not_found' }), to: SIDE('Q', { status: 'not_found', candidates: [] }) }
    expect(renderCompareReleases(r(nf))).toBe(text('Q · registers · not_found · release R1 → R1', 'From Q (release R1): not_found', 'To Q (release R1): not_found'))
    const other = { ...nf, from: SIDE('Q'), to: SIDE('Q', { status: 'ambiguous', candidates: [PIN_Y] }) }
    expect(renderCompareReleases(r(other)).split('\n').at(-1)).toBe(`${DO_NOT_PICK}.`)
  })
})

describe('renderCompareParts', () => {
  const pinsOf = (pins: Obj[]) => ({ pins })
  const body = {
    topic: 'pins',
    status: 'ok',
    release: 'R1',
    part: SIDE('STM32F407VGT6'),
    other: SIDE('STM32F429ZIT6'),
    counts: { onlyPart: 1, onlyOther: 1, differs: 1, same: 1 },
    entries: [
      { status: 'differs', name: 'USART1_TX', kind: 'signal', differences: [{ member: 'pins', part: ['PA9/AF7', 'PB6/AF7'], other: ['PA9/AF7'] }, { member: 'n', part: 1, other: null }], part: pinsOf([{ pin: 'PA9', af: 7, evidence: [ev('p1.xml', 'line 5'), ev('p1.xml', 'line 6')] }]), other: pinsOf([{ pin: 'PA9', af: 7, evidence: [] }]) },
      { status: 'only_part', name: 'USART6_TX', part: pinsOf([{ pin: 'PC6', af: 8, evidence: [] }, { pin: 'PG14', af: null, evidence: [] }]), other: null },
      { status: 'only_other', name: 'LTDC_R0', part: null, other: pinsOf([{ pin: 'PH2', af: 14, evidence: [ev('p2.xml', 'line 9')] }]) },
      { status: 'same', name: 'SPI1_SCK', part: pinsOf([{ pin: 'PA5', af: 5, evidence: [] }]), other: pinsOf([{ pin: 'PA5', af: 5, evidence: [] }]) }
    ],
    page: { ...PAGE, returned: 4 },
    notes: ['n2']
  }

  it('pins: the counts, each entry with both sides\' pins and AFs, the page', () => {
    expect(renderCompareParts(r(body))).toBe(
      text(
        'STM32F407VGT6 vs STM32F429ZIT6 · pins · ok · release R1',
        'Counts: 1 only on STM32F407VGT6, 1 only on STM32F429ZIT6, 1 differ, 1 the same',
        'differs USART1_TX (signal): pins PA9/AF7, PB6/AF7 vs PA9/AF7, n 1 vs null [p1.xml line 5]',
        'only_part USART6_TX: only on STM32F407VGT6 (PC6/AF8, PG14)',
        'only_other LTDC_R0: only on STM32F429ZIT6 (PH2/AF14) [p2.xml line 9]',
        'same SPI1_SCK: same (PA5/AF5)',
        'Page: 4 entries (limit 20, 300/4000 tokens); end of the comparison',
        'Note: n2'
      )
    )
  })

  it('facts: their values, errata only listed, evidences', () => {
    const regs = { ...body, topic: 'registers', entries: [{ status: 'only_part', name: 'RCC.AHB1ENR', part: REG, other: null }], page: { ...PAGE, nextCursor: 'z' }, notes: undefined }
    expect(renderCompareParts(r(regs)).split('\n').slice(2)).toEqual([
      `only_part RCC.AHB1ENR: only on STM32F407VGT6 (${REG_VALUE})${REG_EV}`,
      'Page: 1 entries (limit 20, 300/4000 tokens); more: call compare_parts again with the same arguments and cursor="z"'
    ])
    const errata = { ...regs, topic: 'errata', entries: [{ status: 'same', name: 'anomaly 1', part: { name: 'anomaly 1', topic: 'errata', value: { kind: 'anomaly', number: 1, revisions: [] }, evidence: [ev('e.h', 'line 3')] }, other: null }] }
    expect(renderCompareParts(r(errata)).split('\n')[2]).toBe('same anomaly 1: same (listed) [e.h line 3]')
  })

  it('a part that did not resolve: not compared, and not to pick', () => {
    const amb = { ...body, status: 'ambiguous', part: SIDE('STM32F4', { status: 'ambiguous', candidates: [PIN_X] }), other: SIDE('STM32F429ZIT6') }
    expect(renderCompareParts(r(amb))).toBe(text('STM32F4 vs STM32F429ZIT6 · pins · ambiguous · release R1', 'Part STM32F4 (release R1): ambiguous', '  - stm32:X [LQFP100], from pins/x.xml', `${DO_NOT_PICK}.`))
    const nf = { ...body, status: 'not_found', part: SIDE('A'), other: SIDE('B', { status: 'not_found', suggestions: [{ name: 'BB' }] }) }
    expect(renderCompareParts(r(nf))).toBe(text('A vs B · pins · not_found · release R1', 'Other B (release R1): not_found', '  Did you mean: BB?'))
  })
})

describe('renderCheck', () => {
  const finding = { severity: 'error', code: 'PIN_CONFLICT', inputs: ['USART1_TX:PA9', 'TIM1_CH2:PA9'], message: 'PA9 is assigned 2 times', evidence: [ev('pins/x.xml', 'line 534')] }
  const body = {
    part: 'STM32F407VGT6',
    status: 'checked',
    valid: false,
    release: 'R1',
    pinsTarget: PIN_X,
    counts: { error: 1, warning: 0, info: 2 },
    findings: [finding, { severity: 'info', code: 'OK', inputs: ['a', 'b', 'c', 'd', 'e', 'f', 'g'], message: 'fine', evidence: [] }],
    page: { returned: 2, total: 2, truncatedBy: null, neededMaxTokens: null },
    notes: ['n3'],
    suggestions: []
  }

  it('the verdict, the pins target, the counts, each finding with its inputs and evidence', () => {
    expect(renderCheck(r(body))).toBe(
      text(
        'STM32F407VGT6 · check · checked · valid: false · release R1',
        'Pins: stm32:X [LQFP100], from pins/x.xml',
        'Findings: 1 errors, 0 warnings, 2 info',
        'error PIN_CONFLICT [USART1_TX:PA9, TIM1_CH2:PA9]: PA9 is assigned 2 times [pins/x.xml line 534]',
        'info OK [a, b, c, d, e, f, … (7 in all)]: fine',
        'Note: n3'
      )
    )
    expect(renderCheck(r({ ...body, valid: null, pinsTarget: undefined, findings: [], notes: undefined })).split('\n')[0]).toBe('STM32F407VGT6 · check · checked · valid: null (something asked is not covered) · release R1')
    expect(renderCheck(r({ ...body, valid: true, findings: [], page: { returned: 0, total: 9, truncatedBy: 'max_tokens', neededMaxTokens: 7000 }, notes: [] })).split('\n').slice(-1)).toEqual([
      'Listed 0 of 9: call check_configuration again with max_tokens=7000 for all.'
    ])
  })

  it('an ambiguous part: the candidates and not to pick; no verdict, no counts', () => {
    const amb = { ...body, status: 'ambiguous', valid: undefined, pinsTarget: undefined, hint: 'which package', candidates: [PIN_X, PIN_Y], findings: [], notes: undefined, suggestions: [{ name: 'S1' }] }
    expect(renderCheck(r(amb))).toBe(
      text(
        'STM32F407VGT6 · check · ambiguous · release R1',
        'Ambiguous: which package',
        '  - stm32:X [LQFP100], from pins/x.xml',
        '  - stm32:Y [LQFP144], from pins/y.xml',
        `${DO_NOT_PICK} (for pins, package=… also narrows it).`,
        'Did you mean: S1?'
      )
    )
    expect(renderCheck(r({ ...amb, hint: undefined, candidates: undefined, suggestions: undefined }))).toBe(text('STM32F407VGT6 · check · ambiguous · release R1', 'Ambiguous: ', `${DO_NOT_PICK} (for pins, package=… also narrows it).`))
  })
})

describe('the edges of the lists', () => {
  it('a list of exactly its bound is shown whole; one more is cut', () => {
    const twelve = Array.from({ length: 12 }, (_, i) => `P${i}`)
    const body = (packages: string[] | undefined) => ({ part: 'X', topic: 'pins', status: 'not_covered', release: 'R1', filters: {}, facts: [], reason: 'r', availablePackages: packages, page: PAGE })
    expect(renderContext(r(body(twelve))).split('\n')[1]).toBe(`Not covered: r (packages: ${twelve.join(', ')})`)
    expect(renderContext(r(body([...twelve, 'P12']))).split('\n')[1]).toBe(`Not covered: r (packages: ${twelve.join(', ')}, … (13 in all))`)
    expect(renderContext(r(body(undefined))).split('\n')[1]).toBe('Not covered: r')
  })

  it('a target\'s parts: six are all; the count only when there are more', () => {
    const topics = (parts: string[], partCount?: number) => ({ registers: { status: 'resolved', target: { key: 'k', source: { path: '' }, parts, ...(partCount === undefined ? {} : { partCount }) } } })
    const line = (parts: string[], partCount?: number) => renderCoverage(r({ part: 'X', status: 'resolved', release: 'R1', covered: [], notCovered: [], topics: topics(parts, partCount) })).split('\n')[1]
    const six = ['A', 'B', 'C', 'D', 'E', 'F']
    expect(line(six, 6)).toBe('  registers: resolved → k, parts A, B, C, D, E, F')
    expect(line(['A', 'B', 'C'])).toBe('  registers: resolved → k, parts A, B, C')
    expect(line([])).toBe('  registers: resolved → k')
  })

  it('packages are named for a topic not covered, not for one not found', () => {
    const line = (status: string, over: Obj = {}) => renderCoverage(r({ part: 'X', status: 'resolved', release: 'R1', covered: [], notCovered: [], topics: { pins: { status, ...over } } })).split('\n')[1]
    expect(line('not_found', { availablePackages: ['LQFP64'] })).toBe('  pins: not found')
    expect(line('not_covered')).toBe('  pins: not covered')
  })

  it('an ambiguous answer with one candidate still lists it', () => {
    const body = { q: 'Q', status: 'ambiguous', release: 'R1', topics: {}, candidates: [{ name: 'A1', why: 'w' }], candidateCount: 1, page: { nextCursor: null } }
    expect(renderResolve(r(body))).toBe(text('Q → ambiguous, release R1', 'Topics:', 'Candidates (1 of 1):', '  - A1: w', `Next: ${DO_NOT_PICK}.`))
  })

  it('a source without upstream, a part without members', () => {
    const src = { path: 'p.svd', kind: 'svd', targets: [], trust: { checksumVerified: false } }
    const body = { part: { name: 'P' }, status: 'resolved', release: 'R1', documents: {}, sources: [src] }
    expect(renderCatalogPart(r(body))).toBe(text('P: resolved, release R1', 'Documents:', 'Sources (1):', '  - p.svd — svd'))
  })

  it('eight enumerated values are all; a field without any; two revisions not affected', () => {
    const ctx = (f: Obj) => renderContext(r({ part: 'X', topic: 'registers', status: 'ok', release: 'R1', filters: {}, facts: [f], page: PAGE })).split('\n')[1]
    const eight = { name: 'R.F', topic: 'registers', value: { bitOffset: 0, bitWidth: 3, enumeratedValues: Array.from({ length: 8 }, (_, i) => ({ name: `V${i}`, value: i })) }, evidence: [] }
    expect(ctx(eight)).toBe('R.F = bits [2:0], values 0=V0 1=V1 2=V2 3=V3 4=V4 5=V5 6=V6 7=V7')
    expect(ctx({ name: 'R.G', topic: 'registers', value: { bitOffset: 5, bitWidth: 1 }, evidence: [] })).toBe('R.G = bit 5')
    const erratum = { name: 'e', topic: 'errata', value: { kind: 'erratum', number: 3, revisions: [{ code: 'A', applies: true }, { code: 'B', applies: false }, { code: 'C', applies: false }] }, evidence: [] }
    expect(ctx(erratum)).toBe('e = erratum 3; applies to revisions A; not B C')
  })
})

