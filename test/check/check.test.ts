import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { CheckParams } from '../../src/schemas/check.js'
import { Check } from '../../src/service/check.js'
import { HardwareFacts } from '../../src/service/facts.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'
import { testApp, type TestApp } from '../helpers/app.js'
import { CORPUS_INVENTORY, corpusDataDir } from '../helpers/corpus-release.js'
import { ContractChecker } from '../helpers/openapi.js'
import { gpioAf, mcuPinsWithSignal } from '../compare/raw-sources.js'
import { doxModules, mcuLimits, mcuPositions, nordicRevisions } from './raw.js'

/** /v1/check is an operation of contract 2026-12-01. */
const DEPTH = '2026-12-01'

/*
 * GET /v1/check on the core corpus: configurations worked out from the raw sources (the STM32
 * pin-data and GPIO modes XML, the Nordic MDK errata header and nrfx's errata matrix), each
 * expected finding computed here from those files, never from the service's code.
 */

type Obj = Record<string, any>
const raw = (p: string) => readFileSync(join(CORPUS_INVENTORY, p), 'utf8')
const F407 = 'pins/stm32/mcu/STM32F407V(E-G)Tx.xml'
const G071 = 'pins/stm32/mcu/STM32G071G(6-8-B)Ux.xml'
/** The GPIO modes file an `<Mcu>` file names (`<IP Name="GPIO" Version=…>`). */
const modesOf = (mcu: string) => raw(`pins/stm32/mcu/IP/GPIO-${/<IP [^>]*Name="GPIO" Version="([^"]+)"/.exec(raw(mcu))![1]}_Modes.xml`)
/** Pin labels to the names `assign` takes (`PA0-WKUP` → `PA0`, `PA11 [PA9]` → `PA11`). */
const base = (label: string) => /^P[A-Z]\d+/.exec(label)?.[0] ?? label

let t: TestApp
let contract: ContractChecker
const check = (q: Record<string, string | number>, headers: Record<string, string> = {}) =>
  contract.call(t.app, { method: 'GET', url: `/v1/check?${new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)]))}`, headers: { ...t.auth, 'service-version': DEPTH, ...headers } })
const ok = async (q: Record<string, string | number>): Promise<Obj> => {
  const res = await check(q)
  expect(res.statusCode, res.body).toBe(200)
  const j = res.json()
  // The bound is on the whole answer, counted with the real tokenizer.
  expect(countTokens(res.body)).toBeLessThanOrEqual(j.page.tokens)
  expect(j.page.tokens).toBeLessThanOrEqual(j.page.maxTokens)
  return j
}
const problem = async (q: Record<string, string | number>, code: string, param: string, quoted?: string) => {
  const res = await check(q)
  expect(res.statusCode).toBe(400)
  expect(res.json()).toMatchObject({ code, param })
  if (quoted) expect(res.json().detail).toContain(quoted)
}
const codes = (j: Obj) => j.findings.map((f: Obj) => f.code)
const only = (j: Obj, code: string) => j.findings.filter((f: Obj) => f.code === code)
/** Every evidence item names a line of its source that holds what its excerpt starts with. */
function expectEvidenceAtLines(f: Obj) {
  for (const e of f.evidence) {
    const line = Number(/^line (\d+)/.exec(e.locator)![1])
    expect(raw(e.sourcePath).split('\n')[line - 1]!.trim().slice(0, 12), e.locator).toBe(e.excerpt.slice(0, 12))
  }
}

beforeAll(async () => {
  t = await testApp(await corpusDataDir(), { rateLimit: { max: 100_000, timeWindowMs: 60_000 } })
  contract = new ContractChecker(JSON.parse((await t.app.inject({ url: `/openapi.json?version=${DEPTH}` })).body))
})
afterAll(async () => {
  await t?.close()
  expect(contract.checked).toBeGreaterThan(20)
})

