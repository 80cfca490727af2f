import { describe, expect, it } from 'vitest'
import type { AdapterResult, LoadedArtifact } from '../../indexer/sources/types.js'
import { expandRefName, pinBaseName, signalPeripheral, stm32Adapter } from '../../indexer/sources/stm32.js'

/*
 * The STM32 pin-data adapter on small hand-written files: every problem it reports (file, line,
 * reason), what a file that breaks one rule still yields, and the naming rules at their edges.
 * Expected values are read off the inline XML below (lines counted by hand), not from the adapter.
 */

const MCU_KIND = 'stm32-pin-data-mcu'
const GPIO_KIND = 'stm32-pin-data-gpio-modes'
const DIR = 'pins/stm32/mcu/'

function art(name: string, text: string): LoadedArtifact {
  const content = Buffer.from(text)
  return { path: DIR + name, sha256: 'a'.repeat(64), bytes: content.length, kind: name.startsWith('IP/') ? GPIO_KIND : MCU_KIND, publisher: 'ST', license: 'BSD-3-Clause', mediaType: 'application/xml', content }
}

const problemsOf = (r: AdapterResult, name: string) => r.problems.filter((p) => p.file === DIR + name).map((p) => [p.line, p.reason])

/** A minimal MCU file: root on line 1, then the given lines. */
const mcu = (attrs: string, ...body: string[]) => [`<Mcu ${attrs}>`, ...body, '</Mcu>'].join('\n')
const ROOT = 'RefName="STM32Q(A-B)" Package="QFN8" Family="STM32Q" Line="STM32Qx"'
/** One selector part with everything the catalog needs, the Core/Flash/Ram lines last. */
const ONE = 'RefName="STM32Q" Package="QFN8" Family="STM32Q" Line="STM32Qx"'
const CATALOG = ['<Core>M0</Core>', '<Flash>16</Flash>', '<Ram>4</Ram>']

