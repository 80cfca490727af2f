import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { CheckParams } from '../../src/schemas/check.js'
import type { Evidence } from '../../src/model/fact.js'
import type { AssignEntry } from '../../src/service/check.js'
import { Check, clockFindings, dmaFindings, errataFindings, limitFindings, parseInputs, peripheralsInUse, pinFindings } from '../../src/service/check.js'
import { HardwareFacts } from '../../src/service/facts.js'
import { packagePin, packagePins } from '../../src/service/pins.js'
import { SqliteRepository } from '../../src/store/sqlite/store.js'
import type { FactRow } from '../../src/store/types.js'
import { gpioAf, mcuPinsWithSignal } from '../compare/raw-sources.js'
import { CORPUS_INVENTORY, corpusDataDir } from '../helpers/corpus-release.js'
import { doxModules, mcuLimits, mcuPositions, nordicRevisions } from './raw.js'

/*
 * The configuration check's rules on hand-made inputs (issue 30, mutation module `check`): entries
 * as a request gives them, pins facts as stored bodies of a made-up package, limit, DMA, errata and
 * clock facts as the check reads them. Every expected finding is worked out by hand from these
 * inputs and the rules the check's contract states (src/schemas/check.ts, the README's /v1/check).
 */

type Obj = Record<string, any>

const MCU = 'pins/stm32/mcu/STM32Q8.xml'
const ev = (sha: string, path: string, line: number): Evidence => ({ sourceSha256: sha.repeat(64), sourcePath: path, locator: `line ${line}`, excerpt: `<line ${line}>` })
/** The GPIO modes file's line every AF of the package is read from: shared by the pins' evidence. */
const MODES_LINE = ev('b', 'pins/stm32/mcu/IP/GPIO-Q_Modes.xml', 2)

let ord = 0
/** A pins fact as the indexer stores it (members in indexer/encode.ts's order). */
function pinRow(name: string, value: Obj, line: number, extra: Evidence[] = [MODES_LINE]): FactRow {
  const body = JSON.stringify({ id: `p${ord}`, topic: 'pins', name, value, scope: { device: 'STM32Q8', package: 'QFP8' }, evidence: [ev('a', MCU, line), ...extra] })
  return { ord: ord++, score: 0, tokens: 1, body }
}
const afs = (...xs: Array<[string, number]>) => xs.map(([signal, af]) => ({ af, signal }))

/** Package QFP8: PA11 is bonded to PA9's pad under PINREMAP; PB8 and PB9 share pad 10 with no remap named; PD0 has two balls. */
const ROWS: FactRow[] = [
  pinRow('PB6', { label: 'PB6', position: '5', signals: ['USART1_TX', 'I2S2_ext_SD'], alternateFunctions: afs(['USART1_TX', 0], ['I2S2_ext_SD', 6]) }, 5),
  pinRow('PA9', { label: 'PA9', position: '3', signals: ['USART1_TX', 'TIM1_CH2', 'GPIO'], alternateFunctions: afs(['USART1_TX', 7], ['TIM1_CH2', 1]) }, 3),
  pinRow('PA10', { label: 'PA10', position: '4', signals: ['USART1_RX'], alternateFunctions: afs(['USART1_RX', 7]) }, 2),
  pinRow('PA11', { label: 'PA11 [PA9]', position: '3', signals: ['SPI1_MISO'], alternateFunctions: afs(['SPI1_MISO', 0]), variants: [{ label: 'PA9 [PA11]', variant: 'OTHER' }, { label: 'PA11 [PA9]', variant: 'PINREMAP' }] }, 6),
  pinRow('PA0', { label: 'PA0-WKUP', position: '1', signals: ['ADC1_IN0'] }, 1, []),
  pinRow('PB8', { label: 'PB8', position: '10', signals: ['I2C1_SCL'], alternateFunctions: afs(['I2C1_SCL', 4]) }, 10),
  pinRow('PB9', { label: 'PB9', position: '10', signals: ['I2C1_SDA'], alternateFunctions: afs(['I2C1_SDA', 4]) }, 11),
  pinRow('PD0', { label: 'PD0', position: 'A1', positions: ['A1', 'A2'], signals: ['CAN1_RX', 'CAN1_RX_FIFO'] }, 12, []),
  // Only alternate functions, no signals list: they are its signals.
  pinRow('PC0', { label: 'PC0', position: '7', alternateFunctions: afs(...['CH1', 'CH2', 'CH3', 'CH4', 'CH1N', 'CH2N', 'CH3N', 'BKIN', 'ETR'].map((s): [string, number] => [`TIM1_${s}`, 1])) }, 7, []),
  pinRow('VDD', { label: 'VDD', position: '8' }, 8, [])
]
/** Indexed in each test, not once at load: a mutant of pins.ts is active only while a test runs. */
const pkg = () => packagePins(ROWS)
const assign = (text: string) => parseInputs({ assign: text }).assign
const pins = (text: string) => pinFindings(assign(text), pkg(), 'QFP8') as any[]
const evidenceOf = (...rows: string[]) => rows.map((r) => pkg().byName.get(r)!.evidence)
const svcError = (f: () => unknown) => {
  try {
    f()
  } catch (e) {
    return { code: (e as Obj).code, param: (e as Obj).param, message: (e as Error).message }
  }
  throw new Error('no error thrown')
}

describe('parseInputs', () => {
  it('upper-cases and trims entries, drops blank ones, and reads SIGNAL: as asking for the pins', () => {
    expect(parseInputs({})).toEqual({ assign: [], dma: [] })
    expect(assign(' usart1_tx : pa9 ,, spi1_sck: , x+y-z.w/v:P0.10')).toEqual([
      { text: 'USART1_TX:PA9', signal: 'USART1_TX', pin: 'PA9' },
      { text: 'SPI1_SCK:', signal: 'SPI1_SCK', pin: undefined },
      { text: 'X+Y-Z.W/V:P0.10', signal: 'X+Y-Z.W/V', pin: 'P0.10' }
    ])
  })

  it('refuses an empty list, more than 64 entries, an entry twice, each naming its parameter', () => {
    expect(svcError(() => parseInputs({ assign: ' , ' }))).toEqual({ code: 'INVALID_ENTRY', param: 'assign', message: 'assign lists no entries.' })
    expect(svcError(() => parseInputs({ dma: ',' }))).toEqual({ code: 'INVALID_ENTRY', param: 'dma', message: 'dma lists no entries.' })
    const list = (n: number) => Array.from({ length: n }, (_, i) => `S${i}:PA${i}`).join(',')
    expect(assign(list(64))).toHaveLength(64)
    expect(svcError(() => parseInputs({ assign: list(65) }))).toEqual({ code: 'TOO_MANY_ENTRIES', param: 'assign', message: 'assign lists 65 entries; at most 64 are allowed.' })
    expect(svcError(() => parseInputs({ dma: 'A:DMA1_CH1,B:DMA1_CH2,a:dma1_ch1' }))).toEqual({ code: 'INVALID_ENTRY', param: 'dma', message: 'dma entry 3 ("A:DMA1_CH1") is listed twice.' })
  })

  it('refuses a malformed assign entry, quoting it with its position', () => {
    const form = 'is not of the form SIGNAL:PIN (USART1_TX:PA9), or SIGNAL: to ask for its pins.'
    for (const bad of ['USART1_TX', 'A:PA9:X', ':PA9', '_A:PA9', 'A$:PA9', 'A B:PA9', 'A:_PA9', 'A:PA9$', 'A:P A9'])
      expect(svcError(() => parseInputs({ assign: `OK:PA1,${bad}` })), bad).toEqual({ code: 'INVALID_ENTRY', param: 'assign', message: `assign entry 2 ("${bad}") ${form}` })
  })

  it('reads a DMA channel in each naming (CH, C, STREAM, S, none) and refuses other forms', () => {
    const dma = (text: string) => parseInputs({ dma: text }).dma.map((d) => [d.text, d.signal, d.controller, d.channel])
    expect(dma('usart1_tx:dma2_ch7,a:DMA1_Stream3,b:bdma_ch0,c:gpdma1_c5,d:DMA1_S2,e:DMA1_7,f:DMA2_CH12,g:XDMA_CH123,h : dma1_ch1')).toEqual([
      ['USART1_TX:DMA2_CH7', 'USART1_TX', 'DMA2', 7],
      ['A:DMA1_STREAM3', 'A', 'DMA1', 3],
      ['B:BDMA_CH0', 'B', 'BDMA', 0],
      ['C:GPDMA1_C5', 'C', 'GPDMA1', 5],
      ['D:DMA1_S2', 'D', 'DMA1', 2],
      ['E:DMA1_7', 'E', 'DMA1', 7],
      ['F:DMA2_CH12', 'F', 'DMA2', 12],
      ['G:XDMA_CH123', 'G', 'XDMA', 123],
      ['H:DMA1_CH1', 'H', 'DMA1', 1]
    ])
    for (const bad of ['USART1_TX', 'A:DMA2', 'A:DMA1_CH1234', 'A:DMA1_CH1:X', ':DMA1_CH1', 'A:1DMA_CH1', 'A:DMA1_CH1X', 'A:DMA1_X1', '$A:DMA1_CH1', 'A:DMA1CH1'])
      expect(svcError(() => parseInputs({ dma: bad })), bad).toEqual({ code: 'INVALID_ENTRY', param: 'dma', message: `dma entry 1 ("${bad}") is not of the form SIGNAL:CHANNEL (USART1_TX:DMA2_CH7).` })
  })
})

