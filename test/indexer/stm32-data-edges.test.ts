import { describe, expect, it } from 'vitest'
import { STM32_DATA_KIND, stm32DataAdapter } from '../../indexer/sources/stm32-data.js'
import { readChip, ChipShapeError } from '../../indexer/sources/stm32-data/chip.js'
import { jsonPointerLines, JsonLinesError } from '../../indexer/sources/stm32-data/json-lines.js'
import { stSpelling } from '../../indexer/sources/stm32-data/pins.js'
import type { LoadedArtifact } from '../../indexer/sources/types.js'

/*
 * The stm32-data chip adapter on small inline chip files, written as the generator writes them
 * (JSON.stringify(chip, null, 2)): interrupts, clocks, DMA, memory and pins facts of a two-core
 * chip, every member it refuses with its line, the part numbers and their targets. Expected
 * values are worked out by hand from the chip objects below and stm32-data's format (a channel
 * named in a peripheral's `dma_channels` is one of its core's `dma_channels`; `pins` entries
 * give a GPIO name, signal and AF); lines are read off the serialized text by searching it.
 */

const SHA = 'f'.repeat(64)
const art = (name: string, text: string): LoadedArtifact => {
  const content = Buffer.from(text)
  return { path: `chips/stm32-data/${name}.json`, sha256: SHA, bytes: content.length, kind: STM32_DATA_KIND, publisher: 'ST', license: 'MIT', mediaType: 'application/json', content }
}

/** The line holding each needle in turn, each searched from the line of the one before. */
function lineAfter(text: string, ...needles: string[]): number {
  const lines = text.split('\n')
  let at = 0
  for (const n of needles) {
    const i = lines.findIndex((l, k) => k >= at && l.includes(n))
    if (i === -1) throw new Error(`${n} not found after line ${at + 1}`)
    at = i
  }
  return at + 1
}

const USART1_RCC = { bus_clock: 'PCLK2', kernel_clock: { register: 'D2CCIP2R', field: 'USART16SEL' }, enable: { register: 'APB2ENR', field: 'USART1EN' }, reset: { register: 'APB2RSTR', field: 'USART1RST' }, stop_mode: 'Stop' }
const REMAP = [{ register: 'CFGR1', field: 'USART1_TX_DMA_RMP', value: 1 }]

const CHIP = {
  name: 'STM32Q745ZI',
  family: 'STM32Q7',
  line: 'STM32Q745',
  die: 'DIE450',
  device_id: 1104,
  packages: [
    {
      name: 'STM32Q745ZITx',
      package: 'LQFP144',
      pins: [
        { position: '1', signals: ['PA9'] },
        { position: '2', signals: ['PA11', 'PA9'] },
        { position: '3', signals: ['PC2_C'] },
        { position: '4', signals: ['VDD'] },
        { position: 5, signals: ['PB0'] },
        { position: '6', signals: 'PB1' },
        { position: '7', signals: [7, 'PB2'] },
        { position: '2', signals: ['PA9'] },
        null
      ]
    },
    { name: 'STM32Q745ZIHx', package: 'TFBGA240', pins: [] },
    { name: 'STM32Q745ZIJx', package: 'LQFP144', pins: 'none' }
  ],
  memory: [
    [
      { name: 'BANK_1', kind: 'flash', address: 0x08000000, size: 1048576, settings: { erase_size: 131072, write_size: 32, erase_value: 255 }, access: { read: true, write: false, execute: true } },
      { name: 'BANK_2', kind: 'flash', address: 0x08100000, size: 1048576 },
      { name: 'EEPROM', kind: 'eeprom', address: 0x08080000, size: 1024 },
      { name: 'AXISRAM', kind: 'ram', address: 0x24000000, size: 524288 }
    ]
  ],
  docs: [],
  cores: [
    {
      name: 'cm7',
      peripherals: [
        {
          name: 'USART1',
          address: 0x40011000,
          rcc: USART1_RCC,
          pins: [
            { pin: 'PA9', signal: 'TX', af: 7 },
            { pin: 'PB6', signal: 'TX', af: 7 },
            { pin: 'PA9', signal: 'CK' }
          ],
          interrupts: [{ signal: 'GLOBAL', interrupt: 'USART1' }],
          dma_channels: [
            { signal: 'TX', channel: 'DMA1_CH1', request: 42, remap: REMAP },
            { signal: 'RX', dmamux: 'DMAMUX1', request: 41 },
            { signal: 'TX', dma: 'BDMA' },
            { signal: 'TX', channel: 'DMA1_CH1' },
            { signal: 'TX', channel: 'DMA2_CH0' },
            { signal: 'TX', channel: 'DMA9_CH9' },
            { channel: 'DMA1_CH2' },
            { signal: 'RX' },
            { signal: 'RX', dma: 'MDMA', request: 1.5 }
          ]
        },
        {
          name: 'TIM1',
          address: 0x40010000,
          rcc: { bus_clock: 'PCLK2', kernel_clock: 'PCLK2', enable: { register: 'APB2ENR', field: 'TIM1EN' } },
          pins: [
            { pin: 'PA9', signal: 'CH2', af: 1 },
            { pin: 'PA11', signal: 'CH4', af: 1 }
          ],
          interrupts: [{ signal: 'UP', interrupt: 'SHARED_IRQ' }]
        },
        {
          name: 'ADC1',
          address: 0x40022000,
          rcc: { kernel_clock: 'PLL2_P', enable: { register: 'AHB1ENR', field: 'ADC12EN' } },
          pins: [
            { pin: 'PA9', signal: 'INP9' },
            { pin: 'PA10', signal: 'INP10', af: 1.5 }
          ],
          interrupts: [{ signal: 'GLOBAL', interrupt: 'SHARED_IRQ' }]
        },
        { name: 'SPI2', address: 0x40003800, rcc: { bus_clock: 'PCLK1', kernel_clock: 'PCLK1', enable: { register: 'APB1LENR' } }, pins: [{ pin: 'PB2', signal: 'I2S_CK', af: 5 }] },
        { name: 'CEC', address: 0x40006c00, pins: [{ pin: 'PB2', signal: 'CEC', af: 5 }] },
        { name: 'HRTIM1', address: 0x40017400, pins: [{ pin: 'PB2', signal: 'EEV1', af: 13 }] }
      ],
      interrupts: [
        { name: 'WWDG', number: 0 },
        { name: 'USART1', number: 37 },
        { name: 'SHARED_IRQ', number: 50 },
        { name: 'BAD_IRQ', number: 1.5 },
        { name: 'USART1', number: 38 }
      ],
      dma_channels: [
        { name: 'DMA1_CH1', dma: 'DMA1', channel: 1, dmamux: 'DMAMUX1', dmamux_channel: 0 },
        { name: 'DMA1_CH2', dma: 'DMA1', channel: 2, dmamux: 'DMAMUX1', dmamux_channel: 1 },
        { name: 'BDMA_CH0', dma: 'BDMA', channel: 0 },
        { name: 'DMA2_CH0', dma: 'DMA2', channel: 'x' }
      ]
    },
    {
      name: 'cm4',
      peripherals: [
        {
          name: 'USART1',
          address: 0x40011000,
          rcc: USART1_RCC,
          pins: [
            { pin: 'PA9', signal: 'TX', af: 7 },
            { pin: 'PA9', signal: 'RTS', af: 7 }
          ],
          interrupts: [{ signal: 'GLOBAL', interrupt: 'USART1' }],
          dma_channels: [{ signal: 'TX', channel: 'DMA3_CH0' }]
        }
      ],
      interrupts: [{ name: 'USART1', number: 37 }, null],
      dma_channels: [{ name: 'DMA3_CH0', channel: 0 }]
    }
  ]
}

