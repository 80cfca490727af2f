import { describe, expect, it } from 'vitest'
import type { TargetSummary } from '../../src/model/catalog.js'
import type { Topic } from '../../src/model/fact.js'
import type { TargetChoice } from '../../src/service/catalog-index.js'
import { crossCheck, crossCheckedRow, planCrossCheck, type CrossCheckResult, type CrossPlan } from '../../src/service/cross-check.js'
import type { DecodedFact } from '../../src/store/fact-body.js'
import { selectionOf, type FactQuery, type FactRow, type ReleaseStore } from '../../src/store/types.js'

/*
 * The cross-check's rules at their edges (issue 30, mutation module `cross-check`), on in-memory
 * stores: every expected agreement, alias, discrepancy and unmatched name is worked out by hand
 * from the facts below and the rules the module states (curation `crossCheck`: kinds in order,
 * never a pick; interrupts by name, then number; memory by the ranges each kind covers).
 */

const target = (key: string, sourcePath: string): TargetSummary => ({ key, topics: ['interrupts', 'memory', 'dma'], device: key, sourcePath, sourceSha256: 'a'.repeat(64), factCounts: {} })
const choice = (key: string, path: string): TargetChoice => ({ target: target(key, path), parts: ['P'] })

let nextId = 0
const fact = (topic: Topic, name: string, value: Record<string, unknown>, path: string | null, line: number): DecodedFact => ({
  id: `e${nextId++}`,
  topic,
  name,
  value,
  scope: { device: 'D' },
  evidence: path === null ? [] : [{ sourceSha256: 'b'.repeat(64), sourcePath: path, locator: `line ${line}`, excerpt: name }]
})

/** A store holding facts per target key in stored order, filtered by names and prefixes as the stores filter them. */
function store(byTarget: Record<string, DecodedFact[]>): ReleaseStore {
  return {
    manifest: {} as ReleaseStore['manifest'],
    catalog: { entities: [], targets: [], gaps: [] },
    async queryFacts(q: FactQuery): Promise<FactRow[]> {
      const named = (n: string) => (q.names.length === 0 && q.prefixes.length === 0) || q.names.some((x) => x.toUpperCase() === n.toUpperCase()) || q.prefixes.some((p) => n.toUpperCase().startsWith(p.toUpperCase()))
      return (byTarget[q.target] ?? [])
        .map((f, ord) => ({ f, ord }))
        .filter(({ f }) => f.topic === q.topic && named(f.name))
        .slice(0, q.limit)
        .map(({ f, ord }) => ({ ord, score: 0, tokens: 1, body: JSON.stringify(f) }))
    },
    async selectFacts(q: FactQuery) {
      return selectionOf(await this.queryFacts(q))
    },
    async close() {}
  }
}

const CHIP = 'chips/stm32-data/X.json'
const SVD = 'svd/X.svd'
const PROBE = 'targets/probe-rs/X.yaml'
const plan = (checked: TargetChoice[], more: Partial<CrossPlan> = {}): CrossPlan => ({ served: choice('chip', CHIP), checked, reason: 'rule', unchecked: [], ...more })
/** What the served fact at `ord` is answered as: itself, then each checked source's differing fact. */
const answered = (r: CrossCheckResult, served: DecodedFact[], ord: number) => JSON.parse(`[${crossCheckedRow({ ord, score: 0, tokens: 1, body: JSON.stringify(served[ord]) }, r).body}]`) as DecodedFact[]
const counts = (r: CrossCheckResult) => ({ agree: r.agree, disagree: r.disagree, onlyChecked: r.onlyChecked })