describe('packagePins', () => {
  it('reads each pin: its AF numbers, its signals with the AF ones, every position, the remap of its own label', () => {
    const PINS = pkg()
    const pa9 = PINS.byName.get('PA9')!
    expect({ ...pa9, af: [...pa9.af] }).toEqual({ name: 'PA9', label: 'PA9', position: '3', positions: ['3'], signals: ['USART1_TX', 'TIM1_CH2', 'GPIO'], af: [['USART1_TX', 7], ['TIM1_CH2', 1]], evidence: [ev('a', MCU, 3), MODES_LINE] })
    expect(PINS.byName.get('PA11')).toMatchObject({ label: 'PA11 [PA9]', remap: 'PINREMAP' })
    expect(PINS.byName.get('PA9')).not.toHaveProperty('remap')
    expect(PINS.byName.get('PD0')).toMatchObject({ position: 'A1', positions: ['A1', 'A2'] })
    expect(PINS.byName.get('PC0')!.signals).toHaveLength(9)
    expect(PINS.byName.get('VDD')).toMatchObject({ signals: [], positions: ['8'] })
    expect(packagePin(pinRow('PE1', { label: 'PE1', position: '9', signals: ['X_1'], alternateFunctions: afs(['X_1', 2], ['X_2', 3]) }, 1)).signals).toEqual(['X_1', 'X_2'])
  })

  it('lists each signal\'s pins by label, then position, and each signal\'s spelling by its upper-cased name', () => {
    const PINS = pkg()
    expect(PINS.bySignal.get('USART1_TX')!.map((p) => p.name)).toEqual(['PA9', 'PB6'])
    const rows = [
      pinRow('X3', { label: 'PB1', position: '9', signals: ['S'] }, 1),
      pinRow('X1', { label: 'PA1', position: '12', signals: ['S'] }, 2),
      pinRow('X2', { label: 'PB1', position: '10', signals: ['S'] }, 3),
      pinRow('X4', { label: 'PA1', position: '12', signals: ['S'] }, 4)
    ]
    expect(packagePins(rows).bySignal.get('S')!.map((p) => p.name)).toEqual(['X1', 'X4', 'X2', 'X3'])
    expect(packagePins([...rows].reverse()).bySignal.get('S')!.map((p) => p.name)).toEqual(['X4', 'X1', 'X2', 'X3'])
    expect(PINS.signalSpelling.get('I2S2_EXT_SD')).toBe('I2S2_ext_SD')
    expect(PINS.signalSpelling.get('USART1_TX')).toBe('USART1_TX')
  })
})