describe('stm32-data: a two-core chip', () => {
  const text = JSON.stringify(CHIP, null, 2)
  const a = art('STM32Q745ZI', text)
  // Built in each test: a mutant that throws while building must fail tests, not their collection.
  const parsed = () => stm32DataAdapter.parse([a])
  const K = 'stm32-data:STM32Q745ZI'
  /** Line of the `{` of the object whose first member is on the line of the last needle. */
  const obj = (...needles: string[]) => lineAfter(text, ...needles) - 1
  const cm7 = (...n: string[]) => lineAfter(text, '"name": "cm7"', ...n)
  const cm4 = (...n: string[]) => lineAfter(text, '"name": "cm4"', ...n)
  const ev = (line: number, ptr: string) => `line ${line}: ${ptr}`
  const of = (target: string, topic: string) => parsed().facts.filter((f) => f.target === target && f.topic === topic)

  it('reports every member it cannot read, at its line', () => {
    const r = parsed()
    const P = '/cores/0/peripherals'
    expect(r.problems.map((p) => [p.line, p.reason])).toStrictEqual([
      [cm7('"name": "BAD_IRQ"') - 1, '/cores/0/interrupts/3: an interrupt without a name and a whole number; not read'],
      [cm7('"name": "BAD_IRQ"', '"name": "USART1"') - 1, 'interrupts USART1 is given twice in stm32-data:STM32Q745ZI@cm7; the first is kept'],
      [cm7('"channel": "DMA2_CH0"') - 2, `${P}/0/dma_channels/4: DMA channel DMA2_CH0 is not in the core's dma_channels; not read`],
      [cm7('"channel": "DMA9_CH9"') - 2, `${P}/0/dma_channels/5: DMA channel DMA9_CH9 is not in the core's dma_channels; not read`],
      [cm7('"channel": "DMA1_CH2"') - 1, `${P}/0/dma_channels/6: a DMA entry without a signal; not read`],
      [cm7('"channel": "DMA1_CH2"', '"signal": "RX"') - 1, `${P}/0/dma_channels/7: a DMA entry without a channel, dma or dmamux; not read`],
      [cm7('"name": "ADC1"', '"rcc"'), `${P}/2/rcc: rcc without a bus clock, a kernel clock and an enable field; not read`],
      [cm7('"name": "SPI2"', '"rcc"'), `${P}/3/rcc: rcc without a bus clock, a kernel clock and an enable field; not read`],
      [cm4('null'), '/cores/1/interrupts/1: an interrupt without a name and a whole number; not read'],
      // A channel of the core's list without a controller is no channel to resolve to.
      [cm4('"channel": "DMA3_CH0"') - 2, "/cores/1/peripherals/0/dma_channels/0: DMA channel DMA3_CH0 is not in the core's dma_channels; not read"],
      [cm7('"pin": "PA10"') - 1, `${P}/2/pins/1: a pin entry without a pin, a signal and a whole AF number; not read`],
      [lineAfter(text, '"position": 5') - 1, '/packages/0/pins/4: a package pin without a position and signals; not read'],
      [lineAfter(text, '"position": "6"') - 1, '/packages/0/pins/5: a package pin without a position and signals; not read'],
      [lineAfter(text, '"name": "STM32Q745ZITx"', 'null'), '/packages/0/pins/8: a package pin without a position and signals; not read']
    ])
  })

  it('interrupts of each core: number and the peripherals whose interrupts name the line, sorted', () => {
    expect(of(`${K}@cm7`, 'interrupts').map((f) => [f.name, f.value, f.peripherals, f.evidence.map((e) => e.locator)])).toStrictEqual([
      ['WWDG', { number: 0, peripherals: [] }, [], [ev(cm7('"name": "WWDG"') - 1, '/cores/0/interrupts/0')]],
      ['USART1', { number: 37, peripherals: ['USART1'] }, ['USART1'], [ev(cm7('"name": "WWDG"', '"name": "USART1"') - 1, '/cores/0/interrupts/1')]],
      ['SHARED_IRQ', { number: 50, peripherals: ['ADC1', 'TIM1'] }, ['ADC1', 'TIM1'], [ev(cm7('"name": "WWDG"', '"name": "SHARED_IRQ"') - 1, '/cores/0/interrupts/2')]]
    ])
    // The excerpt: the lines the element takes, as written.
    expect(of(`${K}@cm7`, 'interrupts')[0]!.evidence[0]!.excerpt).toBe('{ "name": "WWDG", "number": 0 },')
    expect(of(`${K}@cm4`, 'interrupts').map((f) => [f.name, f.value, f.scope])).toStrictEqual([['USART1', { number: 37, peripherals: ['USART1'] }, { device: 'STM32Q745ZI' }]])
  })

  it('clocks: bus and kernel clock (a mux written as its RCC field), enable, reset or null, stop mode', () => {
    expect(of(`${K}@cm7`, 'clocks').map((f) => [f.name, f.value, f.peripherals, f.evidence[0]!.locator])).toStrictEqual([
      [
        'USART1',
        { busClock: 'PCLK2', kernelClock: 'RCC.D2CCIP2R.USART16SEL', kernelClockMux: { register: 'D2CCIP2R', field: 'USART16SEL' }, enable: 'RCC.APB2ENR.USART1EN', reset: 'RCC.APB2RSTR.USART1RST', stopMode: 'Stop' },
        ['USART1'],
        ev(cm7('"name": "USART1"', '"rcc"'), '/cores/0/peripherals/0/rcc')
      ],
      ['TIM1', { busClock: 'PCLK2', kernelClock: 'PCLK2', enable: 'RCC.APB2ENR.TIM1EN', reset: null }, ['TIM1'], ev(cm7('"name": "TIM1"', '"rcc"'), '/cores/0/peripherals/1/rcc')]
    ])
    // The whole rcc object, its 16 lines from its key to its closing brace (the line after `stop_mode`), collapsed (cut at 240 characters).
    const rcc = text.split('\n').slice(cm7('"name": "USART1"', '"rcc"') - 1, cm7('"name": "USART1"', '"stop_mode"') + 1).join(' ').replace(/\s+/g, ' ').trim()
    expect(of(`${K}@cm7`, 'clocks')[0]!.evidence[0]!.excerpt).toBe(rcc.length > 240 ? rcc.slice(0, 239) + '…' : rcc)
    expect(of(`${K}@cm4`, 'clocks').map((f) => [f.name, f.value.kernelClock, f.evidence[0]!.locator])).toStrictEqual([['USART1', 'RCC.D2CCIP2R.USART16SEL', ev(cm4('"rcc"'), '/cores/1/peripherals/0/rcc')]])
  })

  it('dma: a fact per signal, its options in file order; a channel resolved through the core, evidence of the channel once', () => {
    /** An entry's `{`: `above` lines over the last needle. */
    const entry = (k: number, above: number, ...n: string[]) => ev(cm7('"name": "USART1"', '"dma_channels"', ...n) - above, `/cores/0/peripherals/0/dma_channels/${k}`)
    const channel = (k: number, name: string) => ev(cm7(`"name": "${name}"`) - 1, `/cores/0/dma_channels/${k}`)
    expect(of(`${K}@cm7`, 'dma').map((f) => [f.name, f.value, f.peripherals, f.evidence.map((e) => e.locator)])).toStrictEqual([
      [
        'USART1.TX',
        {
          options: [
            { controller: 'DMA1', channel: 1, request: 42, remap: REMAP },
            { controller: 'BDMA', channel: null, request: null, channels: ['BDMA_CH0'] },
            { controller: 'DMA1', channel: 1, request: null }
          ]
        },
        ['USART1'],
        [entry(0, 1, '"signal": "TX"'), channel(0, 'DMA1_CH1'), entry(2, 2, '"dma": "BDMA"'), entry(3, 1, '"dma": "BDMA"', '"signal": "TX"')]
      ],
      [
        'USART1.RX',
        {
          options: [
            { controller: 'DMAMUX1', channel: null, request: 41, channels: ['DMA1_CH1', 'DMA1_CH2'] },
            { controller: 'MDMA', channel: null, request: null }
          ]
        },
        ['USART1'],
        [entry(1, 1, '"signal": "RX"'), entry(8, 2, '"dma": "MDMA"')]
      ]
    ])
    expect(of(`${K}@cm4`, 'dma')).toStrictEqual([])
  })

  it('memory: one layout, regions as named, kind, address, size, access and erase/write sizes', () => {
    expect(of(K, 'memory').map((f) => [f.name, f.value, f.evidence[0]!.locator])).toStrictEqual([
      ['BANK_1', { kind: 'flash', start: '0x08000000', size: 1048576, access: { read: true, write: false, execute: true }, eraseSize: 131072, writeSize: 32 }, ev(obj('"name": "BANK_1"'), '/memory/0/0')],
      ['BANK_2', { kind: 'flash', start: '0x08100000', size: 1048576 }, ev(obj('"name": "BANK_2"'), '/memory/0/1')],
      ['EEPROM', { kind: 'other', start: '0x08080000', size: 1024 }, ev(obj('"name": "EEPROM"'), '/memory/0/2')],
      ['AXISRAM', { kind: 'ram', start: '0x24000000', size: 524288 }, ev(obj('"name": "AXISRAM"'), '/memory/0/3')]
    ])
    expect(of(K, 'memory')[1]!.evidence[0]!.excerpt).toBe('{ "name": "BANK_2", "kind": "flash", "address": 135266304, "size": 1048576 },')
  })

  it('pins: a fact per GPIO of a package entry, positions of shared pads, signals of every core once, AFs by number then name', () => {
    const r = parsed()
    const pins = r.facts.filter((f) => f.topic === 'pins')
    const pkgPin = (k: number, needle: string) => ev(lineAfter(text, '"name": "STM32Q745ZITx"', needle) - 1, `/packages/0/pins/${k}`)
    const pin = (core: number, p: number, k: number, ...n: string[]) => ev(lineAfter(text, `"name": "${core ? 'cm4' : 'cm7'}"`, ...n) - 1, `/cores/${core}/peripherals/${p}/pins/${k}`)
    const scope = { device: 'STM32Q745ZI', parts: ['STM32Q745ZITx'], package: 'LQFP144' }
    expect(pins.map((f) => [f.target, f.name, f.value, f.scope, f.peripherals, f.evidence.map((e) => e.locator)])).toStrictEqual([
      [
        'stm32-data:STM32Q745ZITx',
        'PA9',
        {
          label: 'PA9',
          package: 'LQFP144',
          position: '1',
          positions: ['1', '2'],
          type: 'I/O',
          signals: ['ADC1_INP9', 'TIM1_CH2', 'USART1_CK', 'USART1_RTS', 'USART1_TX'],
          alternateFunctions: [
            { af: 1, signal: 'TIM1_CH2' },
            { af: 7, signal: 'USART1_RTS' },
            { af: 7, signal: 'USART1_TX' }
          ]
        },
        scope,
        ['ADC1', 'TIM1', 'USART1'],
        [
          pkgPin(0, '"position": "1"'),
          pkgPin(1, '"position": "2"'),
          ev(lineAfter(text, '"position": "7"', '"position": "2"') - 1, '/packages/0/pins/7'),
          pin(0, 0, 0, '"pin": "PA9"'),
          pin(0, 0, 2, '"pin": "PB6"', '"pin": "PA9"'),
          pin(0, 1, 0, '"name": "TIM1"', '"pin": "PA9"'),
          pin(0, 2, 0, '"name": "ADC1"', '"pin": "PA9"'),
          pin(1, 0, 1, '"signal": "TX"', '"pin": "PA9"')
        ]
      ],
      [
        'stm32-data:STM32Q745ZITx',
        'PA11',
        { label: 'PA11', package: 'LQFP144', position: '2', positions: ['2'], type: 'I/O', signals: ['TIM1_CH4'], alternateFunctions: [{ af: 1, signal: 'TIM1_CH4' }] },
        scope,
        ['TIM1'],
        [pkgPin(1, '"position": "2"'), pin(0, 1, 1, '"pin": "PA11"')]
      ],
      [
        'stm32-data:STM32Q745ZITx',
        'PB2',
        {
          label: 'PB2',
          package: 'LQFP144',
          position: '7',
          positions: ['7'],
          type: 'I/O',
          signals: ['CEC', 'HRTIM_EEV1', 'I2S2_CK'],
          alternateFunctions: [
            { af: 5, signal: 'CEC' },
            { af: 5, signal: 'I2S2_CK' },
            { af: 13, signal: 'HRTIM_EEV1' }
          ]
        },
        scope,
        ['CEC', 'HRTIM1', 'SPI2'],
        [pkgPin(6, '"position": "7"'), pin(0, 3, 0, '"name": "SPI2"', '"pin": "PB2"'), pin(0, 4, 0, '"name": "CEC"', '"pin": "PB2"'), pin(0, 5, 0, '"name": "HRTIM1"', '"pin": "PB2"')]
      ]
    ])
    // The pin entry's excerpt: its lines as written (a shared pad lists both names).
    expect(pins[1]!.evidence[0]!.excerpt).toBe('{ "position": "2", "signals": [ "PA11", "PA9" ] },')
  })

  it('targets: the chip (memory), each core, each package entry with pins; identities without a core but the cores own', () => {
    const r = parsed()
    const identity = { vendor: 'STMicroelectronics', series: 'STM32Q7' }
    const src = { sourceSha256: SHA, sourcePath: a.path }
    expect(r.targets).toStrictEqual([
      { key: K, topics: ['memory'], device: 'STM32Q745ZI', ...src, identity },
      { key: `${K}@cm7`, topics: ['clocks', 'dma', 'interrupts'], device: 'STM32Q745ZI', ...src, identity: { ...identity, core: 'cm7' } },
      { key: `${K}@cm4`, topics: ['clocks', 'interrupts'], device: 'STM32Q745ZI', ...src, identity: { ...identity, core: 'cm4' } },
      { key: 'stm32-data:STM32Q745ZITx', topics: ['pins'], device: 'STM32Q745ZITx', ...src, packages: ['LQFP144'], identity }
    ])
  })

  it('part numbers: the chip, each package entry (its pins target too), each core by its own name', () => {
    const r = parsed()
    const all = [K, `${K}@cm7`, `${K}@cm4`]
    const base = { vendor: 'STMicroelectronics', family: 'STM32Q7', flashKb: 2048, sourceSha256: SHA, sourcePath: a.path }
    expect(r.partNumbers).toStrictEqual([
      { name: 'STM32Q745ZI', ...base, targets: all, packages: ['LQFP144', 'TFBGA240'], line: 2 },
      { name: 'STM32Q745ZITx', ...base, targets: [...all, 'stm32-data:STM32Q745ZITx'], device: 'STM32Q745ZI', packages: ['LQFP144'], line: lineAfter(text, '"name": "STM32Q745ZITx"') },
      { name: 'STM32Q745ZIHx', ...base, targets: all, device: 'STM32Q745ZI', packages: ['TFBGA240'], line: lineAfter(text, '"name": "STM32Q745ZIHx"') },
      { name: 'STM32Q745ZIJx', ...base, targets: all, device: 'STM32Q745ZI', packages: ['LQFP144'], line: lineAfter(text, '"name": "STM32Q745ZIJx"') },
      { name: 'STM32Q745ZI_CM7', ...base, core: 'cm7', targets: [K, `${K}@cm7`], line: lineAfter(text, '"name": "cm7"') },
      { name: 'STM32Q745ZI_CM4', ...base, core: 'cm4', targets: [K, `${K}@cm4`], line: lineAfter(text, '"name": "cm4"') }
    ])
  })
})