describe('stm32 adapter: what each broken rule reports', () => {
  it('a root that is not <Mcu RefName Package> is refused with its line', () => {
    const r = stm32Adapter.parse([
      art('NotMcu.xml', '<?xml version="1.0"?>\n<Device RefName="STM32Q" Package="QFN8"/>'),
      art('NoPackage.xml', '<Mcu RefName="STM32Q"/>'),
      art('NoRef.xml', '<Mcu Package="QFN8"/>')
    ])
    const reason = 'expected an <Mcu> root element with RefName and Package attributes'
    expect(problemsOf(r, 'NotMcu.xml')).toEqual([[2, reason]])
    expect(problemsOf(r, 'NoPackage.xml')).toEqual([[1, reason]])
    expect(problemsOf(r, 'NoRef.xml')).toEqual([[1, reason]])
    expect(r.targets).toEqual([])
    expect(r.facts).toEqual([])
  })

  it('artifacts of other kinds are not read; a byte-order mark before <Mcu> is', () => {
    const other = { ...art('Other.xml', '<Mcu RefName="STM32Z" Package="P"/>'), kind: 'cmsis-svd' }
    const bom = art('Bom.xml', '\uFEFF' + mcu('RefName="STM32B" Package="P"'))
    const r = stm32Adapter.parse([other, bom])
    expect(r.targets.map((t) => t.key)).toEqual(['stm32:STM32B'])
    expect(r.problems.map((p) => p.file)).not.toContain(DIR + 'Other.xml')
    expect(stm32Adapter.units!([other, bom])).toEqual([[bom]])
    const modesBom = stm32Adapter.parse([art('Q.xml', mcu(ONE, '<IP Name="GPIO" Version="Q_gpio"/>', '<Pin Name="PA9" Position="1"><Signal Name="USART1_TX"/></Pin>', ...CATALOG)), art('IP/GPIO-Q_gpio_Modes.xml', '\uFEFF<IP Name="GPIO"><GPIO_Pin Name="PA9"><PinSignal Name="USART1_TX"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF7_USART1</PossibleValue></SpecificParameter></PinSignal></GPIO_Pin></IP>')])
    expect(modesBom.problems).toEqual([])
    expect(modesBom.facts.find((f) => f.name === 'PA9')?.value.alternateFunctions).toEqual([{ af: 7, signal: 'USART1_TX' }])
  })

  it('a RefName that does not expand is refused, naming it', () => {
    const r = stm32Adapter.parse([art('Bad.xml', '\n<Mcu RefName="STM32Q(A" Package="QFN8"/>')])
    expect(problemsOf(r, 'Bad.xml')).toEqual([[2, 'cannot expand RefName STM32Q(A into selector parts']])
    expect(r.targets).toEqual([])
  })

  it('not well-formed XML is one problem with the line the parser stopped at', () => {
    const r = stm32Adapter.parse([art('Broken.xml', '<Mcu RefName="X" Package="P">\n<Pin>\n</Mcu>')])
    const p = r.problems.filter((x) => x.file === DIR + 'Broken.xml')
    expect(p).toHaveLength(1)
    expect(p[0]?.reason).toMatch(/^not well-formed XML: /)
    expect(p[0]?.line).toBe(3)
  })

  it('a RefName given by two files: the first in path order is kept, the other skipped with a problem', () => {
    const a = art('A.xml', mcu(ROOT, '<Core>M0</Core>', '<Flash>16</Flash>', '<Ram>4</Ram>'))
    const b = art('B.xml', '\n' + mcu(ROOT, '<Core>M4</Core>', '<Flash>32</Flash>', '<Ram>8</Ram>'))
    // Given in reverse: the adapter orders MCU files by path itself.
    const r = stm32Adapter.parse([b, a])
    expect(r.targets.map((t) => t.sourcePath)).toEqual([DIR + 'A.xml'])
    expect(problemsOf(r, 'B.xml')).toContainEqual([2, 'RefName STM32Q(A-B) already given by another file; skipped'])
    expect(r.parts.map((p) => [p.name, p.core, p.flashKb, p.ramKb])).toEqual([
      ['STM32QA', 'M0', 16, 4],
      ['STM32QB', 'M0', 16, 4]
    ])
  })

  it('a <Pin> without Name or Position is skipped with a problem; the others stay', () => {
    const text = mcu(ROOT, '<Pin Name="PA1"/>', '<Pin Position="3"/>', '<Pin Name="PA2" Position="4" Type="I/O"/>')
    const r = stm32Adapter.parse([art('Pins.xml', text)])
    const reason = '<Pin> without Name or Position; skipped'
    expect(problemsOf(r, 'Pins.xml').filter(([, why]) => why === reason)).toEqual([
      [2, reason],
      [3, reason]
    ])
    expect(r.facts.filter((f) => f.topic === 'pins').map((f) => f.name)).toEqual(['PA2'])
  })

  it('numbers that are not numbers: a problem naming element, attribute and the raw text; no fact, no part', () => {
    const text = mcu(
      ROOT,
      '<Core>M0</Core>',
      '<Frequency>fast</Frequency>',
      '<Voltage Min="" Max=" "/>',
      '<Temperature Min="-40" Max="hot"/>',
      '<Current Run="12" Lowest="2.5"/>',
      '<Flash>16</Flash>',
      '<Flash>1O</Flash>',
      '<Ram>4</Ram>'
    )
    const r = stm32Adapter.parse([art('Nums.xml', text)])
    const problems = problemsOf(r, 'Nums.xml')
    expect(problems).toEqual(
      expect.arrayContaining([
        [3, 'Frequency is not a number: "fast"'],
        [4, 'Voltage Min is not a number: ""'],
        [4, 'Voltage Max is not a number: " "'],
        [5, 'Temperature Max is not a number: "hot"'],
        [8, 'Flash is not a number: "1O"']
      ])
    )
    const el = Object.fromEntries(r.facts.filter((f) => f.topic === 'electrical').map((f) => [f.name, f.value]))
    expect(el).toEqual({
      'temperature.ambient.min': { value: -40, unit: '°C' },
      'current.run': { value: 12, unit: 'µA/MHz' },
      'current.lowest': { value: 2.5, unit: 'µA' }
    })
    expect(r.parts).toEqual([])
  })

  it('Flash/Ram counts: one per part or one shared; else a problem at the first element or the root', () => {
    const text = mcu(ROOT, '<Core>M0</Core>', '<Flash>16</Flash>', '<Flash>32</Flash>', '<Flash>64</Flash>')
    const r = stm32Adapter.parse([art('Sizes.xml', text)])
    expect(problemsOf(r, 'Sizes.xml')).toEqual(
      expect.arrayContaining([
        [3, '3 <Flash> elements for 2 selector parts (expected 1 or 2): no catalog parts'],
        [1, '0 <Ram> elements for 2 selector parts (expected 1 or 2): no catalog parts']
      ])
    )
    expect(r.parts).toEqual([])
    const ok = stm32Adapter.parse([art('Ok.xml', mcu(ROOT, '<Core>M0</Core>', '<Frequency>48</Frequency>', '<Flash>16</Flash>', '<Flash>32</Flash>', '<Ram>4</Ram>', '<Ram>6</Ram>'))])
    expect(ok.parts.map((p) => [p.name, p.flashKb, p.ramKb, p.maxFrequencyMhz])).toEqual([
      ['STM32QA', 16, 4, 48],
      ['STM32QB', 32, 6, 48]
    ])
    expect(ok.parts[0]).toMatchObject({ refName: 'STM32Q(A-B)', family: 'STM32Q', line: 'STM32Qx', package: 'QFN8', core: 'M0', target: 'stm32:STM32Q(A-B)', sourcePath: DIR + 'Ok.xml', sourceSha256: 'a'.repeat(64) })
  })

  it('no Family, Line or Core: pins and electrical facts, but no catalog parts', () => {
    for (const [name, attrs, core] of [
      ['NoFamily.xml', 'RefName="STM32Q" Package="QFN8" Line="STM32Qx"', '<Core>M0</Core>'],
      ['NoLine.xml', 'RefName="STM32Q" Package="QFN8" Family="STM32Q"', '<Core>M0</Core>'],
      ['NoCore.xml', 'RefName="STM32Q" Package="QFN8" Family="STM32Q" Line="STM32Qx"', '<Core></Core>']
    ] as const) {
      const r = stm32Adapter.parse([art(name, mcu(attrs, core, '<Flash>16</Flash>', '<Ram>4</Ram>', '<Voltage Min="1.8" Max="3.6"/>'))])
      expect(problemsOf(r, name), name).toContainEqual([1, 'missing Family, Line or <Core>: no catalog parts'])
      expect(r.parts, name).toEqual([])
      expect(r.facts.filter((f) => f.topic === 'electrical').map((f) => f.name), name).toEqual(['supply.vdd.min', 'supply.vdd.max'])
    }
  })

  it('a target without Line has no description; the evidence of an electrical fact quotes its element', () => {
    const text = mcu('RefName="STM32Q" Package="QFN8"', '<Temperature Min="-40" Max="105"/>')
    const r = stm32Adapter.parse([art('Plain.xml', text)])
    expect(r.targets).toStrictEqual([{ key: 'stm32:STM32Q', topics: ['pins', 'electrical'], device: 'STM32Q', sourceSha256: 'a'.repeat(64), sourcePath: DIR + 'Plain.xml', packages: ['QFN8'] }])
    const t = r.facts.find((f) => f.name === 'temperature.ambient.max')
    expect(t?.scope).toEqual({ device: 'STM32Q', parts: ['STM32Q'] })
    expect(t?.evidence).toEqual([{ sourceSha256: 'a'.repeat(64), sourcePath: DIR + 'Plain.xml', locator: 'line 2: /Mcu/Temperature/@Max', excerpt: '<Temperature Min="-40" Max="105"/> </Mcu>' }])
  })
})

