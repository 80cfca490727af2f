import { describe, expect, it } from 'vitest'
import type { TargetSummary } from '../../src/model/catalog.js'
import type { Topic } from '../../src/model/fact.js'
import type { TargetChoice } from '../../src/service/catalog-index.js'
import { crossCheck, crossCheckedRow, planCrossCheck } from '../../src/service/cross-check.js'
import type { DecodedFact } from '../../src/store/fact-body.js'
import { selectionOf, type FactQuery, type FactRow, type ReleaseStore } from '../../src/store/types.js'

const target = (key: string, sourcePath: string): TargetSummary => ({ key, topics: ['interrupts', 'memory', 'dma'], device: key, sourcePath, sourceSha256: 'a'.repeat(64), factCounts: {} })
const choice = (key: string, path: string): TargetChoice => ({ target: target(key, path), parts: ['P'] })

let nextId = 0
const fact = (topic: Topic, name: string, value: Record<string, unknown>, path: string, line: number): DecodedFact => ({
  id: `f${nextId++}`,
  topic,
  name,
  value,
  scope: { device: 'D' },
  evidence: [{ sourceSha256: 'a'.repeat(64), sourcePath: path, locator: `line ${line}`, excerpt: name }]
})

/** A store holding facts per target key, returned in the given order, as the stores do. */
function store(byTarget: Record<string, DecodedFact[]>): ReleaseStore {
  return {
    manifest: {} as ReleaseStore['manifest'],
    catalog: { entities: [], targets: [], gaps: [] },
    async queryFacts(q: FactQuery): Promise<FactRow[]> {
      return (byTarget[q.target] ?? []).filter((f) => f.topic === q.topic).slice(0, q.limit).map((f, ord) => ({ ord, score: 0, tokens: 1, body: JSON.stringify(f) }))
    },
    async selectFacts(q: FactQuery) {
      return selectionOf(await this.queryFacts(q))
    },
    async close() {}
  }
}

const CHIP = 'chips/stm32-data/X.json'
const SVD = 'svd/X.svd'
const plan = (checked: TargetChoice[]) => ({ served: choice('chip', CHIP), checked, reason: 'rule', unchecked: [] })

describe('cross-check plan', () => {
  const kinds: Record<string, string> = { [CHIP]: 'stm32-data-chip', [SVD]: 'cmsis-svd', 'b.svd': 'cmsis-svd', 'p.yaml': 'probe-rs-target' }
  const kindOf = (c: TargetChoice) => kinds[c.target.sourcePath]!
  const rule = (order: string[]) => ({ order, reason: 'why' })

  it('serves the first kind of the rule the part has and checks each other kind', () => {
    const p = planCrossCheck([choice('svd', SVD), choice('chip', CHIP), choice('probe', 'p.yaml')], rule(['stm32-data-chip', 'cmsis-svd']), kindOf).plan!
    expect(p.served.target.key).toBe('chip')
    // A kind the rule does not list is checked after those it lists.
    expect(p.checked.map((c) => c.target.key)).toEqual(['svd', 'probe'])
    expect(p.unchecked).toEqual([])
  })

  it('never picks: two targets of the served kind give no plan; two of a checked kind are left unchecked', () => {
    expect(planCrossCheck([choice('svd', SVD), choice('svd2', 'b.svd')], rule(['cmsis-svd', 'stm32-data-chip']), kindOf).plan).toBeUndefined()
    const p = planCrossCheck([choice('svd', SVD), choice('svd2', 'b.svd'), choice('chip', CHIP)], rule(['stm32-data-chip', 'cmsis-svd']), kindOf).plan!
    expect(p.checked).toEqual([])
    expect(p.unchecked).toEqual([{ kind: 'cmsis-svd', targets: ['svd', 'svd2'] }])
  })
})

