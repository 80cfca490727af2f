import { describe, expect, it } from 'vitest'
import { MODM_KIND, modmAdapter, parseModm } from '../../indexer/sources/modm.js'
import { filtersOf, format, matches, parseSchema, product, productSize } from '../../indexer/sources/modm/identifiers.js'
import { stSignal } from '../../indexer/sources/modm/pins.js'
import type { LoadedArtifact } from '../../indexer/sources/types.js'
import type { XmlElement } from '../../indexer/xml.js'

/*
 * The modm-devices adapter on small inline device files: identifiers by modm's rules
 * (modm_devices/device_identifier.py: the product of the `<device>` attributes, the naming
 * schema, `device-*` filters), memory facts and the flash and RAM sizes of each identifier, STM32
 * pins, and every problem with its line. Expected values are worked out by hand from the XML
 * below (`xml(...)` joins one string per line: line N is the Nth string).
 */

const SHA = 'b'.repeat(64)
const xml = (...lines: string[]) => lines.join('\n')
const art = (path: string, text: string): LoadedArtifact => {
  const content = Buffer.from(text)
  return { path, sha256: SHA, bytes: content.length, kind: MODM_KIND, publisher: 'modm', license: 'MPL-2.0', mediaType: 'application/xml', content }
}
const el = (attrs: Record<string, string>): XmlElement => ({ name: 'device', attrs, children: [], text: '', line: 1 })
const problems = (...lines: string[]) => parseModm(art('devices/modm/x.xml', xml(...lines))).problems.map((p) => [p.line, p.reason])

describe('modm: memory facts and sizes', () => {
  const path = 'devices/modm/nrf/nrf52.XML'
  // Built in each test: a mutant that throws while building must fail tests, not their collection.
  const parsed = () => parseModm(
    art(
      path,
      xml(
        '<modm>',
        '  <device platform="nrf" family="52" name="832|840" package="xx|qf">',
        '    <naming-schema>{platform}{family}{name}_{package}</naming-schema>',
        '    <driver name="core" type="cortex-m4f">',
        '      <memory name="flash" access="rx" start="0x00000000" size="524288"/>', // 5
        '      <memory device-name="840" name="extflash" access="rx" start="0x12000000" size="134217728"/>',
        '      <memory name="ram" access="rwx" start="0x20000000" size="65536"/>',
        '      <memory name="code_ram" access="rwx" start="0x00800000" size="65536"/>',
        '      <memory device-package="qf" name="sram1" access="r" start="0X30000000" size="1024"/>',
        '    </driver>', // 10
        '    <group>',
        '      <memory device-name="840" name="lpram" start="0x40000000" size="2048"/>',
        '    </group>',
        '  </device>',
        '</modm>' // 15
      )
    )
  )

  it('every identifier of the attributes, first attribute outermost; `xx` is no package; sizes from the memories that apply', () => {
    const r = parsed()
    expect(r.problems).toStrictEqual([])
    const common = { vendor: 'Nordic Semiconductor', family: '52', flashKb: 512, sourceSha256: SHA, sourcePath: path, line: 2 }
    // RAM: ram (64 KB) + sram1 (1 KB, package qf) + lpram (2 KB, name 840); code_ram is the same RAM again, extflash not RAM.
    expect(r.partNumbers).toStrictEqual([
      { ...common, name: 'nrf52832_xx', ramKb: 64, targets: ['modm:nrf52:nrf52832_xx'] },
      { ...common, name: 'nrf52832_qf', packages: ['qf'], ramKb: 65, targets: ['modm:nrf52:nrf52832_qf'] },
      { ...common, name: 'nrf52840_xx', ramKb: 66, targets: ['modm:nrf52:nrf52840_xx'] },
      { ...common, name: 'nrf52840_qf', packages: ['qf'], ramKb: 67, targets: ['modm:nrf52:nrf52840_qf'] }
    ])
  })

  it('a fact per memory with an address and a byte size: kind by name, access letters, the element path and line', () => {
    const r = parsed()
    const target = 'modm:nrf52:nrf52840_qf'
    const rx = { read: true, write: false, execute: true }
    const rwx = { read: true, write: true, execute: true }
    const core = '/modm/device/driver[name=core]'
    expect(r.facts.filter((f) => f.target === target).map((f) => [f.name, f.value, f.evidence[0]!.locator, f.scope])).toStrictEqual([
      ['flash', { kind: 'flash', start: '0x00000000', size: 524288, access: rx }, `line 5: ${core}/memory[name=flash]`, { device: 'nrf52' }],
      ['extflash', { kind: 'other', start: '0x12000000', size: 134217728, access: rx }, `line 6: ${core}/memory[name=extflash]`, { device: 'nrf52' }],
      ['ram', { kind: 'ram', start: '0x20000000', size: 65536, access: rwx }, `line 7: ${core}/memory[name=ram]`, { device: 'nrf52' }],
      ['code_ram', { kind: 'ram', start: '0x00800000', size: 65536, access: rwx }, `line 8: ${core}/memory[name=code_ram]`, { device: 'nrf52' }],
      ['sram1', { kind: 'ram', start: '0x30000000', size: 1024, access: { read: true, write: false, execute: false } }, `line 9: ${core}/memory[name=sram1]`, { device: 'nrf52' }],
      ['lpram', { kind: 'ram', start: '0x40000000', size: 2048 }, 'line 12: /modm/device/group/memory[name=lpram]', { device: 'nrf52' }]
    ])
    const f = r.facts.find((x) => x.target === target)!
    expect(f).toMatchObject({ topic: 'memory' })
    expect(f.evidence).toStrictEqual([{ sourceSha256: SHA, sourcePath: path, locator: `line 5: ${core}/memory[name=flash]`, excerpt: '<memory name="flash" access="rx" start="0x00000000" size="524288"/>' }])
    expect(r.targets.map((t) => t.key)).toStrictEqual(['modm:nrf52:nrf52832_xx', 'modm:nrf52:nrf52832_qf', 'modm:nrf52:nrf52840_xx', 'modm:nrf52:nrf52840_qf'])
    expect(r.targets[3]).toStrictEqual({ key: target, topics: ['memory'], device: 'nrf52', sourceSha256: SHA, sourcePath: path, description: 'modm-devices nrf52: the memory of nrf52840_qf and the identifiers that share it' })
  })
})