describe('planCrossCheck', () => {
  const kinds: Record<string, string> = { [CHIP]: 'stm32-data-chip', [SVD]: 'cmsis-svd', [PROBE]: 'probe-rs-target', 'm.xml': 'modm-device' }
  const kindOf = (c: TargetChoice) => kinds[c.target.sourcePath]!

  it('kinds the rule does not list come after those it lists, in the order of their names; the plan carries the rule\'s reason, compare and subset', () => {
    const r = planCrossCheck([choice('probe', PROBE), choice('modm', 'm.xml'), choice('svd', SVD), choice('chip', CHIP)], { order: ['stm32-data-chip'], reason: 'why', compare: ['alternateFunctions'], subset: true }, kindOf)
    expect(r.leads.map((c) => c.target.key)).toEqual(['chip'])
    expect({ ...r.plan!, served: r.plan!.served.target.key, checked: r.plan!.checked.map((c) => c.target.key) }).toEqual({ served: 'chip', checked: ['svd', 'modm', 'probe'], reason: 'why', unchecked: [], compare: ['alternateFunctions'], subset: true })
    // No kind listed: the first by name leads.
    const none = planCrossCheck([choice('probe', PROBE), choice('svd', SVD)], { order: [], reason: 'why' }, kindOf)
    expect(none.plan!.served.target.key).toBe('svd')
    expect(none.plan).not.toHaveProperty('compare')
    expect(none.plan).not.toHaveProperty('subset')
    expect(planCrossCheck([choice('svd', SVD), choice('probe', PROBE)], { order: [], reason: 'why' }, kindOf).plan!.served.target.key).toBe('svd')
  })
})

describe('crossCheck by name', () => {
  it('reads every fact of each target (no name filter), matches names whatever their case and punctuation, and lists the checked facts none matches', async () => {
    const served = [fact('dma', 'USART1.TX', { options: [1] }, CHIP, 1), fact('dma', 'SPI1.RX', { options: [2] }, CHIP, 2)]
    const checked = [fact('dma', 'Usart1Tx', { options: [1] }, SVD, 1), fact('dma', 'SPI1-RX', { options: [3] }, SVD, 2), fact('dma', 'TIM1.UP', { options: [4] }, SVD, 3)]
    const r = await crossCheck(store({ chip: served, svd: checked }), 'dma', plan([choice('svd', SVD)]))
    expect(counts(r)).toEqual({ agree: 1, disagree: 1, onlyChecked: { svd: ['TIM1.UP'] } })
    expect(r.discrepancies.map((d) => [d.name, d.facts.map((f) => f.value.options)])).toEqual([['SPI1.RX', [[2], [3]]]])
    const all = await crossCheck(store({ chip: served, svd: checked.slice(0, 2) }), 'dma', plan([choice('svd', SVD)]))
    expect(all.onlyChecked).toEqual({})
  })

  it('a fact one checked source contradicts stays disagreeing when another agrees; each side is scoped to its own source', async () => {
    const served = [fact('clocks', 'USART1', { enable: 'A' }, 'chips/stm32-data/evidence.json', 1), fact('clocks', 'SPI1', { enable: 'S' }, null, 2)]
    const svd = [fact('clocks', 'USART1', { enable: 'B' }, 'svd/evidence.svd', 5), fact('clocks', 'SPI1', { enable: 'T' }, null, 6)]
    const probe = [fact('clocks', 'USART1', { enable: 'A' }, PROBE, 7)]
    const r = await crossCheck(store({ chip: served, svd, probe }), 'clocks', plan([choice('svd', SVD), choice('probe', PROBE)]))
    expect({ agree: r.agree, disagree: r.disagree }).toEqual({ agree: 0, disagree: 2 })
    // The source of a side is where its first evidence points, else its target's file.
    expect(answered(r, served, 0).map((f) => [f.value.enable, f.scope.source, f.agreement, f.evidence.map((e) => e.sourcePath)])).toEqual([
      ['A', 'chips/stm32-data/evidence.json', 'disagree', ['chips/stm32-data/evidence.json', PROBE]],
      ['B', 'svd/evidence.svd', 'disagree', ['svd/evidence.svd']]
    ])
    expect(answered(r, served, 1).map((f) => [f.value.enable, f.scope.source])).toEqual([
      ['S', CHIP],
      ['T', SVD]
    ])
    expect(r.discrepancies.map((d) => [d.name, d.facts[0].agreement, d.facts[0].evidence.length, d.facts[1].value.enable])).toEqual([
      ['USART1', 'disagree', 2, 'B'],
      ['SPI1', 'disagree', 0, 'T']
    ])
  })

  it('compared members: each must agree; with subset, a member that is a list on neither side is compared whole, an absent checked list is empty', async () => {
    const pin = (name: string, value: Record<string, unknown>, path: string) => fact('pins', name, value, path, 1)
    const served = [pin('PA9', { position: '30', type: 'I/O', alternateFunctions: [{ af: 7, signal: 'USART1_TX' }] }, CHIP), pin('PA10', { position: '31', alternateFunctions: [{ af: 7, signal: 'USART1_RX' }] }, CHIP), pin('PA11', { position: '32' }, CHIP)]
    const checked = [pin('PA9', { position: '30', type: 'Power', alternateFunctions: [{ af: 7, signal: 'USART1_TX' }] }, SVD), pin('PA10', { position: '99' }, SVD), pin('PA11', { position: '32', alternateFunctions: [{ af: 1, signal: 'X' }] }, SVD)]
    const both = await crossCheck(store({ chip: served, svd: checked }), 'pins', plan([choice('svd', SVD)], { compare: ['position', 'type'] }))
    expect(both.discrepancies.map((d) => d.name)).toEqual(['PA9', 'PA10'])
    const subset = await crossCheck(store({ chip: served, svd: checked }), 'pins', plan([choice('svd', SVD)], { compare: ['position', 'alternateFunctions'], subset: true }))
    // PA10: the position differs (a scalar, compared whole) though its AF list is absent; PA11: an AF the served pin lacks.
    expect(subset.discrepancies.map((d) => d.name)).toEqual(['PA10', 'PA11'])
    const afOnly = await crossCheck(store({ chip: served, svd: checked }), 'pins', plan([choice('svd', SVD)], { compare: ['alternateFunctions'], subset: true }))
    expect(afOnly.discrepancies.map((d) => d.name)).toEqual(['PA11'])
    expect(afOnly.agree).toBe(2)
  })
})