describe('pinFindings', () => {
  it('a pin that carries its signal is PIN_OK with its AF number (none for an additional function), in the order given', () => {
    const f = pins('USART1_RX:PA10,adc1_in0:pa0,USART1_TX:PA9')
    expect(f.map((x) => [x.severity, x.code, x.inputs, x.message, x.pins])).toEqual([
      ['info', 'PIN_OK', ['USART1_RX:PA10'], 'USART1_RX on PA10 (pin 4): alternate function 7.', [{ pin: 'PA10', position: '4', af: 7 }]],
      ['info', 'PIN_OK', ['ADC1_IN0:PA0'], 'ADC1_IN0 on PA0 (pin 1): not an alternate function (no AF number).', [{ pin: 'PA0', position: '1', af: null }]],
      ['info', 'PIN_OK', ['USART1_TX:PA9'], 'USART1_TX on PA9 (pin 3): alternate function 7.', [{ pin: 'PA9', position: '3', af: 7 }]]
    ])
    expect(f[2].evidence).toEqual([ev('a', MCU, 3), MODES_LINE])
  })

  it('answers in the source\'s spelling of a signal (I2S2_ext_SD), AF 0 included, and says a remapped pin\'s remap', () => {
    const [f] = pins('i2s2_EXT_sd:PB6')
    expect(f).toMatchObject({ code: 'PIN_OK', inputs: ['I2S2_EXT_SD:PB6'], message: 'I2S2_ext_SD on PB6 (pin 5): alternate function 6.', pins: [{ pin: 'PB6', position: '5', af: 6 }] })
    expect(pins('USART1_TX:PB6')[0].pins).toEqual([{ pin: 'PB6', position: '5', af: 0 }])
    expect(pins('SPI1_MISO:PA11')[0]).toMatchObject({
      message: 'SPI1_MISO on PA11 (pin 3): alternate function 0, with SYSCFG remap PINREMAP (its pad is shared).',
      pins: [{ pin: 'PA11', position: '3', af: 0, remap: 'PINREMAP' }]
    })
  })

  it('SIGNAL_NOT_ON_PIN names the pins that carry the signal, with the evidence of each pin once', () => {
    const [f] = pins('USART1_TX:PA10')
    expect(f).toMatchObject({ severity: 'error', code: 'SIGNAL_NOT_ON_PIN', inputs: ['USART1_TX:PA10'], message: 'PA10 does not carry USART1_TX in QFP8; USART1_TX is on PA9/AF7, PB6/AF0.' })
    expect(f.pins).toEqual([
      { pin: 'PA9', position: '3', af: 7 },
      { pin: 'PB6', position: '5', af: 0 }
    ])
    // The modes file's line is cited once; the MCU file's line 2 and the modes file's line 2 are two items.
    expect(f.evidence).toEqual([ev('a', MCU, 2), MODES_LINE, ev('a', MCU, 3), ev('a', MCU, 5)])
    expect(pins('TIM1_CH2:PA0')[0].message).toBe('PA0 does not carry TIM1_CH2 in QFP8; TIM1_CH2 is on PA9/AF1, PC0/AF1.')
    expect(pins('ADC1_IN0:PA9')[0].message).toBe('PA9 does not carry ADC1_IN0 in QFP8; ADC1_IN0 is on PA0.')
  })

  it('SIGNAL: lists the pins that carry it (SIGNAL_PINS, info); a GPIO name the package lacks is PIN_NOT_IN_PACKAGE', () => {
    const [f] = pins('usart1_tx:')
    expect(f).toMatchObject({ severity: 'info', code: 'SIGNAL_PINS', inputs: ['USART1_TX:'], message: 'USART1_TX is on PA9/AF7, PB6/AF0 in QFP8.', pins: [{ pin: 'PA9', af: 7 }, { pin: 'PB6', af: 0 }] })
    expect(f.evidence).toEqual([ev('a', MCU, 3), MODES_LINE, ev('a', MCU, 5)])
    expect(pins('I2S2_EXT_SD:')[0].message).toBe('I2S2_ext_SD is on PB6/AF6 in QFP8.')
    for (const gpio of ['PC13', 'PC2_C']) {
      const [g] = pins(`USART1_RX:${gpio}`)
      expect(g).toMatchObject({ severity: 'error', code: 'PIN_NOT_IN_PACKAGE', inputs: [`USART1_RX:${gpio}`], message: `${gpio} is not a pin of package QFP8; USART1_RX is on PA10/AF7.`, pins: [{ pin: 'PA10', position: '4', af: 7 }] })
      expect(g.evidence).toEqual(evidenceOf('PA10')[0])
    }
    expect(pins('I2S2_EXT_SD:PZ9')[0].message).toBe('PZ9 is not a pin of package QFP8; I2S2_ext_SD is on PB6/AF6.')
  })

  it('a pin that is neither the package\'s nor a GPIO name is UNKNOWN_PIN; an unknown signal UNKNOWN_SIGNAL with signals like it', () => {
    for (const pin of ['BOGUS', 'PA123', 'PC2_CX', 'XPA1', 'PAB1', 'P1'])
      expect(svcError(() => pins(`OK:,USART1_RX:${pin}`.replace('OK:,', 'USART1_TX:PA9,'))), pin).toEqual({ code: 'UNKNOWN_PIN', param: 'assign', message: `assign entry 2 ("USART1_RX:${pin}"): ${pin} is not a pin of package QFP8, nor a GPIO name.` })
    expect(svcError(() => pins('USART9_TX:PA9'))).toEqual({ code: 'UNKNOWN_SIGNAL', param: 'assign', message: 'assign entry 1 ("USART9_TX:PA9"): no pin of package QFP8 carries USART9_TX; signals like it: USART1_TX.' })
    expect(svcError(() => pins('USART1_CK:')).message).toBe('assign entry 1 ("USART1_CK:"): no pin of package QFP8 carries USART1_CK; signals like it: USART1_RX, USART1_TX.')
    expect(svcError(() => pins('FOO:PA9')).message).toBe('assign entry 1 ("FOO:PA9"): no pin of package QFP8 carries FOO.')
    // At most eight, sorted.
    expect(svcError(() => pins('TIM1_X:')).message).toBe('assign entry 1 ("TIM1_X:"): no pin of package QFP8 carries TIM1_X; signals like it: TIM1_BKIN, TIM1_CH1, TIM1_CH1N, TIM1_CH2, TIM1_CH2N, TIM1_CH3, TIM1_CH3N, TIM1_CH4.')
    expect(svcError(() => pins('CAN2_RX_FIFO:')).message).toBe('assign entry 1 ("CAN2_RX_FIFO:"): no pin of package QFP8 carries CAN2_RX_FIFO; signals like it: CAN1_RX_FIFO.')
  })

  it('a pad assigned twice is one PIN_CONFLICT over both entries: one pin twice, two pins of one pad (remap named or not), a pin of two balls', () => {
    const f = pins('USART1_RX:PA9,USART1_TX:PA9,TIM1_CH2:PA10,I2C1_SCL:PB8,I2C1_SDA:PB9,CAN1_RX:PD0,CAN1_RX:')
    expect(f.map((x) => [x.code, x.inputs])).toEqual([
      ['SIGNAL_NOT_ON_PIN', ['USART1_RX:PA9']],
      ['SIGNAL_NOT_ON_PIN', ['TIM1_CH2:PA10']],
      ['SIGNAL_PINS', ['CAN1_RX:']],
      ['PIN_CONFLICT', ['I2C1_SCL:PB8', 'I2C1_SDA:PB9']],
      ['PIN_OK', ['USART1_TX:PA9']],
      ['PIN_OK', ['CAN1_RX:PD0']]
    ])
    const g = pins('USART1_TX:PA9,TIM1_CH2:PA9,I2C1_SCL:PB8,I2C1_SDA:PB9,USART1_RX:PA10')
    expect(g.map((x) => [x.severity, x.code, x.inputs, x.message])).toEqual([
      ['error', 'PIN_CONFLICT', ['USART1_TX:PA9', 'TIM1_CH2:PA9'], 'PA9 is assigned 2 times (USART1_TX, TIM1_CH2).'],
      ['error', 'PIN_CONFLICT', ['I2C1_SCL:PB8', 'I2C1_SDA:PB9'], 'PB8 and PB9 share pad 10 (remap): only one of them can be used (I2C1_SCL, I2C1_SDA).'],
      ['info', 'PIN_OK', ['USART1_RX:PA10'], 'USART1_RX on PA10 (pin 4): alternate function 7.']
    ])
    expect(g[0].pins).toEqual([
      { pin: 'PA9', position: '3', af: 7 },
      { pin: 'PA9', position: '3', af: 1 }
    ])
    expect(g[0].evidence).toEqual(evidenceOf('PA9')[0])
    expect(g[1].evidence).toEqual([ev('a', MCU, 10), MODES_LINE, ev('a', MCU, 11)])
    const [r] = pins('USART1_TX:PA9,SPI1_MISO:PA11')
    expect(r).toMatchObject({ inputs: ['USART1_TX:PA9', 'SPI1_MISO:PA11'], message: 'PA9 and PA11 share pad 3 (PINREMAP): only one of them can be used (USART1_TX, SPI1_MISO).' })
    expect(r.pins).toEqual([
      { pin: 'PA9', position: '3', af: 7 },
      { pin: 'PA11', position: '3', af: 0, remap: 'PINREMAP' }
    ])
    expect(pins('USART1_TX:PA9,TIM1_CH2:PA9,SPI1_MISO:PA11').map((x) => x.message)).toEqual(['PA9 and PA11 share pad 3 (PINREMAP): only one of them can be used (USART1_TX, TIM1_CH2, SPI1_MISO).'])
    // Two entries on a pin of two balls conflict once, not once per ball.
    const twice: AssignEntry[] = ['CAN1_RX:PD0', 'CAN1_RX:PD0/2'].map((text) => ({ text, signal: 'CAN1_RX', pin: 'PD0' }))
    expect(pinFindings(twice, pkg(), 'QFP8').map((x) => [x.code, x.inputs, x.message])).toEqual([['PIN_CONFLICT', ['CAN1_RX:PD0', 'CAN1_RX:PD0/2'], 'PD0 is assigned 2 times (CAN1_RX, CAN1_RX).']])
  })
})

const ELEC = 'pins/stm32/mcu/STM32Q8.xml'
const read = (name: string, value: Obj, line: number, path = ELEC) => ({ name, value, evidence: [ev('c', path, line)] })
const LIMIT_FACTS = [
  read('supply.vdd.min', { value: 1.7, unit: 'V' }, 1),
  read('supply.vdd.max', { value: 3600, unit: 'mV' }, 2),
  read('temperature.ambient.min', { value: -40, unit: '°C' }, 3),
  read('temperature.ambient.max', { value: 85, unit: '°C' }, 4),
  read('clock.cpu.max', { value: 48, unit: 'MHz' }, 5)
]

