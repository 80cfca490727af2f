/**
 * Hand-made bodies of every operation, as the README and docs describe the answers, checked with
 * TypeBox's Value against the response schemas: each closed object of the schemas appears with its
 * members, so a schema that loses a member, a type or an alternative refuses a right body; wrong
 * bodies (a member missing, one too many, a wrong value) are refused. Also which members and
 * schemas each contract version has (`forVersion`). The `schema-bodies` mutation module.
 */
import Value from 'typebox/value'
import { describe, expect, it } from 'vitest'
import { CheckedTopic, Discrepancy, DiscrepanciesResponse } from '../../src/schemas/discrepancies.js'
import { CheckResponse, Finding } from '../../src/schemas/check.js'
import { ComparePartsResponse, CompareReleasesResponse } from '../../src/schemas/compare.js'
import { Release, TopicCoverage, TopicResolution, TopicResolutions, TopicSource } from '../../src/schemas/catalog.js'
import { Fact, RegisterFact, MemoryFact } from '../../src/schemas/facts.js'
import * as r from '../../src/schemas/responses.js'
import { forVersion } from '../../src/schemas/versions.js'

type Node = Record<string, any>
const SEED = '2026-08-26' as const
const LATER = '2026-12-01' as const
const REL = '0123456789abcdef'
const SHA = 'ab'.repeat(32)

/** The first error of a body against a schema, or undefined: the message names the member. */
function firstError(schema: unknown, body: unknown): string | undefined {
  for (const e of Value.Errors(schema as never, body)) return `${(e as Node).instancePath ?? ''} ${(e as Node).message ?? ''}`
  return undefined
}
const ok = (schema: unknown, body: unknown, what: string) => expect(firstError(schema, body), what).toBeUndefined()
const bad = (schema: unknown, body: unknown, what: string) => expect(Value.Check(schema as never, body), what).toBe(false)

const evidence = () => [{ sourceSha256: SHA, sourcePath: 'svd/ST/STM32F407.svd', locator: 'line 12: /device', excerpt: '<name>GPIOA</name>' }]
const scope = () => ({ device: 'STM32F407', parts: ['STM32F407VGTx'], package: 'LQFP100', siliconRevisions: ['0x05'], source: 'svd/ST/STM32F407.svd' })
const fact = (topic: string, name: string, value: Node) => ({ id: 'f1', topic, name, aliases: ['ALIAS'], value, scope: scope(), evidence: evidence(), agreement: 'agree' })