describe('stm32 adapter: GPIO modes files', () => {
  const PIN = '<Pin Name="PA9" Position="5" Type="I/O"><Signal Name="USART1_TX"/><Signal Name="TIM1_CH2"/><Signal IOModes="Input,Output" Name="GPIO"/></Pin>'
  const withGpio = (version: string) => mcu(ONE, `<IP InstanceName="GPIO" Name="GPIO" Version="${version}"/>`, PIN, ...CATALOG)

  it('no GPIO IP in the MCU file: pins without alternate functions, and why, on every pin', () => {
    const r = stm32Adapter.parse([art('NoIp.xml', mcu(ONE, PIN, ...CATALOG))])
    const why = 'no <IP Name="GPIO" Version=...>'
    expect(problemsOf(r, 'NoIp.xml')).toEqual([[1, `${why}: pins given without alternate functions`]])
    const v = r.facts.find((f) => f.name === 'PA9')?.value
    expect(v).toMatchObject({ alternateFunctionsUnknown: why, signals: ['USART1_TX', 'TIM1_CH2', 'GPIO'], ioModes: ['Input', 'Output'] })
    expect(v).not.toHaveProperty('alternateFunctions')
    expect(v).not.toHaveProperty('remaps')
  })

  it('an unreadable modes file is reported for itself and for the MCU file that needs it', () => {
    const r = stm32Adapter.parse([art('Q.xml', withGpio('Q_gpio')), art('IP/GPIO-Q_gpio_Modes.xml', '<?xml version="1.0"?>\n<Other Name="GPIO"/>')])
    expect(problemsOf(r, 'IP/GPIO-Q_gpio_Modes.xml')).toEqual([[2, 'expected <IP Name="GPIO"> root element, found <Other>']])
    const why = `GPIO modes file ${DIR}IP/GPIO-Q_gpio_Modes.xml is unreadable`
    expect(problemsOf(r, 'Q.xml')).toEqual([[2, `${why}: pins given without alternate functions`]])
    expect(r.facts.find((f) => f.name === 'PA9')?.value).toMatchObject({ alternateFunctionsUnknown: why })
    // <IP Name="GPIO"> with another name is no modes file either.
    const other = stm32Adapter.parse([art('IP/GPIO-X_Modes.xml', '<IP Name="ADC"/>')])
    expect(problemsOf(other, 'IP/GPIO-X_Modes.xml')).toEqual([[1, 'expected <IP Name="GPIO"> root element, found <IP>']])
  })

  it('reads AF numbers and remap macros per signal; reports what it cannot read; the first GPIO_Pin of a name wins', () => {
    const modes = [
      '<IP Name="GPIO" Version="Q_gpio">',
      '<GPIO_Pin Name="PA9">',
      '<PinSignal Name="USART1_TX"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF7_USART1</PossibleValue></SpecificParameter></PinSignal>',
      '<PinSignal Name="TIM1_CH2"><SpecificParameter Name="GPIO_SPEED"><PossibleValue>GPIO_AF9_TIM1</PossibleValue></SpecificParameter>',
      '<SpecificParameter Name="GPIO_AF"><PossibleValue></PossibleValue><PossibleValue>GPIO_AF1_TIM1</PossibleValue></SpecificParameter></PinSignal>',
      '<PinSignal><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF3_NONAME</PossibleValue></SpecificParameter></PinSignal>',
      '<PinSignal Name="USART1_TX"><SpecificParameter Name="GPIO_AF">',
      '<PossibleValue>AF_SEVEN</PossibleValue></SpecificParameter></PinSignal>',
      '</GPIO_Pin>',
      '<GPIO_Pin>',
      '</GPIO_Pin>',
      '<GPIO_Pin Name="PA9"><PinSignal Name="USART1_TX"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF4_USART1</PossibleValue></SpecificParameter></PinSignal></GPIO_Pin>',
      '</IP>'
    ].join('\n')
    const r = stm32Adapter.parse([art('Q.xml', withGpio('Q_gpio')), art('IP/GPIO-Q_gpio_Modes.xml', modes)])
    expect(problemsOf(r, 'IP/GPIO-Q_gpio_Modes.xml')).toEqual([
      [8, 'unrecognised GPIO_AF value AF_SEVEN for USART1_TX on PA9'],
      [10, '<GPIO_Pin> without Name']
    ])
    const f = r.facts.find((x) => x.name === 'PA9')
    // By AF number: TIM1_CH2 on AF1, USART1_TX on AF7; GPIO_SPEED values and the unnamed signal are not AFs.
    expect(f?.value).toMatchObject({ alternateFunctions: [{ af: 1, signal: 'TIM1_CH2' }, { af: 7, signal: 'USART1_TX' }] })
    expect(f?.value).not.toHaveProperty('remaps')
    expect(f?.evidence.map((e) => [e.sourcePath, e.locator])).toEqual([
      [DIR + 'Q.xml', 'line 3: /Mcu/Pin[Name=PA9]'],
      [DIR + 'IP/GPIO-Q_gpio_Modes.xml', 'line 2: /IP/GPIO_Pin[Name=PA9]']
    ])
    expect(f?.evidence[1]?.excerpt).toMatch(/^<GPIO_Pin Name="PA9"> <PinSignal Name="USART1_TX">/)
  })

  it('remap blocks: named or not, default or not, with or without a macro; AF numbers then empty', () => {
    const modes = [
      '<IP Name="GPIO">',
      '<GPIO_Pin Name="PA9">',
      '<PinSignal Name="USART1_TX"><RemapBlock Name="USART1_REMAP0" DefaultRemap="true"/><RemapBlock Name="USART1_REMAP1" DefaultRemap="false"><SpecificParameter Name="GPIO_AF"><PossibleValue></PossibleValue><PossibleValue>__HAL_AFIO_REMAP_USART1_ENABLE</PossibleValue></SpecificParameter></RemapBlock></PinSignal>',
      '<PinSignal Name="TIM1_CH2"><RemapBlock><SpecificParameter Name="GPIO_SPEED"><PossibleValue>X</PossibleValue></SpecificParameter><Parameter Name="GPIO_AF"><PossibleValue>Y</PossibleValue></Parameter>',
      '<SpecificParameter Name="GPIO_AF"><Value>Z</Value></SpecificParameter></RemapBlock></PinSignal>',
      '<PinSignal Name="CAN_RX"><RemapBlock Name="CAN_REMAP2"/></PinSignal>',
      '<PinSignal Name="EVENTOUT"><RemapBlock Name="EVENTOUT_REMAP"/></PinSignal>',
      '</GPIO_Pin>',
      '<GPIO_Pin Name="PA10">',
      '<PinSignal Name="CAN_RX"><RemapBlock Name="CAN_REMAP1"/></PinSignal>',
      '<PinSignal Name="EVENTOUT"><RemapBlock Name="EVENTOUT_REMAP"/></PinSignal>',
      '</GPIO_Pin>',
      '</IP>'
    ].join('\n')
    const text = mcu(
      ONE,
      '<IP InstanceName="GPIO" Name="GPIO" Version="Q_gpio"/>',
      '<Pin Name="PA9" Position="5" Type="I/O"><Signal Name="USART1_TX"/><Signal Name="TIM1_CH2"/><Signal IOModes="Input,EVENTOUT" Name="GPIO"/></Pin>',
      '<Pin Name="PA10" Position="6" Type="I/O"><Signal Name="USART1_RX"/><Signal IOModes="Input" Name="GPIO"/></Pin>',
      ...CATALOG
    )
    const r = stm32Adapter.parse([art('Q.xml', text), art('IP/GPIO-Q_gpio_Modes.xml', modes)])
    expect(r.problems).toEqual([])
    const pa9 = r.facts.find((x) => x.name === 'PA9')
    // CAN_RX is not on this MCU's PA9; EVENTOUT is, through its GPIO signal's modes.
    expect(pa9?.value.alternateFunctions).toEqual([])
    expect(pa9?.value.remaps).toStrictEqual([
      { signal: 'USART1_TX', block: 'USART1_REMAP0', default: true },
      { signal: 'USART1_TX', block: 'USART1_REMAP1', default: false, macro: '__HAL_AFIO_REMAP_USART1_ENABLE' },
      { signal: 'TIM1_CH2', default: false },
      { signal: 'EVENTOUT', block: 'EVENTOUT_REMAP', default: false }
    ])
    expect(pa9?.evidence.map((e) => e.locator)).toEqual(['line 3: /Mcu/Pin[Name=PA9]', 'line 2: /IP/GPIO_Pin[Name=PA9]'])
    // PA10 lists neither CAN_RX nor a GPIO mode EVENTOUT: no remap, and no evidence into the modes file.
    const pa10 = r.facts.find((x) => x.name === 'PA10')
    expect(pa10?.value.remaps).toEqual([])
    expect(pa10?.evidence.map((e) => e.sourcePath)).toEqual([DIR + 'Q.xml'])
  })

  it('only the signals the MCU lists on the pin, plus EVENTOUT where its GPIO signal offers that mode', () => {
    const modes = [
      '<IP Name="GPIO">',
      '<GPIO_Pin Name="PA9">',
      '<PinSignal Name="USART1_TX"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF7_USART1</PossibleValue></SpecificParameter></PinSignal>',
      '<PinSignal Name="FMC_NE1"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF12_FMC</PossibleValue></SpecificParameter></PinSignal>',
      '<PinSignal Name="EVENTOUT"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF15_EVENTOUT</PossibleValue></SpecificParameter></PinSignal>',
      '</GPIO_Pin>',
      '<GPIO_Pin Name="PA10">',
      '<PinSignal Name="EVENTOUT"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF15_EVENTOUT</PossibleValue></SpecificParameter></PinSignal>',
      '</GPIO_Pin>',
      '</IP>'
    ].join('\n')
    const text = mcu(
      'RefName="STM32Q" Package="QFN8"',
      '<IP InstanceName="GPIO" Name="GPIO" Version="Q_gpio"/>',
      '<Pin Name="PA9" Position="5" Type="I/O"><Signal Name="USART1_TX"/><Signal IOModes="Input,EVENTOUT" Name="GPIO"/></Pin>',
      '<Pin Name="PA10" Position="6" Type="I/O"><Signal IOModes="Input,Output" Name="GPIO"/></Pin>'
    )
    const r = stm32Adapter.parse([art('Q.xml', text), art('IP/GPIO-Q_gpio_Modes.xml', modes)])
    const v = (n: string) => r.facts.find((x) => x.name === n)
    expect(v('PA9')?.value.alternateFunctions).toEqual([
      { af: 7, signal: 'USART1_TX' },
      { af: 15, signal: 'EVENTOUT' }
    ])
    // PA10's GPIO offers no EVENTOUT mode: nothing used from its modes entry, so no evidence into that file.
    expect(v('PA10')?.value.alternateFunctions).toEqual([])
    expect(v('PA10')?.evidence.map((e) => e.sourcePath)).toEqual([DIR + 'Q.xml'])
    expect(v('PA10')?.peripherals).toBeUndefined()
  })

  it('AF values: only GPIO_AFn_ at the start, only <PossibleValue> of a GPIO_AF <SpecificParameter> of a <PinSignal>', () => {
    const modes = [
      '<IP Name="GPIO">',
      '<GPIO_Pin Name="PA9">',
      '<PinSignal Name="USART1_TX"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF7_USART1</PossibleValue><Comment>GPIO_AF3_USART1</Comment></SpecificParameter>',
      '<Parameter Name="GPIO_AF"><PossibleValue>GPIO_AF4_USART1</PossibleValue></Parameter></PinSignal>',
      '<Signal Name="TIM1_CH2"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF5_TIM1</PossibleValue></SpecificParameter></Signal>',
      '<PinSignal Name="TIM1_CH2"><SpecificParameter Name="GPIO_AF"><PossibleValue>MY_GPIO_AF6_TIM1</PossibleValue></SpecificParameter></PinSignal>',
      '</GPIO_Pin>',
      '</IP>'
    ].join('\n')
    const r = stm32Adapter.parse([art('Q.xml', withGpio('Q_gpio')), art('IP/GPIO-Q_gpio_Modes.xml', modes)])
    expect(problemsOf(r, 'IP/GPIO-Q_gpio_Modes.xml')).toEqual([[6, 'unrecognised GPIO_AF value MY_GPIO_AF6_TIM1 for TIM1_CH2 on PA9']])
    expect(r.facts.find((x) => x.name === 'PA9')?.value.alternateFunctions).toEqual([{ af: 7, signal: 'USART1_TX' }])
  })

  it('a modes file that is not XML: one problem with its line, for the file, however many MCU files name it', () => {
    const r = stm32Adapter.parse([art('Q.xml', withGpio('Q_gpio')), art('R.xml', withGpio('Q_gpio').replace('"STM32Q"', '"STM32R"')), art('IP/GPIO-Q_gpio_Modes.xml', '<IP Name="GPIO">\n<GPIO_Pin Name="PA9">\n</IP>')])
    const p = r.problems.filter((x) => x.file === DIR + 'IP/GPIO-Q_gpio_Modes.xml')
    expect(p).toHaveLength(1)
    expect(p[0]?.reason).toMatch(/^not well-formed XML: /)
    expect(p[0]?.line).toBe(3)
    expect(r.targets.map((t) => t.key)).toEqual(['stm32:STM32Q', 'stm32:STM32R'])
  })

  it('same AF number for two signals, one signal on two AF numbers: all kept, by AF then signal', () => {
    const modes = [
      '<IP Name="GPIO">',
      '<GPIO_Pin Name="PA9">',
      '<PinSignal Name="USART1_TX"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF7_USART1</PossibleValue></SpecificParameter></PinSignal>',
      '<PinSignal Name="USART1_CK"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF7_USART1</PossibleValue></SpecificParameter></PinSignal>',
      '<PinSignal Name="USART1_RX"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF7_USART1</PossibleValue></SpecificParameter></PinSignal>',
      '<PinSignal Name="I2S_CKIN"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF6_I2S</PossibleValue></SpecificParameter></PinSignal>',
      '<PinSignal Name="I2S_CKIN"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF5_I2S</PossibleValue></SpecificParameter></PinSignal>',
      '</GPIO_Pin>',
      '</IP>'
    ].join('\n')
    const pin = '<Pin Name="PA9" Position="5" Type="I/O"><Signal Name="USART1_TX"/><Signal Name="USART1_CK"/><Signal Name="USART1_RX"/><Signal Name="I2S_CKIN"/></Pin>'
    const r = stm32Adapter.parse([art('Q.xml', mcu(ONE, '<IP InstanceName="GPIO" Name="GPIO" Version="Q_gpio"/>', pin, ...CATALOG)), art('IP/GPIO-Q_gpio_Modes.xml', modes)])
    expect(r.facts.find((x) => x.name === 'PA9')?.value.alternateFunctions).toEqual([
      { af: 5, signal: 'I2S_CKIN' },
      { af: 6, signal: 'I2S_CKIN' },
      { af: 7, signal: 'USART1_CK' },
      { af: 7, signal: 'USART1_RX' },
      { af: 7, signal: 'USART1_TX' }
    ])
  })

  it('two labels filed under one pin: each label’s AF numbers for its own signals only', () => {
    const modes = [
      '<IP Name="GPIO">',
      '<GPIO_Pin Name="PB8">',
      '<PinSignal Name="I2C1_SCL"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF4_I2C1</PossibleValue></SpecificParameter></PinSignal>',
      '<PinSignal Name="TIM4_CH3"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF2_TIM4</PossibleValue></SpecificParameter></PinSignal>',
      '</GPIO_Pin>',
      '<GPIO_Pin Name="PB8-BOOT0">',
      '<PinSignal Name="TIM4_CH3"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF3_TIM4</PossibleValue></SpecificParameter></PinSignal>',
      '<PinSignal Name="I2C1_SCL"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF9_I2C1</PossibleValue></SpecificParameter></PinSignal>',
      '</GPIO_Pin>',
      '</IP>'
    ].join('\n')
    const text = mcu(
      ONE,
      '<IP InstanceName="GPIO" Name="GPIO" Version="Q_gpio"/>',
      '<Pin Name="PB8" Position="5" Type="I/O"><Signal Name="I2C1_SCL"/><Other Name="SPI1_SCK"/><Signal/></Pin>',
      '<Pin Name="PB8-BOOT0" Position="6" Type="I/O"><Signal Name="TIM4_CH3"/><Other Name="I2C1_SCL"/><Signal Name="GPIO"/><Signal Name="ADC1_IN8" IOModes="Analog"/></Pin>',
      ...CATALOG
    )
    const r = stm32Adapter.parse([art('Q.xml', text), art('IP/GPIO-Q_gpio_Modes.xml', modes)])
    expect(r.problems).toEqual([])
    const f = r.facts.find((x) => x.name === 'PB8')
    // PB8's I2C1_SCL on AF4, PB8-BOOT0's TIM4_CH3 on AF3: not PB8-BOOT0's I2C1_SCL (AF9) nor PB8's TIM4_CH3 (AF2).
    // A <Signal> without Name and other elements are no signals; a GPIO signal without IOModes gives no ioModes,
    // and IOModes of another signal are not the pin's.
    expect(f?.value).toStrictEqual({
      label: 'PB8',
      package: 'QFN8',
      position: '5',
      positions: ['5', '6'],
      type: 'I/O',
      signals: ['I2C1_SCL', 'TIM4_CH3', 'GPIO', 'ADC1_IN8'],
      alternateFunctions: [
        { af: 3, signal: 'TIM4_CH3' },
        { af: 4, signal: 'I2C1_SCL' }
      ]
    })
  })

  it('a pin whose GPIO signal does not offer EVENTOUT gets no EVENTOUT AF, with or without IOModes', () => {
    const modes = '<IP Name="GPIO">\n<GPIO_Pin Name="PA11"><PinSignal Name="EVENTOUT"><SpecificParameter Name="GPIO_AF"><PossibleValue>GPIO_AF15_EVENTOUT</PossibleValue></SpecificParameter></PinSignal></GPIO_Pin>\n</IP>'
    const text = mcu(ONE, '<IP InstanceName="GPIO" Name="GPIO" Version="Q_gpio"/>', '<Pin Name="PA11" Position="5" Type="I/O"><Signal Name="USB_DM"/></Pin>', ...CATALOG)
    const r = stm32Adapter.parse([art('Q.xml', text), art('IP/GPIO-Q_gpio_Modes.xml', modes)])
    expect(r.facts.find((x) => x.name === 'PA11')?.value.alternateFunctions).toEqual([])
  })

  it('a modes file no MCU file names is still read, once, and its problems reported', () => {
    const r = stm32Adapter.parse([art('IP/GPIO-Lone_Modes.xml', '<IP Name="GPIO">\n<GPIO_Pin/>\n</IP>')])
    expect(problemsOf(r, 'IP/GPIO-Lone_Modes.xml')).toEqual([[2, '<GPIO_Pin> without Name']])
  })
})