describe('stm32-data: a one-core chip and one with nothing to state', () => {
  it('one core: the chip is the one target (memory and the core facts), its identity names the core', () => {
    const chip = {
      name: 'STM32Q031K6',
      family: 'STM32Q0',
      line: 'STM32Q031',
      packages: [{ name: 'STM32Q031K6Tx', package: 'LQFP32', pins: [{ position: '1', signals: ['PA0'] }] }],
      memory: [[{ name: 'SRAM', kind: 'ram', address: 0x20000000, size: 8192 }]],
      cores: [{ name: 'cm0p', peripherals: [{ name: 'TIM2', pins: [{ pin: 'PA0', signal: 'CH1' }] }], interrupts: [{ name: 'TIM2', number: 15 }], dma_channels: [] }]
    }
    const text = JSON.stringify(chip, null, 2)
    const r = stm32DataAdapter.parse([art('STM32Q031K6', text)])
    expect(r.problems).toStrictEqual([])
    const identity = { vendor: 'STMicroelectronics', series: 'STM32Q0', core: 'cm0p' }
    expect(r.targets.map((t) => [t.key, t.topics, t.identity])).toStrictEqual([
      ['stm32-data:STM32Q031K6', ['interrupts', 'memory'], identity],
      ['stm32-data:STM32Q031K6Tx', ['pins'], identity]
    ])
    // An AF-less signal is a signal of the pin, not an alternate function; no BANK_ flash: no flash size.
    expect(r.facts.find((f) => f.name === 'PA0')!.value).toStrictEqual({ label: 'PA0', package: 'LQFP32', position: '1', positions: ['1'], type: 'I/O', signals: ['TIM2_CH1'], alternateFunctions: [] })
    expect(r.partNumbers!.map((p) => [p.name, p.flashKb, p.targets, p.core])).toStrictEqual([
      ['STM32Q031K6', undefined, ['stm32-data:STM32Q031K6'], undefined],
      ['STM32Q031K6Tx', undefined, ['stm32-data:STM32Q031K6', 'stm32-data:STM32Q031K6Tx'], undefined]
    ])
  })

  it('no facts: no target, part numbers without targets; no cores, no identity core', () => {
    const chip = { name: 'STM32Q0', family: 'STM32Q', line: 'L', packages: [{ name: 'STM32Q0Tx', package: 'SO8', pins: [{ position: '1', signals: ['VDD'] }] }], memory: [], cores: [] }
    const r = stm32DataAdapter.parse([art('STM32Q0', JSON.stringify(chip, null, 2))])
    expect(r.problems).toStrictEqual([])
    expect(r.targets).toStrictEqual([])
    expect(r.partNumbers!.map((p) => [p.name, p.targets, p.flashKb])).toStrictEqual([
      ['STM32Q0', undefined, undefined],
      ['STM32Q0Tx', undefined, undefined]
    ])
  })
})