describe('STM32F407VGT6 (LQFP100) pins', () => {
  it('a valid USART1/SPI1/I2C1 set: every entry PIN_OK with the AF number of the GPIO modes file, valid', async () => {
    const set = { USART1_TX: 'PA9', USART1_RX: 'PA10', SPI1_SCK: 'PA5', SPI1_MISO: 'PA6', SPI1_MOSI: 'PA7', I2C1_SCL: 'PB6', I2C1_SDA: 'PB7' }
    const j = await ok({ part: 'STM32F407VGT6', assign: Object.entries(set).map(([s, p]) => `${s}:${p}`).join(',') })
    expect(j).toMatchObject({ status: 'checked', valid: true, counts: { error: 0 }, pinsTarget: { package: 'LQFP100', source: { path: F407 } } })
    const positions = mcuPositions(raw(F407))
    const pinOk = only(j, 'PIN_OK')
    expect(pinOk.map((f: Obj) => f.inputs[0])).toEqual(Object.entries(set).map(([s, p]) => `${s}:${p}`))
    for (const [signal, pin] of Object.entries(set)) {
      const f = pinOk.find((x: Obj) => x.inputs[0] === `${signal}:${pin}`)
      expect(mcuPinsWithSignal(raw(F407), signal).map(base)).toContain(pin)
      expect(f.pins).toEqual([{ pin, position: positions.get(pin), af: gpioAf(modesOf(F407), pin, signal) }])
      expect(f.evidence.map((e: Obj) => e.sourcePath)).toContain(F407)
      expectEvidenceAtLines(f)
    }
  })

  it('USART1_TX:PA0: SIGNAL_NOT_ON_PIN, with the pins that carry USART1_TX and their AF numbers', async () => {
    const j = await ok({ part: 'STM32F407VGT6', assign: 'USART1_TX:PA0' })
    expect(j.valid).toBe(false)
    const [f] = only(j, 'SIGNAL_NOT_ON_PIN')
    expect(f).toMatchObject({ severity: 'error', inputs: ['USART1_TX:PA0'] })
    expect(raw(F407)).not.toMatch(/<Pin Name="PA0[^"]*"[^>]*>(?:(?!<\/Pin>)[\s\S])*USART1_TX/)
    const carriers = mcuPinsWithSignal(raw(F407), 'USART1_TX')
    expect(f.pins).toEqual(carriers.map((l) => ({ pin: base(l), position: mcuPositions(raw(F407)).get(l), af: gpioAf(modesOf(F407), l, 'USART1_TX') })))
    expect(j.findings[0].code).toBe('SIGNAL_NOT_ON_PIN')
  })

  it('PA9 twice: PIN_CONFLICT naming both entries', async () => {
    const j = await ok({ part: 'STM32F407VGT6', assign: 'USART1_TX:PA9,TIM1_CH2:PA9' })
    expect(mcuPinsWithSignal(raw(F407), 'TIM1_CH2')).toContain('PA9')
    const [f] = only(j, 'PIN_CONFLICT')
    expect(f.inputs).toEqual(['USART1_TX:PA9', 'TIM1_CH2:PA9'])
    expect(f.pins.map((p: Obj) => p.af)).toEqual([gpioAf(modesOf(F407), 'PA9', 'USART1_TX'), gpioAf(modesOf(F407), 'PA9', 'TIM1_CH2')])
    expect(codes(j)).not.toContain('PIN_OK')
  })

  it('a PI pin on LQFP100: PIN_NOT_IN_PACKAGE (the LQFP176 file has it, the LQFP100 one does not)', async () => {
    expect(raw('pins/stm32/mcu/STM32F407I(E-G)Tx.xml')).toContain('<Pin Name="PI9"')
    expect(raw(F407)).not.toContain('<Pin Name="PI')
    const j = await ok({ part: 'STM32F407VGT6', assign: 'UART4_RX:PI9' })
    const [f] = only(j, 'PIN_NOT_IN_PACKAGE')
    expect(f).toMatchObject({ severity: 'error', inputs: ['UART4_RX:PI9'] })
    expect(f.pins.map((p: Obj) => p.pin)).toEqual(mcuPinsWithSignal(raw(F407), 'UART4_RX').map(base))
  })

  it('SIGNAL: without a pin lists the pins of this package that carry it (SIGNAL_PINS)', async () => {
    const j = await ok({ part: 'STM32F407VGT6', assign: 'SPI1_SCK:' })
    const [f] = only(j, 'SIGNAL_PINS')
    const labels = mcuPinsWithSignal(raw(F407), 'SPI1_SCK')
    expect(f.pins).toEqual(labels.map((l) => ({ pin: base(l), position: mcuPositions(raw(F407)).get(l), af: gpioAf(modesOf(F407), l, 'SPI1_SCK') })))
    expect(j.valid).toBe(true)
  })

  it('an additional function without an AF number (ADC1_IN0 on PA0) is PIN_OK with af null', async () => {
    const j = await ok({ part: 'STM32F407VGT6', assign: 'ADC1_IN0:PA0' })
    expect(gpioAf(modesOf(F407), 'PA0-WKUP', 'ADC1_IN0')).toBeUndefined()
    expect(only(j, 'PIN_OK')[0].pins).toEqual([{ pin: 'PA0', position: mcuPositions(raw(F407)).get('PA0-WKUP'), af: null }])
  })

  it('signals match whatever their case, answered in the source\'s spelling (I2S2_ext_SD)', async () => {
    const label = mcuPinsWithSignal(raw(F407), 'I2S2_ext_SD')[0]!
    const j = await ok({ part: 'STM32F407VGT6', assign: `i2s2_EXT_sd:${base(label).toLowerCase()}` })
    expect(only(j, 'PIN_OK')[0]).toMatchObject({ inputs: [`I2S2_EXT_SD:${base(label)}`], pins: [{ pin: base(label), af: gpioAf(modesOf(F407), label, 'I2S2_ext_SD') }] })
    expect(only(j, 'PIN_OK')[0].message).toContain('I2S2_ext_SD')
  })

  it('errata and clocks this release lacks for an STM32 are info NOT_COVERED (not asked for: valid stays true)', async () => {
    const j = await ok({ part: 'STM32F407VGT6', assign: 'USART1_TX:PA9' })
    const nc = only(j, 'NOT_COVERED')
    expect(nc.map((f: Obj) => [f.topic, f.severity])).toEqual([
      ['errata', 'info'],
      ['clocks', 'info']
    ])
    expect(j.valid).toBe(true)
  })
})