describe('stm32 adapter: pins facts', () => {
  it('a pin reached through a remap variant listed first: its own pad still first; peripherals sorted and distinct', () => {
    const text = mcu(
      'RefName="STM32Q" Package="BGA9"',
      '<IP InstanceName="USART1" Name="USART"/>',
      '<IP InstanceName="I2C1" Name="I2C"/>',
      '<Pin Name="PA9 [PA11]" Position="A1" Type="I/O" Variant="PINREMAP"><Signal Name="USART1_TX"/><Signal Name="I2C1_SCL"/></Pin>',
      '<Pin Name="PA9" Position="B2" Type="I/O"><Signal Name="USART1_TX"/><Signal Name="USART1_CK"/></Pin>'
    )
    const r = stm32Adapter.parse([art('Q.xml', text)])
    const f = r.facts.find((x) => x.name === 'PA9')
    expect(f?.value).toMatchObject({
      label: 'PA9',
      position: 'B2',
      positions: ['B2', 'A1'],
      signals: ['USART1_TX', 'USART1_CK'],
      variants: [{ position: 'A1', label: 'PA9 [PA11]', variant: 'PINREMAP', signals: ['USART1_TX', 'I2C1_SCL'] }]
    })
    expect(f?.peripherals).toEqual(['I2C1', 'USART1'])
    expect(f?.evidence.map((e) => e.locator)).toEqual(['line 5: /Mcu/Pin[Name=PA9]', 'line 4: /Mcu/Pin[Name=PA9 [PA11]]'])
  })

  it('a pin only reachable through a remap variant keeps that pad’s signals as its own', () => {
    const text = mcu('RefName="STM32Q" Package="QFN8"', '<Pin Name="PA9 [PA11]" Position="7" Type="I/O" Variant="PINREMAP"><Signal Name="USART1_TX"/><Signal Name="USART1_TX"/></Pin>')
    const f = stm32Adapter.parse([art('Q.xml', text)]).facts.find((x) => x.name === 'PA9')
    expect(f?.value).toMatchObject({ label: 'PA9 [PA11]', positions: ['7'], signals: ['USART1_TX'], variants: [{ position: '7', label: 'PA9 [PA11]', variant: 'PINREMAP', signals: ['USART1_TX'] }] })
    expect(f?.peripherals).toEqual(['USART1'])
  })

  it('a pin listed twice at one position has that position once', () => {
    const r = stm32Adapter.parse([art('Q.xml', mcu('RefName="STM32Q" Package="QFN8"', '<Pin Name="VDD" Position="1" Type="Power"/>', '<Pin Name="VDD" Position="1" Type="Power"/>', '<Pin Name="VDD" Position="9" Type="Power"/>'))])
    expect(r.facts.find((x) => x.name === 'VDD')?.value).toMatchObject({ positions: ['1', '9'] })
  })

  it('a pin without Type has type "" ; one without signals has no peripherals and no ioModes', () => {
    const r = stm32Adapter.parse([art('Q.xml', mcu('RefName="STM32Q" Package="QFN8"', '<Pin Name="NRST" Position="1"/>'))])
    const f = r.facts.find((x) => x.name === 'NRST')
    expect(f?.value).toStrictEqual({ label: 'NRST', package: 'QFN8', position: '1', positions: ['1'], type: '', signals: [], alternateFunctionsUnknown: 'no <IP Name="GPIO" Version=...>' })
    expect(f).not.toHaveProperty('peripherals')
    expect(f?.scope).toEqual({ device: 'STM32Q', parts: ['STM32Q'], package: 'QFN8' })
  })
})