describe('stm32-data: chips without a memory map or without cores', () => {
  it('two cores and no memory: no chip target, each core part names its own target only', () => {
    const core = (name: string) => ({ name, peripherals: [], interrupts: [{ name: 'EXTI0', number: 6 }], dma_channels: [] })
    const chip = { name: 'STM32Q2', family: 'STM32Q', line: 'L', packages: [], memory: [], cores: [core('cm7'), core('cm4')] }
    const r = stm32DataAdapter.parse([art('STM32Q2', JSON.stringify(chip, null, 2))])
    expect(r.targets.map((t) => t.key)).toStrictEqual(['stm32-data:STM32Q2@cm7', 'stm32-data:STM32Q2@cm4'])
    expect(r.partNumbers!.map((p) => [p.name, p.targets])).toStrictEqual([
      ['STM32Q2', ['stm32-data:STM32Q2@cm7', 'stm32-data:STM32Q2@cm4']],
      ['STM32Q2_CM7', ['stm32-data:STM32Q2@cm7']],
      ['STM32Q2_CM4', ['stm32-data:STM32Q2@cm4']]
    ])
  })

  it('no cores: the chip and pins targets name no core', () => {
    const chip = { name: 'STM32Q3', family: 'STM32Q', line: 'L', packages: [{ name: 'STM32Q3Tx', package: 'SO8', pins: [{ position: '1', signals: ['PA0'] }] }], memory: [[{ name: 'SRAM', kind: 'ram', address: 0x20000000, size: 1024 }]], cores: [] }
    const r = stm32DataAdapter.parse([art('STM32Q3', JSON.stringify(chip, null, 2))])
    expect(r.problems).toStrictEqual([])
    expect(r.targets.map((t) => [t.key, t.identity])).toStrictEqual([
      ['stm32-data:STM32Q3', { vendor: 'STMicroelectronics', series: 'STM32Q' }],
      ['stm32-data:STM32Q3Tx', { vendor: 'STMicroelectronics', series: 'STM32Q' }]
    ])
  })
})