describe('STM32F407VGT6 limits (the <Mcu> file\'s Voltage, Temperature, Frequency)', () => {
  const lim = () => mcuLimits(raw(F407))
  it('VDD 4.0 V is above supply.vdd.max', async () => {
    const j = await ok({ part: 'STM32F407VGT6', vdd: '4.0' })
    const [f] = only(j, 'OUT_OF_LIMITS')
    expect(f.limits).toEqual([{ parameter: 'vdd', given: 4, limit: 'supply.vdd.max', bound: 'max', value: lim().vddMax, unit: 'V' }])
    expectEvidenceAtLines(f)
    expect(j.valid).toBe(false)
  })
  it('VDD 1.7 V is below supply.vdd.min', async () => {
    const [f] = only(await ok({ part: 'STM32F407VGT6', vdd: '1.7' }), 'OUT_OF_LIMITS')
    expect(f.limits[0]).toMatchObject({ bound: 'min', value: lim().vddMin })
  })
  it('105 °C on a -40…85 °C code is above temperature.ambient.max', async () => {
    const [f] = only(await ok({ part: 'STM32F407VGT6', temperature: 105 }), 'OUT_OF_LIMITS')
    expect(lim().tMax).toBe(85)
    expect(f.limits).toEqual([{ parameter: 'temperature', given: 105, limit: 'temperature.ambient.max', bound: 'max', value: lim().tMax, unit: '°C' }])
  })
  it('sysclk 200 MHz is above the <Frequency> in MHz', async () => {
    const [f] = only(await ok({ part: 'STM32F407VGT6', sysclk: 200_000_000 }), 'OUT_OF_LIMITS')
    expect(f.limits).toEqual([{ parameter: 'sysclk', given: 200, limit: 'clock.cpu.max', bound: 'max', value: lim().mhz, unit: 'MHz' }])
  })
  it('3.3 V, 25 °C and the maximum clock are WITHIN_LIMITS, each with both bounds it met', async () => {
    const j = await ok({ part: 'STM32F407VGT6', vdd: 3.3, temperature: 25, sysclk: lim().mhz * 1e6 })
    expect(j).toMatchObject({ valid: true, counts: { error: 0, warning: 0 } })
    expect(only(j, 'WITHIN_LIMITS').map((f: Obj) => f.limits.map((l: Obj) => `${l.limit}=${l.value}`))).toEqual([
      [`supply.vdd.min=${lim().vddMin}`, `supply.vdd.max=${lim().vddMax}`],
      [`temperature.ambient.min=${lim().tMin}`, `temperature.ambient.max=${lim().tMax}`],
      [`clock.cpu.max=${lim().mhz}`]
    ])
  })
})

