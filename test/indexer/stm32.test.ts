import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import type { FactDraft } from '../../src/model/fact.js'
import { expandRefName, pinBaseName, signalPeripheral, stm32Adapter } from '../../indexer/sources/stm32.js'
import type { AdapterResult, LoadedArtifact } from '../../indexer/sources/types.js'

const FIXTURES = fileURLToPath(new URL('../fixtures/stm32/', import.meta.url))
// The shared corpus sits next to the project (`../shared`); it is read in place, never copied.
const CORPUS = fileURLToPath(new URL('../../../shared/corpus/', import.meta.url))
const MCU_KIND = 'stm32-pin-data-mcu'
const GPIO_KIND = 'stm32-pin-data-gpio-modes'

function artifact(path: string, content: Buffer): LoadedArtifact {
  return {
    path,
    sha256: createHash('sha256').update(content).digest('hex'),
    bytes: content.length,
    kind: path.includes('/IP/') ? GPIO_KIND : MCU_KIND,
    publisher: 'STMicroelectronics',
    license: 'BSD-3-Clause',
    mediaType: 'application/xml',
    content
  }
}

/** A fixture under test/fixtures/stm32/mcu/, given the inventory-style path pins/stm32/mcu/<name>. */
function fixture(name: string): LoadedArtifact {
  return artifact(`pins/stm32/mcu/${name}`, readFileSync(`${FIXTURES}mcu/${name}`))
}

function fixtureText(name: string): string {
  return readFileSync(`${FIXTURES}mcu/${name}`, 'utf8')
}

/** 1-based line of the first line containing `needle`: computed from the raw text, not the parser. */
function lineOf(text: string, needle: string): number {
  const i = text.indexOf(needle)
  expect(i).toBeGreaterThanOrEqual(0)
  return text.slice(0, i).split('\n').length
}

function pin(result: AdapterResult, target: string, name: string): FactDraft {
  const found = result.facts.filter((f) => f.topic === 'pins' && f.target === `stm32:${target}` && f.name === name)
  expect(found, `${target} ${name}`).toHaveLength(1)
  return found[0] as FactDraft
}

function electrical(result: AdapterResult, target: string): Record<string, { value: number; unit: string }> {
  const out: Record<string, { value: number; unit: string }> = {}
  for (const f of result.facts) if (f.topic === 'electrical' && f.target === `stm32:${target}`) out[f.name] = f.value as { value: number; unit: string }
  return out
}

type PinValue = {
  label: string
  package: string
  position: string
  positions: string[]
  type: string
  signals: string[]
  ioModes?: string[]
  alternateFunctions?: { af: number; signal: string }[]
  remaps?: { signal: string; block?: string; default: boolean; macro?: string }[]
  variants?: { position: string; label: string; variant: string; signals: string[] }[]
}
const valueOf = (f: FactDraft): PinValue => f.value as PinValue

describe('expandRefName', () => {
  it('expands each parenthesised alternative in order', () => {
    expect(expandRefName('STM32F407V(E-G)Tx')).toEqual(['STM32F407VETx', 'STM32F407VGTx'])
    expect(expandRefName('STM32G071G(8-B)UxN')).toEqual(['STM32G071G8UxN', 'STM32G071GBUxN'])
    expect(expandRefName('STM32F429B(E-G-I)Tx')).toEqual(['STM32F429BETx', 'STM32F429BGTx', 'STM32F429BITx'])
    expect(expandRefName('STM32H743XIHx')).toEqual(['STM32H743XIHx'])
  })
  it('refuses unbalanced or empty groups', () => {
    expect(expandRefName('STM32F407V(E-GTx')).toBeUndefined()
    expect(expandRefName('STM32F407VE)Tx')).toBeUndefined()
    expect(expandRefName('STM32F407V(E--G)Tx')).toBeUndefined()
    expect(expandRefName('STM32F407V()Tx')).toBeUndefined()
  })
})

describe('pinBaseName', () => {
  it.each([
    ['PA9', 'PA9'],
    ['PC14-OSC32_IN', 'PC14'],
    ['PC14-OSC32_IN (OSC32_IN)', 'PC14'],
    ['PC14OSC32_IN', 'PC14'],
    ['PH0-OSC_IN (PH0)', 'PH0'],
    ['PH0 - OSC_IN', 'PH0'],
    ['PH0/OSC_IN', 'PH0'],
    ['PA13 (JTMS/SWDIO)', 'PA13'],
    ['PF2 - NRST', 'PF2'],
    ['PI8- ANTI TAMP2', 'PI8'],
    ['PF11-BOOT0 (BOOT0)', 'PF11'],
    // ST's pin-remap notation: the pad is PA11 by default; its `PA9 [PA11]` variant files under PA9.
    ['PA11 [PA9]', 'PA11'],
    ['PA9 [PA11]', 'PA9'],
    // H7 analog-switch pads are separate balls from PA0/PC2 in the same package.
    ['PA0_C', 'PA0_C'],
    ['PC2_C', 'PC2_C'],
    ['VDD', 'VDD'],
    ['VSS', 'VSS'],
    ['NRST', 'NRST'],
    ['BOOT0', 'BOOT0'],
    ['VCAP_1', 'VCAP_1'],
    ['VDDA/VREF+', 'VDDA/VREF+'],
    ['PDR_ON', 'PDR_ON'],
    ['UCPD1_DBCC1', 'UCPD1_DBCC1']
  ])('%s → %s', (label, base) => {
    expect(pinBaseName(label)).toBe(base)
  })
})