/** One fact of each topic, and of each kind of register element and erratum source. */
function facts(): Node[] {
  return [
    fact('registers', 'GPIOA', { baseAddress: '0x40020000', description: null, groupName: 'GPIO', derivedFrom: 'GPIOB', interrupts: [{ name: 'EXTI0', value: 6, description: 'EXTI Line0' }, { name: 'X', value: null, description: null }] }),
    fact('registers', 'GPIOA.MODER', { address: '0x40020000', offset: '0x0', size: 32, resetValue: '0xA8000000', resetMask: null, access: 'read-write', description: 'mode', protection: 's', array: { count: 16777216, increment: '0x1' } }),
    fact('registers', 'GPIOA.MODER.MODER0', { bitOffset: 0, bitWidth: 2, access: null, description: null, enumeratedValues: [{ name: 'Input', value: 0, description: null, usage: 'read', isDefault: true }, { name: 'X', value: '#1x0', description: 'd' }, { name: 'Y', value: null, description: null }] }),
    fact('pins', 'PA9', {
      label: 'PA9', package: 'LQFP100', position: '68', positions: ['68'], type: 'I/O', signals: ['USART1_TX'], ioModes: ['OUTPUT'],
      alternateFunctions: [{ af: 7, signal: 'USART1_TX' }], remaps: [{ signal: 'USART1_TX', block: 'USART1_REMAP0', default: true, macro: 'M' }], alternateFunctionsUnknown: 'why',
      variants: [{ position: '3', label: 'PA9', variant: 'PINREMAP', signals: ['USART1_TX'] }]
    }),
    fact('electrical', 'supply.vdd.min', { value: 1.7, unit: 'V' }),
    fact('errata', 'errata.109', {
      number: 109, series: 'nRF52', device: 'nRF52832', kind: 'erratum', function: 'nrf52_errata_109', partCode: null, variants: ['NRF52832_XXAA'], revisions: [{ code: '0x05', applies: true }],
      appliesToUnlistedRevisions: false, handling: [{ handling: 'MDK', module: 'USBD', functions: ['f'], comment: null }], workaroundInMdk: true, workaroundEnabledByDefault: false
    }),
    fact('errata', 'errata.6070', { id: '6070', module: 'I2C', title: 'I2C: a title' }),
    fact('memory', 'SRAM', { kind: 'ram', start: '0x20000000', size: 131072, access: { read: true, write: true, execute: false, boot: false }, eraseSize: 0, writeSize: 8, cores: ['main'], alias: true, layout: 'dual-bank' }),
    fact('interrupts', 'USART1', { number: -16, peripherals: ['USART1'] }),
    fact('dma', 'USART1.TX', { options: [{ controller: 'DMA2', channel: 4, request: null, channels: ['DMA1_CH0'], remap: [{ register: 'CFGR1', field: 'ADC2_DMA_RMP', value: 0 }] }, { controller: 'DMAMUX1', channel: null, request: 7 }] }),
    fact('clocks', 'USART1', { busClock: 'PCLK2', kernelClock: 'RCC.CCIPR.USART1SEL', kernelClockMux: { register: 'RCC.CCIPR', field: 'USART1SEL' }, enable: 'RCC.APB2ENR.USART1EN', reset: null, stopMode: 'Stop1' })
  ]
}

const sourceRef = () => ({ path: 'svd/ST/STM32F407.svd', sha256: SHA })
const problem = () => ({ file: 'svd/x.svd', line: 3, reason: 'bad' })
const target = () => ({ key: 'svd:STM32F407', device: 'STM32F407', package: 'LQFP100', factCount: 10, source: sourceRef(), failure: problem(), sourceProblems: { count: 1, first: [problem()] }, parts: ['STM32F407VGTx'], partCount: 1 })
const crossCheckRef = () => ({ reason: 'the register map is served', checked: [{ key: 'probe-rs:x', device: 'X', factCount: 3, source: sourceRef() }], unchecked: [{ kind: 'modm', targets: ['a', 'b'] }] })
const part = () => ({ name: 'STM32F407VGTx', kind: 'selector-part', package: 'LQFP100', family: 'STM32F4', line: 'STM32F407', core: 'Cortex-M4', flashKb: 1024, ramKb: 192, maxFrequencyMhz: 168, memberCount: 1 })
const TOPICS = ['registers', 'pins', 'electrical', 'errata', 'memory', 'interrupts', 'dma', 'clocks']
const perTopic = (f: (t: string, i: number) => unknown) => Object.fromEntries(TOPICS.map((t, i) => [t, f(t, i)]))
/** Each status of a topic's resolution, in turn over the topics. */
const resolution = (i: number, resolved: Node): unknown =>
  [resolved, { status: 'ambiguous', candidates: [target()], candidateCount: 2, hint: 'pass package' }, { status: 'not_covered', reason: 'no source', availablePackages: ['LQFP64'] }, { status: 'source_failed', reason: 'unreadable', failures: [problem()] }][i % 4]!