describe('limitFindings', () => {
  const limits = (p: Obj, facts = LIMIT_FACTS) => limitFindings(p, facts) as any[]
  it('values within every bound (bounds included) are one WITHIN_LIMITS each, in the units of the limits, vdd then temperature then sysclk', () => {
    const f = limits({ sysclk: 48_000_000, temperature: 85, vdd: 2 })
    expect(f.map((x) => [x.severity, x.code, x.inputs, x.message])).toEqual([
      ['info', 'WITHIN_LIMITS', ['vdd=2'], 'vdd 2 V is within supply.vdd.min = 1.7 V, supply.vdd.max = 3600 mV.'],
      ['info', 'WITHIN_LIMITS', ['temperature=85'], 'temperature 85 °C is within temperature.ambient.min = -40 °C, temperature.ambient.max = 85 °C.'],
      ['info', 'WITHIN_LIMITS', ['sysclk=48000000'], 'sysclk 48000000 Hz is within clock.cpu.max = 48 MHz.']
    ])
    expect(f[0].limits).toEqual([
      { parameter: 'vdd', given: 2, limit: 'supply.vdd.min', bound: 'min', value: 1.7, unit: 'V' },
      { parameter: 'vdd', given: 2000, limit: 'supply.vdd.max', bound: 'max', value: 3600, unit: 'mV' }
    ])
    expect(f[0].evidence).toEqual([ev('c', ELEC, 1), ev('c', ELEC, 2)])
    expect(f[2].limits).toEqual([{ parameter: 'sysclk', given: 48, limit: 'clock.cpu.max', bound: 'max', value: 48, unit: 'MHz' }])
    expect(limits({ temperature: -40, vdd: 1.7 }).map((x) => x.code)).toEqual(['WITHIN_LIMITS', 'WITHIN_LIMITS'])
    expect(limits({ vdd: 3.6 })[0].code).toBe('WITHIN_LIMITS')
    expect(limits({})).toEqual([])
  })

  it('a value past a bound is OUT_OF_LIMITS on that bound alone, with its evidence', () => {
    const out = (p: Obj, facts = LIMIT_FACTS) => limits(p, facts).map((x) => [x.severity, x.code, x.message, x.limits, x.evidence])
    expect(out({ vdd: 4 })).toEqual([['error', 'OUT_OF_LIMITS', 'vdd 4000 mV is above supply.vdd.max = 3600 mV.', [{ parameter: 'vdd', given: 4000, limit: 'supply.vdd.max', bound: 'max', value: 3600, unit: 'mV' }], [ev('c', ELEC, 2)]]])
    expect(out({ vdd: 1.69 })).toEqual([['error', 'OUT_OF_LIMITS', 'vdd 1.69 V is below supply.vdd.min = 1.7 V.', [{ parameter: 'vdd', given: 1.69, limit: 'supply.vdd.min', bound: 'min', value: 1.7, unit: 'V' }], [ev('c', ELEC, 1)]]])
    expect(out({ vdd: 1.69 }, [read('supply.vdd.min', { value: 1700, unit: 'mV' }, 8)])[0]![2]).toBe('vdd 1690 mV is below supply.vdd.min = 1700 mV.')
    expect(out({ temperature: -41 })[0]![2]).toBe('temperature -41 °C is below temperature.ambient.min = -40 °C.')
    expect(out({ temperature: 86 })[0]![2]).toBe('temperature 86 °C is above temperature.ambient.max = 85 °C.')
    expect(out({ sysclk: 48_000_001 })[0]![2]).toBe('sysclk 48.000001 MHz is above clock.cpu.max = 48 MHz.')
    expect(out({ sysclk: 48_000_001 }, [read('clock.cpu.max', { value: 48000, unit: 'kHz' }, 9)])[0]![2]).toBe('sysclk 48000.001 kHz is above clock.cpu.max = 48000 kHz.')
    expect(out({ sysclk: 48_000_000 }, [read('clock.cpu.max', { value: 48000, unit: 'kHz' }, 9)])[0]![1]).toBe('WITHIN_LIMITS')
  })

  it('a parameter with no limit in a known unit is a NOT_COVERED warning naming the limits looked for', () => {
    const none = (p: Obj, facts: ReturnType<typeof read>[]) => limits(p, facts).map((x) => [x.severity, x.code, x.topic, x.inputs, x.message, x.evidence])
    expect(none({ vdd: 3.3, sysclk: 1000 }, [])).toEqual([
      ['warning', 'NOT_COVERED', 'electrical', ['vdd=3.3'], 'This release has no supply.vdd.min or supply.vdd.max limit for this part: vdd is not checked.', []],
      ['warning', 'NOT_COVERED', 'electrical', ['sysclk=1000'], 'This release has no clock.cpu.max limit for this part: sysclk is not checked.', []]
    ])
    expect(none({ vdd: 3.3 }, [read('supply.vdd.max', { value: 3.6, unit: 'A' }, 1)])[0]![1]).toBe('NOT_COVERED')
    // One bound in a known unit is checked alone.
    expect(limits({ vdd: 3.3 }, [read('supply.vdd.max', { value: 3.6, unit: 'V' }, 1), read('supply.vdd.min', { value: 1, unit: 'kV' }, 2)])[0]!.limits).toEqual([{ parameter: 'vdd', given: 3.3, limit: 'supply.vdd.max', bound: 'max', value: 3.6, unit: 'V' }])
  })
})

const CHIP = 'chips/stm32-data/STM32Q8.json'
const DMA_FACTS = [
  read('USART1.TX', { options: [{ controller: 'DMA2', channel: 7, request: 4 }, { controller: 'DMA2', channel: 2, request: 4 }] }, 10, CHIP),
  read('SPI1.RX', { options: [{ controller: 'DMAMUX1', request: 17, channels: ['DMA1_Ch0', 'DMA1_CH1'] }] }, 11, CHIP),
  read('LPUART1.TX', { options: [{ controller: 'bdma', channel: null, request: null }] }, 12, CHIP),
  read('UART4.TX', {}, 13, CHIP)
]

describe('dmaFindings', () => {
  const dma = (text: string, facts: ReturnType<typeof read>[] | null = DMA_FACTS) => dmaFindings(parseInputs({ dma: text }).dma, facts ?? undefined) as any[]
  it('a channel the signal can use is DMA_OK with that option: a fixed channel, one of a list, any channel of a controller', () => {
    expect(dma('usart1_tx:dma2_ch7,USART1_TX:DMA2_STREAM2,SPI1_RX:DMA1_C0,SPI1_RX:DMA1_CH1,LPUART1_TX:BDMA_CH3').map((x) => [x.severity, x.code, x.inputs, x.message, x.dma, x.evidence])).toEqual([
      ['info', 'DMA_OK', ['USART1_TX:DMA2_CH7'], 'USART1_TX on DMA2_CH7, request 4.', [{ controller: 'DMA2', channel: 7, request: 4 }], [ev('c', CHIP, 10)]],
      ['info', 'DMA_OK', ['USART1_TX:DMA2_STREAM2'], 'USART1_TX on DMA2_CH2, request 4.', [{ controller: 'DMA2', channel: 2, request: 4 }], [ev('c', CHIP, 10)]],
      ['info', 'DMA_OK', ['SPI1_RX:DMA1_C0'], 'SPI1_RX on DMA1_CH0, request 17.', [{ controller: 'DMAMUX1', channel: null, request: 17, channels: ['DMA1_Ch0', 'DMA1_CH1'] }], [ev('c', CHIP, 11)]],
      ['info', 'DMA_OK', ['SPI1_RX:DMA1_CH1'], 'SPI1_RX on DMA1_CH1, request 17.', [{ controller: 'DMAMUX1', channel: null, request: 17, channels: ['DMA1_Ch0', 'DMA1_CH1'] }], [ev('c', CHIP, 11)]],
      ['info', 'DMA_OK', ['LPUART1_TX:BDMA_CH3'], 'LPUART1_TX on BDMA_CH3.', [{ controller: 'bdma', channel: null, request: null }], [ev('c', CHIP, 12)]]
    ])
  })

  it('another channel is DMA_NOT_AVAILABLE listing what the signal can use; a signal without DMA facts is too, without evidence', () => {
    const f = dma('USART1_TX:DMA1_CH7,USART1_TX:DMA2_CH6,SPI1_RX:DMA1_CH2,SPI1_RX:DMA2_CH1,LPUART1_TX:DMA1_CH3,UART4_TX:DMA1_CH1,TIM1_UP:DMA1_CH5')
    expect(f.map((x) => [x.severity, x.code, x.message])).toEqual([
      ['error', 'DMA_NOT_AVAILABLE', 'USART1_TX cannot use DMA1_CH7; it can use DMA2_CH7 (request 4), DMA2_CH2 (request 4).'],
      ['error', 'DMA_NOT_AVAILABLE', 'USART1_TX cannot use DMA2_CH6; it can use DMA2_CH7 (request 4), DMA2_CH2 (request 4).'],
      ['error', 'DMA_NOT_AVAILABLE', 'SPI1_RX cannot use DMA1_CH2; it can use DMAMUX1 (request 17).'],
      ['error', 'DMA_NOT_AVAILABLE', 'SPI1_RX cannot use DMA2_CH1; it can use DMAMUX1 (request 17).'],
      ['error', 'DMA_NOT_AVAILABLE', 'LPUART1_TX cannot use DMA1_CH3; it can use bdma.'],
      ['error', 'DMA_NOT_AVAILABLE', 'UART4_TX cannot use DMA1_CH1; it can use no channel.'],
      ['error', 'DMA_NOT_AVAILABLE', 'No DMA request of this part is TIM1_UP.']
    ])
    expect(f[0]).toMatchObject({ inputs: ['USART1_TX:DMA1_CH7'], dma: [{ controller: 'DMA2', channel: 7, request: 4 }, { controller: 'DMA2', channel: 2, request: 4 }], evidence: [ev('c', CHIP, 10)] })
    expect(f[5]).toMatchObject({ dma: [], evidence: [ev('c', CHIP, 13)] })
    expect(f[6]).toEqual({ severity: 'error', code: 'DMA_NOT_AVAILABLE', inputs: ['TIM1_UP:DMA1_CH5'], message: 'No DMA request of this part is TIM1_UP.', evidence: [] })
  })

  it('two entries on one channel are one DMA_CONFLICT from the inputs alone, first, with or without facts', () => {
    const conflict = { severity: 'error', code: 'DMA_CONFLICT', inputs: ['USART1_TX:DMA2_CH7', 'USART6_TX:DMA2_STREAM7', 'SPI1_TX:DMA2_7'], message: 'DMA2_CH7 is given to USART1_TX and USART6_TX and SPI1_TX: one channel serves one request at a time.', evidence: [] }
    expect(dma('USART1_TX:DMA2_CH7,USART6_TX:DMA2_STREAM7,SPI1_TX:DMA2_7,USART1_RX:DMA2_CH5', null)).toEqual([conflict])
    expect(dma('USART1_TX:DMA2_CH7,USART6_TX:DMA2_STREAM7,SPI1_TX:DMA2_7').map((x) => x.code)).toEqual(['DMA_CONFLICT', 'DMA_OK', 'DMA_NOT_AVAILABLE', 'DMA_NOT_AVAILABLE'])
    expect(dma('USART1_TX:DMA2_CH7,USART1_RX:DMA1_CH7', null)).toEqual([])
  })
})