describe('stm32-data: memory layouts and the flash size', () => {
  const withMemory = (memory: unknown[][]) => stm32DataAdapter.parse([art('STM32M', JSON.stringify({ name: 'STM32M', family: 'F', line: 'L', packages: [], memory, cores: [] }, null, 2))])
  const region = (name: string, size: number, kind = 'flash', address = 0x08000000) => ({ name, kind, address, size })

  it('layouts the BANK_2 rule cannot tell apart are numbered; a region differing in one layout is per layout', () => {
    const r = withMemory([
      [region('BANK_1', 65536), region('SRAM', 4096, 'ram', 0x20000000)],
      [region('BANK_1', 32768), region('BANK_1_REGION_2', 32768), region('SRAM', 4096, 'ram', 0x20000000)],
      [region('BANK_1', 65536), region('SRAM', 4096, 'ram', 0x20001000)]
    ])
    expect(r.problems).toStrictEqual([])
    expect(r.facts.map((f) => [f.name, f.value.layout, f.evidence[0]!.locator.replace(/^line \d+: /, '')])).toStrictEqual([
      ['layout1.BANK_1', 'layout1', '/memory/0/0'],
      ['layout1.SRAM', 'layout1', '/memory/0/1'],
      ['layout2.BANK_1', 'layout2', '/memory/1/0'],
      ['layout2.BANK_1_REGION_2', 'layout2', '/memory/1/1'],
      ['layout2.SRAM', 'layout2', '/memory/1/2'],
      ['layout3.BANK_1', 'layout3', '/memory/2/0'],
      ['layout3.SRAM', 'layout3', '/memory/2/1']
    ])
    // 64 KiB in every layout (the region split in two in the second).
    expect(r.partNumbers![0]!.flashKb).toBe(64)
  })

  it('the flash size: whole KiB above zero only; regions not named BANK_ or not flash left out', () => {
    const kb = (...layout: ReturnType<typeof region>[]) => withMemory([layout]).partNumbers![0]!.flashKb
    expect(kb(region('BANK_1', 1000))).toBeUndefined()
    expect(kb(region('BANK_1', 0))).toBeUndefined()
    expect(kb(region('FLASH', 4096))).toBeUndefined()
    expect(kb(region('BANK_1', 4096, 'ram'))).toBeUndefined()
    expect(kb(region('BANK_1', 4096), region('OTP_BANK_1', 1024), region('BANK_2', 2048))).toBe(6)
    expect(withMemory([]).partNumbers![0]!.flashKb).toBeUndefined()
  })

  it('two layouts, one dual-bank: a region differing in one member is per layout', () => {
    const r = withMemory([
      [region('BANK_1', 65536), region('BANK_2', 65536, 'flash', 0x08010000), { ...region('SRAM', 4096, 'ram', 0x20000000), access: { read: true, write: true, execute: false } }],
      [region('BANK_1', 131072), region('SRAM', 4096, 'ram', 0x20000000)]
    ])
    expect(r.facts.map((f) => f.name)).toStrictEqual(['dual-bank.BANK_1', 'dual-bank.BANK_2', 'dual-bank.SRAM', 'single-bank.BANK_1', 'single-bank.SRAM'])
    expect(r.partNumbers![0]!.flashKb).toBe(128)
  })
})