describe('modm: memories that give no size, no region or no RAM figure', () => {
  const path = 'devices/modm/rp/rp2040.xml'
  // Built in each test: a mutant that throws while building must fail tests, not their collection.
  const parsed = () => parseModm(
    art(
      path,
      xml(
        '<modm>',
        '  <device platform="rp" name="2040" v="a|b|c|d|e">',
        '    <naming-schema>rp{name}{v}</naming-schema>',
        '    <memory device-v="a|b" name="flash" start="0x10000000" size="2097152"/>',
        '    <memory device-v="b" name="flash" start="0x10200000" size="2097152"/>', // 5
        '    <memory device-v="c" name="flash" start="0x10000000" size="2M"/>',
        '    <memory name="core0" start="0x20000000" size="4096"/>',
        '    <memory device-v="d" name="sram" size="1024"/>',
        '    <memory device-v="d" name="dtcm" start="0x1000" size="x"/>',
        '    <memory device-v="e" name="ram2" start="0x20010000" size="8192"/>', // 10
        '    <memory device-v="e" name="eeprom" start="0x0" size="256"/>',
        '  </device>',
        '</modm>'
      )
    )
  )

  it('reports sizes that are no byte count and names not known to be RAM or not', () => {
    const r = parsed()
    expect(r.problems.map((p) => [p.line, p.reason])).toStrictEqual([
      [6, 'memory flash has size "2M", not a byte count; no size it is part of'],
      [9, 'memory dtcm has size "x", not a byte count; no size it is part of'],
      [10, 'memory ram2 is not known to be RAM or not; no ramKb where it applies']
    ])
  })

  it('flash: the one flash with a size; RAM: every RAM memory with a size, nothing of unknown kind', () => {
    const r = parsed()
    const t = (x: string) => ({ targets: [`modm:rp2040:rp2040${x}`] })
    const common = { vendor: 'Raspberry Pi', sourceSha256: SHA, sourcePath: path, line: 2 }
    expect(r.partNumbers).toStrictEqual([
      { ...common, name: 'rp2040a', flashKb: 2048, ramKb: 4, ...t('a') },
      // Two flash memories: which is meant is not clear.
      { ...common, name: 'rp2040b', ramKb: 4, ...t('b') },
      // A flash of no byte count is no region; the rest (core0) is what d sees too: one target.
      { ...common, name: 'rp2040c', ramKb: 4, ...t('c') },
      { ...common, name: 'rp2040d', ...t('c') },
      { ...common, name: 'rp2040e', ...t('e') }
    ])
    expect(r.facts.map((f) => [f.target, f.name, f.value.kind, f.evidence[0]!.locator])).toStrictEqual([
      ['modm:rp2040:rp2040a', 'flash', 'flash', 'line 4: /modm/device/memory[name=flash]'],
      ['modm:rp2040:rp2040a', 'core0', 'ram', 'line 7: /modm/device/memory[name=core0]'],
      ['modm:rp2040:rp2040b', 'flash', 'flash', 'line 4: /modm/device/memory[name=flash]'],
      ['modm:rp2040:rp2040b', 'flash_2', 'flash', 'line 5: /modm/device/memory[name=flash]'],
      ['modm:rp2040:rp2040b', 'core0', 'ram', 'line 7: /modm/device/memory[name=core0]'],
      ['modm:rp2040:rp2040c', 'core0', 'ram', 'line 7: /modm/device/memory[name=core0]'],
      ['modm:rp2040:rp2040e', 'core0', 'ram', 'line 7: /modm/device/memory[name=core0]'],
      ['modm:rp2040:rp2040e', 'ram2', 'other', 'line 10: /modm/device/memory[name=ram2]'],
      ['modm:rp2040:rp2040e', 'eeprom', 'other', 'line 11: /modm/device/memory[name=eeprom]']
    ])
    // Only STM32 files are read for pins; nothing else is a target.
    expect(r.targets.map((t) => t.key)).toStrictEqual(['modm:rp2040:rp2040a', 'modm:rp2040:rp2040b', 'modm:rp2040:rp2040c', 'modm:rp2040:rp2040e'])
  })

  it('kinds of every RAM and not-RAM name; one without an address gives no fact', () => {
    const names = ['ram', 'sram', 'sram2', 'ccm', 'dtcm', 'itcm', 'd2_sram1', 'd3_sram', 'lpram', 'core1', 'backup', 'bkpsram', 'eeprom', 'xram', 'sram_a', 'flashx']
    const lines = names.map((n, i) => `    <memory name="${n}" start="0x${(i + 1).toString(16)}000" size="1024"/>`)
    const out = parseModm(art('devices/modm/avr/k.xml', xml('<modm>', '  <device platform="avr" name="k">', '    <naming-schema>{name}</naming-schema>', ...lines, '    <memory name="flash" size="8192"/>', '  </device>', '</modm>')))
    expect(Object.fromEntries(out.facts.map((f) => [f.name, f.value.kind]))).toStrictEqual({
      ram: 'ram',
      sram: 'ram',
      sram2: 'ram',
      ccm: 'ram',
      dtcm: 'ram',
      itcm: 'ram',
      d2_sram1: 'ram',
      d3_sram: 'ram',
      lpram: 'ram',
      core1: 'ram',
      backup: 'ram',
      bkpsram: 'ram',
      eeprom: 'other',
      xram: 'other',
      sram_a: 'other',
      flashx: 'other'
    })
    // The names neither RAM nor known not to be: reported, and no RAM figure; flash without an address still sized.
    expect(out.problems.map((p) => p.reason)).toStrictEqual(['xram', 'sram_a', 'flashx'].map((n) => `memory ${n} is not known to be RAM or not; no ramKb where it applies`))
    expect(out.partNumbers).toStrictEqual([{ name: 'k', vendor: 'Microchip Technology (Atmel)', flashKb: 8, targets: ['modm:k:k'], sourceSha256: SHA, sourcePath: 'devices/modm/avr/k.xml', line: 2 }])
  })
})