describe('stm32 adapter: parse units', () => {
  it('a run of MCU files naming one modes file is split into units that each carry the modes file', () => {
    const modes = art('IP/GPIO-Q_gpio_Modes.xml', '<IP Name="GPIO"/>')
    const mcus = Array.from({ length: 70 }, (_, i) => art(`M${String(i).padStart(3, '0')}.xml`, `<Mcu RefName="M${i}" Package="P"><IP Name="GPIO" Version="Q_gpio"/></Mcu>`))
    const groups = stm32Adapter.units!([modes, ...mcus.slice().reverse()])
    expect(groups.length).toBeGreaterThan(1)
    for (const g of groups) expect(g[g.length - 1]).toBe(modes)
    // Every MCU file once, in path order across the units.
    expect(groups.flatMap((g) => g.slice(0, -1).map((a) => a.path))).toEqual(mcus.map((a) => a.path))
    // Units are of bounded, balanced size: no unit holds all but one.
    expect(Math.max(...groups.map((g) => g.length - 1))).toBeLessThan(69)
  })

  it('the <IP Name="GPIO"> is found whatever its attribute order; files without one form their own run', () => {
    const modes = art('IP/GPIO-Q_gpio_Modes.xml', '<IP Name="GPIO"/>')
    const a = art('A.xml', '<Mcu RefName="A" Package="P"><IP Version="Q_gpio" InstanceName="GPIO" Name="GPIO"/></Mcu>')
    const b = art('B.xml', '<Mcu RefName="B" Package="P"><IP Name="GPIOX" Version="Q_gpio"/></Mcu>')
    const c = art('C.xml', '<Mcu RefName="C" Package="P"><IP Name="GPIO" Version="Q_gpio"/></Mcu>')
    const d = art('D.xml', '<Mcu RefName="D" Package="P"><IP Name="GPIO"/></Mcu>')
    const groups = stm32Adapter.units!([d, c, b, a, modes]).map((g) => g.map((x) => x.path.slice(DIR.length)))
    expect(groups).toEqual([['A.xml', 'IP/GPIO-Q_gpio_Modes.xml'], ['B.xml'], ['C.xml', 'IP/GPIO-Q_gpio_Modes.xml'], ['D.xml']])
  })
})