describe('signalPeripheral', () => {
  const instances = new Set(['USART1', 'TIM1', 'RCC', 'USB_OTG_FS', 'USB', 'SYS'])
  it.each([
    ['USART1_TX', 'USART1'],
    ['TIM1_CH2', 'TIM1'],
    ['RCC_OSC32_IN', 'RCC'],
    ['USB_OTG_FS_VBUS', 'USB_OTG_FS'],
    ['USB_DM', 'USB'],
    ['SYS_JTMS-SWDIO', 'SYS'],
    ['I2S_CKIN', 'I2S'],
    ['CEC', 'CEC'],
    ['GPIO', undefined],
    ['EVENTOUT', undefined]
  ])('%s → %s', (signal, peripheral) => {
    expect(signalPeripheral(signal, instances)).toBe(peripheral)
  })
})

describe('stm32Adapter on fixtures', () => {
  const names = [
    'STM32T001K(6-8)Tx.xml',
    'IP/GPIO-T001_gpio_v1_0_Modes.xml',
    'STM32T101C8Tx.xml',
    'IP/GPIO-T101_gpio_v1_0_Modes.xml',
    'STM32T002F(4-6)Px.xml',
    'STM32T003BROKEN.xml'
  ]
  let result: AdapterResult
  beforeAll(() => {
    result = stm32Adapter.parse(names.map(fixture))
  })

  it('reads GPIO modes files no MCU names, so a broken one is still reported', () => {
    const orphan = artifact('pins/stm32/mcu/IP/GPIO-ORPHAN_gpio_v1_0_Modes.xml', Buffer.from('<?xml version="1.0"?>\n<IP Name="GPIO">\n<GPIO_Pin Name="PA0">\n</IP>\n'))
    const r = stm32Adapter.parse([fixture('STM32T101C8Tx.xml'), fixture('IP/GPIO-T101_gpio_v1_0_Modes.xml'), orphan])
    const p = r.problems.filter((x) => x.file === orphan.path)
    expect(p).toHaveLength(1)
    expect(p[0]!.line).toBeGreaterThanOrEqual(3)
  })

  it('groups each MCU file with the GPIO modes file it names, in path order; unnamed modes files alone', () => {
    const orphan = artifact('pins/stm32/mcu/IP/GPIO-ORPHAN_gpio_v1_0_Modes.xml', Buffer.from('<IP Name="GPIO"/>'))
    const groups = stm32Adapter.units!([...names.map(fixture), orphan]).map((g) => g.map((a) => a.path.replace('pins/stm32/mcu/', '')))
    expect(groups).toEqual([
      ['STM32T001K(6-8)Tx.xml', 'IP/GPIO-T001_gpio_v1_0_Modes.xml'],
      // T002 names a modes file the inventory lacks, T003 is not XML: a run of their own.
      ['STM32T002F(4-6)Px.xml', 'STM32T003BROKEN.xml'],
      ['STM32T101C8Tx.xml', 'IP/GPIO-T101_gpio_v1_0_Modes.xml'],
      ['IP/GPIO-ORPHAN_gpio_v1_0_Modes.xml']
    ])
  })

  it('declares its name and kinds', () => {
    expect(stm32Adapter.name).toBe('stm32-pin-data')
    expect(stm32Adapter.kinds).toEqual([MCU_KIND, GPIO_KIND])
  })

  it('makes one document target per readable MCU file', () => {
    const t = result.targets.find((x) => x.key === 'stm32:STM32T001K(6-8)Tx')
    expect(t).toMatchObject({
      topics: ['pins', 'electrical'],
      device: 'STM32T001K(6-8)Tx',
      sourcePath: 'pins/stm32/mcu/STM32T001K(6-8)Tx.xml',
      packages: ['LQFP32'],
      description: 'STM32T0x1'
    })
    expect(t?.sourceSha256).toMatch(/^[0-9a-f]{64}$/)
    expect(result.targets.map((x) => x.key).sort()).toEqual(['stm32:STM32T001K(6-8)Tx', 'stm32:STM32T002F(4-6)Px', 'stm32:STM32T101C8Tx'])
  })

  it('expands catalog parts with per-part Flash and a shared Ram', () => {
    const parts = result.parts.filter((p) => p.refName === 'STM32T001K(6-8)Tx')
    expect(parts.map((p) => [p.name, p.flashKb, p.ramKb])).toEqual([
      ['STM32T001K6Tx', 32, 8],
      ['STM32T001K8Tx', 64, 8]
    ])
    expect(parts[0]).toMatchObject({ family: 'STM32T0', line: 'STM32T0x1', package: 'LQFP32', core: 'Arm Cortex-M0+', maxFrequencyMhz: 64, target: 'stm32:STM32T001K(6-8)Tx' })
    // No <Frequency>: the part has no maxFrequencyMhz rather than an invented one.
    const single = result.parts.filter((p) => p.refName === 'STM32T101C8Tx')
    expect(single).toHaveLength(1)
    expect(single[0]).toMatchObject({ name: 'STM32T101C8Tx', flashKb: 64, ramKb: 20 })
    expect(single[0]).not.toHaveProperty('maxFrequencyMhz')
  })

  it('gives electrical facts only for attributes that are present', () => {
    expect(electrical(result, 'STM32T001K(6-8)Tx')).toEqual({
      'supply.vdd.min': { value: 1.7, unit: 'V' },
      'supply.vdd.max': { value: 3.6, unit: 'V' },
      'temperature.ambient.min': { value: -40, unit: '°C' },
      'temperature.ambient.max': { value: 125, unit: '°C' },
      'clock.cpu.max': { value: 64, unit: 'MHz' },
      'current.run': { value: 93, unit: 'µA/MHz' }
    })
    expect(electrical(result, 'STM32T002F(4-6)Px')).toEqual({ 'temperature.ambient.max': { value: 85, unit: '°C' } })
    expect(electrical(result, 'STM32T101C8Tx')).toEqual({})
    const vmin = result.facts.find((f) => f.target === 'stm32:STM32T001K(6-8)Tx' && f.name === 'supply.vdd.min')
    const text = fixtureText('STM32T001K(6-8)Tx.xml')
    expect(vmin?.scope).toEqual({ device: 'STM32T001K(6-8)Tx', parts: ['STM32T001K6Tx', 'STM32T001K8Tx'] })
    expect(vmin?.evidence).toHaveLength(1)
    expect(vmin?.evidence[0]?.locator).toBe(`line ${lineOf(text, '<Voltage')}: /Mcu/Voltage/@Min`)
    expect(vmin?.evidence[0]?.excerpt).toContain('<Voltage Max="3.6" Min="1.7"/>')
  })

  it('files pins under their base name and merges repeated power pins', () => {
    const t = 'STM32T001K(6-8)Tx'
    const vdd = valueOf(pin(result, t, 'VDD'))
    expect(vdd).toMatchObject({ label: 'VDD', position: '1', positions: ['1', '10', '17'], type: 'Power', signals: [], alternateFunctions: [] })
    expect(pin(result, t, 'VDD').evidence).toHaveLength(1)
    expect(valueOf(pin(result, t, 'VSS')).positions).toEqual(['6', '13'])
    expect(valueOf(pin(result, t, 'PC14'))).toMatchObject({ label: 'PC14-OSC32_IN (PC14)', position: '2', signals: ['RCC_OSC32_IN', 'GPIO'] })
    expect(valueOf(pin(result, t, 'PC15')).label).toBe('PC15OSC32_OUT')
    expect(valueOf(pin(result, t, 'PH0')).label).toBe('PH0-OSC_IN (PH0)')
    expect(valueOf(pin(result, t, 'PF2'))).toMatchObject({ label: 'PF2 - NRST', type: 'Reset' })
    expect(valueOf(pin(result, t, 'PA13')).label).toBe('PA13 (JTMS/SWDIO)')
    expect(pin(result, t, 'PA13').peripherals).toEqual(['SYS'])
    expect(valueOf(pin(result, t, 'PA0')).positions).toEqual(['7'])
    expect(valueOf(pin(result, t, 'PA0_C')).positions).toEqual(['8'])
    for (const name of ['BOOT0', 'VCAP_1', 'VDDA/VREF+']) expect(valueOf(pin(result, t, name)).label).toBe(name)
    const names = result.facts.filter((f) => f.topic === 'pins' && f.target === `stm32:${t}`).map((f) => f.name)
    expect(new Set(names).size).toBe(names.length)
  })

  it('merges a pin with its remap variant and looks AF numbers up per label', () => {
    const t = 'STM32T001K(6-8)Tx'
    const text = fixtureText('STM32T001K(6-8)Tx.xml')
    const gpioText = fixtureText('IP/GPIO-T001_gpio_v1_0_Modes.xml')
    const fact = pin(result, t, 'PA9')
    expect(fact.scope).toEqual({ device: t, parts: ['STM32T001K6Tx', 'STM32T001K8Tx'], package: 'LQFP32' })
    expect(valueOf(fact)).toEqual({
      label: 'PA9',
      package: 'LQFP32',
      position: '9',
      positions: ['9', '11'],
      type: 'I/O',
      signals: ['TIM1_CH2', 'USART1_TX', 'USB_OTG_FS_VBUS', 'GPIO'],
      ioModes: ['Input', 'Output', 'Analog', 'EVENTOUT', 'EXTI'],
      // FMC_NE1 is in the modes file but not on this MCU's pin: left out. EVENTOUT is offered by
      // the pin's GPIO IOModes. TIM1_CH2/AF1 appears under both labels and is listed once.
      alternateFunctions: [
        { af: 1, signal: 'TIM1_CH2' },
        { af: 7, signal: 'USART1_TX' },
        { af: 15, signal: 'EVENTOUT' }
      ],
      // The remapped pad (line 56 of the fixture) lists its own signals.
      variants: [{ position: '11', label: 'PA9 [PA11]', variant: 'PINREMAP', signals: ['TIM1_CH2', 'USART1_TX', 'GPIO'] }]
    })
    expect(fact.peripherals).toEqual(['TIM1', 'USART1', 'USB_OTG_FS'])
    expect(fact.evidence.map((e) => e.locator)).toEqual([
      `line ${lineOf(text, '<Pin Name="PA9" ')}: /Mcu/Pin[Name=PA9]`,
      `line ${lineOf(text, '<Pin Name="PA9 [PA11]"')}: /Mcu/Pin[Name=PA9 [PA11]]`,
      `line ${lineOf(gpioText, 'Name="PA9">')}: /IP/GPIO_Pin[Name=PA9]`,
      `line ${lineOf(gpioText, 'Name="PA9 [PA11]">')}: /IP/GPIO_Pin[Name=PA9 [PA11]]`
    ])
    expect(fact.evidence.map((e) => e.sourcePath)).toEqual([
      'pins/stm32/mcu/STM32T001K(6-8)Tx.xml',
      'pins/stm32/mcu/STM32T001K(6-8)Tx.xml',
      'pins/stm32/mcu/IP/GPIO-T001_gpio_v1_0_Modes.xml',
      'pins/stm32/mcu/IP/GPIO-T001_gpio_v1_0_Modes.xml'
    ])
    expect(fact.evidence[0]?.excerpt).toMatch(/^<Pin Name="PA9" Position="9" Type="I\/O"> <Signal Name="TIM1_CH2"\/>/)
    expect(fact.evidence[2]?.excerpt).toMatch(/^<GPIO_Pin PortName="PA" Name="PA9">/)
    const pa11 = pin(result, t, 'PA11')
    expect(valueOf(pa11)).toMatchObject({ label: 'PA11 [PA9]', positions: ['11'], alternateFunctions: [{ af: 1, signal: 'USART1_CTS' }] })
    expect(valueOf(pa11)).not.toHaveProperty('variants')
    expect(pa11.peripherals).toEqual(['USART1', 'USB'])
  })

  it('gives F1-style remap blocks instead of AF numbers', () => {
    const pb6 = valueOf(pin(result, 'STM32T101C8Tx', 'PB6'))
    expect(pb6.alternateFunctions).toEqual([])
    expect(pb6.remaps).toEqual([
      { signal: 'I2C1_SCL', block: 'I2C1_REMAP0', default: true },
      { signal: 'USART1_TX', block: 'USART1_REMAP1', default: false, macro: '__HAL_AFIO_REMAP_USART1_ENABLE' }
    ])
    expect(valueOf(pin(result, 'STM32T101C8Tx', 'PB10')).remaps).toEqual([{ signal: 'CEC', default: false, macro: '__HAL_AFIO_REMAP_CEC_ENABLE' }])
  })

  it('reports a missing GPIO modes file and still gives the pins, without AF numbers', () => {
    const text = fixtureText('STM32T002F(4-6)Px.xml')
    expect(result.problems).toContainEqual({
      file: 'pins/stm32/mcu/STM32T002F(4-6)Px.xml',
      line: lineOf(text, '<IP InstanceName="GPIO"'),
      reason: expect.stringContaining('pins/stm32/mcu/IP/GPIO-T002_gpio_v1_0_Modes.xml is not in the inventory')
    })
    const pa9 = valueOf(pin(result, 'STM32T002F(4-6)Px', 'PA9'))
    expect(pa9).toMatchObject({ position: '17', signals: ['USART1_TX', 'GPIO'] })
    // Unknown, not "none": the key is absent, and the pin says why.
    expect(pa9).not.toHaveProperty('alternateFunctions')
    expect((pa9 as Record<string, unknown>).alternateFunctionsUnknown).toBe('GPIO modes file pins/stm32/mcu/IP/GPIO-T002_gpio_v1_0_Modes.xml is not in the inventory')
  })

  it('reports Flash/Ram counts that fit neither one-per-part nor shared, and makes no parts', () => {
    expect(result.parts.filter((p) => p.refName === 'STM32T002F(4-6)Px')).toEqual([])
    expect(result.problems.some((p) => p.file === 'pins/stm32/mcu/STM32T002F(4-6)Px.xml' && /3 <Ram> elements for 2 selector parts/.test(p.reason))).toBe(true)
  })

  it('turns a broken file into a ParseProblem with its line', () => {
    const broken = result.problems.filter((p) => p.file === 'pins/stm32/mcu/STM32T003BROKEN.xml')
    expect(broken).toHaveLength(1)
    expect(broken[0]).toMatchObject({ line: 8, reason: expect.stringContaining('not well-formed XML') })
    expect(result.targets.some((t) => t.sourcePath.endsWith('BROKEN.xml'))).toBe(false)
  })

  it('never throws, whatever the bytes', () => {
    const junk = [
      artifact('pins/stm32/mcu/Empty.xml', Buffer.alloc(0)),
      artifact('pins/stm32/mcu/Binary.xml', Buffer.from([0xff, 0xfe, 0x00, 0x3c, 0x00])),
      artifact('pins/stm32/mcu/Other.xml', Buffer.from('<device><name>X</name></device>')),
      artifact('pins/stm32/mcu/NoParts.xml', Buffer.from('<Mcu RefName="STM32X(A" Package="LQFP32"/>')),
      artifact('pins/stm32/mcu/BadGpio.xml', Buffer.from('<Mcu RefName="STM32Y" Package="LQFP32"><IP Name="GPIO" Version="bad"/><Pin Name="PA1" Position="1" Type="I/O"/></Mcu>')),
      artifact('pins/stm32/mcu/IP/GPIO-bad_Modes.xml', Buffer.from('<IP Name="GPIO">\n<GPIO_Pin Name="PA1">\n</IP>'))
    ]
    let r: AdapterResult | undefined
    expect(() => (r = stm32Adapter.parse(junk))).not.toThrow()
    const files = new Set(r?.problems.map((p) => p.file))
    for (const f of ['Empty.xml', 'Binary.xml', 'Other.xml', 'NoParts.xml', 'BadGpio.xml', 'IP/GPIO-bad_Modes.xml']) expect(files).toContain(`pins/stm32/mcu/${f}`)
    expect(r?.problems.find((p) => p.file === 'pins/stm32/mcu/IP/GPIO-bad_Modes.xml')?.line).toBe(3)
    // The MCU whose modes file is unreadable still has its pin.
    expect(r?.facts.some((f) => f.target === 'stm32:STM32Y' && f.name === 'PA1')).toBe(true)
  })
})