describe('stm32-data: signals as ST spells them', () => {
  it('SPI I2S functions, a signal named as its peripheral, the unnumbered instances', () => {
    expect(stSpelling('SPI2', 'I2S_CK')).toBe('I2S2_CK')
    expect(stSpelling('SPI12', 'I2S_ext_SD')).toBe('I2S12_ext_SD')
    expect(stSpelling('QUADSPI1', 'I2S_CK')).toBe('QUADSPI1_I2S_CK')
    expect(stSpelling('SPI2', 'MOSI')).toBe('SPI2_MOSI')
    expect(stSpelling('SPI2', 'XI2S_CK')).toBe('SPI2_XI2S_CK')
    expect(stSpelling('CEC', 'CEC')).toBe('CEC')
    expect(stSpelling('HRTIM1', 'EEV1')).toBe('HRTIM_EEV1')
    expect(stSpelling('SPDIFRX1', 'IN0')).toBe('SPDIFRX_IN0')
    expect(stSpelling('HRTIM2', 'EEV1')).toBe('HRTIM2_EEV1')
    expect(stSpelling('USART1', 'TX')).toBe('USART1_TX')
  })
})

describe('stm32-data: files refused whole', () => {
  const problems = (text: string) => stm32DataAdapter.parse([art('X', text)]).problems.map((p) => [p.line, p.reason])

  it('not JSON: the line of the position the parser names, none when it names none', () => {
    const [[line, reason]] = problems('{\n  "name": "X"\n  "family": "F"\n}') as [[number, string]]
    expect(line).toBe(3)
    expect(reason).toMatch(/^not JSON: /)
    // A raw line break in a string: the parser names the break's own position, the end of line 2.
    expect(problems('{\n  "name": "ab\n"\n}').map(([l]) => l)).toStrictEqual([2])
    // Node 20's message for an unexpected token quotes the text, with no position.
    expect(problems('{\n  "name": "X",\n  "family": oops\n}').map(([l]) => l)).toStrictEqual([undefined])
  })

  it('the shape: the document, names, packages, memory regions, cores, each at its line', () => {
    expect(problems('[]')).toStrictEqual([[undefined, 'the document: not an object']])
    expect(problems('{\n  "name": "",\n  "family": "F",\n  "line": "L"\n}')).toStrictEqual([[2, '/name: not a non-empty string']])
    expect(problems('{\n  "name": "N",\n  "family": "F"\n}')).toStrictEqual([[undefined, '/line: not a non-empty string']])
    expect(problems('{\n  "name": "N",\n  "family": "F",\n  "line": "L",\n  "packages": {}\n}')).toStrictEqual([[5, '/packages: not an array']])
    expect(problems('{\n  "name": "N",\n  "family": "F",\n  "line": "L",\n  "packages": [\n    7\n  ]\n}')).toStrictEqual([[6, '/packages/0: not an object']])
    expect(problems('{\n  "name": "N",\n  "family": "F",\n  "line": "L",\n  "packages": [\n    null\n  ]\n}')).toStrictEqual([[6, '/packages/0: not an object']])
    expect(problems('{\n  "name": "N",\n  "family": "F",\n  "line": "L",\n  "packages": [\n    {\n      "name": "P",\n      "package": 1\n    }\n  ]\n}')).toStrictEqual([[8, '/packages/0/package: not a non-empty string']])
    const memory = (r: string) => `{\n  "name": "N",\n  "family": "F",\n  "line": "L",\n  "packages": [],\n  "memory": [\n    [\n      ${r}\n    ]\n  ]\n}`
    expect(problems(memory('{ "name": "B", "kind": "flash", "address": "0x0", "size": 1 }'))).toStrictEqual([[8, '/memory/0/0/address: not a number']])
    expect(problems(memory('{ "name": "B", "kind": "flash", "address": 0 }'))).toStrictEqual([[8, '/memory/0/0/size: not a number']])
    // JSON.parse reads 1e999 as Infinity: no byte count.
    expect(problems(memory('{ "name": "B", "kind": "flash", "address": 0, "size": 1e999 }'))).toStrictEqual([[8, '/memory/0/0/size: not a number']])
    expect(problems(memory('{ "name": "B", "address": 0, "size": 1 }'))).toStrictEqual([[8, '/memory/0/0/kind: not a non-empty string']])
    expect(problems(memory('[]'))).toStrictEqual([[8, '/memory/0/0: not an object']])
    expect(problems('{\n  "name": "N",\n  "family": "F",\n  "line": "L",\n  "packages": [],\n  "memory": [\n    {}\n  ]\n}')).toStrictEqual([[7, '/memory/0: not an array']])
    expect(problems('{\n  "name": "N",\n  "family": "F",\n  "line": "L",\n  "packages": [],\n  "memory": [],\n  "cores": [\n    {\n      "name": ""\n    }\n  ]\n}')).toStrictEqual([[9, '/cores/0/name: not a non-empty string']])
    expect(problems('{\n  "name": "N",\n  "family": "F",\n  "line": "L",\n  "packages": [],\n  "memory": []\n}')).toStrictEqual([[undefined, '/cores: not an array']])
  })

  it('a file that breaks the adapter beyond its shape is one problem, and the next file is still read', () => {
    // `cores[0].peripherals` not a list: nothing a chip file has, so no rule for it.
    const odd = JSON.stringify({ name: 'N', family: 'F', line: 'L', packages: [], memory: [], cores: [{ name: 'c', peripherals: 5 }] })
    const good = JSON.stringify({ name: 'M', family: 'F', line: 'L', packages: [], memory: [], cores: [] })
    const r = stm32DataAdapter.parse([art('B', good), art('A', odd)])
    expect(r.problems.map((p) => [p.file, p.line, p.reason.replace(/:.*/, ':')])).toStrictEqual([['chips/stm32-data/A.json', undefined, 'unexpected error:']])
    expect(r.partNumbers!.map((p) => p.name)).toStrictEqual(['M'])
  })

  it('readChip throws a ChipShapeError with the line', () => {
    expect(() => readChip('{\n  "name": 1\n}')).toThrow(ChipShapeError)
  })
})