describe('cross-check of interrupts', () => {
  const served = [
    fact('interrupts', 'USART1', { number: 37, peripherals: ['USART1'] }, CHIP, 10),
    fact('interrupts', 'DMA1_CH1', { number: 11, peripherals: ['DMA1'] }, CHIP, 11),
    fact('interrupts', 'TIM2', { number: 28, peripherals: ['TIM2'] }, CHIP, 12),
    fact('interrupts', 'SPI1', { number: 35, peripherals: ['SPI1'] }, CHIP, 13)
  ]
  const checked = [
    fact('interrupts', 'USART1', { number: 37, peripherals: ['USART1'] }, SVD, 100),
    fact('interrupts', 'DMA1_Channel1', { number: 11, peripherals: ['DMA1'] }, SVD, 101),
    fact('interrupts', 'TIM2', { number: 29, peripherals: ['TIM2'] }, SVD, 102),
    fact('interrupts', 'ADC3', { number: 60, peripherals: ['ADC3'] }, SVD, 103)
  ]

  it('matches by name and number, then by number keeping the other name, and shows a disagreement with both values', async () => {
    const r = await crossCheck(store({ chip: served, svd: checked }), 'interrupts', plan([choice('svd', SVD)]))
    expect({ agree: r.agree, disagree: r.disagree, onlyChecked: r.onlyChecked }).toEqual({ agree: 2, disagree: 1, onlyChecked: { svd: ['ADC3'] } })
    const row = (f: DecodedFact) => JSON.parse(`[${crossCheckedRow({ ord: served.indexOf(f), score: 0, tokens: 1, body: JSON.stringify(f) }, r).body}]`) as DecodedFact[]
    const [usart] = row(served[0]!)
    expect(usart!.agreement).toBe('agree')
    expect(usart!.evidence.map((e) => e.sourcePath)).toEqual([CHIP, SVD])
    expect(usart!.aliases).toBeUndefined()
    const [dma] = row(served[1]!)
    expect(dma!.aliases).toEqual(['DMA1_Channel1'])
    expect(dma!.evidence.map((e) => e.locator)).toEqual(['line 11', 'line 101'])
    const tim = row(served[2]!)
    expect(tim.map((f) => [f.value.number, f.scope.source, f.agreement])).toEqual([
      [28, CHIP, 'disagree'],
      [29, SVD, 'disagree']
    ])
    // A fact no other source gives is answered as stored.
    expect(row(served[3]!)).toEqual([served[3]])
    expect(r.discrepancies.map((d) => [d.name, d.facts.map((f) => f.value.number)])).toEqual([['TIM2', [28, 29]]])
  })

  it('serves a row with the tokens of what it answers', async () => {
    const r = await crossCheck(store({ chip: served, svd: checked }), 'interrupts', plan([choice('svd', SVD)]))
    const out = crossCheckedRow({ ord: 0, score: 0, tokens: 1, body: JSON.stringify(served[0]) }, r)
    // Before the store reads bodies (the budget's fit), only the tokens change.
    expect(crossCheckedRow({ ord: 0, score: 0, tokens: 1 }, r)).toEqual({ ord: 0, score: 0, tokens: out.tokens })
    expect(out.tokens).toBeGreaterThan(20)
  })
})

describe('cross-check of memory', () => {
  const region = (name: string, kind: string, start: number, size: number, path: string, line: number) => fact('memory', name, { kind, start: '0x' + start.toString(16).padStart(8, '0'), size }, path, line)
  const chip = [
    region('BANK_1_REGION_1', 'flash', 0x08000000, 0x10000, CHIP, 1),
    region('BANK_1_REGION_2', 'flash', 0x08010000, 0x10000, CHIP, 2),
    region('BANK_1_REGION_3', 'flash', 0x08020000, 0xe0000, CHIP, 3),
    region('SRAM', 'ram', 0x20000000, 0x20000, CHIP, 4)
  ]

  it('compares the ranges a kind covers: three sectors agree with one flash region of their span', async () => {
    const probe = [region('FLASH', 'flash', 0x08000000, 0x100000, 'p.yaml', 7), region('RAM', 'ram', 0x20000000, 0x20000, 'p.yaml', 8)]
    const r = await crossCheck(store({ chip, probe }), 'memory', plan([choice('probe', 'p.yaml')]))
    expect({ agree: r.agree, disagree: r.disagree }).toEqual({ agree: 4, disagree: 0 })
    const first = JSON.parse(crossCheckedRow({ ord: 2, score: 0, tokens: 1, body: JSON.stringify(chip[2]) }, r).body) as DecodedFact
    expect(first.evidence.map((e) => e.sourcePath)).toEqual([CHIP, 'p.yaml'])
    expect(first.aliases).toBeUndefined()
  })

  it('a range that differs disagrees, beside the first served region of the range', async () => {
    const probe = [region('FLASH', 'flash', 0x08000000, 0x80000, 'p.yaml', 7)]
    const r = await crossCheck(store({ chip, probe }), 'memory', plan([choice('probe', 'p.yaml')]))
    expect({ agree: r.agree, disagree: r.disagree }).toEqual({ agree: 0, disagree: 1 })
    expect(r.discrepancies.map((d) => [d.facts[0].name, d.facts[1].name, d.facts[1].value.size])).toEqual([['BANK_1_REGION_1', 'FLASH', 0x80000]])
  })
})

describe('cross-check by name (dma, clocks)', () => {
  it('agrees on equal values and disagrees on different ones', async () => {
    const a = [fact('dma', 'USART1.TX', { options: [{ controller: 'DMA2', channel: 7, request: 4 }] }, CHIP, 1), fact('dma', 'USART1.RX', { options: [] }, CHIP, 2)]
    const b = [fact('dma', 'USART1.TX', { options: [{ controller: 'DMA2', channel: 7, request: 4 }] }, 'm.xml', 1), fact('dma', 'USART1.RX', { options: [{ controller: 'DMA2', channel: 2, request: 4 }] }, 'm.xml', 2)]
    const r = await crossCheck(store({ chip: a, modm: b }), 'dma', plan([choice('modm', 'm.xml')]))
    expect({ agree: r.agree, disagree: r.disagree }).toEqual({ agree: 1, disagree: 1 })
  })
})