// ---------------------------------------------------------------------------------------------
// The real corpus. Expected values come from scanning the raw XML text with regular expressions,
// independently of the adapter's parser and rules.

interface RawPin {
  label: string
  position: string
  type: string
  variant?: string
  signals: string[]
}

const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const rawAttr = (tag: string, name: string): string | undefined => new RegExp(`(?:^|\\s)${name}="([^"]*)"`).exec(tag)?.[1]

function rawPins(text: string): RawPin[] {
  const out: RawPin[] = []
  const re = /<Pin\s([^>]*?)(\/?)>/g
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const tag = m[1] as string
    const body = m[2] === '/' ? '' : text.slice(re.lastIndex, text.indexOf('</Pin>', re.lastIndex))
    const signals = [...body.matchAll(/<Signal\s[^>]*?\bName="([^"]*)"/g)].map((s) => s[1] as string)
    const p: RawPin = { label: rawAttr(tag, 'Name') ?? '', position: rawAttr(tag, 'Position') ?? '', type: rawAttr(tag, 'Type') ?? '', signals }
    const variant = rawAttr(tag, 'Variant')
    if (variant) p.variant = variant
    out.push(p)
  }
  return out
}

function rawPin(text: string, label: string): RawPin {
  const found = rawPins(text).filter((p) => p.label === label)
  expect(found, label).toHaveLength(1)
  return found[0] as RawPin
}