const listPage = () => ({ returned: 1, limit: 10, nextCursor: null })
const page = () => ({ returned: 1, limit: 20, maxTokens: 4000, tokens: 900, truncatedBy: 'limit', nextCursor: 'c', budgetTooSmall: false, neededMaxTokens: null })
const source = () => ({
  path: 'svd/ST/STM32F407.svd', sha256: SHA, bytes: 10, kind: 'svd', publisher: 'ST', distributor: 'ARM', license: 'Apache-2.0', mediaType: 'application/xml',
  upstream: { repository: 'r', commit: 'c', path: 'p', url: 'u', rawUrl: 'w' }, archivePath: 'sources/ab', targets: ['svd:STM32F407'],
  trust: { checksumVerified: true, checksumNote: 'n', publisherDistributed: true, license: 'Apache-2.0' }
})
const contextTarget = () => ({ key: 'svd:STM32F407', device: 'STM32F407', package: 'LQFP100', source: sourceRef() })
const compareSide = () => ({ part: 'STM32F407', release: REL, status: 'ambiguous', target: contextTarget(), candidates: [target()], candidateCount: 2, hint: 'h', reason: 'r', failures: [problem()], suggestions: [{ name: 'STM32F407', distance: 1 }] })

/** A right body of each operation, every member the schema describes present. */
function bodies(): Array<[string, unknown, Node]> {
  const all = facts()
  return [
    ['ResolveResponse', r.ResolveResponse, {
      release: REL, q: 'stm32f407', normalized: 'STM32F407', status: 'resolved', match: 'exact', part: { ...part(), reason: 'curated' },
      topics: perTopic((_, i) => resolution(i, { status: 'resolved', target: target(), crossCheck: crossCheckRef() })),
      candidates: [{ ...part(), why: 'prefix' }], candidateCount: 1, page: listPage(), suggestions: [{ name: 'STM32F407', distance: 0 }], next: 'read facts'
    }],
    ['CatalogSearchResponse', r.CatalogSearchResponse, { release: REL, q: 'stm32', normalized: 'STM32', status: 'found', match: null, results: [{ ...part(), why: 'prefix', topics: ['pins'] }], total: 1, page: listPage(), suggestions: [] }],
    ['CatalogPartResponse', r.CatalogPartResponse, {
      release: REL, part: { ...part(), members: ['A'], reason: 'why' }, status: 'found', match: 'ordering-code', documents: perTopic((_, i) => resolution(i, { status: 'resolved', target: target() })),
      sources: [source()], candidates: [{ ...part(), why: 'w' }], candidateCount: 1, suggestions: []
    }],
    ['CoverageResponse', r.CoverageResponse, {
      release: REL, part: 'STM32F407', status: 'resolved', topics: perTopic((_, i) => resolution(i, { status: 'covered', factCount: 3, target: target(), crossCheck: crossCheckRef() })),
      covered: ['registers'], notCovered: ['errata'], sourceFailed: ['pins'], candidates: [], candidateCount: 0, suggestions: []
    }],
    ['SourcesResponse', r.SourcesResponse, { release: REL, part: 'p', status: 'not_found', topics: perTopic((_, i) => resolution(i, { status: 'resolved', target: 'svd:X', sourcePath: 'svd/x.svd', crossCheck: crossCheckRef() })), sources: [source()], suggestions: [] }],
    ['ContextResponse', r.ContextResponse, {
      release: REL, part: 'STM32F407', topic: 'registers', status: 'ok', resolvedPart: { name: 'STM32F407', kind: 'refname' }, target: contextTarget(),
      crossCheck: { checked: [{ key: 'k', source: sourceRef() }], unchecked: [{ kind: 'modm', targets: ['t'] }], agree: 1, disagree: 0, onlyChecked: { k: 2 } },
      filters: { factNames: ['A'], factNamePrefixes: ['B.'], peripheral: 'USART1', package: 'LQFP100', siliconRevision: '0x05', queryTerms: ['uart'], elided: true },
      facts: all, page: page(), suggestions: [], candidates: [target()], candidateCount: 1, hint: 'h', reason: 'r', failures: [problem()], availablePackages: ['LQFP64'], notes: ['n']
    }],
    ['ReleaseResponse', r.ReleaseResponse, {
      release: {
        id: REL, createdAt: '2026-11-26T10:00:00Z', format: 'sqlite-1', indexerFormat: 3, tokenizer: 'cl100k_base',
        counts: { facts: 10, parts: 2, partsByVendor: { ST: 2 }, targets: 1, byTopic: perTopic(() => 1) }, sourceCount: 1, complete: true, kept: [REL], store: 'sqlite'
      },
      api: { version: SEED, openapi_sha256: `sha256:${SHA}` }
    }],
    ['Health', r.Health, { status: 'ok', service: 'hardware-facts', version: '0.1.0', release: { id: REL, complete: true, facts: 3 }, api: { version: LATER, openapi_sha256: `sha256:${SHA}` }, checks: { store: { ok: true, detail: 'd', critical: true } } }],
    ['ErrorCodeGuidance', r.ErrorCodeGuidance, { code: 'INVALID_CURSOR', status: 400, title: 't', retryable: false, guidance: 'g' }],
    ['CompareReleasesResponse', CompareReleasesResponse, {
      topic: 'registers', status: 'ok', from: compareSide(), to: { ...compareSide(), target: null }, filters: { factNames: ['A'], factNamePrefixes: ['B'], peripheral: 'P', signal: 'S', includeSame: true },
      artifacts: [{ path: 'p', status: 'changed', fromSha256: SHA, toSha256: null }], counts: { added: 1, removed: 0, changed: 0, unchanged: 2 }, elided: true,
      changes: [{ change: 'changed', name: 'GPIOA.MODER', package: 'LQFP100', changedMembers: ['size'], from: all[1], to: null }], page: page(), notes: ['n']
    }],
    ['ComparePartsResponse', ComparePartsResponse, {
      release: REL, topic: 'pins', status: 'ok', part: compareSide(), other: compareSide(), filters: {}, counts: { onlyPart: 1, onlyOther: 0, differs: 1, same: 0 }, elided: true,
      entries: [
        { name: 'GPIOA.MODER', kind: 'register', status: 'differs', differences: [{ member: 'size', part: 32, other: null }, { member: 'access', part: 'read-write', other: 'read-only' }, { member: 'pins', part: ['PA9/AF7'], other: ['PB6/AF7'] }, { member: 'array', part: { count: 2, increment: '0x4' }, other: null }], part: all[1], other: null },
        { name: 'USART1_TX', status: 'only_part', differences: [], part: { pins: [{ pin: 'PA9', position: '68', af: 7, evidence: evidence() }, { pin: 'PB6', position: '92', af: null, evidence: evidence() }] }, other: null }
      ],
      page: page(), notes: []
    }],
    ['DiscrepanciesResponse', DiscrepanciesResponse, {
      release: REL, part: 'STM32F407', status: 'resolved', resolvedPart: { name: 'STM32F407', kind: 'device' },
      checked: [{ topic: 'interrupts', target: 'svd:X', ...crossCheckRef(), agree: 3, disagree: 1, onlyChecked: { 'probe-rs:x': 0 } }],
      discrepancies: [{ topic: 'interrupts', name: 'USART1', facts: [all[8], all[8]] }], count: 1, page: listPage(), notes: ['n'], suggestions: []
    }],
    ['CheckResponse', CheckResponse, {
      release: REL, part: 'STM32F407VGTx', status: 'checked', valid: null, resolvedPart: { name: 'STM32F407VGTx', kind: 'selector-part' }, pinsTarget: contextTarget(), counts: { error: 1, warning: 0, info: 2 },
      findings: [
        {
          severity: 'error', code: 'SIGNAL_NOT_ON_PIN', inputs: ['USART1_TX:PB0'], message: 'm', evidence: evidence(), pins: [{ pin: 'PA9', position: '68', af: 7, remap: 'PINREMAP' }, { pin: 'PB6', position: '92', af: null }],
          limits: [{ parameter: 'vdd', given: 4, limit: 'supply.vdd.max', bound: 'max', value: 3.6, unit: 'V' }],
          erratum: { id: 'errata.109', title: null, module: 'USBD', workaround: null, revisions: ['0x05'] },
          clock: { peripheral: 'USART1', enable: 'RCC.APB2ENR.USART1EN', reset: null, busClock: 'PCLK2', kernelClock: null },
          dma: [{ controller: 'DMA2', channel: 7, request: 4 }], topic: 'dma'
        },
        { severity: 'info', code: 'PIN_OK', inputs: [], message: 'm', evidence: [], erratum: { id: 'errata.1', title: 't', module: null, workaround: 'w', revisions: null } }
      ],
      page: { returned: 2, total: 3, maxTokens: 4000, tokens: 700, truncatedBy: 'max_tokens', budgetTooSmall: false, neededMaxTokens: 5000 },
      candidates: [target()], candidateCount: 1, hint: 'h', suggestions: [], notes: ['n']
    }]
  ]
}