describe('modm: package codes and addresses', () => {
  it('a package code of x only (any case) is a placeholder; an address is 0x and hex digits, nothing else', () => {
    const r = parseModm(
      art(
        'devices/modm/nrf/n.xml',
        xml(
          '<modm>',
          '  <device platform="nrf" name="1" package="x|XX|xa|ax|qf">',
          '    <naming-schema>n{name}{package}</naming-schema>',
          '    <memory name="ram" start="0x10" size="16"/>',
          '    <memory name="sram1" start="0x100z" size="16"/>', // 5
          '    <memory name="sram2" start="100" size="16"/>',
          '    <memory name="sram3" start=" 0x10" size="16"/>',
          '    <memory name="sram4" start="a0x10" size="16"/>',
          '  </device>',
          '</modm>'
        )
      )
    )
    expect(r.problems).toStrictEqual([])
    expect(r.partNumbers!.map((p) => [p.name, p.packages])).toStrictEqual([
      ['n1x', undefined],
      ['n1XX', undefined],
      ['n1xa', ['xa']],
      ['n1ax', ['ax']],
      ['n1qf', ['qf']]
    ])
    // Only `ram` has an address; the others still count as RAM (4 x 16 bytes).
    expect(r.facts.map((f) => f.name)).toStrictEqual(['ram'])
    expect(r.partNumbers![0]!.ramKb).toBe(80 / 1024)
  })
})