describe('peripheralsInUse', () => {
  it('each entry under its signal\'s instance (the longest one the part names) and its pin\'s GPIO port when the part has one, in entry order', () => {
    const inputs = parseInputs({ assign: 'USART1_TX:PA9,USB_OTG_FS_DM:PA11,GPIO:PB0,SPI1_SCK:,EVENTOUT:PC13,USART1_RX:VDD,GPIOA_X:PA1', dma: 'USART1_TX:DMA2_CH7,TIM1_UP:DMA1_CH5' })
    const used = peripheralsInUse(inputs, new Set(['USART1', 'USB_OTG_FS', 'USB_OTG', 'GPIOA', 'GPIOB', 'GPIOD']))
    expect([...used]).toEqual([
      ['USART1', ['USART1_TX:PA9', 'USART1_RX:VDD', 'USART1_TX:DMA2_CH7']],
      ['GPIOA', ['USART1_TX:PA9', 'USB_OTG_FS_DM:PA11', 'GPIOA_X:PA1']],
      ['USB_OTG_FS', ['USB_OTG_FS_DM:PA11']],
      ['GPIOB', ['GPIO:PB0']],
      ['SPI1', ['SPI1_SCK:']],
      ['TIM1', ['TIM1_UP:DMA1_CH5']]
    ])
    expect([...peripheralsInUse(parseInputs({ assign: 'USART1_TX:PA9' }), new Set())]).toEqual([['USART1', ['USART1_TX:PA9']]])
  })
})

const HDR = 'errata/nordic/nrf52_erratas.h'
const ERRATA = [
  read('errata.1', { revisions: [{ code: '0x01', applies: true }, { code: '0x02', applies: false }], appliesToUnlistedRevisions: false, module: 'nrfx_uarte', handling: [{ handling: 'workaround', module: 'nrfx_uarte', comment: 'Fixed in the driver' }], workaroundInMdk: true, workaroundEnabledByDefault: false }, 1, HDR),
  read('errata.2', { revisions: [{ code: '0x01', applies: false }, { code: '0x02', applies: true }], appliesToUnlistedRevisions: true, handling: [{ handling: 'none', module: 'nrf_twim_hal', comment: null }, { handling: 'skip', module: null, comment: null }] }, 2, HDR),
  read('errata.3', { revisions: [{ code: '0x01', applies: true }], appliesToUnlistedRevisions: false }, 3, HDR),
  read('errata.4', { module: 'I2C', title: 'I2C: a stuck bus' }, 4, 'nxp/Q_features.h'),
  read('errata.5', { revisions: [{ code: '0x01', applies: false }], module: 'spim' }, 5, HDR),
  read('errata.7', { revisions: [{ code: '0x01', applies: true }, { code: '0x02', applies: true }], appliesToUnlistedRevisions: false, module: 'nrfx_saadc' }, 7, HDR),
  read('errata.6', { revisions: [], appliesToUnlistedRevisions: true, module: 'nrfx_spim_anomaly', handling: [{ handling: 'fixed', module: null, comment: 'In the MDK' }], workaroundInMdk: true }, 6, HDR)
]

describe('errataFindings', () => {
  const used = new Map([
    ['UARTE0', ['UARTE0_TXD:P0.06']],
    ['TWIM1', ['TWIM1_SCL:P0.11', 'TWIM1_SDA:P0.12']],
    ['SPIMS2', ['SPIMS2_SCK:P0.13']]
  ])
  const errata = (u: Map<string, string[]>, rev: string | undefined) => errataFindings(ERRATA, u, rev, rev === undefined ? [] : [`silicon_revision=${rev}`]) as any[]

  it('at a revision: the errata that apply to it and concern a peripheral in use, then those naming no module as one NOT_COVERED (info)', () => {
    const f = errata(used, '0x01')
    expect(f.map((x) => [x.severity, x.code, x.inputs, x.message, x.evidence])).toEqual([
      ['warning', 'ERRATUM_APPLIES', ['UARTE0_TXD:P0.06', 'silicon_revision=0x01'], 'errata.1 applies to revision 0x01, concerning UARTE0.', [ev('c', HDR, 1)]],
      ['info', 'NOT_COVERED', ['UARTE0_TXD:P0.06', 'TWIM1_SCL:P0.11', 'TWIM1_SDA:P0.12', 'SPIMS2_SCK:P0.13', 'silicon_revision=0x01'], '1 errata of revision 0x01 name no module, so whether they concern the peripherals in use is not known: errata.3.', []]
    ])
    expect(f[0].erratum).toEqual({ id: 'errata.1', title: null, module: 'nrfx_uarte', workaround: 'workaround in nrfx_uarte: Fixed in the driver; the MDK implements the workaround (not enabled by default)', revisions: ['0x01'] })
    expect(f[1].topic).toBe('errata')
    const g = errata(used, '0x02')
    expect(g.map((x) => [x.code, x.inputs, x.message])).toEqual([['ERRATUM_APPLIES', ['TWIM1_SCL:P0.11', 'TWIM1_SDA:P0.12', 'silicon_revision=0x02'], 'errata.2 applies to revision 0x02, concerning TWIM1.']])
    expect(g[0].erratum).toEqual({ id: 'errata.2', title: null, module: 'nrf_twim_hal', workaround: 'none in nrf_twim_hal', revisions: ['0x02'] })
    // A revision the source does not list: only errata that apply to unlisted ones.
    expect(errata(used, '0x07').map((x) => x.erratum.id)).toEqual(['errata.2'])
  })

  it('revision unknown: every revision\'s errata, each saying the revisions it applies to', () => {
    const f = errata(used, undefined)
    expect(f.map((x) => [x.code, x.inputs, x.message])).toEqual([
      ['ERRATUM_APPLIES', ['UARTE0_TXD:P0.06'], 'errata.1 applies to revisions 0x01 (revision unknown), concerning UARTE0.'],
      ['ERRATUM_APPLIES', ['TWIM1_SCL:P0.11', 'TWIM1_SDA:P0.12'], 'errata.2 applies to revisions 0x02 and those the source does not list (revision unknown), concerning TWIM1.'],
      ['NOT_COVERED', ['UARTE0_TXD:P0.06', 'TWIM1_SCL:P0.11', 'TWIM1_SDA:P0.12', 'SPIMS2_SCK:P0.13'], '1 errata of this part name no module, so whether they concern the peripherals in use is not known: errata.3.']
    ])
  })

  it('without peripherals in use every erratum of the revision is listed; a source that does not narrow by revision applies to the device', () => {
    const f = errata(new Map(), undefined)
    expect(f.map((x) => [x.code, x.inputs, x.message])).toEqual([
      ['ERRATUM_APPLIES', [], 'errata.1 applies to revisions 0x01 (revision unknown).'],
      ['ERRATUM_APPLIES', [], 'errata.2 applies to revisions 0x02 and those the source does not list (revision unknown).'],
      ['ERRATUM_APPLIES', [], 'errata.3 applies to revisions 0x01 (revision unknown).'],
      ['ERRATUM_APPLIES', [], 'errata.4 (I2C: a stuck bus) applies to this device.'],
      ['ERRATUM_APPLIES', [], 'errata.7 applies to revisions 0x01, 0x02 (revision unknown).'],
      ['ERRATUM_APPLIES', [], 'errata.6 applies to revisions not listed and those the source does not list (revision unknown).']
    ])
    expect(f[3].erratum).toEqual({ id: 'errata.4', title: 'I2C: a stuck bus', module: 'I2C', workaround: null, revisions: null })
    expect(f[5].erratum).toEqual({ id: 'errata.6', title: null, module: 'nrfx_spim_anomaly', workaround: 'fixed: In the MDK; the MDK implements the workaround', revisions: [] })
    expect(errata(new Map(), '0x02').map((x) => [x.erratum.id, x.inputs, x.message])).toEqual([
      ['errata.2', ['silicon_revision=0x02'], 'errata.2 applies to revision 0x02.'],
      ['errata.4', ['silicon_revision=0x02'], 'errata.4 (I2C: a stuck bus) applies to revision 0x02.'],
      ['errata.7', ['silicon_revision=0x02'], 'errata.7 applies to revision 0x02.'],
      ['errata.6', ['silicon_revision=0x02'], 'errata.6 applies to revision 0x02.']
    ])
  })

  it('a module concerns a peripheral by its name without the instance number and the driver prefixes (nrfx_, nrfy_, nrf_, _hal), or a sub-module of it', () => {
    const only = (peripheral: string, module: string, handling: Obj[] = []) =>
      errataFindings([read('errata.9', { revisions: [{ code: '0x01', applies: true }], module, handling }, 9, HDR)], new Map([[peripheral, ['E:P0.01']]]), '0x01', []).filter((x) => x.code === 'ERRATUM_APPLIES').length
    expect([only('UARTE0', 'nrfx_uarte'), only('UARTE12', 'nrfy_uarte'), only('TWIM1', 'nrf_twim_hal'), only('SPIM3', 'nrfx_spim_anomaly'), only('I2C1', 'I2C'), only('SAADC', 'saadc')]).toEqual([1, 1, 1, 1, 1, 1])
    expect([only('SPIM3', 'spims'), only('SPIM3', 'xnrf_spim'), only('TWIM1', 'twim_halt'), only('SPIM3', 'spim_hal_x'), only('UART0', 'uarte'), only('SPIM3', 'nrfz_spim'), only('TIMER1', 'timer1')]).toEqual([0, 0, 1, 1, 0, 0, 0])
    // A module given only by the errata matrix's handling rows counts too.
    expect(only('TWIM1', 'rtc', [{ handling: 'none', module: 'nrfx_twim', comment: null }])).toBe(1)
    const two = errataFindings([read('errata.9', { revisions: [{ code: '0x01', applies: true }], module: 'uarte', handling: [{ handling: 'h', module: 'nrfx_uarte', comment: null }, { handling: 'h', module: 'uarte', comment: null }] }, 9, HDR)], new Map([['UARTE0', ['A:P0.01']], ['UARTE1', ['A:P0.01', 'B:P0.02']]]), '0x01', [])
    expect(two.map((x) => [x.inputs, x.message, (x as Obj).erratum.module])).toEqual([[['A:P0.01', 'B:P0.02'], 'errata.9 applies to revision 0x01, concerning UARTE0, UARTE1.', 'uarte, nrfx_uarte']])
  })
})