describe('right bodies of every operation', () => {
  it('are accepted, every member the schema describes present', () => {
    for (const [name, schema, body] of bodies()) ok(schema, body, name)
  })

  it('facts of every topic, and each as the fact union takes it', () => {
    for (const f of facts()) ok(Fact, f, f.name)
    // The smallest fact: no aliases, no agreement, scope of a device only, evidence once.
    ok(Fact, { id: 'x', topic: 'electrical', name: 'n', value: { value: 1, unit: 'V' }, scope: { device: 'D' }, evidence: evidence() }, 'smallest')
  })
})

describe('wrong bodies', () => {
  it('a member too many, in a closed part of a body, is refused', () => {
    const [, , ctx] = bodies().find(([n]) => n === 'ContextResponse')!
    const f = facts()
    for (const [i, where] of f.map((x, i) => [i, x.name] as const)) {
      bad(r.ContextResponse, { ...ctx, facts: [{ ...f[i], extra: 1 }] }, `fact ${where}`)
      bad(r.ContextResponse, { ...ctx, facts: [{ ...f[i], value: { ...f[i]!.value, extra: 1 } }] }, `value ${where}`)
    }
    bad(r.ContextResponse, { ...ctx, page: { ...page(), extra: 1 } }, 'page')
    bad(r.ContextResponse, { ...ctx, filters: { extra: 1 } }, 'filters')
    bad(r.ContextResponse, { ...ctx, target: { ...contextTarget(), extra: 1 } }, 'target')
    bad(r.ContextResponse, { ...ctx, facts: [{ ...f[4], scope: { device: 'D', extra: 1 } }] }, 'scope')
    bad(r.ContextResponse, { ...ctx, facts: [{ ...f[4], evidence: [{ ...evidence()[0], extra: 1 }] }] }, 'evidence')
  })

  it('a member missing, a value of the wrong type or out of range, is refused', () => {
    const f = facts()
    const { value: _v, ...noValue } = f[4]!
    bad(Fact, noValue, 'no value')
    bad(Fact, { ...f[4], evidence: [] }, 'no evidence')
    bad(Fact, { ...f[4], topic: 'pins' }, 'topic of another value')
    bad(Fact, { ...f[4], agreement: 'maybe' }, 'agreement')
    bad(Fact, { ...f[0], value: { ...f[0]!.value, baseAddress: '40020000' } }, 'hex')
    bad(Fact, { ...f[2], value: { ...f[2]!.value, bitWidth: 0 } }, 'bitWidth')
    bad(Fact, { ...f[1], value: { ...f[1]!.value, array: { count: 1, increment: '0x4' } } }, 'array count')
    bad(Fact, { ...f[8], value: { number: -17, peripherals: [] } }, 'irq number')
    bad(Fact, { ...f[7], value: { ...f[7]!.value, kind: 'sram' } }, 'memory kind')
    bad(Fact, { ...f[7], value: { ...f[7]!.value, alias: false } }, 'alias')
    bad(Fact, { ...f[2], value: { ...f[2]!.value, enumeratedValues: [{ name: 'x', value: 1, description: null, isDefault: false }] } }, 'isDefault')
    bad(Discrepancy, { topic: 'pins', name: 'PA9', facts: [f[3]] }, 'one fact')
    bad(Discrepancy, { topic: 'pins', name: 'PA9', facts: [f[3], f[3], f[3]] }, 'three facts')
    bad(CheckedTopic, { topic: 'pins', target: 't', ...crossCheckRef(), agree: -1, disagree: 0, onlyChecked: {} }, 'negative count')
    // Open parts of a body still type the members they describe.
    const [, , res] = bodies()[0]!
    bad(r.ResolveResponse, { ...res, topics: { ...res.topics, registers: { status: 'resolved', target: { ...target(), factCount: -1 } } } }, 'target factCount')
    bad(r.ResolveResponse, { ...res, topics: { ...res.topics, registers: { status: 'resolved', target: { ...target(), source: {} } } } }, 'target source')
    bad(r.Health, { status: 'ok', checks: { store: { ok: 'yes' } } }, 'health check')
    bad(Finding, { severity: 'fatal', code: 'PIN_OK', inputs: [], message: 'm', evidence: [] }, 'severity')
    bad(Finding, { severity: 'info', code: 'PIN_FINE', inputs: [], message: 'm', evidence: [] }, 'code')
  })
})