describe('modm: files refused whole', () => {
  it('not one <device> in <modm>', () => {
    expect(problems('<foo/>')).toStrictEqual([[1, 'expected <modm> with one <device>, found <foo> with 0']])
    expect(problems('<foo>', '  <device platform="avr"/>', '</foo>')).toStrictEqual([[1, 'expected <modm> with one <device>, found <foo> with 0']])
    expect(problems('<modm>', '</modm>')).toStrictEqual([[1, 'expected <modm> with one <device>, found <modm> with 0']])
    expect(problems('', '<modm>', '  <device platform="avr"/>', '  <device platform="avr"/>', '</modm>')).toStrictEqual([[2, 'expected <modm> with one <device>, found <modm> with 2']])
  })

  it('no platform or an unknown one; no naming schema; a schema with a stray brace', () => {
    expect(problems('<modm>', '  <device name="1"><naming-schema>{name}</naming-schema></device>', '</modm>')).toStrictEqual([[2, 'unknown modm platform "": its vendor is not known']])
    expect(problems('<modm>', '  <device platform="sam" name="1"/>', '</modm>')).toStrictEqual([[2, 'device has no <naming-schema>']])
    expect(problems('<modm>', '  <device platform="sam" name="1">', '    <naming-schema>{a-b}</naming-schema>', '  </device>', '</modm>')).toStrictEqual([[3, 'naming schema "{a-b}" has a brace that is not part of a {key} placeholder']])
    expect(problems('<modm>', '  <device platform="sam" name="1">', '    <naming-schema>x{}</naming-schema>', '  </device>', '</modm>')).toStrictEqual([[3, 'naming schema "x{}" has a brace that is not part of a {key} placeholder']])
    const none = parseModm(art('devices/modm/x.xml', '<modm>\n  <device platform="sam" name="1"/>\n</modm>'))
    expect(none.partNumbers).toBeUndefined()
    expect(none.targets).toStrictEqual([])
  })
})