describe('crossCheck of interrupts', () => {
  it('a served line matched by name is not matched again by number; lines without a number never match by number; an alias is kept once', async () => {
    const served = [fact('interrupts', 'USART1', { number: 37 }, CHIP, 1), fact('interrupts', 'DMA1_CH1', { number: 11 }, CHIP, 2), fact('interrupts', 'RESERVED', { number: null }, CHIP, 3)]
    const svd = [fact('interrupts', 'USART1', { number: 37 }, SVD, 1), fact('interrupts', 'UART1', { number: 37 }, SVD, 2), fact('interrupts', 'DMA1_Channel1', { number: 11 }, SVD, 3), fact('interrupts', 'SPARE', { number: null }, SVD, 4)]
    const probe = [fact('interrupts', 'DMA1_Channel1', { number: 11 }, PROBE, 1), fact('interrupts', 'DMA1_STREAM1', { number: 11 }, PROBE, 2)]
    const r = await crossCheck(store({ chip: served, svd, probe }), 'interrupts', plan([choice('svd', SVD), choice('probe', PROBE)]))
    expect(counts(r)).toEqual({ agree: 2, disagree: 0, onlyChecked: { svd: ['UART1', 'SPARE'], probe: ['DMA1_STREAM1'] } })
    expect(answered(r, served, 1).map((f) => [f.aliases, f.evidence.map((e) => e.sourcePath)])).toEqual([[['DMA1_Channel1'], [CHIP, SVD, PROBE]]])
    expect(answered(r, served, 2)).toEqual([served[2]])
  })
})