describe('clockFindings', () => {
  it('each peripheral in use with a clock fact is CLOCK_ENABLE with its enable bit and clocks; the others are listed without', () => {
    const clocks = [
      read('USART1', { enable: 'RCC.APB2ENR.USART1EN', reset: 'RCC.APB2RSTR.USART1RST', busClock: 'APB2', kernelClock: 'PCLK2' }, 20, CHIP),
      read('GPIOA', { enable: 'RCC.AHB1ENR.GPIOAEN', busClock: 5 }, 21, CHIP),
      read('SPI1', {}, 22, CHIP)
    ]
    const used = new Map([
      ['USART1', ['USART1_TX:PA9']],
      ['I2C1', ['I2C1_SCL:PB8']],
      ['SPI1', ['SPI1_SCK:PA5']],
      ['GPIOA', ['USART1_TX:PA9', 'SPI1_SCK:PA5']],
      ['TIM1', ['TIM1_CH1:PA8']]
    ])
    const { findings, without } = clockFindings(clocks, used)
    expect(without).toEqual(['I2C1', 'TIM1'])
    expect(findings.map((x) => [x.severity, x.code, x.inputs, x.message, x.clock, x.evidence])).toEqual([
      ['info', 'CLOCK_ENABLE', ['USART1_TX:PA9'], 'USART1 needs RCC.APB2ENR.USART1EN (bus clock APB2).', { peripheral: 'USART1', enable: 'RCC.APB2ENR.USART1EN', reset: 'RCC.APB2RSTR.USART1RST', busClock: 'APB2', kernelClock: 'PCLK2' }, [ev('c', CHIP, 20)]],
      ['info', 'CLOCK_ENABLE', ['SPI1_SCK:PA5'], 'SPI1 needs its clock enabled (the source names no enable bit).', { peripheral: 'SPI1', enable: null, reset: null, busClock: null, kernelClock: null }, [ev('c', CHIP, 22)]],
      ['info', 'CLOCK_ENABLE', ['USART1_TX:PA9', 'SPI1_SCK:PA5'], 'GPIOA needs RCC.AHB1ENR.GPIOAEN.', { peripheral: 'GPIOA', enable: 'RCC.AHB1ENR.GPIOAEN', reset: null, busClock: null, kernelClock: null }, [ev('c', CHIP, 21)]]
    ])
  })
})

/*
 * The whole answer (Check over a release, no app): the core corpus release the test set-up builds
 * once. Expected values are read from the raw corpus files (positions, AF numbers, limits, errata)
 * or follow from the answer's rules (status, validity, order, counts, budget).
 */