describe('modm: identifiers by modm rules', () => {
  it('the naming schema: literal parts and {key} placeholders; an absent key formats as nothing', () => {
    expect(parseSchema('at{family}{name}-x')).toStrictEqual(['at', { key: 'family' }, { key: 'name' }, '-x'])
    expect(parseSchema('')).toStrictEqual([])
    expect(parseSchema('a}')).toBeUndefined()
    expect(parseSchema('{a')).toBeUndefined()
    expect(format(parseSchema('at{family}{name}-x')!, new Map([['name', '84']]))).toBe('at84-x')
  })

  it('the product of the attribute values, first attribute outermost, and its size', () => {
    const d = el({ a: '1|2', b: 'x|y|z' })
    expect(product(d).map((id) => [...id.entries()])).toStrictEqual([
      [['a', '1'], ['b', 'x']],
      [['a', '1'], ['b', 'y']],
      [['a', '1'], ['b', 'z']],
      [['a', '2'], ['b', 'x']],
      [['a', '2'], ['b', 'y']],
      [['a', '2'], ['b', 'z']]
    ])
    expect(productSize(d)).toBe(6)
    expect(productSize(el({}))).toBe(1)
    expect(product(el({})).map((id) => id.size)).toStrictEqual([0])
  })

  it('device-* filters: key to values; an identifier matches when it has every key with one of the values', () => {
    const f = filtersOf(el({ 'device-pin': 'c|r', name: 'flash', 'xdevice-size': '4', 'device-size': '8' }))
    expect(f).toStrictEqual([
      ['pin', ['c', 'r']],
      ['size', ['8']]
    ])
    expect(matches(f, new Map([['pin', 'r'], ['size', '8']]))).toBe(true)
    expect(matches(f, new Map([['pin', 'v'], ['size', '8']]))).toBe(false)
    expect(matches(f, new Map([['pin', 'c']]))).toBe(false)
    expect(matches([], new Map())).toBe(true)
  })

  it('invalid-device names are dropped; with valid-device only those are kept, each at its line', () => {
    const r = parseModm(
      art(
        'devices/modm/sam/samq.xml',
        xml(
          '<modm>',
          '  <device platform="sam" pin="e|g|j" package="a">',
          '    <naming-schema>samq{pin}-{package}</naming-schema>',
          '    <invalid-device>samqe-a</invalid-device>',
          '    <valid-device>samqj-a</valid-device>', // 5
          '    <valid-device>samqe-a</valid-device>',
          '  </device>',
          '</modm>'
        )
      )
    )
    expect(r.partNumbers!.map((p) => [p.name, p.line])).toStrictEqual([['samqj-a', 5]])
    expect(r.problems.map((p) => [p.line, p.reason])).toStrictEqual([[6, 'valid-device samqe-a is not one of the names the device attributes and naming schema give']])
    const noValid = parseModm(art('devices/modm/sam/samq.xml', xml('<modm>', '  <device platform="sam" pin="e|g|j" package="a">', '    <naming-schema>samq{pin}-{package}</naming-schema>', '    <invalid-device>samqe-a</invalid-device>', '  </device>', '</modm>')))
    expect(noValid.partNumbers!.map((p) => [p.name, p.line, p.packages, p.vendor])).toStrictEqual([
      ['samqg-a', 2, ['a'], 'Microchip Technology (Atmel)'],
      ['samqj-a', 2, ['a'], 'Microchip Technology (Atmel)']
    ])
  })
})