describe('STM32G071GBU6 (UFQFPN28): PINREMAP pads', () => {
  it('PA9 and PA11 on one pad: PIN_CONFLICT; PA10 and PA12 likewise', async () => {
    const pos = mcuPositions(raw(G071))
    expect(pos.get('PA9 [PA11]')).toBe(pos.get('PA11 [PA9]'))
    expect(pos.get('PA10 [PA12]')).toBe(pos.get('PA12 [PA10]'))
    const j = await ok({ part: 'STM32G071GBU6', assign: 'USART1_TX:PA9,SPI1_MISO:PA11,USART1_RX:PA10,SPI1_MOSI:PA12' })
    const conflicts = only(j, 'PIN_CONFLICT')
    expect(conflicts.map((f: Obj) => f.inputs)).toEqual([
      ['USART1_TX:PA9', 'SPI1_MISO:PA11'],
      ['USART1_RX:PA10', 'SPI1_MOSI:PA12']
    ])
    expect(conflicts[0].pins.map((p: Obj) => p.position)).toEqual([pos.get('PA9 [PA11]'), pos.get('PA11 [PA9]')])
    expect(conflicts[0].pins[0].remap).toBe(/<Pin Name="PA9 \[PA11\]"[^>]*Variant="([^"]+)"/.exec(raw(G071))![1])
  })

  it('PA9 alone is PIN_OK, saying the remap that puts it on its pad', async () => {
    const j = await ok({ part: 'STM32G071GBU6', assign: 'USART1_TX:PA9' })
    const [f] = only(j, 'PIN_OK')
    expect(f.pins).toEqual([{ pin: 'PA9', position: mcuPositions(raw(G071)).get('PA9 [PA11]'), af: gpioAf(modesOf(G071), 'PA9 [PA11]', 'USART1_TX'), remap: 'PINREMAP' }])
  })
})

describe('nRF52840: errata by silicon revision for the peripherals in use', () => {
  const header = () => raw('errata/nordic/nrf52_erratas.h')
  /** The part code the header tests for under `#if defined (NRF52840_XXAA)`. */
  const partCode = () => /#if defined \(NRF52840_XXAA\)[^\n]*\n\s*if \(var1 == (0x[0-9a-f]+)\)/.exec(header())![1]!
  /** The errata that apply at `rev` (all revisions when undefined) and name a module of one of `peripherals` in the matrix. */
  function expected(rev: string | undefined, peripherals: string[]): number[] {
    const modules = doxModules(raw('errata/nordic/errata.dox'), 'NRF52')
    const keys = peripherals.map((p) => p.toLowerCase().replace(/\d+$/, ''))
    const out: number[] = []
    for (const [n, { cases, otherwise }] of nordicRevisions(header(), partCode())) {
      const applies = rev === undefined ? [...cases.values()].some(Boolean) || otherwise : (cases.get(rev) ?? otherwise)
      const names = (modules.get(n) ?? []).map((m) => m.toLowerCase().replace(/^nrf[xy]?_/, '').replace(/_hal$/, ''))
      if (applies && names.some((m) => keys.some((k) => m === k || m.startsWith(`${k}_`)))) out.push(n)
    }
    return out.sort((a, b) => a - b)
  }
  const ids = (j: Obj) => only(j, 'ERRATUM_APPLIES').map((f: Obj) => Number(f.erratum.id.split('.')[1])).sort((a: number, b: number) => a - b)

  it('revision 0x03, SPIM3 and TWIM0: the errata of those modules that apply to 0x03, each with its evidence', async () => {
    const j = await ok({ part: 'nRF52840', assign: 'SPIM3_SCK:P0.10,TWIM0_SCL:P0.11', silicon_revision: '0x03', max_tokens: 16000 })
    const want = expected('0x03', ['SPIM3', 'TWIM0'])
    expect(want.length).toBeGreaterThan(2)
    expect(ids(j)).toEqual(want)
    for (const f of only(j, 'ERRATUM_APPLIES')) {
      expect(f.inputs).toContain('silicon_revision=0x03')
      expect(f.evidence[0].sourcePath).toBe('errata/nordic/nrf52_erratas.h')
      const line = Number(/^line (\d+)/.exec(f.evidence[0].locator)![1])
      expect(header().split('\n')[line - 1]).toContain(`if (var1 == ${partCode()})`)
    }
  })

  it('revision 0x00 differs from 0x03 as the header\'s switch does', async () => {
    const j = await ok({ part: 'nRF52840', assign: 'SPIM3_SCK:P0.10', silicon_revision: '0', max_tokens: 16000 })
    expect(ids(j)).toEqual(expected('0x00', ['SPIM3']))
    expect(expected('0x00', ['SPIM3'])).not.toEqual(expected('0x03', ['SPIM3']))
  })

  it('revision unknown: every erratum of the modules for any revision, each with the revisions it applies to', async () => {
    const j = await ok({ part: 'nRF52840', assign: 'SPIM3_SCK:P0.10', max_tokens: 16000 })
    expect(ids(j)).toEqual(expected(undefined, ['SPIM3']))
    for (const f of only(j, 'ERRATUM_APPLIES')) {
      const { cases } = nordicRevisions(header(), partCode()).get(Number(f.erratum.id.split('.')[1]))!
      expect(f.erratum.revisions).toEqual([...cases].filter(([, a]) => a).map(([c]) => c))
    }
  })

  it('no pin data: the assignments are a NOT_COVERED warning (valid null), the errata still listed', async () => {
    const j = await ok({ part: 'nRF52840', assign: 'UARTE0_TXD:P0.06', silicon_revision: '0x03', max_tokens: 16000 })
    const pins = only(j, 'NOT_COVERED').find((f: Obj) => f.topic === 'pins')
    expect(pins).toMatchObject({ severity: 'warning', inputs: ['UARTE0_TXD:P0.06'] })
    expect(j.valid).toBeNull()
    expect(ids(j)).toEqual(expected('0x03', ['UARTE0']))
  })
})