describe('each contract version its form', () => {
  it('the seed contract has the four seed topics, required; 2026-12-01 requires all eight', () => {
    const seed = forVersion(TopicResolutions, SEED) as Node
    expect(Object.keys(seed.properties)).toEqual(['registers', 'pins', 'electrical', 'errata'])
    expect(seed.required).toEqual(['registers', 'pins', 'electrical', 'errata'])
    expect((forVersion(TopicResolutions, LATER) as Node).required).toEqual(TOPICS)
    // The runtime schema serves both: the later topics optional.
    expect((TopicResolutions as Node).required).toEqual(['registers', 'pins', 'electrical', 'errata'])
    const byTopic = forVersion(Release, SEED) as Node
    expect(Object.keys(byTopic.properties.counts.properties.byTopic.properties)).toEqual(['registers', 'pins', 'electrical', 'errata'])
  })

  it('cross-checks, aliases, the depth facts and the depth operations are of 2026-12-01', () => {
    for (const u of [TopicResolution, TopicCoverage, TopicSource]) {
      const seed = JSON.stringify(forVersion(u, SEED))
      expect(seed).not.toContain('crossCheck')
      expect(JSON.stringify(forVersion(u, LATER))).toContain('crossCheck')
    }
    expect(Object.keys((forVersion(r.ContextResponse, SEED) as Node).properties)).not.toContain('crossCheck')
    expect(Object.keys((forVersion(r.ContextResponse, LATER) as Node).properties)).toContain('crossCheck')
    expect(Object.keys((forVersion(RegisterFact, SEED) as Node).properties)).not.toContain('aliases')
    expect(Object.keys((forVersion(RegisterFact, LATER) as Node).properties)).toContain('aliases')
    expect(forVersion(MemoryFact, SEED)).toBeUndefined()
    expect(forVersion(MemoryFact, LATER)).toBeDefined()
    expect((forVersion(Fact, SEED) as Node).anyOf.map((f: Node) => f.properties.topic.const)).toEqual(['registers', 'pins', 'electrical', 'errata'])
    for (const s of [DiscrepanciesResponse, CheckResponse, Discrepancy, CheckedTopic, Finding]) {
      expect(forVersion(s, SEED), (s as Node).$id).toBeUndefined()
      expect(forVersion(s, LATER), (s as Node).$id).toBeDefined()
    }
  })
})