describe('cross-check of pins: per package, on the members the rule compares', () => {
  const ST = 'pins/stm32/mcu/X.xml'
  const kinds: Record<string, string> = { [ST]: 'stm32-pin-data-mcu', [CHIP]: 'stm32-data-chip' }
  const kindOf = (c: TargetChoice) => kinds[c.target.sourcePath]!
  const pinChoice = (key: string, path: string, pkg: string): TargetChoice => ({ ...choice(key, path), package: pkg })
  const order = { order: ['stm32-pin-data-mcu', 'stm32-data-chip'], reason: 'why' }

  it('plans within one package; several packages or two served targets of one: no plan, and only the served kind are candidates', () => {
    const one = planCrossCheck([pinChoice('st', ST, 'LQFP48'), pinChoice('sd', CHIP, 'LQFP48')], order, kindOf)
    expect([one.plan?.served.target.key, one.plan?.checked.map((c) => c.target.key)]).toEqual(['st', ['sd']])
    const two = planCrossCheck([pinChoice('st', ST, 'LQFP48'), pinChoice('st2', ST, 'UFQFPN48'), pinChoice('sd', CHIP, 'LQFP48'), pinChoice('sd2', CHIP, 'UFQFPN48')], order, kindOf)
    expect(two.plan).toBeUndefined()
    expect(two.leads.map((c) => c.target.key)).toEqual(['st', 'st2'])
    // A package only the checked kind gives: its target leads there.
    expect(planCrossCheck([pinChoice('st', ST, 'LQFP48'), pinChoice('sd2', CHIP, 'UFQFPN48')], order, kindOf).leads.map((c) => c.target.key)).toEqual(['st', 'sd2'])
  })

  const pin = (name: string, position: string, afs: Array<[number, string]>, path: string) =>
    fact('pins', name, { label: name, package: 'LQFP48', position, positions: [position], type: 'I/O', signals: afs.map(([, s]) => s), alternateFunctions: afs.map(([af, signal]) => ({ af, signal })) }, path, 1)
  const st = [pin('PA9', '30', [[1, 'TIM1_CH2'], [7, 'USART1_TX'], [15, 'EVENTOUT']], ST), pin('PA10', '31', [[7, 'USART1_RX']], ST)]
  const r2 = (r: { agree: number; disagree: number }) => ({ agree: r.agree, disagree: r.disagree })
  const sdPlan = (rule: Partial<{ compare: string[]; subset: boolean }>) => ({ served: choice('st', ST), checked: [choice('sd', CHIP)], reason: 'rule', unchecked: [], ...rule })

  it('compare + subset: a checked list within the served one agrees, whatever else differs; an AF the served fact lacks disagrees', async () => {
    // stm32-data gives no EVENTOUT, and writes the position otherwise: still agreeing.
    const sd = [pin('PA9', '030', [[1, 'TIM1_CH2'], [7, 'USART1_TX']], CHIP), pin('PA10', '31', [[7, 'USART1_RX'], [8, 'UART4_CTS']], CHIP)]
    const r = await crossCheck(store({ st, sd }), 'pins', sdPlan({ compare: ['alternateFunctions'], subset: true }))
    expect({ agree: r.agree, disagree: r.disagree }).toEqual({ agree: 1, disagree: 1 })
    expect(r.discrepancies.map((d) => [d.name, d.facts[1].scope.source, d.facts[1].value.alternateFunctions])).toEqual([['PA10', CHIP, [{ af: 7, signal: 'USART1_RX' }, { af: 8, signal: 'UART4_CTS' }]]])
    const pa9 = JSON.parse(crossCheckedRow({ ord: 0, score: 0, tokens: 1, body: JSON.stringify(st[0]) }, r).body) as DecodedFact
    expect([pa9.agreement, pa9.evidence.map((e) => e.sourcePath)]).toEqual(['agree', [ST, CHIP]])
  })

  it('without subset the compared members must be equal; without compare, the whole value', async () => {
    const sd = [pin('PA9', '30', [[1, 'TIM1_CH2'], [7, 'USART1_TX']], CHIP), pin('PA10', '99', [[7, 'USART1_RX']], CHIP)]
    const equal = await crossCheck(store({ st, sd }), 'pins', sdPlan({ compare: ['alternateFunctions'] }))
    expect(r2(equal)).toEqual({ agree: 1, disagree: 1 })
    expect(equal.discrepancies.map((d) => d.name)).toEqual(['PA9'])
    const whole = await crossCheck(store({ st, sd }), 'pins', sdPlan({}))
    expect(r2(whole)).toEqual({ agree: 0, disagree: 2 })
  })
})