/** The text of `<PinSignal Name=signal>` under `<GPIO_Pin Name=label>` in a GPIO modes file. */
function rawPinSignal(gpioText: string, label: string, signal: string): string {
  const start = new RegExp(`<GPIO_Pin\\s[^>]*\\bName="${esc(label)}"\\s*>`).exec(gpioText)
  expect(start, label).not.toBeNull()
  const from = (start as RegExpExecArray).index
  const block = gpioText.slice(from, gpioText.indexOf('</GPIO_Pin>', from))
  const sig = new RegExp(`<PinSignal Name="${esc(signal)}">([\\s\\S]*?)</PinSignal>`).exec(block)
  expect(sig, `${label} ${signal}`).not.toBeNull()
  return (sig as RegExpExecArray)[1] as string
}

function rawAf(gpioText: string, label: string, signal: string): number {
  const m = /GPIO_AF(\d+)_/.exec(rawPinSignal(gpioText, label, signal))
  expect(m).not.toBeNull()
  return Number((m as RegExpExecArray)[1])
}

describe('stm32Adapter on the corpus', () => {
  let result: AdapterResult
  let artifacts: LoadedArtifact[]
  const raw = new Map<string, string>()
  const mcuText = (refName: string): string => raw.get(`pins/stm32/mcu/${refName}.xml`) as string
  const gpioText = (version: string): string => raw.get(`pins/stm32/mcu/IP/GPIO-${version}_Modes.xml`) as string
  const gpioVersionOf = (text: string): string => /<IP\s[^>]*Name="GPIO"[^>]*Version="([^"]+)"/.exec(text)?.[1] as string

  beforeAll(() => {
    const inventory = JSON.parse(readFileSync(`${CORPUS}sources.json`, 'utf8')) as { sources: Omit<LoadedArtifact, 'content'>[] }
    artifacts = inventory.sources
      .filter((s) => s.kind === MCU_KIND || s.kind === GPIO_KIND)
      .map((s) => {
        const content = readFileSync(CORPUS + s.path)
        expect(createHash('sha256').update(content).digest('hex')).toBe(s.sha256)
        raw.set(s.path, content.toString('utf8'))
        return { ...s, content }
      })
    result = stm32Adapter.parse(artifacts)
  })

  it('parses unit by unit to what it parses at once: many units, a shared modes file’s problems once', () => {
    const groups = stm32Adapter.units!(artifacts)
    expect(groups.length).toBeGreaterThan(artifacts.filter((a) => a.kind === GPIO_KIND).length)
    expect(groups.flat().filter((a) => a.kind === MCU_KIND)).toHaveLength(artifacts.filter((a) => a.kind === MCU_KIND).length)
    const parts = groups.map((g) => stm32Adapter.parse(g))
    const concat = <K extends keyof AdapterResult>(k: K) => parts.flatMap((r) => r[k] as unknown[])
    expect(concat('targets')).toEqual(result.targets)
    expect(concat('parts')).toEqual(result.parts)
    expect(concat('facts')).toEqual(result.facts)
    const problems = [...new Map(concat('problems').map((p) => [JSON.stringify(p), p])).values()]
    expect(problems).toEqual(result.problems)
  })

  it('reads every MCU file without problems', () => {
    expect(artifacts.filter((a) => a.kind === MCU_KIND)).toHaveLength(163)
    expect(artifacts.filter((a) => a.kind === GPIO_KIND)).toHaveLength(90)
    expect(result.problems).toEqual([])
    expect(result.targets).toHaveLength(163)
  })

  it('expands every RefName into parts that keep its prefix, one per alternative', () => {
    let total = 0
    for (const a of artifacts) {
      if (a.kind !== MCU_KIND) continue
      const refName = /<Mcu\s[^>]*\bRefName="([^"]+)"/.exec(raw.get(a.path) as string)?.[1] as string
      const group = /\(([^)]*)\)/.exec(refName)
      const prefix = group ? refName.slice(0, group.index) : refName
      const suffix = group ? refName.slice(group.index + group[0].length) : ''
      const alternatives = group ? (group[1] as string).split('-') : ['']
      const parts = expandRefName(refName) as string[]
      expect(parts, refName).toHaveLength(alternatives.length)
      for (const [i, p] of parts.entries()) {
        expect(p.startsWith(prefix), p).toBe(true)
        expect(p).toBe(prefix + alternatives[i] + suffix)
      }
      expect(new Set(parts).size).toBe(parts.length)
      expect(result.parts.filter((p) => p.refName === refName).map((p) => p.name)).toEqual(parts)
      total += parts.length
    }
    expect(result.parts).toHaveLength(total)
  })

  it('takes catalog Flash and Ram sizes from the file, one per part or shared', () => {
    for (const a of artifacts) {
      if (a.kind !== MCU_KIND) continue
      const text = raw.get(a.path) as string
      const refName = /\bRefName="([^"]+)"/.exec(text)?.[1] as string
      const flash = [...text.matchAll(/<Flash>(\d+)<\/Flash>/g)].map((m) => Number(m[1]))
      const ram = [...text.matchAll(/<Ram>(\d+)<\/Ram>/g)].map((m) => Number(m[1]))
      const parts = result.parts.filter((p) => p.refName === refName)
      expect(parts.length, refName).toBeGreaterThan(0)
      parts.forEach((p, i) => {
        expect(p.flashKb, p.name).toBe(flash.length === 1 ? flash[0] : flash[i])
        expect(p.ramKb, p.name).toBe(ram.length === 1 ? ram[0] : ram[i])
        expect(p.package).toBe(/\bPackage="([^"]+)"/.exec(text)?.[1])
        expect(p.core).toBe(/<Core>([^<]+)<\/Core>/.exec(text)?.[1])
        const freq = /<Frequency>([^<]+)<\/Frequency>/.exec(text)?.[1]
        expect(p.maxFrequencyMhz).toBe(freq === undefined ? undefined : Number(freq))
      })
    }
  })

  it('gives electrical values as the files state them, and nothing where they are silent', () => {
    const expected = {
      'supply.vdd.min': ['Voltage', 'Min', 'V'],
      'supply.vdd.max': ['Voltage', 'Max', 'V'],
      'temperature.ambient.min': ['Temperature', 'Min', '°C'],
      'temperature.ambient.max': ['Temperature', 'Max', '°C'],
      'current.run': ['Current', 'Run', 'µA/MHz'],
      'current.lowest': ['Current', 'Lowest', 'µA']
    } as const
    const absent: Record<string, number> = {}
    for (const a of artifacts) {
      if (a.kind !== MCU_KIND) continue
      const text = raw.get(a.path) as string
      const refName = /\bRefName="([^"]+)"/.exec(text)?.[1] as string
      const got = electrical(result, refName)
      const want: Record<string, { value: number; unit: string }> = {}
      for (const [name, [element, attr, unit]] of Object.entries(expected)) {
        const tag = new RegExp(`<${element}\\s([^>]*)/>`).exec(text)?.[1]
        const v = tag === undefined ? undefined : rawAttr(tag, attr)
        if (v === undefined) absent[name] = (absent[name] ?? 0) + 1
        else want[name] = { value: Number(v), unit }
      }
      const freq = /<Frequency>([^<]+)<\/Frequency>/.exec(text)?.[1]
      if (freq === undefined) absent['clock.cpu.max'] = (absent['clock.cpu.max'] ?? 0) + 1
      else want['clock.cpu.max'] = { value: Number(freq), unit: 'MHz' }
      expect(got, refName).toEqual(want)
    }
    // Files that say nothing about a value, as counted from the raw text above.
    expect(absent).toEqual({
      'supply.vdd.min': 19,
      'supply.vdd.max': 19,
      'temperature.ambient.min': 18,
      'temperature.ambient.max': 18,
      'clock.cpu.max': 19,
      'current.run': 39,
      'current.lowest': 54
    })
    expect(electrical(result, 'STM32F407V(E-G)Tx')).toEqual({
      'supply.vdd.min': { value: 1.8, unit: 'V' },
      'supply.vdd.max': { value: 3.6, unit: 'V' },
      'temperature.ambient.min': { value: -40, unit: '°C' },
      'temperature.ambient.max': { value: 85, unit: '°C' },
      'clock.cpu.max': { value: 168, unit: 'MHz' },
      'current.run': { value: 215, unit: 'µA/MHz' },
      'current.lowest': { value: 1.7, unit: 'µA' }
    })
  })

  it('STM32F407V(E-G)Tx LQFP100: PA9 is position 68 with USART1_TX on AF7', () => {
    const ref = 'STM32F407V(E-G)Tx'
    const text = mcuText(ref)
    const gpio = gpioText(gpioVersionOf(text))
    const r = rawPin(text, 'PA9')
    expect(r.position).toBe('68')
    expect(rawAf(gpio, 'PA9', 'USART1_TX')).toBe(7)
    const fact = pin(result, ref, 'PA9')
    const v = valueOf(fact)
    expect(v).toMatchObject({ label: 'PA9', package: 'LQFP100', position: '68', positions: ['68'], type: r.type, signals: r.signals })
    expect(v.alternateFunctions).toContainEqual({ af: 7, signal: 'USART1_TX' })
    for (const { af, signal } of v.alternateFunctions ?? []) expect(rawAf(gpio, 'PA9', signal)).toBe(af)
    expect(fact.scope).toEqual({ device: ref, parts: ['STM32F407VETx', 'STM32F407VGTx'], package: 'LQFP100' })
    expect(fact.peripherals).toContain('USART1')
    expect(fact.evidence[0]?.locator).toBe(`line ${lineOf(text, '<Pin Name="PA9" ')}: /Mcu/Pin[Name=PA9]`)
    expect(fact.evidence[1]?.sourcePath).toBe('pins/stm32/mcu/IP/GPIO-STM32F417_gpio_v1_0_Modes.xml')
    expect(fact.evidence[1]?.locator).toBe(`line ${lineOf(gpio, '<GPIO_Pin PortName="PA" Name="PA9">')}: /IP/GPIO_Pin[Name=PA9]`)
    // VDD: one fact with every position the raw file gives it.
    const vdd = rawPins(text).filter((p) => p.label === 'VDD').map((p) => p.position)
    expect(vdd.length).toBeGreaterThan(1)
    expect(valueOf(pin(result, ref, 'VDD')).positions).toEqual(vdd)
  })

  it('STM32G071C(6-8-B)Tx LQFP48: PA9 also reaches the remapped PA11 pad', () => {
    const ref = 'STM32G071C(6-8-B)Tx'
    const text = mcuText(ref)
    const gpio = gpioText(gpioVersionOf(text))
    const native = rawPin(text, 'PA9')
    const remapped = rawPin(text, 'PA9 [PA11]')
    expect(remapped.variant).toBe('PINREMAP')
    const v = valueOf(pin(result, ref, 'PA9'))
    expect(v).toMatchObject({ label: 'PA9', position: native.position, positions: [native.position, remapped.position] })
    expect(v.variants).toEqual([{ position: remapped.position, label: 'PA9 [PA11]', variant: 'PINREMAP', signals: remapped.signals }])
    // Only the native pad (position 29) has UCPD1_DBCC1; the remapped pad (33) does not claim it.
    expect(native.signals).toContain('UCPD1_DBCC1')
    expect(remapped.signals).not.toContain('UCPD1_DBCC1')
    expect(v.signals).toEqual(native.signals)
    expect(v.variants?.[0]?.signals).not.toContain('UCPD1_DBCC1')
    expect(v.alternateFunctions).toContainEqual({ af: rawAf(gpio, 'PA9', 'USART1_TX'), signal: 'USART1_TX' })
    const pa11 = rawPin(text, 'PA11 [PA9]')
    expect(valueOf(pin(result, ref, 'PA11'))).toMatchObject({ label: 'PA11 [PA9]', positions: [pa11.position], signals: pa11.signals })
    expect(valueOf(pin(result, ref, 'PA11')).alternateFunctions).toContainEqual({ af: rawAf(gpio, 'PA11 [PA9]', 'I2C2_SCL'), signal: 'I2C2_SCL' })
  })

  it('STM32L476R(C-E-G)Tx LQFP64: PA2 USART2_TX and the PH0 oscillator pin', () => {
    const ref = 'STM32L476R(C-E-G)Tx'
    const text = mcuText(ref)
    const gpio = gpioText(gpioVersionOf(text))
    const pa2 = rawPin(text, 'PA2')
    const v = valueOf(pin(result, ref, 'PA2'))
    expect(v).toMatchObject({ package: 'LQFP64', position: pa2.position, signals: pa2.signals })
    expect(v.alternateFunctions).toContainEqual({ af: rawAf(gpio, 'PA2', 'USART2_TX'), signal: 'USART2_TX' })
    const ph0 = rawPins(text).filter((p) => p.label.startsWith('PH0'))
    expect(ph0).toHaveLength(1)
    expect(valueOf(pin(result, ref, 'PH0'))).toMatchObject({ label: ph0[0]?.label, position: ph0[0]?.position })
    expect(pin(result, ref, 'PA2').scope.parts).toEqual(['STM32L476RCTx', 'STM32L476RETx', 'STM32L476RGTx'])
  })

  it('STM32H743XIHx TFBGA240: ball positions, PA0 and PA0_C apart, VDD balls merged', () => {
    const ref = 'STM32H743XIHx'
    const text = mcuText(ref)
    const gpio = gpioText(gpioVersionOf(text))
    const pa0 = rawPin(text, 'PA0')
    const pa0c = rawPin(text, 'PA0_C')
    expect(pa0.position).not.toBe(pa0c.position)
    expect(valueOf(pin(result, ref, 'PA0'))).toMatchObject({ package: 'TFBGA240', positions: [pa0.position], signals: pa0.signals })
    expect(valueOf(pin(result, ref, 'PA0_C'))).toMatchObject({ positions: [pa0c.position], signals: pa0c.signals })
    const pb6 = rawPin(text, 'PB6')
    expect(pb6.position).toMatch(/^[A-Z]+\d+$/)
    const v = valueOf(pin(result, ref, 'PB6'))
    expect(v.position).toBe(pb6.position)
    expect(v.alternateFunctions).toContainEqual({ af: rawAf(gpio, 'PB6', 'USART1_TX'), signal: 'USART1_TX' })
    const vdd = rawPins(text).filter((p) => p.label === 'VDD').map((p) => p.position)
    expect(vdd.length).toBeGreaterThan(10)
    expect(valueOf(pin(result, ref, 'VDD')).positions).toEqual(vdd)
  })

  it('STM32F103C(8-B)Tx: AFIO remaps instead of AF numbers', () => {
    const ref = 'STM32F103C(8-B)Tx'
    const text = mcuText(ref)
    const gpio = gpioText(gpioVersionOf(text))
    const block = rawPinSignal(gpio, 'PB6', 'USART1_TX')
    const remapName = /<RemapBlock Name="([^"]+)"/.exec(block)?.[1]
    const macro = /<PossibleValue>([^<]+)<\/PossibleValue>/.exec(block)?.[1]
    const v = valueOf(pin(result, ref, 'PB6'))
    expect(v.position).toBe(rawPin(text, 'PB6').position)
    expect(v.alternateFunctions).toEqual([])
    expect(v.remaps).toContainEqual({ signal: 'USART1_TX', block: remapName, default: false, macro })
  })

  it('accounts for every <Pin> of every file exactly once', () => {
    const byTarget = new Map<string, number>()
    for (const f of result.facts) if (f.topic === 'pins') byTarget.set(f.target, (byTarget.get(f.target) ?? 0) + valueOf(f).positions.length)
    for (const a of artifacts) {
      if (a.kind !== MCU_KIND) continue
      const text = raw.get(a.path) as string
      const refName = /\bRefName="([^"]+)"/.exec(text)?.[1] as string
      expect(byTarget.get(`stm32:${refName}`), refName).toBe(rawPins(text).length)
    }
  })

  it('cites real lines for every fact', () => {
    const lines = new Map<string, string[]>()
    const linesOf = (path: string): string[] => {
      let l = lines.get(path)
      if (!l) lines.set(path, (l = (raw.get(path) as string).split('\n')))
      return l
    }
    // Collected, then asserted once: ~27k evidence entries.
    const bad: string[] = []
    for (const f of result.facts) {
      if (f.evidence.length === 0) bad.push(`${f.target} ${f.name}: no evidence`)
      for (const e of f.evidence) {
        const m = /^line (\d+): \//.exec(e.locator)
        const line = m ? linesOf(e.sourcePath)[Number(m[1]) - 1] : undefined
        if (line === undefined || !e.excerpt.startsWith(line.trim().replace(/\s+/g, ' ').slice(0, 40))) bad.push(`${f.target} ${f.name}: ${e.locator}`)
      }
    }
    expect(bad).toEqual([])
  })
})