describe('modm: STM32 pins', () => {
  const path = 'devices/modm/stm32/stm32q0-31.xml'
  // Built in each test: a mutant that throws while building must fail tests, not their collection.
  const parsed = () => parseModm(
    art(
      path,
      xml(
        '<modm>',
        '  <device platform="stm32" family="q0" name="31" pin="k" size="6" package="t|u" temperature="6|7">',
        '    <naming-schema>{platform}{family}{name}{pin}{size}{package}{temperature}</naming-schema>',
        '    <driver name="rcc"/>',
        '    <driver name="gpio" type="stm32-f0">', // 5
        '      <gpio port="a" pin="0">',
        '        <signal af="2" driver="tim" instance="2" name="ch1"/>',
        '        <signal af="02" driver="tim" instance="2" name="ch1"/>',
        '        <signal af="1" driver="usart" instance="2" name="cts"/>',
        '        <signal af="1" driver="cec" name="cec"/>', // 10
        '        <note/>',
        '      </gpio>',
        '      <gpio port="a" pin="0" device-package="u">',
        '        <signal af="0" driver="sys" name="wkup"/>',
        '      </gpio>', // 15
        '      <gpio port="b" pin="7">',
        '        <signal driver="adc" instance="1" name="in7"/>',
        '      </gpio>',
        '      <gpio port="c" pin="13" device-temperature="7">',
        '        <signal af="3" driver="rtc" name="tamp1"/>', // 20
        '      </gpio>',
        '      <package device-package="t" name="LQFP32">',
        '        <pin position="6" name="PA0"/>',
        '        <pin position="7" name="PA0"/>',
        '        <pin position="8" name="PB7"/>', // 25
        '        <pin position="9" name="PF0-OSC_IN"/>',
        '        <pin position="10" name="NRST"/>',
        '        <pin position="6" name="PA0 [PA11]"/>',
        '      </package>',
        '      <package device-package="u" name="UFQFPN20">', // 30
        '        <pin position="3" name="VDD"/><other position="11" name="PA1"/>',
        '      </package>',
        '    </driver>',
        '    <driver name="gpio2">',
        '      <gpio port="a" pin="0"><signal af="9" driver="tim" instance="9" name="ch1"/></gpio>', // 35: not the gpio driver
        '    </driver>',
        '  </device>',
        '</modm>'
      )
    )
  )
  const key = 'modm:stm32q0-31:pins:stm32q031k6t6'
  const G = '/modm/device/driver[name=gpio]'
  const P = `${G}/package[name=LQFP32]`
  const loc = (e: { locator: string }) => e.locator

  it('a target per package and the signals that tell identifiers apart (PC13 is on no pin of LQFP32: no split)', () => {
    const r = parsed()
    expect(r.problems).toStrictEqual([])
    expect(r.targets).toStrictEqual([{ key, topics: ['pins'], device: 'stm32q0-31', sourceSha256: SHA, sourcePath: path, packages: ['LQFP32'], description: 'modm-devices stm32q0-31: the LQFP32 pins of stm32q031k6t6, stm32q031k6t7' }])
    const common = { vendor: 'STMicroelectronics', family: 'q0', sourceSha256: SHA, sourcePath: path, line: 2 }
    expect(r.partNumbers).toStrictEqual([
      { ...common, name: 'stm32q031k6t6', packages: ['t'], targets: [key] },
      { ...common, name: 'stm32q031k6t7', packages: ['t'], targets: [key] },
      // UFQFPN20 has no GPIO pin: no facts, no target.
      { ...common, name: 'stm32q031k6u6', packages: ['u'] },
      { ...common, name: 'stm32q031k6u7', packages: ['u'] }
    ])
  })

  it('a fact per GPIO pin of the package: pads, signals once each, AFs by number then name, evidence of pads, gpio and AF signals', () => {
    const r = parsed()
    const scope = { device: 'stm32q0-31', parts: ['stm32q031k6t6', 'stm32q031k6t7'], package: 'LQFP32' }
    expect(r.facts.map((f) => [f.target, f.topic, f.name, f.value, f.scope, f.peripherals, f.evidence.map(loc)])).toStrictEqual([
      [
        key,
        'pins',
        'PA0',
        {
          label: 'PA0',
          package: 'LQFP32',
          position: '6',
          positions: ['6', '7'],
          type: 'I/O',
          signals: ['CEC_CEC', 'TIM2_CH1', 'USART2_CTS'],
          alternateFunctions: [
            { af: 1, signal: 'CEC_CEC' },
            { af: 1, signal: 'USART2_CTS' },
            { af: 2, signal: 'TIM2_CH1' }
          ]
        },
        scope,
        ['CEC', 'TIM2', 'USART2'],
        [
          `line 23: ${P}/pin[position=6]`,
          `line 24: ${P}/pin[position=7]`,
          `line 28: ${P}/pin[position=6]`,
          `line 6: ${G}/gpio[port=a][pin=0]`,
          `line 7: ${G}/gpio[port=a][pin=0]/signal[TIM2_CH1]`,
          `line 8: ${G}/gpio[port=a][pin=0]/signal[TIM2_CH1]`,
          `line 9: ${G}/gpio[port=a][pin=0]/signal[USART2_CTS]`,
          `line 10: ${G}/gpio[port=a][pin=0]/signal[CEC_CEC]`
        ]
      ],
      [key, 'pins', 'PB7', { label: 'PB7', package: 'LQFP32', position: '8', positions: ['8'], type: 'I/O', signals: ['ADC1_IN7'], alternateFunctions: [] }, scope, ['ADC1'], [`line 25: ${P}/pin[position=8]`, `line 16: ${G}/gpio[port=b][pin=7]`]],
      [key, 'pins', 'PF0', { label: 'PF0-OSC_IN', package: 'LQFP32', position: '9', positions: ['9'], type: 'I/O', signals: [], alternateFunctions: [] }, scope, undefined, [`line 26: ${P}/pin[position=9]`]]
    ])
    expect(r.facts[0]!.evidence[4]).toStrictEqual({ sourceSha256: SHA, sourcePath: path, locator: `line 7: ${G}/gpio[port=a][pin=0]/signal[TIM2_CH1]`, excerpt: '<signal af="2" driver="tim" instance="2" name="ch1"/>' })
  })

  it('ST spelling of a modm signal', () => {
    expect(stSignal({ driver: 'usart', instance: '1', name: 'tx' })).toStrictEqual({ peripheral: 'USART1', signal: 'USART1_TX' })
    expect(stSignal({ driver: 'i2s', instance: '2', name: 'ext_sd' })).toStrictEqual({ peripheral: 'I2S2', signal: 'I2S2_ext_SD' })
    expect(stSignal({ driver: 'i2s', instance: '2', name: 'sd_ext_x' })).toStrictEqual({ peripheral: 'I2S2', signal: 'I2S2_SD_EXT_X' })
    expect(stSignal({ driver: 'rtc', name: 'tamp1' })).toStrictEqual({ peripheral: 'RTC', signal: 'RTC_TAMP1' })
    expect(stSignal({})).toStrictEqual({ peripheral: '', signal: '_' })
  })

  it('a signal another size has is not the pin\'s; an identifier two packages admit, or none, has no pins', () => {
    const out = parseModm(
      art(
        path,
        xml(
          '<modm>',
          '  <device platform="stm32" family="q0" name="31" size="4|6|8" package="t">',
          '    <naming-schema>{platform}{family}{name}{size}{package}</naming-schema>',
          '    <driver name="gpio">',
          '      <gpio port="a" pin="1">', // 5
          '        <signal device-size="6" af="4" driver="tim" instance="15" name="ch1n"/>',
          '      </gpio>',
          '      <package device-size="4|6" name="SO8">',
          '        <pin position="1" name="PA1"/>',
          '      </package>', // 10
          '      <package device-size="6" name="SO8N">',
          '        <pin position="2" name="PA1"/>',
          '      </package>',
          '    </driver>',
          '  </device>', // 15
          '</modm>'
        )
      )
    )
    expect(out.problems.map((p) => [p.line, p.reason])).toStrictEqual([[11, 'identifier stm32q0316t matches packages SO8, SO8N; which it has is not clear, no pins for it']])
    expect(out.targets.map((t) => t.key)).toStrictEqual(['modm:stm32q0-31:pins:stm32q0314t'])
    expect(out.facts.map((f) => [f.name, f.value.signals])).toStrictEqual([['PA1', []]])
  })
})