describe('answers and refusals', () => {
  it('an ambiguous part gives the candidates and no findings; an unknown one suggestions', async () => {
    const j = await ok({ part: 'STM32F407', assign: 'USART1_TX:PA9' })
    expect(j).toMatchObject({ status: 'ambiguous', findings: [], valid: null })
    expect(j.candidateCount).toBeGreaterThan(1)
    expect(new Set(j.candidates.map((c: Obj) => c.package)).size).toBe(j.candidates.length)
    expect(await ok({ part: 'STM32F407VGT6X9', vdd: 3 })).toMatchObject({ status: 'not_found', findings: [] })
  })

  it('the same request gives the same bytes, also from another app', async () => {
    const q = { part: 'STM32F407VGT6', assign: 'USART1_TX:PA9,SPI1_SCK:PA0', vdd: 3.9 }
    const a = (await check(q)).body
    expect((await check(q)).body).toBe(a)
    const other = await testApp(await corpusDataDir())
    try {
      expect((await other.app.inject({ url: `/v1/check?${new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)]))}`, headers: { ...other.auth, 'service-version': DEPTH } })).body).toBe(a)
    } finally {
      await other.close()
    }
  })

  it('max_tokens cuts findings from the end, errors first; too small for one: budgetTooSmall with what lists them all', async () => {
    const assign = 'USART1_TX:PA0,USART1_RX:PA10,SPI1_SCK:PA5,SPI1_MISO:PA6,SPI1_MOSI:PA7,I2C1_SCL:PB6'
    const all = await ok({ part: 'STM32F407VGT6', assign, max_tokens: 16000 })
    expect(all.page).toMatchObject({ truncatedBy: null, returned: all.findings.length, total: all.findings.length })
    const cut = await ok({ part: 'STM32F407VGT6', assign, max_tokens: 1200 })
    expect(cut.page).toMatchObject({ truncatedBy: 'max_tokens', total: all.findings.length, budgetTooSmall: false })
    expect(cut.findings).toEqual(all.findings.slice(0, cut.page.returned))
    expect(cut.findings[0].code).toBe('SIGNAL_NOT_ON_PIN')
    expect(cut.counts).toEqual(all.counts)
    expect(cut.page.neededMaxTokens).toBeGreaterThanOrEqual(all.page.tokens)
    expect((await ok({ part: 'STM32F407VGT6', assign, max_tokens: cut.page.neededMaxTokens })).findings).toEqual(all.findings)
    const tiny = await ok({ part: 'STM32F407VGT6', assign, max_tokens: 256 })
    expect(tiny.page).toMatchObject({ returned: 0, budgetTooSmall: true, truncatedBy: 'max_tokens' })
  })

  it('bad input is a Problem naming the parameter and quoting the entry', async () => {
    await problem({ part: 'STM32F407VGT6', assign: 'USART1_TX' }, 'INVALID_ENTRY', 'assign', '"USART1_TX"')
    await problem({ part: 'STM32F407VGT6', assign: 'USART1_TX:PA9,USART1_TX:PA9' }, 'INVALID_ENTRY', 'assign', 'entry 2')
    await problem({ part: 'STM32F407VGT6', assign: 'USART9_TX:PA9' }, 'UNKNOWN_SIGNAL', 'assign', '"USART9_TX:PA9"')
    await problem({ part: 'STM32F407VGT6', assign: 'USART1_TX:PA9,USART1_RX:BOGUS' }, 'UNKNOWN_PIN', 'assign', 'entry 2 ("USART1_RX:BOGUS")')
    await problem({ part: 'STM32F407VGT6', dma: 'USART1_TX:DMA2' }, 'INVALID_ENTRY', 'dma', '"USART1_TX:DMA2"')
    await problem({ part: 'STM32F407VGT6', assign: Array.from({ length: 65 }, (_, i) => `S${i}:PA${i}`).join(',') }, 'TOO_MANY_ENTRIES', 'assign')
    await problem({ part: 'STM32F407VGT6', vdd: '0x3' }, 'INVALID_PARAMETER', 'vdd')
    await problem({ part: 'STM32F407VGT6', vdd: '99' }, 'INVALID_PARAMETER', 'vdd')
    await problem({ part: 'STM32F407VGT6', temperature: '-300' }, 'INVALID_PARAMETER', 'temperature')
    await problem({ part: 'STM32F407VGT6', sysclk: '1.5' }, 'INVALID_PARAMETER', 'sysclk')
    await problem({ part: 'STM32F407VGT6', max_tokens: 100 }, 'INVALID_PARAMETER', 'max_tokens')
    await problem({ part: 'STM32F407VGT6', pin: 'PA9' }, 'UNKNOWN_PARAMETER', 'pin')
    const res = await check({ part: 'STM32F407VGT6' }, { authorization: 'Bearer nope' })
    expect(res.statusCode).toBe(401)
  })

  it('a valid set reads only its own pins, and answers as after the whole package was read', async () => {
    const repo = new SqliteRepository(await corpusDataDir())
    try {
      const f = new HardwareFacts(repo, 'check-pins', { contextCacheBytes: 0 })
      const reads = vi.spyOn(await f.store(), 'queryFacts')
      const p = { part: 'STM32F407VGT6', assign: 'USART1_TX:PA9,SPI1_SCK:PA5,I2C2_SDA:PB11,I2S2_EXT_SD:PB14', vdd: 3.3 } as CheckParams
      const fresh = await new Check(f).check(p)
      const pinReads = reads.mock.calls.map(([q]) => q).filter((q) => q.topic === 'pins')
      expect(pinReads.map((q) => q.names)).toEqual([['PA9', 'PA5', 'PB11', 'PB14']])
      const whole = new Check(f)
      // A signal without a pin needs every pin of the package that carries it: the whole package is read.
      await whole.check({ part: 'STM32F407VGT6', assign: 'USART1_TX:' } as CheckParams)
      expect(reads.mock.calls.map(([q]) => q).filter((q) => q.topic === 'pins' && q.names.length === 0)).toHaveLength(1)
      expect(await whole.check(p)).toBe(fresh)
      expect(JSON.parse(fresh)).toMatchObject({ valid: true, counts: { error: 0 } })
    } finally {
      await repo.close()
    }
  })

  it('two DMA entries on one channel: DMA_CONFLICT, from the inputs alone', async () => {
    const j = await ok({ part: 'STM32F407VGT6', dma: 'USART1_TX:DMA2_CH7,USART6_TX:dma2_stream7' })
    const [f] = only(j, 'DMA_CONFLICT')
    expect(f).toMatchObject({ severity: 'error', inputs: ['USART1_TX:DMA2_CH7', 'USART6_TX:DMA2_STREAM7'], evidence: [] })
  })
})