describe('stm32-data: JSON pointer lines', () => {
  it('keys with escapes, strings ending in a backslash, numbers before every delimiter', () => {
    const text = ['{', '  "a\\\\": "x\\\\",', '  "b\\"c": [1,2 ,', '3\t,\r', '4],', '  "n": {"m": [true, false, null, -1.5e3], "k": 5}', '}'].join('\n')
    expect(() => JSON.parse(text)).not.toThrow()
    expect(Object.fromEntries(jsonPointerLines(text, 3))).toStrictEqual({
      '/a\\': 2,
      '/b"c': 3,
      '/b"c/0': 3,
      '/b"c/1': 3,
      '/b"c/2': 4,
      '/b"c/3': 5,
      '/n': 6,
      '/n/m': 6,
      '/n/m/0': 6,
      '/n/m/1': 6,
      '/n/m/2': 6,
      '/n/m/3': 6,
      '/n/k': 6
    })
    // Depth 1: what is below is stepped over, its lines still counted.
    expect(Object.fromEntries(jsonPointerLines(text, 1))).toStrictEqual({ '/a\\': 2, '/b"c': 3, '/n': 6 })
    expect(Object.fromEntries(jsonPointerLines(text, 0))).toStrictEqual({})
  })

  it('empty containers and a scalar document', () => {
    expect(Object.fromEntries(jsonPointerLines('{ "a": {}, "b": [ ], "c": [\n{}\n] }', 2))).toStrictEqual({ '/a': 1, '/b': 1, '/c': 1, '/c/0': 2 })
    expect(Object.fromEntries(jsonPointerLines('\n\n7', 3))).toStrictEqual({})
    expect(Object.fromEntries(jsonPointerLines('[\n\n]', 3))).toStrictEqual({})
  })

  it('text that is not JSON: the line and what was expected', () => {
    const err = (t: string, d = 3) => {
      try {
        jsonPointerLines(t, d)
      } catch (e) {
        expect(e).toBeInstanceOf(JsonLinesError)
        return (e as Error).message
      }
      return 'no error'
    }
    expect(err('{\n  1: 2\n}')).toBe('line 2: expected a key')
    expect(err('{\n  "a" 2\n}')).toBe("line 2: expected ':'")
    expect(err('{\n  "a": 2\n\n  "b": 3\n}')).toBe("line 4: expected ',' or '}'")
    expect(err('[\n  1\n  2\n]')).toBe("line 3: expected ',' or ']'")
    expect(err('{\n  "a": "open\n}')).toBe('unterminated string at offset 9')
    expect(err('{\n  "a": {"b": [1, 2\n}', 1)).toBe('line 3: unbalanced brackets')
    expect(err('{"a": {"b": "x', 1)).toBe('line 1: unterminated string')
  })
})