describe('modm: what the pins reader leaves out', () => {
  it('AFs that are not whole numbers, elements of the gpio driver other than gpio and package, a group named gpio, pins named like GPIOs', () => {
    const path = 'devices/modm/stm32/stm32q0-1.xml'
    const r = parseModm(
      art(
        path,
        xml(
          '<modm>',
          '  <device platform="stm32" family="q0" name="1" package="t">',
          '    <naming-schema>{platform}{family}{name}{package}</naming-schema>',
          '    <driver name="core">',
          '      <memory name="ram" access="wx" start="0x20000000" size="1024"/>', // 5
          '    </driver>',
          '    <driver name="gpio">',
          '      <note name="x"/>',
          '      <gpio port="a" pin="1">',
          '        <signal af="3" driver="can" instance="1" name="rx"/>', // 10
          '        <signal af="3" driver="tim" instance="2" name="ch2"/>',
          '        <signal af="x7" driver="tim" instance="3" name="ch1"/>',
          '        <signal af="7x" driver="tim" instance="4" name="ch1"/>',
          '      </gpio>',
          '      <package name="SO8">', // 15
          '        <pin position="1" name="PA1"/>',
          '        <pin position="2" name="XPA2"/>',
          '      </package>',
          '    </driver>',
          '    <group name="gpio"><package name="SO8B"><pin position="1" name="PA1"/></package></group>', // 20
          '  </device>',
          '</modm>'
        )
      )
    )
    expect(r.problems.map((p) => [p.line, p.reason])).toStrictEqual([
      [12, 'signal with af "x7", not an AF number; left out'],
      [13, 'signal with af "7x", not an AF number; left out']
    ])
    expect(r.facts.map((f) => [f.topic, f.name, f.value])).toStrictEqual([
      ['memory', 'ram', { kind: 'ram', start: '0x20000000', size: 1024, access: { read: false, write: true, execute: true } }],
      [
        'pins',
        'PA1',
        {
          label: 'PA1',
          package: 'SO8',
          position: '1',
          positions: ['1'],
          type: 'I/O',
          signals: ['CAN1_RX', 'TIM2_CH2'],
          alternateFunctions: [
            { af: 3, signal: 'CAN1_RX' },
            { af: 3, signal: 'TIM2_CH2' }
          ]
        }
      ]
    ])
  })
})