describe('stm32 naming rules at their edges', () => {
  it('expandRefName: every group, in order; a group inside a group or an empty one is refused', () => {
    expect(expandRefName('A(1-2)B(3-4)C')).toEqual(['A1B3C', 'A1B4C', 'A2B3C', 'A2B4C'])
    expect(expandRefName('A(1-2)B(3')).toBeUndefined()
    expect(expandRefName('A((1-2)B)')).toBeUndefined()
    expect(expandRefName('A(1-)B')).toBeUndefined()
    expect(expandRefName('A(-1)B')).toBeUndefined()
    expect(expandRefName('(1-2)')).toEqual(['1', '2'])
    expect(expandRefName('A(1)')).toEqual(['A1'])
  })

  it('pinBaseName: surrounding blanks trimmed; _C only as a whole suffix', () => {
    expect(pinBaseName('  PA9  ')).toBe('PA9')
    expect(pinBaseName(' VDD ')).toBe('VDD')
    expect(pinBaseName('PA0_CX')).toBe('PA0')
    expect(pinBaseName('PA0_C1')).toBe('PA0')
    expect(pinBaseName('PA0_C_')).toBe('PA0')
    expect(pinBaseName('PA0_C (PA0)')).toBe('PA0_C')
    expect(pinBaseName('PAB1')).toBe('PAB1')
    expect(pinBaseName('XPA1')).toBe('XPA1')
  })

  it('signalPeripheral: the longest instance prefix at a `_`, never a prefix that ends mid-word', () => {
    const inst = new Set(['USB', 'USB_OTG', 'USB_OTG_HS', 'TIM'])
    expect(signalPeripheral('USB_OTG_HS_ULPI_D0', inst)).toBe('USB_OTG_HS')
    expect(signalPeripheral('USB_OTG_FS_DM', inst)).toBe('USB_OTG')
    // TIM is an instance, but TIM15_CH1's prefix at a `_` is TIM15.
    expect(signalPeripheral('TIM15_CH1', inst)).toBe('TIM15')
    expect(signalPeripheral('ADC1_IN0', new Set())).toBe('ADC1')
    expect(signalPeripheral('EVENTOUT_X', new Set())).toBe('EVENTOUT')
    // Never an empty peripheral name.
    expect(signalPeripheral('_X', new Set())).toBe('_X')
  })
})