describe('Check over the core corpus release', () => {
  const raw = (p: string) => readFileSync(join(CORPUS_INVENTORY, p), 'utf8')
  const F407 = 'pins/stm32/mcu/STM32F407V(E-G)Tx.xml'
  const G071 = 'pins/stm32/mcu/STM32G071G(6-8-B)Ux.xml'
  const modesOf = (mcu: string) => raw(`pins/stm32/mcu/IP/GPIO-${/<IP [^>]*Name="GPIO" Version="([^"]+)"/.exec(raw(mcu))![1]}_Modes.xml`)
  let repo: SqliteRepository
  let facts: HardwareFacts
  let release: string
  const answer = async (p: Obj, c = new Check(facts)): Promise<Obj> => {
    const body = await c.check(p as CheckParams)
    const j = JSON.parse(body)
    // The bound is on the whole answer, counted with the reference tokenizer.
    expect(countTokens(body)).toBeLessThanOrEqual(j.page.tokens)
    expect(j.page.tokens).toBeLessThanOrEqual(j.page.maxTokens)
    return j
  }
  beforeAll(async () => {
    repo = new SqliteRepository(await corpusDataDir())
    facts = new HardwareFacts(repo, 'check-edges')
    release = (await facts.store()).manifest.id
  })
  afterAll(() => repo?.close())

  it('an unknown part: not_found, nothing checked, suggestions; members in the contract\'s order', async () => {
    const j = await answer({ part: 'QZ9999NOPE' })
    expect(Object.keys(j)).toEqual(['release', 'part', 'status', 'valid', 'pinsTarget', 'counts', 'findings', 'page', 'suggestions', 'notes'])
    expect(j).toMatchObject({ release, part: 'QZ9999NOPE', status: 'not_found', valid: null, pinsTarget: null, counts: { error: 0, warning: 0, info: 0 }, findings: [], notes: ['Unknown part: nothing checked.'] })
    expect(j.page).toMatchObject({ returned: 0, total: 0, maxTokens: 4000, truncatedBy: null, budgetTooSmall: false, neededMaxTokens: null })
    expect(Array.isArray(j.suggestions)).toBe(true)
  })

  it('an ambiguous part: its candidates (never one picked), for the first topic asked; a small budget cuts them and says what lists all', async () => {
    const files = readdirSync(join(CORPUS_INVENTORY, 'pins/stm32/mcu')).filter((f) => f.startsWith('STM32F407'))
    const j = await answer({ part: 'STM32F407', vdd: 3.3, silicon_revision: '1', max_tokens: 4000 })
    expect(j).toMatchObject({ status: 'ambiguous', valid: null, pinsTarget: null, findings: [], counts: { error: 0, warning: 0, info: 0 }, candidateCount: files.length })
    expect(j.candidates.map((c: Obj) => c.source.path).sort()).toEqual(files.map((f) => `pins/stm32/mcu/${f}`).sort())
    expect(j.notes).toEqual(['Ambiguous part for electrical: nothing checked; the candidates are the document targets to choose from (never chosen for you).'])
    expect(j.page).toMatchObject({ truncatedBy: null, neededMaxTokens: null })
    expect((await answer({ part: 'STM32F407', assign: 'USART1_TX:PA9' })).notes[0]).toMatch(/^Ambiguous part for pins: /)
    const cut = await answer({ part: 'STM32F407', vdd: 3.3, max_tokens: 400 })
    const n = cut.candidates.length
    expect(n).toBeGreaterThan(0)
    expect(n).toBeLessThan(files.length)
    expect(cut.candidates).toEqual(j.candidates.slice(0, n))
    expect(cut.page).toMatchObject({ returned: 0, total: 0, truncatedBy: 'max_tokens', budgetTooSmall: false })
    expect(cut.notes[1]).toBe(`max_tokens=400 leaves room for ${n} of these ${files.length} candidates (candidateCount counts all): max_tokens=${cut.page.neededMaxTokens} lists the ${files.length}.`)
    const all = await answer({ part: 'STM32F407', vdd: 3.3, max_tokens: cut.page.neededMaxTokens })
    expect(all.candidates).toHaveLength(files.length)
    expect(all.page.truncatedBy).toBeNull()
    // Not even the head and one candidate: a Problem naming max_tokens.
    await expect(new Check(facts).check({ part: 'STM32F407', vdd: 3.3, max_tokens: 40 } as CheckParams)).rejects.toMatchObject({ code: 'INVALID_PARAMETER', param: 'max_tokens' })
  })

  it('at most ten candidates, counted all; a package narrows a part to its pin data; one resolved part is named', async () => {
    const g071 = readdirSync(join(CORPUS_INVENTORY, 'pins/stm32/mcu')).filter((f) => f.startsWith('STM32G071'))
    expect(g071.length).toBeGreaterThan(10)
    const many = await answer({ part: 'STM32G071', vdd: 3 })
    expect(many).toMatchObject({ status: 'ambiguous', candidateCount: g071.length })
    expect(many.candidates).toHaveLength(10)
    const pkg = /Package="([^"]+)"/.exec(raw(F407))![1]!
    const narrowed = await answer({ part: 'STM32F407', package: pkg, assign: 'USART1_TX:PA0' })
    expect(narrowed).toMatchObject({ status: 'checked', pinsTarget: { package: pkg, source: { path: F407 } } })
    expect(narrowed.findings[0].message).toMatch(new RegExp(`^PA0 does not carry USART1_TX in ${pkg}; `))
    // STM32F407V(E-G)Tx names the selector part STM32F407VGTx.
    expect((await answer({ part: 'STM32F407VG', vdd: 3 })).resolvedPart).toEqual({ name: 'STM32F407VGTx', kind: 'selector-part' })
    expect(await answer({ part: 'STM32F4', vdd: 3 })).not.toHaveProperty('resolvedPart')
  })

  it('findings errors first, then warnings, then info, each in the order of the inputs; what the release lacks is NOT_COVERED', async () => {
    const j = await answer({ part: 'STM32F407VGT6', assign: 'USART1_TX:PA9,USART1_RX:PA0', vdd: 4, silicon_revision: '1', dma: 'USART1_TX:DMA2_CH7' })
    expect(j.findings.map((f: Obj) => [f.severity, f.code, f.topic ?? null, f.inputs])).toEqual([
      ['error', 'SIGNAL_NOT_ON_PIN', null, ['USART1_RX:PA0']],
      ['error', 'OUT_OF_LIMITS', null, ['vdd=4']],
      ['warning', 'NOT_COVERED', 'dma', ['USART1_TX:DMA2_CH7']],
      ['warning', 'NOT_COVERED', 'errata', ['USART1_TX:PA9', 'USART1_RX:PA0', 'USART1_TX:DMA2_CH7', 'silicon_revision=1']],
      ['info', 'PIN_OK', null, ['USART1_TX:PA9']],
      ['info', 'NOT_COVERED', 'clocks', ['USART1_TX:PA9', 'USART1_RX:PA0', 'USART1_TX:DMA2_CH7']]
    ])
    expect(j).toMatchObject({ status: 'checked', valid: false, counts: { error: 2, warning: 2, info: 2 }, resolvedPart: { name: expect.stringMatching(/^STM32F407VG/) } })
    expect(j.findings[1].limits[0].value).toBe(mcuLimits(raw(F407)).vddMax)
    expect(j.findings[4].pins).toEqual([{ pin: 'PA9', position: mcuPositions(raw(F407)).get('PA9'), af: gpioAf(modesOf(F407), 'PA9', 'USART1_TX') }])
    // Each reason without its full stop, then what was not checked.
    const nc = j.findings.filter((f: Obj) => f.code === 'NOT_COVERED').map((f: Obj) => f.message)
    expect(nc[0]).toMatch(/[^.]: the DMA assignments are checked only against each other\.$/)
    expect(nc[1]).toMatch(/[^.]: no errata are listed\.$/)
    expect(nc[2]).toMatch(/[^.]: no enable bits are listed\.$/)
    const sha = createHash('sha256').update(readFileSync(join(CORPUS_INVENTORY, F407))).digest('hex')
    expect(j.pinsTarget).toEqual({ key: expect.any(String), device: expect.any(String), package: /Package="([^"]+)"/.exec(raw(F407))![1], source: { path: F407, sha256: sha } })
    expect(j.notes).toBeUndefined()
  })

  it('valid: null when something asked could not be checked and nothing is wrong; true when only info remains', async () => {
    const dmaOnly = await answer({ part: 'STM32F407VGT6', dma: 'USART1_TX:DMA2_CH7' })
    expect(dmaOnly.findings.map((f: Obj) => [f.severity, f.topic])).toEqual([
      ['warning', 'dma'],
      ['info', 'errata'],
      ['info', 'clocks']
    ])
    expect(dmaOnly.findings[1].inputs).toEqual(['USART1_TX:DMA2_CH7'])
    expect(dmaOnly).toMatchObject({ valid: null, pinsTarget: null, counts: { error: 0, warning: 1, info: 2 } })
    // Errata are asked for only with a silicon revision; alone, it is the one topic read.
    const rev = await answer({ part: 'STM32F407VGT6', silicon_revision: '0x10' })
    expect(rev.findings.map((f: Obj) => [f.severity, f.topic, f.inputs])).toEqual([['warning', 'errata', ['silicon_revision=0x10']]])
    expect(rev.valid).toBeNull()
    const conflict = await answer({ part: 'STM32F407VGT6', dma: 'USART1_TX:DMA2_CH7,USART6_TX:DMA2_STREAM7' })
    expect(conflict.findings.map((f: Obj) => f.code)).toEqual(['DMA_CONFLICT', 'NOT_COVERED', 'NOT_COVERED', 'NOT_COVERED'])
    expect(conflict.valid).toBe(false)
    const nothing = await answer({ part: 'STM32F407VGT6' })
    expect(nothing).toMatchObject({ status: 'checked', valid: true, findings: [], counts: { error: 0, warning: 0, info: 0 }, pinsTarget: null })
    // Each operating-point value alone asks for the limits.
    expect((await answer({ part: 'STM32F407VGT6', temperature: 25 })).findings.map((f: Obj) => [f.code, f.inputs])).toEqual([['WITHIN_LIMITS', ['temperature=25']]])
    expect((await answer({ part: 'STM32F407VGT6', sysclk: 1_000_000 })).findings.map((f: Obj) => [f.code, f.inputs])).toEqual([['WITHIN_LIMITS', ['sysclk=1000000']]])
    // Errata warnings alone, or NOT_COVERED findings that are all info, leave a configuration valid.
    const errataOnly = await answer({ part: 'nRF52840', silicon_revision: '0x03', max_tokens: 16000 })
    expect(errataOnly.findings.length).toBeGreaterThan(0)
    expect(errataOnly.findings.every((f: Obj) => f.code === 'ERRATUM_APPLIES' && f.severity === 'warning')).toBe(true)
    expect(errataOnly.valid).toBe(true)
    const infoOnly = await answer({ part: 'STM32F407VGT6', assign: 'USART1_TX:PA9' })
    expect(infoOnly.findings.map((f: Obj) => [f.severity, f.code])).toEqual([['info', 'PIN_OK'], ['info', 'NOT_COVERED'], ['info', 'NOT_COVERED']])
    expect(infoOnly.valid).toBe(true)
    // Without a revision the errata findings name only the entries.
    const anyRev = await answer({ part: 'nRF52840', assign: 'SPIM3_SCK:P0.10', max_tokens: 16000 })
    expect(anyRev.findings.filter((f: Obj) => f.code === 'ERRATUM_APPLIES').every((f: Obj) => f.inputs.join() === 'SPIM3_SCK:P0.10')).toBe(true)
    const within = await answer({ part: 'STM32F407VGT6', vdd: 3.3, temperature: 25 })
    expect(within).toMatchObject({ valid: true, counts: { error: 0, warning: 0, info: 2 } })
  })

  it('a part with no pin data or limits: each asked topic a NOT_COVERED warning with the inputs it concerns; errata read for the peripherals in use', async () => {
    const j = await answer({ part: 'nRF52840', assign: 'SPIM3_SCK:P0.10', vdd: 3.3, sysclk: 64_000_000, silicon_revision: '3', max_tokens: 16000 })
    const nc = j.findings.filter((f: Obj) => f.code === 'NOT_COVERED').map((f: Obj) => [f.severity, f.topic, f.inputs])
    expect(nc).toEqual([
      ['warning', 'pins', ['SPIM3_SCK:P0.10']],
      ['warning', 'electrical', ['vdd=3.3', 'sysclk=64000000']],
      ['info', 'errata', ['SPIM3_SCK:P0.10', 'silicon_revision=3']],
      ['info', 'clocks', ['SPIM3_SCK:P0.10']]
    ])
    expect(j).toMatchObject({ valid: null, pinsTarget: null })
    const messages = j.findings.filter((f: Obj) => f.code === 'NOT_COVERED').map((f: Obj) => f.message)
    expect(messages[0]).toMatch(/[^.]: the pin assignments are not checked\.$/)
    expect(messages[1]).toMatch(/[^.]: the values are not checked\.$/)
    const header = raw('errata/nordic/nrf52_erratas.h')
    const code = /#if defined \(NRF52840_XXAA\)[^\n]*\n\s*if \(var1 == (0x[0-9a-f]+)\)/.exec(header)![1]!
    const modules = doxModules(raw('errata/nordic/errata.dox'), 'NRF52')
    const applying = [...nordicRevisions(header, code)].filter(([, { cases, otherwise }]) => cases.get('0x03') ?? otherwise).map(([n]) => n)
    const want = applying.filter((n) => (modules.get(n) ?? []).map((m) => m.toLowerCase().replace(/^nrf[xy]?_/, '').replace(/_hal$/, '')).some((m) => m === 'spim' || m.startsWith('spim_'))).sort((a, b) => a - b)
    // Errata the matrix names no module for: one note-like finding, listing them.
    const unnamed = applying.filter((n) => (modules.get(n) ?? []).length === 0)
    const listed = /^(\d+) errata of revision 0x03 name no module, so whether they concern the peripherals in use is not known: (.*)\.$/.exec(j.findings.find((f: Obj) => f.topic === 'errata').message)!
    expect(Number(listed[1])).toBe(unnamed.length)
    expect(listed[2]!.split(', ').map((x) => Number(x.split('.')[1])).sort((a, b) => a - b)).toEqual(unnamed.sort((a, b) => a - b))
    const got = j.findings.filter((f: Obj) => f.code === 'ERRATUM_APPLIES')
    expect(want.length).toBeGreaterThan(0)
    expect(got.map((f: Obj) => Number(f.erratum.id.split('.')[1])).sort((a: number, b: number) => a - b)).toEqual(want)
    for (const f of got) expect(f).toMatchObject({ severity: 'warning', inputs: ['SPIM3_SCK:P0.10', 'silicon_revision=3'], message: expect.stringContaining('applies to revision 0x03, concerning SPIM3.') })
    expect(j.counts).toEqual({ error: 0, warning: 2 + got.length, info: 2 })
  })

  it('max_tokens cuts findings from the end and says what lists them all; too small for one: budgetTooSmall', async () => {
    const assign = 'USART1_TX:PA0,USART1_RX:PA10,SPI1_SCK:PA5,SPI1_MISO:PA6,SPI1_MOSI:PA7,I2C1_SCL:PB6'
    const all = await answer({ part: 'STM32F407VGT6', assign, vdd: 3.3, max_tokens: 16000 })
    const total = all.findings.length
    expect(all.page).toMatchObject({ returned: total, total, truncatedBy: null, neededMaxTokens: null, budgetTooSmall: false })
    const cut = await answer({ part: 'STM32F407VGT6', assign, vdd: 3.3, max_tokens: 1200 })
    const n = cut.page.returned
    expect(n).toBeGreaterThan(0)
    expect(n).toBeLessThan(total)
    expect(cut.findings).toEqual(all.findings.slice(0, n))
    expect(cut.counts).toEqual(all.counts)
    expect(cut.page).toMatchObject({ total, maxTokens: 1200, truncatedBy: 'max_tokens', budgetTooSmall: false })
    expect(cut.page.neededMaxTokens).toBeGreaterThanOrEqual(all.page.tokens)
    expect(cut.notes).toEqual([`max_tokens=1200 leaves room for ${n} of the ${total} findings (errors first): max_tokens=${cut.page.neededMaxTokens} lists them all.`])
    const enough = await answer({ part: 'STM32F407VGT6', assign, vdd: 3.3, max_tokens: cut.page.neededMaxTokens })
    expect(enough.findings).toEqual(all.findings)
    expect(enough.notes).toBeUndefined()
    // Just enough for the whole answer: nothing cut.
    const exact = await answer({ part: 'STM32F407VGT6', assign, vdd: 3.3, max_tokens: all.page.tokens })
    expect(exact.page).toMatchObject({ returned: total, truncatedBy: null })
    const tiny = await answer({ part: 'STM32F407VGT6', assign, vdd: 3.3, max_tokens: 256 })
    expect(tiny.page).toMatchObject({ returned: 0, total, budgetTooSmall: true, truncatedBy: 'max_tokens' })
    expect(tiny.findings).toEqual([])
    await expect(new Check(facts).check({ part: 'STM32F407VGT6', assign, max_tokens: 30 } as CheckParams)).rejects.toMatchObject({ code: 'INVALID_PARAMETER', param: 'max_tokens', message: expect.stringMatching(/^max_tokens=30 cannot hold even this answer without findings \(\d+ tokens\); raise max_tokens\.$/) })
  })

  it('a valid set reads only its pins, each once per Check; another package of the same names reads its own', async () => {
    const reads = vi.spyOn(await facts.store(), 'queryFacts')
    try {
      const c = new Check(facts)
      const pinReads = () => reads.mock.calls.map(([q]) => q).filter((q) => q.topic === 'pins').map((q) => q.names)
      const a = await answer({ part: 'STM32F407VGT6', assign: 'USART1_TX:PA9,SPI1_SCK:PA5' }, c)
      await answer({ part: 'STM32F407VGT6', assign: 'USART1_TX:PA9,I2C1_SCL:PB6' }, c)
      expect(pinReads()).toEqual([['PA9', 'PA5'], ['PB6']])
      const g = await answer({ part: 'STM32G071GBU6', assign: 'USART1_TX:PA9,SPI1_SCK:PA5' }, c)
      expect(pinReads()).toHaveLength(3)
      expect(g.findings[0].pins[0].position).toBe(mcuPositions(raw(G071)).get('PA9 [PA11]'))
      expect(a.findings[0].pins[0].position).toBe(mcuPositions(raw(F407)).get('PA9'))
      // A signal not on its pin needs every pin of the package: read whole once, then kept.
      const whole = await answer({ part: 'STM32F407VGT6', assign: 'USART1_TX:PA5' }, c)
      expect(pinReads().at(-1)).toEqual([])
      expect(await answer({ part: 'STM32F407VGT6', assign: 'USART1_TX:PA9,SPI1_SCK:PA5' }, c)).toEqual(a)
      expect(await answer({ part: 'STM32F407VGT6', assign: 'USART1_TX:PA5' }, c)).toEqual(whole)
      expect(pinReads()).toHaveLength(4)
      expect(whole.findings[0].pins.map((p: Obj) => p.pin)).toEqual(mcuPinsWithSignal(raw(F407), 'USART1_TX').map((l) => /^P[A-Z]\d+/.exec(l)![0]))
    } finally {
      reads.mockRestore()
    }
  })
})