describe('modm: the adapter', () => {
  it('one unit per file; every file parsed in order', () => {
    const a = art('devices/modm/a.xml', '<modm>\n  <device platform="avr" name="a"><naming-schema>{name}</naming-schema></device>\n</modm>')
    const b = art('devices/modm/b.xml', '<foo/>')
    expect(modmAdapter.units!([a, b])).toStrictEqual([[a], [b]])
    const r = modmAdapter.parse([a, b])
    expect(r.partNumbers!.map((p) => p.name)).toStrictEqual(['a'])
    expect(r.problems.map((p) => p.file)).toStrictEqual(['devices/modm/b.xml'])
    expect([modmAdapter.name, modmAdapter.kinds]).toStrictEqual(['modm-devices', ['modm-device']])
  })
})

// Last: 100,000 identifiers take about a second and a half.
describe('modm: the bound on combinations', () => {
  it('exactly 100,000 combinations are expanded; one more factor is not', () => {
    // 10^5 = 100,000: at the bound. The schema names none of them: every identifier is the same name.
    const attrs = 'abcde'.split('').map((k) => `${k}="0|1|2|3|4|5|6|7|8|9"`).join(' ')
    const at = problems('<modm>', `  <device platform="avr" ${attrs}>`, '    <naming-schema>x</naming-schema>', '  </device>', '</modm>')
    expect(at).toHaveLength(99_999)
    expect(new Set(at.map((p) => JSON.stringify(p)))).toStrictEqual(new Set([JSON.stringify([2, 'identifier x comes from two combinations of the device attributes; the first is kept'])]))
    expect(problems('<modm>', `  <device platform="avr" ${attrs} f="1|2">`, '    <naming-schema>x</naming-schema>', '  </device>', '</modm>')).toStrictEqual([[2, 'device attributes make 200000 combinations, more than 100000; not expanded']])
  })
})