describe('crossCheck of memory', () => {
  const region = (name: string, kind: string, start: number | string, size: number | undefined, path: string, line: number) =>
    fact('memory', name, { kind, start: typeof start === 'number' ? '0x' + start.toString(16).padStart(8, '0') : start, size }, path, line)
  const run = async (served: DecodedFact[], checked: DecodedFact[]) => crossCheck(store({ chip: served, probe: checked }), 'memory', plan([choice('probe', PROBE)]))
  const shown = (r: CrossCheckResult) => r.discrepancies.map((d) => [d.facts[0].name, d.facts[1].name])

  it('regions of a kind are merged in address order where they touch, never across kinds or gaps', async () => {
    // Listed out of order: sorted, the two sectors make one range 0x0-0x2000.
    const served = [region('S2', 'flash', 0x1000, 0x1000, CHIP, 2), region('S1', 'flash', 0x0, 0x1000, CHIP, 1), region('RAM', 'ram', 0x800, 0x100, CHIP, 3), region('S4', 'flash', 0x3000, 0x1000, CHIP, 4)]
    const r = await run(served, [region('FLASH', 'flash', 0x0, 0x2000, PROBE, 1), region('RAM', 'ram', 0x800, 0x100, PROBE, 2), region('F4', 'flash', 0x3000, 0x1000, PROBE, 3)])
    expect(counts(r)).toEqual({ agree: 4, disagree: 0, onlyChecked: {} })
    expect(answered(r, served, 0)[0]!.evidence.map((e) => e.sourcePath)).toEqual([CHIP, PROBE])
    // The gap 0x2000-0x3000 is not covered: a range over it differs from both served ranges.
    const gap = await run(served, [region('ALL', 'flash', 0x0, 0x4000, PROBE, 1)])
    expect(counts(gap)).toEqual({ agree: 0, disagree: 1, onlyChecked: {} })
    expect(shown(gap)).toEqual([['S1', 'ALL']])
    // The RAM region inside the flash's addresses is a range of its own: without a checked RAM it is not compared.
    expect(counts(await run(served, [region('FLASH', 'flash', 0x0, 0x2000, PROBE, 1), region('F4', 'flash', 0x3000, 0x1000, PROBE, 3)]))).toEqual({ agree: 3, disagree: 0, onlyChecked: {} })
  })

  it('regions without a readable start or size are left out; a range of another kind, or only touching, is not compared', async () => {
    const served = [region('FLASH', 'flash', 0x1000, 0x1000, CHIP, 1), region('ODD', 'flash', 'n/a', 0x10, CHIP, 2), region('NOSIZE', 'flash', 0x0, undefined, CHIP, 3)]
    const checked = [region('LOW', 'flash', 0x0, 0x1000, PROBE, 1), region('HIGH', 'flash', 0x2000, 0x1000, PROBE, 2), region('SRAM', 'ram', 0x1000, 0x1000, PROBE, 3), region('BAD', 'flash', 'zz', undefined, PROBE, 4), region('NOSIZE', 'flash', 0x5000, undefined, PROBE, 5)]
    const r = await run(served, checked)
    expect(counts(r)).toEqual({ agree: 0, disagree: 0, onlyChecked: { probe: ['LOW', 'HIGH', 'SRAM'] } })
    // Unmatched regions by kind, then address.
    const sorted = await run([], [region('C', 'sram', 0x0, 0x10, PROBE, 1), region('B', 'flash', 0x8000, 0x10, PROBE, 2), region('A', 'flash', 0x100, 0x10, PROBE, 3), region('D', 'eeprom', 0x9000, 0x10, PROBE, 4)])
    expect(sorted.onlyChecked).toEqual({ probe: ['D', 'A', 'B', 'C'] })
  })

  it('a range that differs shows the checked regions no served region equals (same start and size), else all of them', async () => {
    const served = [region('S1', 'flash', 0x0, 0x1000, CHIP, 1), region('S2', 'flash', 0x1000, 0x1000, CHIP, 2)]
    // The end differs; C1 equals S1, C2 has S2's start but not its size.
    expect(shown(await run(served, [region('C1', 'flash', 0x0, 0x1000, PROBE, 1), region('C2', 'flash', 0x1000, 0x2000, PROBE, 2)]))).toEqual([['S1', 'C2']])
    // C3 has S2's size but not its start.
    expect(shown(await run(served, [region('C1', 'flash', 0x0, 0x1000, PROBE, 1), region('C3', 'flash', 0x1000, 0x1000 - 0x800, PROBE, 2), region('C4', 'flash', 0x1800, 0x1000, PROBE, 3)]))).toEqual([['S1', 'C3'], ['S1', 'C4']])
    // Every checked region equals a served one, yet the range is shorter: all of them shown.
    expect(shown(await run(served, [region('C1', 'flash', 0x0, 0x1000, PROBE, 1)]))).toEqual([['S1', 'C1']])
    // A checked range over two served ranges: a region equal to one of the first range's is not shown.
    const apart = [region('S1', 'flash', 0x0, 0x1000, CHIP, 1), region('S3', 'flash', 0x2000, 0x1000, CHIP, 2)]
    expect(shown(await run(apart, [region('C1', 'flash', 0x0, 0x1000, PROBE, 1), region('C2', 'flash', 0x1000, 0x2000, PROBE, 2)]))).toEqual([['S1', 'C2']])
    // The same end from a later start differs too.
    const late = await run(served, [region('C5', 'flash', 0x800, 0x1800, PROBE, 1)])
    expect(counts(late)).toEqual({ agree: 0, disagree: 1, onlyChecked: {} })
  })
})
